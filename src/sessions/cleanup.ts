// `sessions cleanup`: OpenClaw 2026.9.6's `sessions cleanup` planned the same way (store/maintenance-plan.ts for the
// entries; unreferenced artifacts older than pruneAfter, stale store temp files; the disk budget measured as it
// measures it), offline, in both eras, with clawkit's filters on top; then applied, journaled, by each store's
// lifecycle (archives marked in a few writes, removals as OpenClaw's delete, which keeps the transcript as an archive),
// each key checked again inside the write: one a turn made active since the plan is left alone and reported.
import {ClawkitError, ExitCode, UsageError} from '../errors.js'
import {runJournaled} from '../store/journal.js'
import {type CleanupAction, type MaintenanceConfig, planEntryMaintenance, planEntryMaintenance427, resolveMaintenanceConfig, resolveMaintenanceConfig427} from '../store/maintenance-plan.js'
import {classifySessionKind, normalizeSessionKey, parseAgentSessionKey} from '../store/session-key.js'
import {activityOf} from '../store/lifecycle.js'
import type {OpenClawState} from '../store/state.js'
import type {SessionEntry, SessionStore, StoreRef} from '../store/types.js'

export type {CleanupArchiveRow, CleanupDiskBudget, CleanupFile} from '../store/maintenance.js'
import {type CleanupArchiveRow, type CleanupDiskBudget, type CleanupFile, isSqliteRef, planStoreFiles, removeCleanupFiles, transcriptBytes, withoutFilesOfRows} from '../store/maintenance.js'

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
   * SQLite era: the archive rows the plan removes, each with its reason: the disk budget's (`budget`, when the store is
   * over maxBytes: the oldest until it is under the high water mark), --keep's (`archive`) and --sweep's
   * (`orphaned-archive`); each published file goes too, as a file above. Applied: the rows removed (a row whose
   * session was restored, or an orphan whose key is live again, since the plan stays, with its file).
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
  why: 'active' | 'changed'
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
    if (removal) bytes = transcriptBytes(store, ref, c.key, e)
    changes.push({key: c.key, sessionId: e.sessionId, action: c.action, archiveReason: c.archiveReason ?? null, activityAt: activityOf(e), bytes})
  }
  // The store after the plan, for what its entries still reference.
  const after = {...preview}
  for (const c of plan.changes) if (!c.archiveReason) delete after[c.key]
  const maxBytes = opts.maxDiskBytes ?? cfg.maxDiskBytes
  const highWater = opts.maxDiskBytes !== undefined ? Math.max(1, Math.floor(opts.maxDiskBytes * 0.8)) : cfg.highWaterBytes
  const removedKeys = changes.filter((c) => !c.archiveReason).map((c) => c.key)
  const fp = await planStoreFiles(store, ref, {rules, now, pruneAfterMs: cfg.pruneAfterMs, data, after, removedKeys, sweep: Boolean(opts.sweep), keep: opts.keep, maxDiskBytes: maxBytes, highWaterBytes: highWater})
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
    unreferencedArtifacts: {scannedFiles: fp.scannedFiles, removedFiles: fp.files.length, freedBytes: fp.freedBytes, olderThanMs: cfg.pruneAfterMs},
    diskBudget: fp.diskBudget,
    wouldMutate: changes.length > 0 || fp.files.length > 0 || fp.archiveRows.length > 0,
    changes,
    files: fp.files,
    reclaimedBytes: 0,
    archiveRows: fp.archiveRows,
    skipped: [],
  }
  return {ref, store, summary}
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
      const removals = p.summary.changes.filter((x) => !x.archiveReason)
      if (life.deleteMany) {
        const outcomes = await life.deleteMany(removals.map((c) => ({key: c.key, sessionId: c.sessionId, activityAt: c.activityAt})), {now: opts.now, journal: entry})
        const done = new Map(outcomes.map((o) => [normalizeSessionKey(o.key), o]))
        for (const c of removals) {
          const o = done.get(normalizeSessionKey(c.key))
          if (!o) skip(c, 'changed')
          else if (o.skipped) skip(c, 'active')
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
      if (p.summary.archiveRows.length > 0 && life.dropArchives) {
        // --keep and the orphan sweep remove archives only: a row whose session was restored since the plan stays, and
        // an orphan whose key a session holds again stays too; so does its published file. The summary says what went.
        const rows = p.summary.archiveRows
        const label = `cleanup: ${rows.length} archive row(s) removed (${[...new Set(rows.map((r) => r.why))].join(', ')})`
        const dropped = new Set(await life.dropArchives(rows.map((r) => r.name), {now: opts.now, journal: entry}, {label, archivedOnly: rows.filter((r) => r.why !== 'budget').map((r) => r.name), unclaimedOnly: rows.filter((r) => r.why === 'orphaned-archive').map((r) => r.name)}))
        const kept = new Set(rows.filter((r) => r.why !== 'budget' && !dropped.has(r.name)).map((r) => r.name))
        if (kept.size > 0) {
          p.summary.archiveRows = rows.filter((r) => !kept.has(r.name))
          p.summary.files = withoutFilesOfRows(p.summary.files, kept)
        }
      }
      if ((removals.length > 0 || p.summary.archiveRows.length > 0) && life.reclaim) p.summary.reclaimedBytes = (await life.reclaim()).freedBytes
      await removeCleanupFiles(p.summary.files, {agentId: p.summary.agentId, ref: p.ref, journal: entry})
    }
  })
  return {dryRun: false, mode, stores: plans.map((p) => ({...p.summary, dryRun: false})), journal: journal?.id ?? null, journalBytes: journal?.bytes ?? 0}
}
