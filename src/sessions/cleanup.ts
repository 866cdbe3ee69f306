// `sessions cleanup`: OpenClaw 2026.9.6's `sessions cleanup` planned the same way (store/maintenance-plan.ts for the
// entries; unreferenced artifacts older than pruneAfter, stale store temp files; the disk budget measured as it
// measures it), offline, in both eras, with clawkit's filters on top; then applied, journaled, by each store's
// lifecycle (archives marked in one write, removals as OpenClaw's delete, which keeps the transcript as an archive).
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {ClawkitError, ExitCode, UsageError} from '../errors.js'
import {runJournaled} from '../store/journal.js'
import {ABSENT} from '../store/journal.js'
import {type CleanupAction, type MaintenanceConfig, planEntryMaintenance, planEntryMaintenance427, resolveMaintenanceConfig, resolveMaintenanceConfig427} from '../store/maintenance-plan.js'
import {classifySessionKind, normalizeSessionKey, parseAgentSessionKey} from '../store/session-key.js'
import type {OpenClawState} from '../store/state.js'
import type {SessionEntry, SessionStore, StoreRef} from '../store/types.js'
import {fileImage} from '../store/journal-files.js'
import {inspectLock, LOCK_SCRATCH_RE, lockScratchIsLeftover} from '../store/lock.js'

/** One key the plan changes: OpenClaw's action name, and what it does. */
export interface CleanupChange {
  key: string
  sessionId: string
  action: CleanupAction
  /** archive-*: the reason written to archiveReason; removals: null. */
  archiveReason: string | null
  /** When the session was last active (ms; OpenClaw's activity time). */
  activityAt: number
  /** Bytes its transcript holds that a removal archives (JSON era: the file; SQLite: null, rows are archived). */
  bytes: number | null
}

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

/** One store's plan or result, OpenClaw's summary first (the fields `openclaw sessions cleanup --json` prints). */
export interface CleanupStoreSummary {
  agentId: string
  storePath: string
  mode: string
  dryRun: boolean
  /** Whose maintenance rules planned it: OpenClaw 2026.9.6's or 2026.4.27's (--rules; default the store's era). */
  rules: '2026.4' | '2026.9'
  beforeCount: number
  afterCount: number
  missing: number
  dmScopeRetired: number
  modelRunPruned: number
  archived: number
  capArchived: number
  pruned: number
  capped: number
  unreferencedArtifacts: {scannedFiles: number; removedFiles: number; freedBytes: number; olderThanMs: number}
  diskBudget: {totalBytesBefore: number; totalBytesAfter: number; removedFiles: number; removedEntries: number; freedBytes: number; maxBytes: number; highWaterBytes: number; overBudget: boolean} | null
  wouldMutate: boolean
  /** clawkit's: every key the plan changes, in the order OpenClaw's maintenance decides them. */
  changes: CleanupChange[]
  /** clawkit's: every file the plan removes. */
  files: CleanupFile[]
  /**
   * Applied, SQLite era: bytes the database file gave back after the removals (incremental vacuum, as OpenClaw's own
   * maintenance reclaims pages); 0 in a plan, in the JSON era, or for a database not in incremental auto_vacuum.
   */
  reclaimedBytes: number
  /**
   * clawkit's disk budget, when the store is over it (maxBytes): the oldest archives evicted until it is under the
   * high water mark; in the SQLite era these archive rows (each published file goes too, as a file above).
   */
  archiveRows: {name: string; key: string; bytes: number}[]
}

/** The `sessions cleanup --json` document. */
export interface SessionsCleanupResult {
  dryRun: boolean
  mode: string
  stores: CleanupStoreSummary[]
  /** The journal entry of an applied cleanup (null: a plan, --no-journal, or nothing changed). */
  journal: string | null
  /**
   * Bytes the applied cleanup moved into the journal (removed files, archived rows): freed only once the entry is
   * pruned (`clawkit undo --prune`, or the retention). 0 with --no-journal.
   */
  journalBytes: number
}

export interface CleanupOptions {
  agent?: string
  allAgents?: boolean
  dryRun: boolean
  enforce?: boolean
  fixMissing?: boolean
  activeKey?: string
  /** clawkit: act only on sessions inactive this long (replaces pruneAfter for the age retention). */
  olderThanMs?: number
  /** clawkit: act only on keys of these kinds (direct, group, cron, subagent, acp, hook, heartbeat, dashboard, explicit). */
  kinds?: string[]
  /** clawkit: the disk budget (replaces session.maintenance.maxDiskBytes). */
  maxDiskBytes?: number
  /**
   * Whose rules: `2026.9` (OpenClaw 2026.9.6: archive, protect, cap 5000, sweep unreferenced files) or `2026.4`
   * (2026.4.27, the JSON era's: remove everything past pruneAfter, cap 500). Default: the store's era.
   */
  rules?: '2026.4' | '2026.9'
  /** clawkit: also sweep leftovers (.bak, .tmp, stale locks, orphaned archives). */
  sweep?: boolean
  /** clawkit: keep only the n newest archives of each key (JSON era: .reset./.deleted. files). */
  keep?: number
  noJournal?: boolean
  now?: Date
}

/** A key's kind for --kind: the shapes an operator names. */
export function keyKind(key: string, entry: SessionEntry): string {
  const rest = parseAgentSessionKey(key)?.rest ?? normalizeSessionKey(key)
  const head = rest.split(':')[0]
  if (rest === 'main') return 'main'
  if (['cron', 'subagent', 'acp', 'hook', 'dashboard', 'explicit', 'node'].includes(head)) return head
  if (rest === 'heartbeat' || rest.endsWith(':heartbeat')) return 'heartbeat'
  return classifySessionKind(key, entry as {chatType?: unknown})
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

function isSqliteRef(ref: StoreRef): boolean {
  return ref.path.endsWith('.sqlite')
}

function sessionsDirOf(ref: StoreRef): string {
  return isSqliteRef(ref) ? path.join(path.dirname(path.dirname(ref.path)), 'sessions') : path.dirname(ref.path)
}

/** The disk a store takes as OpenClaw's budget measures it: the database and its side files, and the sessions dir. */
function measure(ref: StoreRef, files: DirFile[]): number {
  let total = files.reduce((n, f) => n + f.size, 0)
  if (isSqliteRef(ref)) for (const s of ['', '-wal', '-shm']) total += fs.statSync(ref.path + s, {throwIfNoEntry: false})?.size ?? 0
  return total
}

function targetsOf(state: OpenClawState, opts: CleanupOptions): string[] {
  if (opts.agent && opts.allAgents) throw new UsageError('--agent and --all-agents do different things; give one.', 'E_FLAG_CONFLICT')
  if (opts.allAgents) return state.allAgentIds()
  return [opts.agent ? state.requireAgent(opts.agent) : state.activeAgentId]
}

/** What cleanup would do to one agent's store now (reads only). */
async function planStore(state: OpenClawState, agentId: string, opts: CleanupOptions, cfg: MaintenanceConfig): Promise<{ref: StoreRef; store: SessionStore; summary: CleanupStoreSummary}> {
  const ref = state.sessionStoreRef(agentId)
  const store = state.storeFor(ref)
  const data = await store.read()
  const now = (opts.now ?? new Date()).getTime()
  const changes: CleanupChange[] = []
  const preview = {...data}
  let missing = 0
  if (opts.fixMissing) {
    for (const [k, e] of Object.entries(data)) {
      if (!store.transcriptOf(e, k).exists) {
        delete preview[k]
        missing++
        changes.push({key: k, sessionId: e.sessionId, action: 'prune-missing', archiveReason: null, activityAt: 0, bytes: null})
      }
    }
  }
  const kinds = opts.kinds?.map((k) => k.toLowerCase())
  const eligible = kinds ? (k: string, e: SessionEntry) => kinds.includes(keyKind(k, e)) : undefined
  const preserveKeys = new Set(opts.activeKey ? [normalizeSessionKey(opts.activeKey)] : [])
  const rules = opts.rules ?? (isSqliteRef(ref) ? '2026.9' : '2026.4')
  if (rules === '2026.4') cfg = {...resolveMaintenanceConfig427(state.config.session?.maintenance as Record<string, unknown> | undefined), ...(opts.olderThanMs !== undefined ? {pruneAfterMs: opts.olderThanMs} : {})}
  const plan = rules === '2026.4' ? planEntryMaintenance427(preview, cfg, {now, preserveKeys, eligible}) : planEntryMaintenance(preview, cfg, {now, preserveKeys, preserveRecentMs: cfg.preserveRecentMs, eligible})
  for (const c of plan.changes) {
    const e = preview[c.key] as SessionEntry & {lastInteractionAt?: number; lastActivityAt?: number; sessionStartedAt?: number}
    const removal = !c.archiveReason
    let bytes: number | null = null
    if (removal && !isSqliteRef(ref)) bytes = fs.statSync(store.transcriptOf(e, c.key).locator, {throwIfNoEntry: false})?.size ?? 0
    changes.push({key: c.key, sessionId: e.sessionId, action: c.action, archiveReason: c.archiveReason ?? null, activityAt: Math.max(e.lastInteractionAt ?? 0, e.lastActivityAt ?? 0, e.sessionStartedAt ?? 0, e.updatedAt ?? 0), bytes})
  }
  // The store after the plan, for what its entries still reference.
  const after = {...preview}
  for (const c of plan.changes) if (!c.archiveReason) delete after[c.key]
  const dir = sessionsDirOf(ref)
  const files = await listFiles(dir)
  const removedPaths = new Set<string>()
  for (const c of changes) if (!c.archiveReason) {
    const e = data[c.key]
    if (e) for (const p of artifactPaths(store, c.key, e)) removedPaths.add(p)
  }
  const referenced = new Set<string>()
  for (const [k, e] of Object.entries(after)) for (const p of artifactPaths(store, k, e)) referenced.add(p)
  const storeBase = path.basename(ref.path)
  const tempRe = new RegExp(`^${storeBase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(?:\\d+\\.)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.tmp$`, 'i')
  const out: CleanupFile[] = []
  for (const f of files) {
    if (removedPaths.has(f.path)) continue
    if (tempRe.test(f.name)) {
      if (rules === '2026.9' && f.mtimeMs <= now - TEMP_STALE_MS) out.push({path: f.path, bytes: f.size, why: 'temp'})
      continue
    }
    // 2026.4.27 sweeps no files; 2026.9.6 prunes unreferenced transcripts and trajectories past pruneAfter.
    if (rules === '2026.9' && f.mtimeMs <= now - cfg.pruneAfterMs && isArtifactName(f.name) && !referenced.has(f.path)) out.push({path: f.path, bytes: f.size, why: 'unreferenced'})
  }
  if (opts.sweep || opts.keep !== undefined) out.push(...(await leftovers(store, ref, files, new Set(out.map((f) => f.path)), {now, ageMs: cfg.pruneAfterMs, sweep: Boolean(opts.sweep), keep: opts.keep})))
  out.sort((a, b) => a.path.localeCompare(b.path))
  const freed = out.reduce((n, f) => n + f.bytes, 0)
  const total = measure(ref, files)
  const maxBytes = opts.maxDiskBytes ?? cfg.maxDiskBytes
  const highWater = opts.maxDiskBytes !== undefined ? Math.max(1, Math.floor(opts.maxDiskBytes * 0.8)) : cfg.highWaterBytes
  let diskBudget: CleanupStoreSummary['diskBudget'] = maxBytes === null || highWater === null ? null : {totalBytesBefore: total, totalBytesAfter: total, removedFiles: 0, removedEntries: 0, freedBytes: 0, maxBytes, highWaterBytes: highWater, overBudget: total > maxBytes}
  const archiveRows: CleanupStoreSummary['archiveRows'] = []
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
  const summary: CleanupStoreSummary = {
    agentId,
    storePath: ref.path,
    mode: opts.enforce ? 'enforce' : cfg.mode,
    dryRun: opts.dryRun,
    rules,
    beforeCount: Object.keys(data).length,
    afterCount: plan.afterCount,
    missing,
    dmScopeRetired: 0,
    modelRunPruned: plan.modelRunPruned,
    archived: plan.archived,
    capArchived: plan.capArchived,
    pruned: plan.pruned,
    capped: plan.capped,
    unreferencedArtifacts: {scannedFiles: files.length, removedFiles: out.length, freedBytes: freed, olderThanMs: cfg.pruneAfterMs},
    diskBudget,
    wouldMutate: changes.length > 0 || out.length > 0 || archiveRows.length > 0,
    changes,
    files: out,
    reclaimedBytes: 0,
    archiveRows,
  }
  return {ref, store, summary}
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

/**
 * Plan, and unless `dryRun`, apply: per store, archives marked in one write, removals deleted as OpenClaw's delete
 * (transcript kept as an archive), then the planned files moved into the journal; all in one journal entry.
 */
export async function cleanupSessions(state: OpenClawState, opts: CleanupOptions): Promise<SessionsCleanupResult> {
  state.requireStateDir()
  const cfg = resolveMaintenanceConfig(state.config.session?.maintenance as Record<string, unknown> | undefined)
  if (opts.olderThanMs !== undefined) cfg.pruneAfterMs = opts.olderThanMs
  const agents = targetsOf(state, opts)
  const plans: Awaited<ReturnType<typeof planStore>>[] = []
  for (const agentId of agents) plans.push(await planStore(state, agentId, opts, cfg))
  const mode = opts.enforce ? 'enforce' : cfg.mode
  if (opts.dryRun || mode === 'warn') return {dryRun: opts.dryRun, mode, stores: plans.map((p) => p.summary), journal: null, journalBytes: 0}
  for (const p of plans) if (p.summary.wouldMutate) state.assertWritable(p.summary.agentId)
  const {journal} = await runJournaled({env: state.env, stateDir: state.stateDir, action: 'cleanup', command: `sessions cleanup${opts.allAgents ? ' --all-agents' : opts.agent ? ` --agent ${opts.agent}` : ''}`, summary: `cleanup: ${plans.map((p) => `${p.summary.agentId} ${p.summary.changes.length} session(s), ${p.summary.files.length} file(s)`).join('; ')}`, noJournal: opts.noJournal}, async (entry) => {
    for (const p of plans) {
      const life = p.store.lifecycle
      if (!life) throw new ClawkitError('This store cannot be cleaned up.', {code: 'E_UNSUPPORTED', exitCode: ExitCode.failure})
      const marks = p.summary.changes.filter((c) => c.archiveReason).map((c) => ({key: c.key, sessionId: c.sessionId, archiveReason: c.archiveReason!}))
      await life.mark(marks, {now: opts.now, journal: entry})
      // A removal the key no longer fits (another session now, or gone) is skipped, never forced.
      const removals = p.summary.changes.filter((x) => !x.archiveReason).map((c) => ({key: c.key, sessionId: c.sessionId}))
      if (life.deleteMany) await life.deleteMany(removals, {now: opts.now, journal: entry})
      else {
        for (const c of removals) {
          const now = await p.store.findEntry(c.key)
          if (!now || now.entry.sessionId !== c.sessionId) continue
          await life.delete(c.key, {now: opts.now, journal: entry})
        }
      }
      if (p.summary.archiveRows.length > 0 && life.dropArchives) await life.dropArchives(p.summary.archiveRows.map((r) => r.name), {now: opts.now, journal: entry})
      if ((removals.length > 0 || p.summary.archiveRows.length > 0) && life.reclaim) p.summary.reclaimedBytes = (await life.reclaim()).freedBytes
      for (const f of p.summary.files) {
        // A lock is taken only while it is still stale (its holder may have been a process that just started).
        if (f.why === 'stale-lock' && !inspectLock(f.path)?.stale) continue
        const img = await fileImage(f.path).catch(() => ABSENT)
        if (!img.exists) continue
        if (entry) {
          await entry.record({kind: 'files', agentId: p.summary.agentId, store: p.ref.path, label: `cleanup: ${path.basename(f.path)} (${f.why})`, files: [{path: f.path, before: img, after: ABSENT}]})
          await entry.takeFile(f.path, img.sha256)
        } else await fsp.rm(f.path, {force: true})
      }
    }
  })
  return {dryRun: false, mode, stores: plans.map((p) => ({...p.summary, dryRun: false})), journal: journal?.id ?? null, journalBytes: journal?.bytes ?? 0}
}
