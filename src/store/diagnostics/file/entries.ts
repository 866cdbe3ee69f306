// Checks of each index entry against the sessions dir: malformed rows, missing ids and timestamps, shared session ids,
// moved or missing transcripts; then the transcripts it found go to the contents and orphan checks.
import fs from 'node:fs'
import path from 'node:path'

import {NotRegularFileError} from '../../../os/safe-open.js'
import {clause} from '../../../text/sentence.js'
import {finiteNumber} from '../../../util/values.js'
import {isEntryObject} from '../../file/index-scan.js'
import {buildMainSessionKey} from '../../session-key.js'
import type {SessionEntry} from '../../types.js'
import {hasNoTurns, type StoreContext} from '../context.js'
import {finding} from '../finding.js'
import type {PlannedFinding} from '../types.js'
import {checkOrphans} from './orphans.js'
import {resolveFromScan} from './scan.js'
import {inspectTranscriptSync} from './transcript-scan.js'
import {checkTranscriptContents, notAFile} from './transcripts.js'

/** The start of a value as JSON; a value nested too deeply for JSON.stringify (thousands of levels) says so instead. */
function jsonPreview(v: unknown, max: number): string {
  try {
    return JSON.stringify(v)?.slice(0, max) ?? String(v)
  } catch {
    return Array.isArray(v) ? 'an array nested thousands of levels deep' : 'a value nested thousands of levels deep'
  }
}

export async function checkEntries(c: StoreContext): Promise<void> {
  const {scan, out, opts, state} = c
  const data = scan.data
  const agentId = scan.agentId
  const referenced = new Set<string>()
  const mainKeys = new Set(scan.agentIds.map((id) => (state.config.session?.scope === 'global' ? 'global' : state.config.session?.mainKey ? `agent:${id}:${String(state.config.session.mainKey).toLowerCase()}` : buildMainSessionKey(id))))
  // The first key of each session id, and every key only for ids used more than once: 10 000 entries, few duplicates.
  const firstKeyBySid = new Map<string, string>()
  const keysBySharedSid = new Map<string, string[]>()
  const toInspect: {key: string; entry: SessionEntry; file: string; size: number; main: boolean}[] = []
  /** Entries whose transcript is missing, by sessionId: an orphan carrying that id is their file under another name. */
  const missingBySid = new Map<string, {f: PlannedFinding; stored: unknown}>()
  if (data) {
    for (const key of Object.keys(data)) {
      const entry = data[key]
      if (!isEntryObject(entry)) {
        out.push(finding({id: 'entry-malformed', severity: 'error', agentId, path: scan.storePath, message: `Index entry "${key}" is not an object (${jsonPreview(entry, 60)}); OpenClaw ignores it. Remove it by hand from sessions.json (doctor does not drop index data).`, key}))
        continue
      }
      const sid = typeof entry.sessionId === 'string' ? entry.sessionId.trim() : ''
      if (!sid) {
        out.push(finding({id: 'entry-missing-session-id', severity: 'error', agentId, path: scan.storePath, message: `Index entry "${key}" has no sessionId, so it has no transcript. Run "clawkit sessions reset ${key}" to give it a fresh session.`, key}))
        continue
      }
      const first = firstKeyBySid.get(sid)
      if (first === undefined) firstKeyBySid.set(sid, key)
      else {
        const keys = keysBySharedSid.get(sid)
        if (keys) keys.push(key)
        else keysBySharedSid.set(sid, [first, key])
      }
      let resolved
      try {
        resolved = resolveFromScan(scan, entry, key)
      } catch (error) {
        out.push(finding({id: 'entry-missing-session-id', severity: 'error', agentId, path: scan.storePath, message: `Index entry "${key}": ${clause((error as Error).message)}. Run "clawkit sessions reset ${key}" to give it a valid session id.`, key}))
        continue
      }
      const base = path.basename(resolved.path)
      referenced.add(base)
      const isMain = mainKeys.has(key)
      if (typeof entry.updatedAt !== 'number' || !Number.isFinite(entry.updatedAt)) {
        const t = resolved.exists ? scan.byName.get(base) : undefined
        const value = Math.round(t?.mtimeMs ?? (finiteNumber(entry.sessionStartedAt) ?? opts.now))
        out.push(
          finding({
            id: 'entry-missing-updated-at',
            severity: 'warn',
            agentId,
            path: scan.storePath,
            message: `Index entry "${key}" has no valid updatedAt: it sorts last, and OpenClaw's maintenance caps evict it first. --fix sets it to ${new Date(value).toISOString()} (${t ? 'the transcript\'s last write' : 'its start time'}).`,
            action: `set updatedAt to ${value}`,
            key,
            repair: {
              kind: 'index',
              storePath: scan.storePath,
              agentId,
              edit: (d) => {
                const e = d[key]
                if (!isEntryObject(e) || (typeof e.updatedAt === 'number' && Number.isFinite(e.updatedAt))) return false
                e.updatedAt = value
                return true
              },
            },
          }),
        )
      }
      if (resolved.location === 'relocated') {
        const stored = resolved.storedSessionFile!
        const local = resolved.path
        out.push(
          finding({
            id: 'session-file-relocated',
            severity: 'warn',
            agentId,
            path: local,
            message: `Entry "${key}" stores sessionFile ${stored}, outside this sessions dir (the state dir was moved or copied); the transcript is here. OpenClaw would read and append to the old path. --fix rewrites sessionFile to ${local}.`,
            action: 'rewrite sessionFile to the local path',
            key,
            details: {storedSessionFile: stored},
            repair: {
              kind: 'index',
              storePath: scan.storePath,
              agentId,
              edit: (d, live) => {
                const e = d[key]
                if (!isEntryObject(e) || e.sessionFile !== stored) return false
                if (!live.isLiveTranscript(local)) return `${path.basename(local)} was moved or removed meanwhile; left the entry alone`
                e.sessionFile = local
                return true
              },
            },
          }),
        )
      }
      if (!resolved.exists) {
        const foreign = resolved.storedSessionFile && path.isAbsolute(resolved.storedSessionFile) && fs.existsSync(resolved.storedSessionFile) ? resolved.storedSessionFile : undefined
        if (foreign) {
          out.push(finding({id: 'session-file-foreign', severity: 'error', agentId, path: foreign, message: `Entry "${key}" points at ${foreign}, outside this sessions dir (another state dir?), and there is no copy here. Copy that file to ${resolved.path} and run "clawkit doctor --fix" to point the entry at it.`, key, details: {expected: resolved.path}}))
        } else if (hasNoTurns(entry)) {
          out.push(finding({id: 'transcript-not-started', severity: 'info', agentId, path: resolved.path, message: `Entry "${key}" has no transcript yet and no turns recorded (new or just reset); the file is created on the next turn.`, key}))
        } else if (isMain) {
          out.push(finding({id: 'main-transcript-missing', severity: 'error', agentId, path: resolved.path, message: `Main session transcript missing for "${key}": its history will appear to reset on the next turn. Restore ${path.basename(resolved.path)} from a backup if you have one; otherwise "clawkit sessions reset ${key}" starts it cleanly.`, key}))
          missingBySid.set(sid, {f: out[out.length - 1], stored: entry.sessionFile})
        } else {
          out.push(finding({id: 'transcript-missing', severity: 'error', agentId, path: resolved.path, message: `Transcript missing for "${key}" (session ${sid}): its history is gone from this dir. Restore the file from a backup, or run "clawkit sessions reset ${key}" to start the session cleanly.`, key}))
          missingBySid.set(sid, {f: out[out.length - 1], stored: entry.sessionFile})
        }
        continue
      }
      // The cheap pass (status) looks only at main transcripts.
      if (!opts.cheap || isMain) toInspect.push({key, entry, file: resolved.path, size: scan.byName.get(base)?.size ?? 0, main: isMain})
    }
    // In the order the ids first appear in the index.
    for (const sid of keysBySharedSid.size > 0 ? firstKeyBySid.keys() : []) {
      const keys = keysBySharedSid.get(sid)
      if (keys) out.push(finding({id: 'duplicate-session-id', severity: 'warn', agentId, path: scan.storePath, message: `Session id ${sid} is used by ${keys.length} entries (${keys.join(', ')}): they write into the same transcript and reset each other. Run "clawkit sessions reset <key>" on all but one.`, details: {sessionId: sid, keys}}))
    }
  }

  if (!opts.cheap) {
    const inspections = toInspect.map((t) => {
      try {
        return inspectTranscriptSync(t.file, {deep: opts.deep, size: t.size})
      } catch (error) {
        if (error instanceof NotRegularFileError) out.push(notAFile(agentId, error, t.key))
        return undefined
      }
    })
    toInspect.forEach((t, i) => {
      const ins = inspections[i]
      if (ins) checkTranscriptContents(c, t.key, t.entry, t.file, ins, t.main)
    })
  } else {
    for (const t of toInspect) if (t.main && t.size === 0 && !hasNoTurns(t.entry)) out.push(finding({id: 'main-transcript-header-only', severity: 'warn', agentId, path: t.file, message: `Main session transcript for "${t.key}" is empty: session history may not be appending.`, key: t.key}))
  }

  await checkOrphans(c, {referenced, missingBySid, firstKeyBySid})
}
