// Checks of sessions.json as a file: unparseable, unreadable, a byte order mark OpenClaw 2026.4.27 would read as an
// empty index, and temp files left by interrupted writes.
import {clause} from '../../../text/sentence.js'
import type {StoreContext} from '../context.js'
import {finding} from '../finding.js'
import {archiveTmp, recoverStore, removeStoreBom} from './repairs.js'

/** A leftover temp file younger than this may be a write in progress. */
const TMP_GRACE_MS = 5 * 60 * 1000

export function checkIndexFile(c: StoreContext): void {
  const {scan, out} = c
  const agentId = scan.agentId
  if (scan.storeError) {
    const sources = scan.backups.length + scan.tmps.length
    out.push(
      finding({
        id: 'store-corrupt',
        severity: 'error',
        agentId,
        path: scan.storePath,
        message: `${clause(scan.storeError.message.replace(/ The file was left untouched.*$/, ''))}. Every session of this store is invisible until it is repaired. --fix keeps the broken file as sessions.json.bak.<ms>, restores the newest valid ${sources > 0 ? `of ${sources} backup/temp file(s)` : 'backup (none found: an empty index)'}, then re-indexes the transcripts on disk.`,
        action: 'restore from the newest valid backup, then re-index transcripts',
        repair: {kind: 'store-recover', run: () => recoverStore(scan.storePath)},
      }),
    )
  }
  if (scan.storeBom && !scan.storeError) {
    out.push(
      finding({
        id: 'store-bom',
        severity: 'warn',
        agentId,
        path: scan.storePath,
        message: `sessions.json starts with a UTF-8 byte order mark (an editor added it). clawkit reads past it, but OpenClaw 2026.4.27 reads such an index as empty and overwrites it on its next save, losing every entry. --fix removes those 3 bytes and nothing else (the original is kept as sessions.json.bak.<ms>).`,
        action: 'remove the byte order mark',
        repair: {kind: 'store-recover', run: () => removeStoreBom(scan.storePath)},
      }),
    )
  }
  if (scan.readError) {
    out.push(finding({id: 'store-unreadable', severity: 'error', agentId, path: scan.storePath, message: `sessions.json cannot be read (${scan.readError}); its sessions are invisible. Fix its ownership or permissions (sudo chown $USER "${scan.storePath}"; chmod 600).`}))
  }
  for (const t of scan.tmps) {
    const young = c.opts.now - t.mtimeMs < TMP_GRACE_MS
    if (young) {
      out.push(finding({id: 'store-tmp-leftover', severity: 'info', agentId, path: t.path, message: `A sessions.json temp file from the last ${Math.round(TMP_GRACE_MS / 60000)} minutes: probably a write in progress. Run doctor again later if it stays.`}))
      continue
    }
    out.push(finding({id: 'store-tmp-leftover', severity: 'warn', agentId, path: t.path, message: `Leftover temp file from an interrupted sessions.json write. ${scan.storeError ? 'It is a recovery candidate for the broken index. ' : ''}--fix renames it to *.deleted.<ts> (kept, not deleted).`, action: 'rename to *.deleted.<ts>', repair: scan.storeError ? undefined : {kind: 'archive', run: () => archiveTmp(t.path, scan.storePath)}}))
  }
}
