// What a cleanup may remove from a store's files, as OpenClaw 2026.9.6's maintenance finds it (its
// pruneUnreferencedSessionArtifacts, stale store temp files, the disk budget measured over the database and the sessions
// dir), and clawkit's own sweeps (--sweep, --keep): the store's side of `sessions cleanup`, which knows the layout of a
// sessions dir so that the command's core (src/sessions/cleanup.ts) does not. Reads only; removal is the core's journal.
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {ABSENT, type JournalEntry} from './journal.js'
import {fileImage} from './journal-files.js'
import {inspectLock, LOCK_SCRATCH_RE, lockScratchIsLeftover} from './lock.js'
import type {SessionEntry, SessionStore, SessionStoreData, StoreRef} from './types.js'

/** One file the plan removes from the sessions dir. */
export interface CleanupFile {
  path: string
  bytes: number
  /**
   * unreferenced: a transcript or trajectory file no entry names, older than pruneAfter; temp: a stale store temp
   * file (OpenClaw's two). With --sweep: bak (a backup older than the age line), tmp (another temp file over 5
   * minutes old), stale-lock (a lock whose holder is gone), orphaned-archive (an archive no key claims, older than the
   * age line); with --keep: archive (beyond the n newest archives of its key); budget: an archive evicted because the
   * store is over its disk budget (oldest first, until under the high water mark).
   */
  why: 'unreferenced' | 'temp' | 'bak' | 'tmp' | 'stale-lock' | 'orphaned-archive' | 'archive' | 'budget'
}

/** The disk budget's figures, as `openclaw sessions cleanup --json` prints them. */
export interface CleanupDiskBudget {
  totalBytesBefore: number
  totalBytesAfter: number
  removedFiles: number
  removedEntries: number
  freedBytes: number
  maxBytes: number
  highWaterBytes: number
  overBudget: boolean
}

/** A SQLite-era archive row the disk budget evicts. */
export interface CleanupArchiveRow {
  name: string
  key: string
  bytes: number
}

/** What the files plan needs from the entries plan. */
export interface StoreFilesPlanInput {
  /** Whose rules: 2026.4.27 sweeps no files; 2026.9.6 prunes unreferenced artifacts and stale temp files. */
  rules: '2026.4' | '2026.9'
  now: number
  pruneAfterMs: number
  /** The entries before the plan, and those it leaves. */
  data: SessionStoreData
  after: SessionStoreData
  /** Keys the plan removes (their files go with the removal, as OpenClaw's delete keeps them, not as sweeps). */
  removedKeys: readonly string[]
  sweep: boolean
  keep?: number
  /** The disk budget and its high water mark (null: none). */
  maxDiskBytes: number | null
  highWaterBytes: number | null
}

export interface StoreFilesPlan {
  files: CleanupFile[]
  scannedFiles: number
  freedBytes: number
  diskBudget: CleanupDiskBudget | null
  archiveRows: CleanupArchiveRow[]
}

const TEMP_STALE_MS = 300_000
const PRIMARY = /^[^/]+\.jsonl$/
const ARCHIVE_PART = /\.jsonl\.(reset|deleted|bak)\./

/** Files of a sessions dir OpenClaw's pruneUnreferencedSessionArtifacts may remove: transcripts, trajectories, checkpoints. */
function isArtifactName(name: string): boolean {
  if (ARCHIVE_PART.test(name)) return false
  return PRIMARY.test(name) || name.endsWith('.trajectory.jsonl') || name.endsWith('.trajectory-path.json') || /\.checkpoint\.[0-9a-f-]{36}\.jsonl$/.test(name)
}

interface DirFile {
  path: string
  name: string
  size: number
  mtimeMs: number
}

async function listFiles(dir: string): Promise<DirFile[]> {
  const out: DirFile[] = []
  for (const d of await fsp.readdir(dir, {withFileTypes: true}).catch(() => [])) {
    if (!d.isFile() || d.name.includes('.imported-')) continue
    const p = path.join(dir, d.name)
    const st = await fsp.stat(p).catch(() => undefined)
    if (st?.isFile()) out.push({path: p, name: d.name, size: st.size, mtimeMs: st.mtimeMs})
  }
  return out
}

export function isSqliteRef(ref: StoreRef): boolean {
  return ref.path.endsWith('.sqlite')
}

function sessionsDirOf(ref: StoreRef): string {
  return isSqliteRef(ref) ? path.join(path.dirname(path.dirname(ref.path)), 'sessions') : path.dirname(ref.path)
}

/**
 * The disk a store takes as OpenClaw's budget measures it (readSessionPhysicalDiskUsage): the sessions dir, and the
 * database with its WAL. Not the -shm file: it is shared memory any open connection (this one too) creates, and
 * counting it made clawkit's total 32 KiB over OpenClaw's on the same store.
 */
function measure(ref: StoreRef, files: DirFile[]): number {
  let total = files.reduce((n, f) => n + f.size, 0)
  if (isSqliteRef(ref)) for (const s of ['', '-wal']) total += fs.statSync(ref.path + s, {throwIfNoEntry: false})?.size ?? 0
  return total
}

/** The files a cleanup of this store would remove, and the disk budget's figures (reads only). */
export async function planStoreFiles(store: SessionStore, ref: StoreRef, o: StoreFilesPlanInput): Promise<StoreFilesPlan> {
  const dir = sessionsDirOf(ref)
  const files = await listFiles(dir)
  const removedPaths = new Set<string>()
  for (const key of o.removedKeys) {
    const e = o.data[key]
    if (e) for (const p of artifactPaths(store, key, e)) removedPaths.add(p)
  }
  const referenced = new Set<string>()
  for (const [k, e] of Object.entries(o.after)) for (const p of artifactPaths(store, k, e)) referenced.add(p)
  const storeBase = path.basename(ref.path)
  const tempRe = new RegExp(`^${storeBase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(?:\\d+\\.)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.tmp$`, 'i')
  const out: CleanupFile[] = []
  for (const f of files) {
    if (removedPaths.has(f.path)) continue
    if (tempRe.test(f.name)) {
      if (o.rules === '2026.9' && f.mtimeMs <= o.now - TEMP_STALE_MS) out.push({path: f.path, bytes: f.size, why: 'temp'})
      continue
    }
    // 2026.4.27 sweeps no files; 2026.9.6 prunes unreferenced transcripts and trajectories past pruneAfter.
    if (o.rules === '2026.9' && f.mtimeMs <= o.now - o.pruneAfterMs && isArtifactName(f.name) && !referenced.has(f.path)) out.push({path: f.path, bytes: f.size, why: 'unreferenced'})
  }
  if (o.sweep || o.keep !== undefined) out.push(...(await leftovers(store, ref, files, new Set(out.map((f) => f.path)), {now: o.now, ageMs: o.pruneAfterMs, sweep: o.sweep, keep: o.keep})))
  out.sort((a, b) => a.path.localeCompare(b.path))
  const freed = out.reduce((n, f) => n + f.bytes, 0)
  const total = measure(ref, files)
  const maxBytes = o.maxDiskBytes
  const highWater = o.highWaterBytes
  let diskBudget: CleanupDiskBudget | null = maxBytes === null || highWater === null ? null : {totalBytesBefore: total, totalBytesAfter: total, removedFiles: 0, removedEntries: 0, freedBytes: 0, maxBytes, highWaterBytes: highWater, overBudget: total > maxBytes}
  const archiveRows: CleanupArchiveRow[] = []
  if (diskBudget?.overBudget && highWater !== null) {
    // Over the budget: the oldest archives go until the store is under the high water mark (live sessions never).
    let after = total - freed
    let removedFiles = 0
    const byPath = new Map(files.map((f) => [f.path, f]))
    const taken = new Set(out.map((f) => f.path))
    if (isSqliteRef(ref)) {
      for (const r of (await store.lifecycle?.archiveRows?.()) ?? []) {
        if (after <= highWater) break
        archiveRows.push({name: r.name, key: r.key, bytes: r.bytes})
        after -= r.bytes
        const pub = byPath.get(path.join(dir, r.name))
        if (pub && !taken.has(pub.path)) {
          out.push({path: pub.path, bytes: pub.size, why: 'budget'})
          taken.add(pub.path)
          after -= pub.size
          removedFiles++
        }
      }
    } else {
      for (const f of files.filter((x) => ARCHIVE_PART.test(x.name) && !taken.has(x.path)).sort((a, b) => a.mtimeMs - b.mtimeMs)) {
        if (after <= highWater) break
        out.push({path: f.path, bytes: f.size, why: 'budget'})
        after -= f.size
        removedFiles++
      }
    }
    diskBudget = {...diskBudget, totalBytesAfter: Math.max(0, after), removedFiles, removedEntries: archiveRows.length, freedBytes: total - Math.max(0, after)}
  }
  return {files: out, scannedFiles: files.length, freedBytes: freed, diskBudget, archiveRows}
}

/** The bytes of a JSON-era entry's transcript (what a removal keeps as an archive); null in the SQLite era. */
export function transcriptBytes(store: SessionStore, ref: StoreRef, key: string, entry: SessionEntry): number | null {
  if (isSqliteRef(ref)) return null
  return fs.statSync(store.transcriptOf(entry, key).locator, {throwIfNoEntry: false})?.size ?? 0
}

/**
 * Removes the files a cleanup planned: each one moved into the journal entry (recorded first, so undo puts it back), or
 * deleted with --no-journal. A lock is taken only while it is still stale (its holder may be a process that just
 * started); a file already gone is passed over.
 */
export async function removeCleanupFiles(files: readonly CleanupFile[], o: {agentId: string; ref: StoreRef; journal: JournalEntry | undefined}): Promise<void> {
  for (const f of files) {
    if (f.why === 'stale-lock' && !inspectLock(f.path)?.stale) continue
    const img = await fileImage(f.path).catch(() => ABSENT)
    if (!img.exists) continue
    if (o.journal) {
      await o.journal.record({kind: 'files', agentId: o.agentId, store: o.ref.path, label: `cleanup: ${path.basename(f.path)} (${f.why})`, files: [{path: f.path, before: img, after: ABSENT}]})
      await o.journal.takeFile(f.path, img.sha256)
    } else await fsp.rm(f.path, {force: true})
  }
}

/** clawkit's sweeps of a sessions dir (--sweep) and its per-key archive limit (--keep), none of them OpenClaw's. */
async function leftovers(store: SessionStore, ref: StoreRef, files: DirFile[], taken: Set<string>, o: {now: number; ageMs: number; sweep: boolean; keep?: number}): Promise<CleanupFile[]> {
  const out: CleanupFile[] = []
  const add = (f: DirFile, why: CleanupFile['why']) => {
    if (taken.has(f.path)) return
    taken.add(f.path)
    out.push({path: f.path, bytes: f.size, why})
  }
  const archives = isSqliteRef(ref) ? [] : (await store.allSessions()).filter((s) => s.where === 'deleted-archive' || s.where === 'reset-archive')
  if (o.sweep) {
    const byPath = new Map(files.map((f) => [f.path, f]))
    for (const f of files) {
      if (f.name.endsWith('.lock')) {
        const info = inspectLock(f.path, {now: o.now})
        if (info?.stale) add(f, 'stale-lock')
      } else if (/\.bak(\.|$)/.test(f.name)) {
        if (f.mtimeMs <= o.now - o.ageMs) add(f, 'bak')
      } else if (f.name.endsWith('.tmp')) {
        const scratch = LOCK_SCRATCH_RE.exec(f.name)
        if (scratch ? lockScratchIsLeftover(Number(scratch[1]), o.now - f.mtimeMs) : f.mtimeMs <= o.now - TEMP_STALE_MS) add(f, 'tmp')
      }
    }
    for (const a of archives) {
      const f = byPath.get(a.transcript.locator)
      if (a.key === null && f && f.mtimeMs <= o.now - o.ageMs) add(f, 'orphaned-archive')
    }
  }
  if (o.keep !== undefined) {
    const byKey = new Map<string, typeof archives>()
    for (const a of archives) if (a.key !== null) byKey.set(a.key, [...(byKey.get(a.key) ?? []), a])
    const byPath = new Map(files.map((f) => [f.path, f]))
    for (const list of byKey.values()) {
      const newest = [...list].sort((x, y) => (Date.parse(y.endedAt ?? '') || 0) - (Date.parse(x.endedAt ?? '') || 0))
      for (const a of newest.slice(o.keep)) {
        const f = byPath.get(a.transcript.locator)
        if (f) add(f, 'archive')
      }
    }
  }
  return out
}

/** A key's transcript and trajectory files in the sessions dir (what OpenClaw counts as referenced by the entry). */
function artifactPaths(store: SessionStore, key: string, e: SessionEntry): string[] {
  if (!e?.sessionId) return []
  const t = store.transcriptOf(e, key).locator
  if (t.includes('#')) return []
  const base = t.endsWith('.jsonl') ? t.slice(0, -'.jsonl'.length) : t
  return [t, `${base}.trajectory-path.json`, `${base}.trajectory.jsonl`, path.join(path.dirname(t), `${e.sessionId}.trajectory.jsonl`)]
}

