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
import {sha256} from '../util/hash.js'
import {activityOf} from './lifecycle.js'
import {isDiskBudgetEvictable} from './maintenance-plan.js'
import {transcriptOrNone} from './session-id.js'
import {normalizeSessionKey} from './session-key.js'
import type {SessionEntry, SessionStore, SessionStoreData, StoreRef} from './types.js'

/** One file the plan removes from the sessions dir. */
export interface CleanupFile {
  path: string
  bytes: number
  /**
   * unreferenced: a transcript or trajectory file no entry names, older than pruneAfter; temp: a stale store temp
   * file (OpenClaw's two). With --sweep: bak (a backup older than the age line), tmp (another temp file over 5
   * minutes old), stale-lock (a lock whose holder is gone), orphaned-archive (an archive no key claims, older than the
   * age line); with --keep: archive (beyond the n newest archives of its key; SQLite era: an archive row's published file); budget: an archive evicted because the
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

/** A SQLite-era archive row the plan removes (its published file, if any, is in the files with the same reason). */
export interface CleanupArchiveRow {
  name: string
  key: string
  bytes: number
  /**
   * budget: evicted because the store is over its disk budget (oldest first); archive (--keep): beyond the n newest
   * archives of its key; orphaned-archive (--sweep): no live session holds its key any more, archived before the age line.
   */
  why: 'budget' | 'archive' | 'orphaned-archive'
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
  /** The entries after the plan as OpenClaw's preview holds them (archive marks set, removals gone): the budget's store. */
  afterMarked: SessionStoreData
  /** session.maintenance.mode (`warn`: the budget only measures). */
  mode: string
  /** --active-key: the JSON layout's budget never evicts it (the SQLite era's eviction does not consult it). */
  activeKey?: string
  preserveRecentMs: number | null
}

/** An entry the disk budget evicts: removed with its transcript, no archive kept (OpenClaw's eviction). */
export interface BudgetEviction {
  key: string
  sessionId: string
  activityAt: number
  /** Its transcript files' bytes (JSON era, exact) or its rows' (SQLite era, an estimate). */
  bytes: number
}

export interface StoreFilesPlan {
  files: CleanupFile[]
  scannedFiles: number
  freedBytes: number
  diskBudget: CleanupDiskBudget | null
  archiveRows: CleanupArchiveRow[]
  /** Entries the budget evicts, in its order. */
  evictions: BudgetEviction[]
  /** OpenClaw's budget would change something (SQLite era: over budget in enforce mode and something is evictable). */
  budgetWouldMutate: boolean
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

// OpenClaw's artifacts.ts names. 2026.9.6's archive suffix may carry a generation and a .zst; 2026.4.27's is the time.
const ARCHIVE_SUFFIX_96 = /^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z)(?:\.([0-9a-f]{32}))?$/
const ARCHIVE_SUFFIX_427 = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z$/
const LEGACY_STORE_BACKUP = /^sessions\.json\.bak\.\d+$/
const CHECKPOINT = /^(.+)\.checkpoint\.([0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.jsonl$/i
const MIGRATION = /\.migrated(?:\.\d+)?$|\.jsonl\.pre-doctor-(?:branch|openai-codex)-repair-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.bak$/

function hasArchiveSuffix(name: string, reason: string, rules: '2026.4' | '2026.9'): boolean {
  const n = rules === '2026.9' && name.endsWith('.zst') ? name.slice(0, -4) : name
  const i = n.lastIndexOf(`.${reason}.`)
  return i >= 0 && (rules === '2026.9' ? ARCHIVE_SUFFIX_96 : ARCHIVE_SUFFIX_427).test(n.slice(i + reason.length + 2))
}
/** isRetainedSessionTranscriptArchiveName: a .deleted./.reset./.bak. archive. */
function isRetainedArchive(name: string, rules: '2026.4' | '2026.9'): boolean {
  return hasArchiveSuffix(name, 'deleted', rules) || hasArchiveSuffix(name, 'reset', rules) || hasArchiveSuffix(name, 'bak', rules)
}
/** isSessionArchiveArtifactName: an archive, or a legacy `sessions.json.bak.<n>`. */
function isArchiveArtifact(name: string, rules: '2026.4' | '2026.9'): boolean {
  return LEGACY_STORE_BACKUP.test(name) || isRetainedArchive(name, rules)
}
/** A transcript, trajectory or checkpoint file (what an entry may reference), by OpenClaw's names. */
function isSessionArtifact(name: string, rules: '2026.4' | '2026.9'): boolean {
  if (CHECKPOINT.test(name) || name.endsWith('.trajectory.jsonl') || name.endsWith('.trajectory-path.json')) return true
  return name !== 'sessions.json' && name.endsWith('.jsonl') && !isArchiveArtifact(name, rules)
}

async function statFiles(dir: string, keep: (name: string) => boolean): Promise<DirFile[]> {
  const out: DirFile[] = []
  for (const d of await fsp.readdir(dir, {withFileTypes: true}).catch(() => [])) {
    if (!d.isFile() || !keep(d.name)) continue
    const p = path.join(dir, d.name)
    const st = await fsp.stat(p).catch(() => undefined)
    if (st?.isFile()) out.push({path: p, name: d.name, size: st.size, mtimeMs: st.mtimeMs})
  }
  return out
}

/** The prompt blobs of a sessions dir (skills-prompts/sha256/<2 hex>/<64 hex>.txt and their temp files). */
async function promptBlobFiles(dir: string): Promise<DirFile[]> {
  const root = path.join(dir, 'skills-prompts', 'sha256')
  const out: DirFile[] = []
  for (const d of await fsp.readdir(root, {withFileTypes: true}).catch(() => [])) {
    if (d.isDirectory() && /^[a-f0-9]{2}$/.test(d.name)) out.push(...(await statFiles(path.join(root, d.name), (n) => /^[a-f0-9]{64}\.txt$/.test(n) || /^[a-f0-9]{64}\.txt\.(?:\d+\.)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/.test(n))))
  }
  return out
}

/**
 * The prompt blobs the entries reference, as OpenClaw's projectSessionStoreForPersistence names them: a
 * skillsSnapshot.promptRef's hash, or the sha256 of an inline skillsSnapshot.prompt of 512 characters to 512 KiB (the
 * ones it would store as a blob).
 */
function promptRefs(entries: SessionStoreData): Set<string> {
  const refs = new Set<string>()
  for (const e of Object.values(entries)) {
    const snap = (e as {skillsSnapshot?: {prompt?: unknown; promptRef?: {algorithm?: unknown; hash?: unknown}}} | undefined)?.skillsSnapshot
    if (snap?.promptRef?.algorithm === 'sha256' && typeof snap.promptRef.hash === 'string') refs.add(snap.promptRef.hash)
    const prompt = snap?.prompt
    if (typeof prompt === 'string' && prompt.length >= 512 && Buffer.byteLength(prompt, 'utf8') <= 524_288) refs.add(sha256().update(prompt).digest('hex'))
  }
  return refs
}

/**
 * The disk a SQLite-era store takes as OpenClaw 2026.9.6's budget measures it (disk-budget-files.ts
 * readSessionPhysicalDiskUsage): the sessions dir's files but migration archives, its cold/ dir, its prompt blobs, and
 * the database's main file and WAL (not -shm).
 */
export async function physicalDiskUsage(ref: StoreRef): Promise<{totalBytes: number; walBytes: number}> {
  const dir = sessionsDirOf(ref)
  const files = [...(await statFiles(dir, (n) => !MIGRATION.test(n))), ...(await statFiles(path.join(dir, 'cold'), (n) => !MIGRATION.test(n))), ...(await promptBlobFiles(dir))]
  const size = (p: string) => fs.statSync(p, {throwIfNoEntry: false})?.size ?? 0
  const walBytes = size(`${ref.path}-wal`)
  return {totalBytes: files.reduce((n, f) => n + f.size, 0) + size(ref.path) + walBytes, walBytes}
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
  const tempRe = storeTempRe(ref)
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
  // 2026.9.6 also prunes the skills prompt blobs no entry references (sessions/skills-prompts/sha256/<xx>/<hash>.txt),
  // past pruneAfter (at least 5 minutes), and their stale temp files; they count among the files it scanned.
  const blobs = o.rules === '2026.9' ? await promptBlobFiles(dir) : []
  if (blobs.length > 0) {
    const refs = promptRefs(o.after)
    for (const f of blobs) {
      if (f.name.endsWith('.tmp')) {
        if (f.mtimeMs <= o.now - TEMP_STALE_MS) out.push({path: f.path, bytes: f.size, why: 'temp'})
      } else if (f.mtimeMs <= o.now - Math.max(o.pruneAfterMs, TEMP_STALE_MS) && !refs.has(f.name.slice(0, 64))) out.push({path: f.path, bytes: f.size, why: 'unreferenced'})
    }
  }
  if (o.sweep || o.keep !== undefined) out.push(...(await leftovers(store, ref, files, new Set(out.map((f) => f.path)), {now: o.now, ageMs: o.pruneAfterMs, sweep: o.sweep, keep: o.keep})))
  const archiveRows: CleanupArchiveRow[] = []
  if (isSqliteRef(ref) && (o.sweep || o.keep !== undefined)) {
    const taken = new Set(out.map((f) => f.path))
    for (const r of await archiveRowLeftovers(store, {now: o.now, ageMs: o.pruneAfterMs, sweep: o.sweep, keep: o.keep})) {
      archiveRows.push(r)
      // The row's published copy (sessions/<archive_name>, byte-identical) goes with it, for the same reason.
      const pub = files.find((f) => f.path === path.join(dir, r.name))
      if (pub && !taken.has(pub.path)) {
        out.push({path: pub.path, bytes: pub.size, why: r.why})
        taken.add(pub.path)
      }
    }
  }
  out.sort((a, b) => a.path.localeCompare(b.path))
  const freed = out.reduce((n, f) => n + f.bytes, 0)
  const budget = o.maxDiskBytes === null || o.highWaterBytes === null ? undefined : isSqliteRef(ref) ? await planPhysicalBudget(store, ref, o, out, freed, archiveRows) : await planSimulatedBudget(store, ref, o, out)
  return {files: out, scannedFiles: files.length + blobs.length, freedBytes: freed, diskBudget: budget?.report ?? null, archiveRows: [...archiveRows, ...(budget?.archiveRows ?? [])], evictions: budget?.evictions ?? [], budgetWouldMutate: budget?.wouldMutate ?? false}
}

interface BudgetPlan {
  report: CleanupDiskBudget
  archiveRows: CleanupArchiveRow[]
  evictions: BudgetEviction[]
  wouldMutate: boolean
}

/**
 * The SQLite era, OpenClaw 2026.9.6's order (session-history-eviction.ts): over maxDiskBytes, in enforce mode, free
 * pages are reclaimed, then published archive rows go (oldest created_at first, each with its published file), then
 * other retained archive files of the sessions dir (oldest mtime first; an unpublished row's file is not one), then
 * entries the cap archived (oldest archivedAt, then key), removed with their rows and no archive; each step until the
 * store is under the high water mark. OpenClaw measures the disk again after each step; a plan can only estimate
 * (a row's bytes, a session's event and entry bytes), so `clawkit` applies it the same way: step by step, measuring,
 * and stops once under the mark. The report is what OpenClaw's dry run prints: the measurement, nothing simulated.
 */
async function planPhysicalBudget(store: SessionStore, ref: StoreRef, o: StoreFilesPlanInput, out: CleanupFile[], freed: number, planned: readonly CleanupArchiveRow[]): Promise<BudgetPlan> {
  const maxBytes = o.maxDiskBytes!
  const highWater = o.highWaterBytes!
  const usage = await physicalDiskUsage(ref)
  const report: CleanupDiskBudget = {totalBytesBefore: usage.totalBytes, totalBytesAfter: usage.totalBytes, removedFiles: 0, removedEntries: 0, freedBytes: 0, maxBytes, highWaterBytes: highWater, overBudget: usage.totalBytes > maxBytes}
  const archiveRows: CleanupArchiveRow[] = []
  const evictions: BudgetEviction[] = []
  if (!report.overBudget || o.mode === 'warn') return {report, archiveRows, evictions, wouldMutate: false}
  const dir = sessionsDirOf(ref)
  const evictable = Object.entries(o.afterMarked)
    .filter(([k, e]) => isDiskBudgetEvictable(k, e as never, {now: o.now, preserveRecentMs: o.preserveRecentMs}))
    .sort(([a, x], [b, y]) => Number((x as {archivedAt?: number}).archivedAt ?? Infinity) - Number((y as {archivedAt?: number}).archivedAt ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0))
  const inv = (await store.lifecycle?.budgetInventory?.(evictable.map(([k]) => k))) ?? {freeBytes: 0, published: [], unpublished: [], keyBytes: {}}
  const unpublished = new Set(inv.unpublished)
  const files = (await statFiles(dir, (n) => !MIGRATION.test(n))).filter((f) => isRetainedArchive(f.name, '2026.9') && !unpublished.has(f.name)).sort((a, b) => a.mtimeMs - b.mtimeMs)
  const wouldMutate = inv.published.length > 0 || files.length > 0 || evictable.length > 0
  const taken = new Set(out.map((f) => f.path))
  // What is left once the WAL is truncated, the free pages given back and the plan's other files removed.
  // The rows --keep and --sweep remove already go first (their published files are among `freed`).
  let est = usage.totalBytes - usage.walBytes - inv.freeBytes - freed - planned.reduce((n, r) => n + r.bytes, 0)
  const plannedNames = new Set(planned.map((r) => r.name))
  const byName = new Map(files.map((f) => [f.name, f]))
  for (const r of inv.published) {
    if (est <= highWater) break
    if (plannedNames.has(r.name)) continue
    archiveRows.push({name: r.name, key: r.key, bytes: r.bytes, why: 'budget'})
    est -= r.bytes
    const pub = byName.get(r.name)
    if (pub && !taken.has(pub.path)) {
      out.push({path: pub.path, bytes: pub.size, why: 'budget'})
      taken.add(pub.path)
      est -= pub.size
    }
  }
  for (const f of files) {
    if (est <= highWater) break
    if (taken.has(f.path)) continue
    out.push({path: f.path, bytes: f.size, why: 'budget'})
    taken.add(f.path)
    est -= f.size
  }
  for (const [k, e] of evictable) {
    if (est <= highWater) break
    const bytes = inv.keyBytes[normalizeSessionKey(k)] ?? 0
    evictions.push({key: k, sessionId: e.sessionId, activityAt: activityOf(e), bytes})
    est -= bytes
  }
  return {report, archiveRows, evictions, wouldMutate}
}

/**
 * The JSON era: the sessions dir's files, with the index counted as the entries the plan leaves would serialize
 * (enforceSessionDiskBudget). Over maxDiskBytes, files go oldest mtime first until under the high water mark
 * (2026.4.27: archives and the transcript, trajectory and checkpoint files no entry references; 2026.9.6 adds stale
 * store temp files), then entries: 2026.4.27 any, least recently updated first; 2026.9.6 only those the cap archived,
 * oldest archivedAt first; never the active key; each with its transcript files once no entry shares its session.
 * The figures are OpenClaw's dry run's, to the byte.
 */
async function planSimulatedBudget(store: SessionStore, ref: StoreRef, o: StoreFilesPlanInput, out: CleanupFile[]): Promise<BudgetPlan> {
  const maxBytes = o.maxDiskBytes!
  const highWater = o.highWaterBytes!
  const rules = o.rules
  const dir = sessionsDirOf(ref)
  const files = await statFiles(dir, (n) => rules === '2026.4' || !MIGRATION.test(n))
  const sizes = new Map(files.map((f) => [f.path, f.size]))
  const storeFile = files.find((f) => f.path === path.resolve(ref.path))
  const entries: SessionStoreData = {...o.afterMarked}
  let projected = Buffer.byteLength(JSON.stringify(entries, null, 2), 'utf8')
  let total = files.reduce((n, f) => n + f.size, 0) - (storeFile?.size ?? 0) + projected
  const report: CleanupDiskBudget = {totalBytesBefore: total, totalBytesAfter: total, removedFiles: 0, removedEntries: 0, freedBytes: 0, maxBytes, highWaterBytes: highWater, overBudget: total > maxBytes}
  const evictions: BudgetEviction[] = []
  if (!report.overBudget || o.mode === 'warn') return {report, archiveRows: [], evictions, wouldMutate: false}
  const referenced = new Set<string>()
  for (const [k, e] of Object.entries(entries)) for (const p of budgetArtifactPaths(store, k, e, dir)) referenced.add(p)
  const tempRe = storeTempRe(ref)
  const removed = new Set<string>()
  const taken = new Map(out.map((f) => [f.path, f]))
  const take = (p: string): number => {
    const size = sizes.get(p)
    if (size === undefined || size <= 0 || removed.has(p)) return 0
    removed.add(p)
    // A file the plan removes already (a sweep) stays under its own reason; it counts toward the budget all the same.
    if (!taken.has(p)) {
      const nf: CleanupFile = {path: p, bytes: size, why: 'budget'}
      out.push(nf)
      taken.set(p, nf)
    }
    report.removedFiles++
    report.freedBytes += size
    total -= size
    return size
  }
  const queue = files
    .filter((f) => {
      if (rules === '2026.9' && tempRe.test(f.name)) return f.mtimeMs <= o.now - TEMP_STALE_MS
      return isArchiveArtifact(f.name, rules) || (isSessionArtifact(f.name, rules) && !referenced.has(f.path))
    })
    .sort((a, b) => a.mtimeMs - b.mtimeMs)
  // clawkit's own sweeps (--sweep: .bak, .tmp, stale locks) go before the budget is applied, and OpenClaw's simulation
  // never takes them: counted as gone here, so that no session is evicted for space a sweep frees anyway. The figures
  // before stay OpenClaw's.
  const queued = new Set(queue.map((f) => f.path))
  for (const f of out) {
    const size = sizes.get(f.path)
    if (queued.has(f.path) || size === undefined || removed.has(f.path)) continue
    removed.add(f.path)
    total -= size
  }
  for (const f of queue) {
    if (total <= highWater) break
    take(f.path)
  }
  if (total > highWater) {
    const active = o.activeKey?.trim().toLowerCase()
    const refs = new Map<string, number>()
    for (const e of Object.values(entries)) if (e?.sessionId) refs.set(e.sessionId, (refs.get(e.sessionId) ?? 0) + 1)
    const chunk = (k: string, e: SessionEntry) => {
      const one = JSON.stringify({[k]: e}, null, 2)
      return one.startsWith('{\n') && one.endsWith('\n}') ? Buffer.byteLength(one.slice(2, -2), 'utf8') : Buffer.byteLength(JSON.stringify({[k]: e}, null, 2), 'utf8') - 4
    }
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
    const keys =
      rules === '2026.4'
        ? Object.keys(entries).sort((a, b) => num(entries[a]?.updatedAt) - num(entries[b]?.updatedAt))
        : Object.keys(entries)
            .filter((k) => isDiskBudgetEvictable(k, entries[k] as never, {now: o.now, preserveRecentMs: o.preserveRecentMs, preserveKeys: new Set(o.activeKey ? [o.activeKey] : [])}))
            .sort((a, b) => Number((entries[a] as {archivedAt?: number}).archivedAt ?? Infinity) - Number((entries[b] as {archivedAt?: number}).archivedAt ?? Infinity) || a.localeCompare(b))
    for (const k of keys) {
      if (total <= highWater) break
      if (active && k.toLowerCase() === active) continue
      const e = entries[k]
      if (!e) continue
      const before = projected
      projected = Math.max(2, projected - (chunk(k, e) + 2))
      delete entries[k]
      total += projected - before
      report.removedEntries++
      let bytes = 0
      if (e.sessionId) {
        const left = (refs.get(e.sessionId) ?? 1) - 1
        refs.set(e.sessionId, left)
        if (left <= 0) for (const p of budgetArtifactPaths(store, k, e, dir)) bytes += take(p)
      }
      evictions.push({key: k, sessionId: e.sessionId, activityAt: activityOf(e), bytes})
    }
  }
  report.totalBytesAfter = total
  return {report, archiveRows: [], evictions, wouldMutate: report.removedFiles > 0 || report.removedEntries > 0}
}

function storeTempRe(ref: StoreRef): RegExp {
  return new RegExp(`^${path.basename(ref.path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(?:\\d+\\.)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.tmp$`, 'i')
}

/**
 * The entry's transcript locator, or undefined where it names no file: no sessionId, an id no transcript can be named
 * after (the store refuses it: E_BAD_SESSION_ID; such an entry references no file, and one bad entry must not stop a
 * cleanup of the whole store), or a SQLite-era session (its events are rows).
 */
function transcriptFileOf(store: SessionStore, key: string, e: SessionEntry): string | undefined {
  if (!e?.sessionId) return undefined
  const t = transcriptOrNone(store, e, key)?.locator
  return t === undefined || t.includes('#') ? undefined : t
}

/** resolveSessionArtifactPathsForEntry: the transcript (inside the sessions dir), its trajectory pointer and trajectory. */
function budgetArtifactPaths(store: SessionStore, key: string, e: SessionEntry, dir: string): string[] {
  const file = transcriptFileOf(store, key, e)
  if (file === undefined) return []
  const t = path.resolve(file)
  const rel = path.relative(path.resolve(dir), t)
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return []
  const base = t.endsWith('.jsonl') ? t.slice(0, -'.jsonl'.length) : t
  return [t, `${base}.trajectory-path.json`, `${base}.trajectory.jsonl`]
}

/** The planned files without the published files of these archive rows (--keep's and --sweep's rows a cleanup kept after all). */
export function withoutFilesOfRows(files: readonly CleanupFile[], rowNames: ReadonlySet<string>): CleanupFile[] {
  return files.filter((f) => !((f.why === 'archive' || f.why === 'orphaned-archive') && rowNames.has(path.basename(f.path))))
}

/** The bytes of a JSON-era entry's transcript (what a removal keeps as an archive); null in the SQLite era. */
export function transcriptBytes(store: SessionStore, ref: StoreRef, key: string, entry: SessionEntry): number | null {
  if (isSqliteRef(ref)) return null
  const t = transcriptFileOf(store, key, entry)
  return t === undefined ? 0 : (fs.statSync(t, {throwIfNoEntry: false})?.size ?? 0)
}

/**
 * Removes the files a cleanup planned: each one moved into the journal entry (recorded first, so undo puts it back), or
 * deleted with --no-journal. A lock is taken only while it is still stale (its holder may be a process that just
 * started); a file already gone is passed over.
 */
export async function removeCleanupFiles(files: readonly CleanupFile[], o: {agentId: string; store: SessionStore; ref: StoreRef; journal: JournalEntry | undefined}): Promise<string[]> {
  // A file the plan took for unreferenced (or the disk budget's) may be a live session's again by now: a removal or an
  // eviction skipped because a turn landed keeps its entry, and so its transcript. What the index references at this
  // moment is never removed; the paths left are returned, for the summary.
  const kept: string[] = []
  let live: Set<string> | undefined
  const referenced = async () => {
    if (!live) {
      live = new Set()
      for (const [k, e] of Object.entries(await o.store.read())) for (const p of artifactPaths(o.store, k, e)) live.add(path.resolve(p))
    }
    return live
  }
  for (const f of files) {
    // (An archive, `.deleted.`/`.reset.`, is never an entry's file: no index read for the budget's archives.)
    if ((f.why === 'budget' || f.why === 'unreferenced') && !isSqliteRef(o.ref) && !ARCHIVE_PART.test(path.basename(f.path)) && (await referenced()).has(path.resolve(f.path))) {
      kept.push(f.path)
      continue
    }
    if (f.why === 'stale-lock' && !inspectLock(f.path)?.stale) continue
    const img = await fileImage(f.path).catch(() => ABSENT)
    if (!img.exists) continue
    if (o.journal) {
      await o.journal.record({kind: 'files', agentId: o.agentId, store: o.ref.path, label: `cleanup: ${path.basename(f.path)} (${f.why})`, files: [{path: f.path, before: img, after: ABSENT}]})
      await o.journal.takeFile(f.path, img.sha256)
    } else await fsp.rm(f.path, {force: true})
  }
  return kept
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

/**
 * The SQLite era's --sweep and --keep: archives are `session_transcript_archives` rows, each tied to its key by its
 * session_key column (its published file is `sessions/<archive_name>`). Only archives count: a row whose session has a
 * window again (restored) is a live session's copy, neither kept nor removed. --sweep: a row no key claims (no
 * session_nodes row holds its session_key: the key was deleted and nothing made it live again), archived (created_at)
 * before the age line. --keep n: per session_key, live or not, the n newest rows by created_at stay (ties: the later
 * name), the older ones go. A row both would remove is an orphan.
 */
async function archiveRowLeftovers(store: SessionStore, o: {now: number; ageMs: number; sweep: boolean; keep?: number}): Promise<CleanupArchiveRow[]> {
  const rows = ((await store.lifecycle?.archiveRows?.()) ?? []).filter((r) => r.windowed === false)
  const out: CleanupArchiveRow[] = []
  const taken = new Set<string>()
  if (o.sweep) {
    for (const r of rows) {
      if (r.keyLive === false && r.createdAt <= o.now - o.ageMs) {
        out.push({name: r.name, key: r.key, bytes: r.bytes, why: 'orphaned-archive'})
        taken.add(r.name)
      }
    }
  }
  if (o.keep !== undefined) {
    const byKey = new Map<string, typeof rows>()
    for (const r of rows) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r])
    for (const list of byKey.values()) {
      const newest = [...list].sort((x, y) => y.createdAt - x.createdAt || (x.name < y.name ? 1 : x.name > y.name ? -1 : 0))
      for (const r of newest.slice(o.keep)) if (!taken.has(r.name)) out.push({name: r.name, key: r.key, bytes: r.bytes, why: 'archive'})
    }
  }
  return out
}

/** A key's transcript and trajectory files in the sessions dir (what OpenClaw counts as referenced by the entry). */
function artifactPaths(store: SessionStore, key: string, e: SessionEntry): string[] {
  const t = transcriptFileOf(store, key, e)
  if (t === undefined) return []
  const base = t.endsWith('.jsonl') ? t.slice(0, -'.jsonl'.length) : t
  return [t, `${base}.trajectory-path.json`, `${base}.trajectory.jsonl`, path.join(path.dirname(t), `${e.sessionId}.trajectory.jsonl`)]
}

