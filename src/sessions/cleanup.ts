// `sessions cleanup`: OpenClaw 2026.9.6's `sessions cleanup` planned the same way (store/maintenance-plan.ts for the
// entries; unreferenced artifacts older than pruneAfter, stale store temp files; the disk budget measured as it
// measures it), offline, in both eras, with clawkit's filters on top; then applied, journaled, by each store's
// lifecycle (archives marked in a few writes, removals as OpenClaw's delete, which keeps the transcript as an archive),
// each key checked again inside the write: one a turn made active since the plan is left alone and reported.
import {ClawkitError, ExitCode, UsageError} from '../errors.js'
import path from 'node:path'

import {type JournalEntry, runJournaled} from '../store/journal.js'
import {type CleanupAction, isMainScopeStaleDirectKey, isPreserved, type MaintenanceConfig, planEntryMaintenance, planEntryMaintenance427, resolveMaintenanceConfig, resolveMaintenanceConfig427} from '../store/maintenance-plan.js'
import {classifySessionKind, normalizeSessionKey, parseAgentSessionKey} from '../store/session-key.js'
import {activityOf} from '../store/lifecycle.js'
import type {OpenClawState} from '../store/state.js'
import type {SessionEntry, SessionStore, StoreRef} from '../store/types.js'

export type {CleanupArchiveRow, CleanupDiskBudget, CleanupFile} from '../store/maintenance.js'
import {type CleanupArchiveRow, type CleanupDiskBudget, type CleanupFile, isSqliteRef, physicalDiskUsage, planStoreFiles, removeCleanupFiles, transcriptBytes, withoutFilesOfRows} from '../store/maintenance.js'

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
  diskBudget: CleanupDiskBudget | null
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
   * SQLite era: the archive rows the plan removes, each with its reason: --keep's (`archive`), --sweep's
   * (`orphaned-archive`), and the disk budget's (`budget`), in OpenClaw's order: when the store is over maxBytes,
   * published archive rows go (each with its published file, a `budget` file above), then other archive files, then
   * entries the cap archived (`evict-budget` changes), until it is under the high water mark. Applied: the rows removed
   * (a row whose session was restored, or an orphan whose key is live again, since the plan stays, with its file).
   */
  archiveRows: CleanupArchiveRow[]
  /**
   * Applied: keys of the plan left as they are, because a turn made them active after the plan was made (the cleanup
   * waited for the turn's lock: `active`) or another session holds the key now, or none (`changed`). [] in a plan.
   */
  skipped: CleanupSkip[]
}

/** A planned change the applied cleanup did not make, and why. */
export interface CleanupSkip {
  key: string
  action: CleanupAction
  /** under-budget: a disk-budget eviction left out, the store being under the high water mark before it (SQLite era). */
  why: 'active' | 'changed' | 'under-budget'
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
  /** OpenClaw 2026.9.6's --fix-dm-scope: remove direct-DM rows that session.dmScope `main` folds into the main session. */
  fixDmScope?: boolean
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
  /** clawkit: keep only the n newest archives of each key (JSON era: .reset./.deleted. files; SQLite era: archive rows). */
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

function targetsOf(state: OpenClawState, opts: CleanupOptions): string[] {
  if (opts.agent && opts.allAgents) throw new UsageError('--agent and --all-agents do different things; give one.', 'E_FLAG_CONFLICT')
  if (opts.allAgents) return state.allAgentIds()
  return [opts.agent ? state.requireAgent(opts.agent) : state.activeAgentId]
}

const MESSAGE_ROLES = new Set(['user', 'assistant', 'tool', 'toolResult', 'system'])

/**
 * 2026.9.6's --fix-missing test of one entry (cleanup-service.ts pruneMissingTranscriptEntries): archived or
 * model-locked entries maintenance protects are kept, so are an agent key's entry still being initialized and an
 * entry without a session id under an agent key; another entry without one goes; otherwise it goes when its transcript
 * holds no message record (read until the first one; a transcript that cannot be read is kept).
 */
async function messageFreeEntry(store: SessionStore, key: string, e: SessionEntry, now: number): Promise<boolean> {
  const x = e as SessionEntry & {modelSelectionLocked?: unknown; archivedAt?: unknown; initializationPending?: unknown}
  if ((x.modelSelectionLocked === true || x.archivedAt !== undefined) && isPreserved(key, x as never, {now})) return false
  const agentKey = parseAgentSessionKey(key) !== undefined
  if (agentKey && (x.initializationPending === true || (x.sessionId === key && !(typeof x.sessionFile === 'string' && x.sessionFile.trim())))) return false
  if (!x.sessionId) return !agentKey
  try {
    for await (const l of store.readLines(store.transcriptOf(e, key))) {
      const r = l.value as {type?: unknown; role?: unknown; message?: {role?: unknown}} | undefined
      if (!r) continue
      if (r.type === 'message') return false
      if (r.type === undefined && (MESSAGE_ROLES.has(String(r.message?.role)) || MESSAGE_ROLES.has(String(r.role)))) return false
    }
    return true
  } catch {
    return false
  }
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
  const rules = opts.rules ?? (isSqliteRef(ref) ? '2026.9' : '2026.4')
  if (opts.fixMissing) {
    for (const [k, e] of Object.entries(data)) {
      // 2026.4.27 (and the JSON layout): the transcript file is missing. 2026.9.6's SQLite store: the transcript holds
      // no message (a header-only or absent one), as its pruneMissingTranscriptEntries inspects it.
      const gone = isSqliteRef(ref) && rules === '2026.9' ? await messageFreeEntry(store, k, e, now) : !store.transcriptOf(e, k).exists
      if (gone) {
        delete preview[k]
        missing++
        changes.push({key: k, sessionId: e.sessionId, action: 'prune-missing', archiveReason: null, activityAt: activityOf(e), bytes: null})
      }
    }
  }
  let dmScopeRetired = 0
  if (opts.fixDmScope) {
    for (const [k, e] of Object.entries(preview)) {
      if ((e as {archivedAt?: unknown}).archivedAt !== undefined || !isMainScopeStaleDirectKey(k, {dmScope: state.config.session?.dmScope, agentId, activeKey: opts.activeKey})) continue
      delete preview[k]
      dmScopeRetired++
      changes.push({key: k, sessionId: e.sessionId, action: 'retire-dm-scope', archiveReason: null, activityAt: activityOf(e), bytes: transcriptBytes(store, ref, k, e)})
    }
  }
  const kinds = opts.kinds?.map((k) => k.toLowerCase())
  const eligible = kinds ? (k: string, e: SessionEntry) => kinds.includes(keyKind(k, e)) : undefined
  const preserveKeys = new Set(opts.activeKey ? [normalizeSessionKey(opts.activeKey)] : [])
  if (rules === '2026.4') cfg = {...resolveMaintenanceConfig427(state.config.session?.maintenance as Record<string, unknown> | undefined), ...(opts.olderThanMs !== undefined ? {pruneAfterMs: opts.olderThanMs} : {})}
  const plan = rules === '2026.4' ? planEntryMaintenance427(preview, cfg, {now, preserveKeys, eligible}) : planEntryMaintenance(preview, cfg, {now, preserveKeys, preserveRecentMs: cfg.preserveRecentMs, eligible})
  for (const c of plan.changes) {
    const e = preview[c.key] as SessionEntry & {lastInteractionAt?: number; lastActivityAt?: number; sessionStartedAt?: number}
    const removal = !c.archiveReason
    let bytes: number | null = null
    if (removal) bytes = transcriptBytes(store, ref, c.key, e)
    changes.push({key: c.key, sessionId: e.sessionId, action: c.action, archiveReason: c.archiveReason ?? null, activityAt: activityOf(e), bytes})
  }
  // The store after the plan, for what its entries still reference; and as OpenClaw's preview holds it (archive marks).
  const after = {...preview}
  for (const c of plan.changes) if (!c.archiveReason) delete after[c.key]
  const afterMarked = {...after}
  for (const c of plan.changes) {
    if (!c.archiveReason || !afterMarked[c.key]) continue
    const {archivedBy: _b, ...rest} = afterMarked[c.key] as SessionEntry & {archivedBy?: unknown}
    afterMarked[c.key] = {...rest, archivedAt: now, archiveReason: c.archiveReason} as SessionEntry
  }
  const maxBytes = opts.maxDiskBytes ?? cfg.maxDiskBytes
  const highWater = opts.maxDiskBytes !== undefined ? Math.max(1, Math.floor(opts.maxDiskBytes * 0.8)) : cfg.highWaterBytes
  const removedKeys = changes.filter((c) => !c.archiveReason).map((c) => c.key)
  const mode = opts.enforce ? 'enforce' : cfg.mode
  const fp = await planStoreFiles(store, ref, {rules, now, pruneAfterMs: cfg.pruneAfterMs, data, after, removedKeys, sweep: Boolean(opts.sweep), keep: opts.keep, maxDiskBytes: maxBytes, highWaterBytes: highWater, afterMarked, mode, activeKey: opts.activeKey, preserveRecentMs: cfg.preserveRecentMs})
  for (const v of fp.evictions) changes.push({key: v.key, sessionId: v.sessionId, action: 'evict-budget', archiveReason: null, activityAt: v.activityAt, bytes: v.bytes})
  const summary: CleanupStoreSummary = {
    agentId,
    storePath: ref.path,
    mode,
    dryRun: opts.dryRun,
    rules,
    beforeCount: Object.keys(data).length,
    // OpenClaw 2026.4.27's dry run counts the budget's evictions out; 2026.9.6's (SQLite) does not simulate them.
    afterCount: plan.afterCount - (isSqliteRef(ref) ? 0 : fp.evictions.length),
    missing,
    dmScopeRetired,
    modelRunPruned: plan.modelRunPruned,
    archived: plan.archived,
    capArchived: plan.capArchived,
    pruned: plan.pruned,
    capped: plan.capped,
    // OpenClaw's own: the unreferenced artifacts and stale temp files (clawkit's sweeps and the budget's are not).
    unreferencedArtifacts: {scannedFiles: fp.scannedFiles, removedFiles: fp.files.filter((f) => f.why === 'unreferenced' || f.why === 'temp').length, freedBytes: fp.files.filter((f) => f.why === 'unreferenced' || f.why === 'temp').reduce((n, f) => n + f.bytes, 0), olderThanMs: cfg.pruneAfterMs},
    diskBudget: fp.diskBudget,
    wouldMutate: changes.length > 0 || fp.files.length > 0 || fp.archiveRows.length > 0 || fp.budgetWouldMutate,
    changes,
    files: fp.files,
    reclaimedBytes: 0,
    archiveRows: fp.archiveRows,
    skipped: [],
  }
  return {ref, store, summary}
}

/**
 * The disk budget's part of an applied cleanup, in the plan's order. JSON era: the plan is exact (file sizes, the
 * index's size), so its files and evictions are carried out as planned. SQLite era: as OpenClaw enforces it, one step at
 * a time (an archive row and its published file, an archive file, an entry the cap archived, each followed by the
 * reclaim of the free pages), the disk measured again after each, stopping once under the high water mark; what the
 * plan had left is reported as skipped `under-budget`. An evicted entry goes as OpenClaw's eviction leaves it: its rows
 * and transcript removed and no archive kept (clawkit deletes it, then removes the archive the delete made; the journal
 * keeps both steps for undo).
 */
async function applyBudget(p: {ref: StoreRef; store: SessionStore; summary: CleanupStoreSummary}, files: CleanupFile[], o: {now?: Date; journal: JournalEntry | undefined; skip: (c: CleanupChange, why: CleanupSkip['why']) => void}): Promise<void> {
  const s = p.summary
  const life = p.store.lifecycle!
  const evictions = s.changes.filter((c) => c.action === 'evict-budget')
  // The rows --keep and --sweep removed are done already; only the budget's are applied here.
  const otherRows = s.archiveRows.filter((r) => r.why !== 'budget')
  const budgetRows = s.archiveRows.filter((r) => r.why === 'budget')
  const sqlite = isSqliteRef(p.ref)
  const kept = new Set<string>()
  const remove = async (fs: CleanupFile[]) => {
    for (const k of await removeCleanupFiles(fs, {agentId: s.agentId, store: p.store, ref: p.ref, journal: o.journal})) kept.add(k)
  }
  const evict = async (c: CleanupChange): Promise<boolean> => {
    const [out] = life.deleteMany ? await life.deleteMany([{key: c.key, sessionId: c.sessionId, activityAt: c.activityAt}], {now: o.now, journal: o.journal}) : [await life.delete(c.key, {now: o.now, journal: o.journal, plannedActivityAt: c.activityAt})]
    if (!out || out.skipped) {
      o.skip(c, out ? 'active' : 'changed')
      return false
    }
    if (sqlite) {
      const names = out.archived.map((l) => l.slice(l.lastIndexOf('/') + 1))
      if (names.length > 0 && life.dropArchives) await life.dropArchives(names, {now: o.now, journal: o.journal})
      await remove(names.map((n) => ({path: path.join(path.dirname(path.dirname(p.ref.path)), 'sessions', n), bytes: 0, why: 'budget' as const})))
    } else await remove(out.archived.map((a) => ({path: a, bytes: 0, why: 'budget' as const})))
    return true
  }
  if (!sqlite || !s.diskBudget) {
    // Entries first (each delete moves its transcript aside, then that archive goes), so no entry is left pointing at
    // a transcript the budget removed; then the files. The end state is the budget's.
    let skipped = 0
    for (const c of evictions) if (!(await evict(c))) skipped++
    if (budgetRows.length > 0 && life.dropArchives) await life.dropArchives(budgetRows.map((r) => r.name), {now: o.now, journal: o.journal})
    // The files of an eviction skipped (a turn landed) are its entry's still: removeCleanupFiles leaves them.
    await remove(files)
    if (kept.size > 0) s.files = s.files.filter((f) => !kept.has(f.path))
    if (s.diskBudget && skipped > 0) s.diskBudget = {...s.diskBudget, removedEntries: s.diskBudget.removedEntries - skipped}
    return
  }
  const budget = s.diskBudget
  if (!budget.overBudget || s.mode === 'warn') return
  const reclaim = async () => {
    if (life.reclaim) s.reclaimedBytes += (await life.reclaim()).freedBytes
    return (await physicalDiskUsage(p.ref)).totalBytes
  }
  const before = (await physicalDiskUsage(p.ref)).totalBytes
  let total = await reclaim()
  let removedFiles = 0
  let removedEntries = 0
  const rowFiles = new Set(budgetRows.map((r) => r.name))
  const byName = new Map(files.map((f) => [f.path.slice(f.path.lastIndexOf('/') + 1), f]))
  const doneRows: CleanupArchiveRow[] = []
  const doneFiles: CleanupFile[] = []
  for (const r of budgetRows) {
    if (total <= budget.highWaterBytes) break
    if (life.dropArchives) await life.dropArchives([r.name], {now: o.now, journal: o.journal})
    doneRows.push(r)
    const f = byName.get(r.name)
    if (f) {
      await remove([f])
      doneFiles.push(f)
      removedFiles++
    }
    total = await reclaim()
  }
  for (const f of files) {
    if (rowFiles.has(f.path.slice(f.path.lastIndexOf('/') + 1))) continue
    if (total <= budget.highWaterBytes) break
    await remove([f])
    doneFiles.push(f)
    removedFiles++
    total = await reclaim()
  }
  for (const c of evictions) {
    if (total <= budget.highWaterBytes) {
      o.skip(c, 'under-budget')
      continue
    }
    if (await evict(c)) removedEntries++
    total = await reclaim()
  }
  s.archiveRows = [...otherRows, ...doneRows]
  s.files = [...s.files.filter((f) => f.why !== 'budget'), ...doneFiles]
  s.diskBudget = {...budget, totalBytesBefore: before, totalBytesAfter: total, removedFiles, removedEntries, freedBytes: Math.max(0, before - total)}
}

/**
 * Plan, and unless `dryRun`, apply: per store, archives marked in a few writes, removals deleted as OpenClaw's delete
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
      // A key a turn made active after the plan was made (the write waited for that turn's lock), or that another
      // session holds now, is left as it is and reported; the plan is never forced onto a live session.
      const skip = (c: CleanupChange, why: CleanupSkip['why']) => p.summary.skipped.push({key: c.key, action: c.action, why})
      const whyNot = async (c: CleanupChange): Promise<CleanupSkip['why']> => {
        const now = await p.store.findEntry(c.key)
        return now && now.entry.sessionId === c.sessionId ? 'active' : 'changed'
      }
      const archives = p.summary.changes.filter((c) => c.archiveReason)
      const marked = new Set((await life.mark(archives.map((c) => ({key: c.key, sessionId: c.sessionId, archiveReason: c.archiveReason!, activityAt: c.activityAt})), {now: opts.now, journal: entry})).map((k) => normalizeSessionKey(k)))
      for (const c of archives) if (!marked.has(normalizeSessionKey(c.key))) skip(c, await whyNot(c))
      const removals = p.summary.changes.filter((x) => !x.archiveReason && x.action !== 'evict-budget')
      // Where each removal's transcript went (JSON era): a budget file planned at the transcript is its archive now.
      const movedTo = new Map<string, string>()
      if (life.deleteMany) {
        const outcomes = await life.deleteMany(removals.map((c) => ({key: c.key, sessionId: c.sessionId, activityAt: c.activityAt})), {now: opts.now, journal: entry})
        const done = new Map(outcomes.map((o) => [normalizeSessionKey(o.key), o]))
        for (const c of removals) {
          const o = done.get(normalizeSessionKey(c.key))
          if (!o) skip(c, 'changed')
          else if (o.skipped) skip(c, 'active')
          else if (o.archived[0] && !isSqliteRef(p.ref)) movedTo.set(o.archived[0].replace(/\.deleted\.[^/]*$/, ''), o.archived[0])
        }
      } else {
        for (const c of removals) {
          const now = await p.store.findEntry(c.key)
          if (!now || now.entry.sessionId !== c.sessionId) {
            skip(c, 'changed')
            continue
          }
          if ((await life.delete(c.key, {now: opts.now, journal: entry, plannedActivityAt: c.activityAt})).skipped) skip(c, 'active')
        }
      }
      if (p.summary.archiveRows.some((r) => r.why !== 'budget') && life.dropArchives) {
        // --keep and the orphan sweep remove archives only: a row whose session was restored since the plan stays, and
        // an orphan whose key a session holds again stays too; so does its published file. The summary says what went.
        // The budget's rows are applied below, step by step.
        const rows = p.summary.archiveRows.filter((r) => r.why !== 'budget')
        const label = `cleanup: ${rows.length} archive row(s) removed (${[...new Set(rows.map((r) => r.why))].join(', ')})`
        const dropped = new Set(await life.dropArchives(rows.map((r) => r.name), {now: opts.now, journal: entry}, {label, archivedOnly: rows.map((r) => r.name), unclaimedOnly: rows.filter((r) => r.why === 'orphaned-archive').map((r) => r.name)}))
        const kept = new Set(rows.filter((r) => !dropped.has(r.name)).map((r) => r.name))
        if (kept.size > 0) {
          p.summary.archiveRows = p.summary.archiveRows.filter((r) => !kept.has(r.name))
          p.summary.files = withoutFilesOfRows(p.summary.files, kept)
        }
      }
      if ((removals.length > 0 || p.summary.archiveRows.some((r) => r.why !== 'budget')) && life.reclaim) p.summary.reclaimedBytes += (await life.reclaim()).freedBytes
      const budgetFiles = p.summary.files.filter((f) => f.why === 'budget').map((f) => ({...f, path: movedTo.get(f.path) ?? f.path}))
      const kept = new Set(await removeCleanupFiles(p.summary.files.filter((f) => f.why !== 'budget'), {agentId: p.summary.agentId, store: p.store, ref: p.ref, journal: entry}))
      if (kept.size > 0) p.summary.files = p.summary.files.filter((f) => !kept.has(f.path))
      await applyBudget(p, budgetFiles, {now: opts.now, journal: entry, skip})
    }
  })
  return {dryRun: false, mode, stores: plans.map((p) => ({...p.summary, dryRun: false})), journal: journal?.id ?? null, journalBytes: journal?.bytes ?? 0}
}
