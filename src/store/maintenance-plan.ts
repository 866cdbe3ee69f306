// OpenClaw 2026.9.6's session entry maintenance, ported so that `clawkit sessions cleanup` plans what
// `openclaw sessions cleanup` plans (its store-maintenance.ts, store-maintenance-preserve-snapshot.ts and
// cleanup-service.ts previewStoreCleanup, read in dist/store-maintenance-*.mjs): the defaults (prune after 30 days,
// dashboards archived after 7, model-run probes after 1, 5000 unarchived entries, 10 GiB disk budget with an 80% high
// water), what is protected (archived, pinned, locked, running, the active key, recent with preserveRecent, main and
// global, threads, external conversations, groups), and the order: model-run probes (only over the cap), stale
// dashboards, then age retention (synthetic keys removed, the rest archived), then the cap (oldest activity first).
// Pure: it plans on a copy of the entries and says, per key, what and why.
import {parseDurationMs, parseByteSize} from '../config/units.js'
import {isSubagentKey, normalizeSessionKey, parseAgentSessionKey, parseSessionKey, parseThreadSuffix} from './session-key.js'
import type {SessionEntry, SessionStoreData} from './types.js'

export const DEFAULT_SESSION_PRUNE_AFTER_MS = 30 * 86_400_000
export const DEFAULT_DASHBOARD_ARCHIVE_AFTER_MS = 7 * 86_400_000
export const DEFAULT_MODEL_RUN_PRUNE_AFTER_MS = 86_400_000
export const DEFAULT_SESSION_MAX_ENTRIES = 5000
export const DEFAULT_SESSION_MAX_DISK_BYTES = 10 * 1024 ** 3
const HIGH_WATER_RATIO = 0.8

export interface MaintenanceConfig {
  mode: 'enforce' | 'warn' | string
  pruneAfterMs: number
  archiveDashboardAfterMs: number | null
  maxEntries: number
  modelRunPruneAfterMs: number
  preserveRecentMs: number | null
  maxDiskBytes: number | null
  highWaterBytes: number | null
}

const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v).trim() || undefined)

/** resolveMaintenanceConfigFromInput: `session.maintenance` of openclaw.json with OpenClaw's fallbacks on bad values. */
export function resolveMaintenanceConfig(m: Record<string, unknown> | undefined): MaintenanceConfig {
  const dur = (raw: unknown, fallback: number) => {
    const s = str(raw)
    if (!s) return fallback
    try {
      return parseDurationMs(s, 'd')
    } catch {
      return fallback
    }
  }
  const pruneAfterMs = dur(m?.pruneAfter, DEFAULT_SESSION_PRUNE_AFTER_MS)
  let archiveDashboardAfterMs: number | null
  if (m?.archiveDashboardAfter === false || m?.archiveDashboardAfter === 0) archiveDashboardAfterMs = null
  else {
    const d = dur(m?.archiveDashboardAfter, DEFAULT_DASHBOARD_ARCHIVE_AFTER_MS)
    archiveDashboardAfterMs = d > 0 ? d : null
  }
  let preserveRecentMs: number | null = null
  if (m?.preserveRecent !== false && m?.preserveRecent !== undefined) {
    try {
      preserveRecentMs = parseDurationMs(str(m.preserveRecent) ?? '', 'd')
    } catch {
      preserveRecentMs = null
    }
  }
  let maxDiskBytes: number | null
  if (m?.maxDiskBytes === false) maxDiskBytes = null
  else {
    const s = str(m?.maxDiskBytes)
    if (!s) maxDiskBytes = DEFAULT_SESSION_MAX_DISK_BYTES
    else {
      try {
        const b = parseByteSize(s)
        maxDiskBytes = b > 0 ? b : null
      } catch {
        maxDiskBytes = null
      }
    }
  }
  let highWaterBytes: number | null = null
  if (maxDiskBytes !== null) {
    const def = Math.max(1, Math.min(maxDiskBytes, Math.floor(maxDiskBytes * HIGH_WATER_RATIO)))
    const s = str(m?.highWaterBytes)
    highWaterBytes = def
    if (s) {
      try {
        const b = parseByteSize(s)
        highWaterBytes = b > 0 ? Math.min(b, maxDiskBytes) : def
      } catch {
        highWaterBytes = def
      }
    }
  }
  return {
    mode: typeof m?.mode === 'string' ? m.mode : 'enforce',
    pruneAfterMs,
    archiveDashboardAfterMs,
    maxEntries: typeof m?.maxEntries === 'number' ? m.maxEntries : DEFAULT_SESSION_MAX_ENTRIES,
    modelRunPruneAfterMs: DEFAULT_MODEL_RUN_PRUNE_AFTER_MS,
    preserveRecentMs,
    maxDiskBytes,
    highWaterBytes,
  }
}

type E = SessionEntry & Record<string, any>

const MODEL_RUN_RE = /^explicit:model-run-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export function isGatewayModelRunSessionKey(key: string): boolean {
  if (!/^agent:([^:\s]+):explicit:model-run-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(key)) return false
  const p = parseAgentSessionKey(key)
  return p !== undefined && MODEL_RUN_RE.test(p.rest)
}

function restOf(key: string): string {
  return (parseAgentSessionKey(key)?.rest ?? normalizeSessionKey(key)).toLowerCase()
}

/** isSyntheticSessionMaintenanceKey: runtime rows that maintenance removes instead of archiving. */
export function isSyntheticKey(key: string): boolean {
  const rest = restOf(key)
  return isGatewayModelRunSessionKey(key) || isSubagentKey(key) || rest.startsWith('acp:') || rest.startsWith('cron:') || rest.startsWith('acp-bridge:') || rest.startsWith('hook:') || rest.startsWith('node:') || rest === 'heartbeat' || rest.endsWith(':heartbeat') || rest.includes(':heartbeat:')
}

/** getSessionMaintenanceActivityAt. */
export function activityAt(e: E | undefined): number {
  return Math.max(e?.lastInteractionAt ?? 0, e?.lastActivityAt ?? 0, e?.sessionStartedAt ?? 0, e?.updatedAt ?? 0)
}

function isExternalConversationKey(key: string): boolean {
  const rest = restOf(key)
  const p = parseSessionKey(key)
  const routed = p.channel !== undefined && p.peerKind !== undefined
  return routed || /^direct:.+$/.test(rest) || /^[^:]+:(?:group|channel):.+$/.test(rest) || /^telegram:(?:direct|dm):.+:topic:[^:]+$/.test(rest)
}

function isProtectedEntry(key: string, e: E | undefined): boolean {
  if (isSyntheticKey(key)) return false
  if (normalizeSessionKey(key) === 'global' || parseAgentSessionKey(key)?.rest === 'main') return true
  if (parseThreadSuffix(key).threadId) return true
  if (e?.delivery?.kind === 'external' || isExternalConversationKey(key)) return true
  const chatType = String(e?.chatType ?? (e?.origin as {chatType?: unknown} | undefined)?.chatType ?? (e?.deliveryContext as {chatType?: unknown} | undefined)?.chatType ?? '').toLowerCase()
  return chatType === 'group' || chatType === 'channel' || chatType === 'thread'
}

/** isPinnableSessionEntry. */
function isPinnable(key: string, e: E | undefined): boolean {
  if (isSubagentKey(key) || str(e?.spawnedBy)) return false
  const parent = str(e?.parentSessionKey)
  if (!parent) return true
  const p = parseAgentSessionKey(key)
  return p !== undefined && parent === `agent:${p.agentId}:main`
}

export interface PreserveOptions {
  preserveKeys?: ReadonlySet<string>
  preserveRecentMs?: number | null
  now: number
}

function preservedNonArchived(key: string, e: E | undefined, o: PreserveOptions): boolean {
  if (e?.pinnedAt !== undefined && isPinnable(key, e)) return true
  if (e?.modelSelectionLocked === true || e?.status === 'running' || o.preserveKeys?.has(key)) return true
  if (o.preserveRecentMs != null && !isSyntheticKey(key)) {
    const at = activityAt(e)
    if (at > 0 && o.now - at <= o.preserveRecentMs) return true
  }
  return isProtectedEntry(key, e)
}

/** shouldPreserveMaintenanceEntry. */
export function isPreserved(key: string, e: E | undefined, o: PreserveOptions): boolean {
  return e?.archivedAt !== undefined || preservedNonArchived(key, e, o)
}

/**
 * isSessionEntryDiskBudgetEvictable: only an entry the cap archived (archiveReason active-session-cap) that nothing
 * else protects; the SQLite era's eviction passes no preserve keys (the JSON layout's passes the active key).
 */
export function isDiskBudgetEvictable(key: string, e: E | undefined, o: PreserveOptions): boolean {
  return e?.archivedAt !== undefined && e.archiveReason === 'active-session-cap' && !preservedNonArchived(key, e, o)
}

/**
 * isMainScopeStaleDirectSessionKey (cleanup-service.ts, `--fix-dm-scope`): with session.dmScope `main` (the default),
 * direct-message sessions fold into the agent's main session, so a key of this agent shaped `direct:<peer>`,
 * `<channel>:direct:<peer>` or `<channel>:<account>:direct:<peer>` is a stale row from another dmScope; the active
 * key never is.
 */
export function isMainScopeStaleDirectKey(key: string, o: {dmScope: unknown; agentId: string; activeKey?: string}): boolean {
  if ((o.dmScope ?? 'main') !== 'main') return false
  if (o.activeKey && key === o.activeKey) return false
  const p = parseAgentSessionKey(key)
  if (!p || p.agentId !== o.agentId.toLowerCase()) return false
  const parts = p.rest.split(':')
  if (parts[0] === 'agent') return false
  return (parts.length === 2 && parts[0] === 'direct' && Boolean(parts[1])) || (parts.length === 3 && Boolean(parts[0]) && parts[1] === 'direct' && Boolean(parts[2])) || (parts.length === 4 && Boolean(parts[0]) && Boolean(parts[1]) && parts[2] === 'direct' && Boolean(parts[3]))
}

/** What maintenance does to one key, in OpenClaw's action names (its dry-run table). */
export type CleanupAction = 'prune-missing' | 'retire-dm-scope' | 'prune-model-run' | 'archive-dashboard' | 'archive-age' | 'archive-cap' | 'prune-stale' | 'cap-overflow' | 'evict-budget'

export interface PlannedChange {
  key: string
  action: CleanupAction
  /** archive-*: the entry stays, archived with this reason; prune-*, cap-overflow: the entry is removed. */
  archiveReason?: 'stale-dashboard' | 'age-retention' | 'active-session-cap'
}

export interface EntryPlan {
  changes: PlannedChange[]
  /** OpenClaw's counters. `archived` excludes the cap's archives (capArchived). */
  modelRunPruned: number
  archived: number
  capArchived: number
  pruned: number
  capped: number
  beforeCount: number
  afterCount: number
}

/**
 * planSessionEntryMaintenance with profile "write" and forceMaintenance (what `sessions cleanup` runs), on a copy of
 * `store`. `eligible(key)` narrows which keys may change (clawkit's --kind and --older-than); OpenClaw's plan is
 * the one with every key eligible.
 */
export function planEntryMaintenance(store: SessionStoreData, cfg: MaintenanceConfig, o: PreserveOptions & {eligible?: (key: string, e: E) => boolean}): EntryPlan {
  const entries = new Map<string, E>()
  for (const [k, v] of Object.entries(store)) entries.set(k, {...(v as E)})
  const changes: PlannedChange[] = []
  const eligible = (k: string, e: E) => !o.eligible || o.eligible(k, e)
  const unarchived = () => [...entries.values()].filter((e) => e.archivedAt === undefined).length
  let remaining = unarchived()
  const counts = {archived: 0, capArchived: 0, modelRunPruned: 0, pruned: 0, capped: 0}
  const archive = (k: string, e: E, action: CleanupAction, reason: PlannedChange['archiveReason']) => {
    e.archivedAt = o.now
    delete e.archivedBy
    e.archiveReason = reason
    remaining--
    counts.archived++
    if (action === 'archive-cap') counts.capArchived++
    changes.push({key: k, action, archiveReason: reason})
  }
  const remove = (k: string, action: CleanupAction) => {
    entries.delete(k)
    remaining--
    changes.push({key: k, action})
  }
  // shouldRunModelRunPrune with force: only when the unarchived entries exceed the cap.
  if (remaining > cfg.maxEntries && cfg.modelRunPruneAfterMs > 0) {
    const cutoff = o.now - cfg.modelRunPruneAfterMs
    for (const [k, e] of [...entries]) {
      if (isPreserved(k, e, o) || !isGatewayModelRunSessionKey(k) || !eligible(k, e)) continue
      if (e.updatedAt != null && e.updatedAt < cutoff) {
        remove(k, 'prune-model-run')
        counts.modelRunPruned++
      }
    }
  }
  if (cfg.archiveDashboardAfterMs != null && cfg.archiveDashboardAfterMs > 0) {
    const cutoff = o.now - cfg.archiveDashboardAfterMs
    for (const [k, e] of entries) {
      if (!parseAgentSessionKey(k)?.rest.startsWith('dashboard:') || isPreserved(k, e, o) || !eligible(k, e)) continue
      const at = activityAt(e)
      if (at <= 0 || at >= cutoff) continue
      archive(k, e, 'archive-dashboard', 'stale-dashboard')
    }
  }
  if (cfg.pruneAfterMs > 0) {
    const cutoff = o.now - cfg.pruneAfterMs
    for (const [k, e] of [...entries]) {
      if (isPreserved(k, e, o) || !eligible(k, e)) continue
      if (e.updatedAt != null && e.updatedAt < cutoff) {
        if (isSyntheticKey(k)) {
          remove(k, 'prune-stale')
          counts.pruned++
        } else archive(k, e, 'archive-age', 'age-retention')
      }
    }
  }
  // capEntryCount: the oldest activity first among the unprotected unarchived keys (ties: later keys first).
  const keys = [...entries.keys()].filter((k) => entries.get(k)!.archivedAt === undefined)
  const overflow = keys.length - Math.max(0, cfg.maxEntries)
  if (overflow > 0) {
    const candidates = keys.filter((k) => !isPreserved(k, entries.get(k), o) && eligible(k, entries.get(k)!))
    const victims = [...candidates].reverse().sort((a, b) => activityAt(entries.get(a)) - activityAt(entries.get(b))).slice(0, Math.min(overflow, candidates.length))
    for (const k of victims) {
      const e = entries.get(k)!
      if (isSyntheticKey(k)) {
        remove(k, 'cap-overflow')
        counts.capped++
      } else {
        archive(k, e, 'archive-cap', 'active-session-cap')
        counts.capped++
      }
    }
  }
  void remaining
  return {changes, ...counts, archived: counts.archived - counts.capArchived, beforeCount: Object.keys(store).length, afterCount: entries.size}
}

/**
 * OpenClaw 2026.4.27's maintenance (its store-load.ts, the JSON era's last release): pruneAfter (or pruneDays; 30
 * days) removes every entry not updated since, whatever its kind, but the active key; then the store is capped to
 * maxEntries (500) by updatedAt, newest kept, entries without one removed first. Nothing is archived. No disk budget
 * unless maxDiskBytes is set.
 */
export function resolveMaintenanceConfig427(m: Record<string, unknown> | undefined): MaintenanceConfig {
  const raw = str(m?.pruneAfter ?? m?.pruneDays)
  let pruneAfterMs = DEFAULT_SESSION_PRUNE_AFTER_MS
  if (raw) {
    try {
      pruneAfterMs = parseDurationMs(raw, 'd')
    } catch {
      pruneAfterMs = DEFAULT_SESSION_PRUNE_AFTER_MS
    }
  }
  let maxDiskBytes: number | null = null
  const disk = str(m?.maxDiskBytes)
  if (disk) {
    try {
      maxDiskBytes = parseByteSize(disk)
    } catch {
      maxDiskBytes = null
    }
  }
  return {
    mode: typeof m?.mode === 'string' ? m.mode : 'enforce',
    pruneAfterMs,
    archiveDashboardAfterMs: null,
    maxEntries: typeof m?.maxEntries === 'number' ? m.maxEntries : 500,
    modelRunPruneAfterMs: 0,
    preserveRecentMs: null,
    maxDiskBytes,
    highWaterBytes: maxDiskBytes === null ? null : maxDiskBytes <= 0 ? 0 : Math.max(1, Math.min(maxDiskBytes, Math.floor(maxDiskBytes * HIGH_WATER_RATIO))),
  }
}

export function planEntryMaintenance427(store: SessionStoreData, cfg: MaintenanceConfig, o: {now: number; preserveKeys?: ReadonlySet<string>; eligible?: (key: string, e: E) => boolean}): EntryPlan {
  const entries = new Map<string, E>()
  for (const [k, v] of Object.entries(store)) entries.set(k, v as E)
  const changes: PlannedChange[] = []
  const keep = (k: string, e: E) => o.preserveKeys?.has(k) || (o.eligible !== undefined && !o.eligible(k, e))
  const cutoff = o.now - cfg.pruneAfterMs
  let pruned = 0
  for (const [k, e] of [...entries]) {
    if (keep(k, e)) continue
    if (e?.updatedAt != null && e.updatedAt < cutoff) {
      entries.delete(k)
      changes.push({key: k, action: 'prune-stale'})
      pruned++
    }
  }
  const preserved = [...entries].filter(([k, e]) => keep(k, e)).length
  const removable = Math.max(0, cfg.maxEntries - preserved)
  const keys = [...entries.keys()].filter((k) => !keep(k, entries.get(k)!))
  let capped = 0
  if (keys.length > removable) {
    const at = (k: string) => entries.get(k)?.updatedAt ?? Number.NEGATIVE_INFINITY
    for (const k of [...keys].sort((a, b) => at(b) - at(a)).slice(removable)) {
      entries.delete(k)
      changes.push({key: k, action: 'cap-overflow'})
      capped++
    }
  }
  return {changes, modelRunPruned: 0, archived: 0, capArchived: 0, pruned, capped, beforeCount: Object.keys(store).length, afterCount: entries.size}
}
