// Doctor's repairs: each one backs up what it changes first, works under OpenClaw's locks, and never drops data.
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {fileError} from '../../../errors.js'
import {readRegularFile} from '../../../os/safe-open.js'
import {startsWithBom, UTF8_BOM} from '../../../text/bom.js'
import {lineRanges} from '../../file/line-reader.js'
import {parseStoreText, readStoreFile, serializeStore, STORE_FILE} from '../../file/store.js'
import {TRANSCRIPT_FILE} from '../../file/transcript.js'
import {archiveTimestamp, writeFileAtomic} from '../../fs-util.js'
import {emptyStoreData} from '../../index-data.js'
import {isBlankLine, parseLine} from '../../lines.js'
import {inspectLock, LOCK_SCRATCH_RE, lockHolderPid, lockScratchIsLeftover, reclaimStaleLock, withLock} from '../../lock.js'
import {openSessionStore} from '../../state.js'
import {CURRENT_TRANSCRIPT_VERSION} from '../../transcript-types.js'
import type {SessionStoreData} from '../../types.js'
import type {LiveStore} from '../types.js'
import {liveStore} from './live.js'
import {inspectTranscript} from './transcript-scan.js'

/** `sessions.json.bak.<ms>`, OpenClaw's rotation name, never overwriting an existing backup. */
export function storeBackupPath(storePath: string, now = Date.now()): string {
  let ms = now
  while (fs.existsSync(`${storePath}.bak.${ms}`)) ms++
  return `${storePath}.bak.${ms}`
}

/** `<file>.<reason>.<ISO with : → ->`, OpenClaw's archive name (unique even within one millisecond). */
export function archivePath(file: string, reason: 'deleted' | 'bak', date = new Date()): string {
  let d = date
  while (fs.existsSync(`${file}.${reason}.${archiveTimestamp(d)}`)) d = new Date(d.getTime() + 1)
  return `${file}.${reason}.${archiveTimestamp(d)}`
}

export async function chmodPath(p: string, mode: number): Promise<string> {
  // chmod follows symlinks: a link planted in the state dir must never let a repair change a file elsewhere. A skip is
  // a failed repair (the finding stays open, with this reason), never a reported fix.
  if ((await fsp.lstat(p)).isSymbolicLink()) throw new Error(`not changed: ${p} is a symbolic link; doctor does not write through links`)
  await fsp.chmod(p, mode)
  return `chmod ${mode.toString(8)} ${p}`
}

/** Remove a lock only if it is still the same stale lock (a live process may have taken a new one since). */
export async function clearStaleLock(lockPath: string): Promise<string> {
  const info = inspectLock(lockPath)
  if (!info) return `${lockPath} was already gone`
  if (!info.stale) throw new Error(`${lockPath} is held by a live process now (pid ${lockHolderPid(info) ?? 'unknown'}); left alone`)
  if (!reclaimStaleLock(lockPath, info)) throw new Error(`${lockPath} changed while being removed; run doctor again`)
  return `removed ${lockPath}`
}

/** Remove a lock scratch file left by a killed process; re-checked here because --fix may run much later. */
export async function removeLockScratch(file: string, now = Date.now()): Promise<string> {
  const m = LOCK_SCRATCH_RE.exec(path.basename(file))
  if (!m) throw new Error(`${file} is not a lock scratch file; left alone`)
  let st: fs.Stats
  try {
    st = fs.lstatSync(file)
  } catch {
    return `${file} was already gone`
  }
  if (!st.isFile()) throw new Error(`${file} is not a regular file; left alone`)
  if (!lockScratchIsLeftover(Number(m[1]), now - st.mtimeMs)) throw new Error(`${file} belongs to a lock being taken right now; left alone`)
  await fsp.rm(file, {force: true})
  return `removed ${file}`
}

/**
 * Replace an unparseable sessions.json: the broken bytes go to `sessions.json.bak.<ms>` first, then the newest
 * backup or leftover temp file that parses becomes the index (an empty index when none does; the transcripts are
 * re-indexed by the next pass). Runs under sessions.json.lock and re-checks inside it.
 */
export async function recoverStore(storePath: string): Promise<string> {
  return withLock(storePath, async () => {
    let text: string
    try {
      text = (await readRegularFile(storePath, STORE_FILE)).toString('utf8')
    } catch {
      text = ''
    }
    try {
      parseStoreText(text, storePath)
      return 'the index parses again (another process repaired it); nothing to do'
    } catch {}
    const dir = path.dirname(storePath)
    const base = path.basename(storePath)
    const candidates = fs
      .readdirSync(dir)
      // A lock scratch file (sessions.json.lock.<pid>.<hex>.tmp) parses as an object too, but holds a pid, not sessions.
      .filter((n) => n.startsWith(`${base}.bak.`) || (n.startsWith(`${base}.`) && n.endsWith('.tmp') && !LOCK_SCRATCH_RE.test(n)))
      .map((n) => {
        const p = path.join(dir, n)
        const bakMs = /\.bak\.(\d+)$/.exec(n)
        return {p, t: bakMs ? Number(bakMs[1]) : fs.statSync(p).mtimeMs}
      })
      .sort((a, b) => b.t - a.t)
    let source: string | undefined
    let recovered: SessionStoreData = emptyStoreData()
    for (const c of candidates) {
      try {
        // A FIFO or device named like a backup must not hang the repair: regular files only.
        recovered = parseStoreText((await readRegularFile(c.p, STORE_FILE)).toString('utf8'), c.p)
        source = c.p
        break
      } catch {}
    }
    const backup = storeBackupPath(storePath)
    if (fs.existsSync(storePath)) {
      await fsp.copyFile(storePath, backup, fs.constants.COPYFILE_EXCL)
      await fsp.chmod(backup, 0o600)
    }
    await writeFileAtomic(storePath, serializeStore(recovered, storePath))
    const kept = fs.existsSync(backup) ? `; the broken file is kept as ${backup}` : ''
    return source
      ? `restored the index from ${source} (${Object.keys(recovered).length} entries)${kept}`
      : `no valid backup found: started an empty index; transcripts on disk are re-indexed next${kept}`
  })
}

/**
 * Drop a leading UTF-8 byte order mark from sessions.json, under its lock, re-checked there: only those 3 bytes go
 * (every other byte stays), after the original is copied to `sessions.json.bak.<ms>`. A file that does not parse
 * without the BOM is left to the store-corrupt repair.
 */
export async function removeStoreBom(storePath: string): Promise<string> {
  return withLock(storePath, async () => {
    const buf = await readRegularFile(storePath, STORE_FILE)
    if (!startsWithBom(buf)) return 'no byte order mark any more; nothing to do'
    parseStoreText(buf.toString('utf8'), storePath)
    const backup = storeBackupPath(storePath)
    await writeFileAtomic(backup, buf)
    await writeFileAtomic(storePath, buf.subarray(UTF8_BOM.length))
    return `removed the byte order mark; the original is kept as ${backup}`
  })
}

/**
 * Apply index edits in one read-modify-write under sessions.json.lock. The current file is copied to
 * `sessions.json.bak.<ms>` inside the lock, before the new content is written, and only when something changes.
 */
export async function applyIndexEdits(storePath: string, agentId: string, edits: ((data: SessionStoreData, live: LiveStore) => boolean)[]): Promise<{changed: boolean; backup?: string}> {
  const store = openSessionStore({agentId, path: storePath})
  return store.update(async (data) => {
    let changed = false
    const live = liveStore(path.dirname(storePath), data)
    for (const edit of edits) changed = edit(data, live) || changed
    if (!changed) return {changed}
    const before = await readStoreFile(storePath)
    if (!before.exists || before.text === undefined) return {changed}
    const backup = storeBackupPath(storePath)
    await writeFileAtomic(backup, before.text)
    return {changed, backup}
  })
}

/** Under the store lock no writer is between creating its temp file and renaming it, so what is left is a leftover. */
export async function archiveTmp(file: string, storePath: string): Promise<string> {
  return withLock(storePath, async () => {
    if (!fs.lstatSync(file, {throwIfNoEntry: false})?.isFile()) return `${path.basename(file)} is gone already; nothing to do`
    const dest = archivePath(file, 'deleted')
    await fsp.rename(file, dest)
    return `renamed to ${dest}`
  })
}

interface LinePlan {
  keep: Buffer[]
  dropped: number
  hasHeader: boolean
  firstTimestamp?: string
}

function planLines(buf: Buffer): LinePlan {
  const plan: LinePlan = {keep: [], dropped: 0, hasHeader: false}
  let sawFirstObject = false
  const {starts, ends} = lineRanges(buf)
  for (let i = 0; i < starts.length; i++) {
    const text = buf.toString('utf8', starts[i], ends[i])
    if (isBlankLine(text)) continue
    const o = parseLine(text, starts[i], 0, false).value as Record<string, unknown> | undefined
    if (!o) {
      plan.dropped++
      continue
    }
    if (!sawFirstObject) {
      sawFirstObject = true
      plan.hasHeader = o.type === 'session' && typeof o.id === 'string'
    }
    if (!plan.firstTimestamp && typeof o.timestamp === 'string') plan.firstTimestamp = o.timestamp
    // Kept byte for byte, as read.
    plan.keep.push(buf.subarray(starts[i], ends[i]))
  }
  return plan
}

/**
 * Repair a transcript under its lock. A torn last line (or any unparseable tail) is moved byte for byte into
 * `<file>.bak.<ts>` and cut off; a missing final newline is added; unparseable lines elsewhere or a missing header
 * mean a whole-file rewrite, after copying the original to `<file>.bak.<ts>`. Parseable lines are kept verbatim.
 */
export async function repairTranscript(file: string, opts: {sessionId: string; cwd: string}): Promise<{action: string; backup?: string}> {
  return withLock(file, async () => {
    // Planned from a scan without the lock: a reset may have archived the file since.
    if (!fs.lstatSync(file, {throwIfNoEntry: false})?.isFile()) throw new Error(`${path.basename(file)} was moved or removed meanwhile; nothing to do`)
    const buf = await readRegularFile(file, TRANSCRIPT_FILE)
    const st = await fsp.stat(file)
    const plan = planLines(buf)
    const endsWithNewline = buf.length === 0 || buf[buf.length - 1] === 0x0a
    if (plan.dropped === 0 && plan.hasHeader) {
      if (endsWithNewline) return {action: 'nothing to repair any more'}
      await fsp.appendFile(file, '\n').catch((error: unknown) => {
        throw fileError(error, file, 'append to')
      })
      return {action: 'added the missing final newline'}
    }
    // Only the last line is bad: move just those bytes aside, whatever the file size.
    const lastNl = buf.lastIndexOf(0x0a, buf.length - 2)
    const tailStart = lastNl + 1
    if (plan.hasHeader && plan.dropped === 1 && !endsWithNewline && tailStart > 0) {
      const tailPlan = planLines(buf.subarray(tailStart))
      if (tailPlan.dropped === 1) {
        const backup = archivePath(file, 'bak')
        await writeFileAtomic(backup, buf.subarray(tailStart))
        const fh = await fsp.open(file, 'r+')
        try {
          await fh.truncate(tailStart)
          await fh.sync()
        } finally {
          await fh.close()
        }
        return {action: `moved the torn last line (${buf.length - tailStart} bytes) to ${backup}`, backup}
      }
    }
    const backup = archivePath(file, 'bak')
    await fsp.copyFile(file, backup, fs.constants.COPYFILE_EXCL)
    await fsp.chmod(backup, 0o600)
    const parts: Buffer[] = []
    let headerNote = ''
    if (!plan.hasHeader) {
      const timestamp = plan.firstTimestamp && Number.isFinite(Date.parse(plan.firstTimestamp)) ? plan.firstTimestamp : st.mtime.toISOString()
      parts.push(Buffer.from(JSON.stringify({type: 'session', version: CURRENT_TRANSCRIPT_VERSION, id: opts.sessionId, timestamp, cwd: opts.cwd})))
      headerNote = ', wrote a session header'
    }
    parts.push(...plan.keep)
    const text = Buffer.concat(parts.flatMap((p) => [p, Buffer.from('\n')]))
    await writeFileAtomic(file, text, st.mode & 0o777)
    return {action: `copied the original to ${backup}, removed ${plan.dropped} unparseable line(s)${headerNote}`, backup}
  })
}

/**
 * Rename an empty or header-only orphan to `<file>.deleted.<ts>`. Runs under the file's lock and the store lock
 * (applyRepairs takes them), and decides again from what is there now: a reset may have rotated the file into an
 * archive, or a writer may have given it a row or messages since the scan.
 */
export async function archiveEmptyOrphan(file: string, live: LiveStore): Promise<string> {
  const name = path.basename(file)
  if (!live.isLiveTranscript(file)) throw new Error(`${name} was moved or removed meanwhile; nothing to do`)
  const ins = await inspectTranscript(file, {deep: true})
  const headerId = typeof ins.header?.id === 'string' ? ins.header.id.trim() : undefined
  if (live.references(file, headerId)) throw new Error(`${name} is referenced by the index now; left alone`)
  if (ins.hasMessages) throw new Error(`${name} holds messages now; left alone`)
  const dest = archivePath(file, 'deleted')
  await fsp.rename(file, dest)
  return `renamed to ${dest}`
}
