// `sessions list`: rows with the same fields and fallbacks as `openclaw sessions --json`, for every store asked for.

import {lookupContextWindow, parseModelRef, resolveAgentModelRef, DEFAULT_CONTEXT_TOKENS} from '../config/config.js'
import {resolveUserPath} from '../config/paths.js'
import {ClawkitError, UsageError} from '../errors.js'
import {positiveIntegerFlag} from '../flags.js'
import {classifySessionKind, parseAgentSessionKey, resolveAgentIdFromKey, type SessionKind} from '../store/session-key.js'
import {isSqliteFile} from '../store/sqlite/store.js'
import {openSessionStore, type OpenClawState, type ReadableState} from '../store/state.js'
import {requireStoreFile} from '../store/store-path.js'
import type {SessionEntry, SessionReader, StoreRef} from '../store/types.js'
import {finiteNumber, nonEmptyString, strictBoolean} from '../util/values.js'
import type {FlagSource} from './format.js'
import type {SessionCost, TranscriptCalls} from './usage.js'

/** One row of `sessions list --json`; field order and fallbacks follow OpenClaw 2026.4.x. Undefined fields are omitted. */
export interface SessionRow {
  /** Fleet reads (--store-url): the host the session lives on. */
  host?: string
  key: string
  /** With --usage: the cost so far of the session (read from its transcript). */
  usage?: SessionCost
  updatedAt?: number
  ageMs?: number
  sessionId?: string
  systemSent?: boolean
  abortedLastRun?: boolean
  thinkingLevel?: string
  verboseLevel?: string
  traceLevel?: string
  reasoningLevel?: string
  elevatedLevel?: string
  responseUsage?: string
  groupActivation?: string
  inputTokens?: number
  outputTokens?: number
  /** The stored prompt size of the last call (stale or not, as OpenClaw 2026.4.27 prints it), else null. */
  totalTokens: number | null
  totalTokensFresh: boolean
  /** Display model id (override, else runtime model, else the configured default). */
  model?: string
  modelProvider?: string
  providerOverride?: string
  modelOverride?: string
  /** Context window after fallbacks (entry, model catalog, agents.defaults.contextTokens, 200000). */
  contextTokens: number
  agentId: string
  kind: SessionKind
}

/**
 * One row of a SQLite-era store, exactly as `openclaw sessions --json` 2026.9.6 prints it (store-sqlite.md §4): the
 * entry's own values in this field order, undefined ones omitted.
 */
export interface SqliteSessionRow extends FlagSource {
  /** Fleet reads (--store-url): the host the session lives on. */
  host?: string
  key: string
  /** With --usage: the cost so far of the session (read from its transcript). */
  usage?: SessionCost
  updatedAt: number | null
  ageMs: number | null
  [field: string]: unknown
  totalTokens: number | null
  totalTokensFresh: boolean
  model?: string
  modelProvider?: string
  contextTokens: number
  agentId: string
  acpRuntime: boolean
  agentRuntime: {id: string; source: string}
  kind: SqliteSessionKind
}

export type SqliteSessionKind = SessionKind | 'cron' | 'spawn-child'

/** The `sessions list --json` document (a superset-compatible copy of `openclaw sessions --json`, 2026.4.27 and 2026.9.6). */
export interface SessionsListResult {
  /** The store path (the .sqlite file for one SQLite-era agent), or null when several stores were read. */
  path: string | null
  /** The stores read (with several, or --all-agents); on the fleet replica each names its host. */
  stores?: (StoreRef & {host?: string})[]
  allAgents?: true
  /**
   * With --all-agents: the agents whose store could not be read (a damaged or empty database, a corrupt index, a
   * SQLite-era agent on a Node without node:sqlite). Their sessions are not in `sessions` and not counted; the command
   * says so on stderr and exits 1. Absent when every store was read.
   */
  unreadable?: UnreadableStore[]
  /** Fleet reads (--store-url): the hosts read. */
  hosts?: string[]
  /** Rows returned (2026.9.6's meaning: after --limit). */
  count: number
  /** Matching sessions after --active, before --limit. */
  totalCount: number
  /** The --limit applied, null for `all` (clawkit's default). */
  limitApplied: number | null
  /** count < totalCount. */
  hasMore: boolean
  activeMinutes: number | null
  /** JSON-era rows (2026.4.27's fields) and SQLite-era rows (2026.9.6's fields), by the era of their store. */
  sessions: (SessionRow | SqliteSessionRow)[]
}

/** An agent's store that `sessions list --all-agents` could not read, and why (the error it would have failed with). */
export interface UnreadableStore {
  agentId: string
  path: string
  code: string
  message: string
}

export interface ListOptions {
  agent?: string
  allAgents?: boolean
  store?: string
  /** Raw --active value (validated here with OpenClaw's parseInt semantics). */
  active?: string
  /** Raw --limit value: a positive integer or `all`. */
  limit?: string
  now?: number
  /**
   * Filled with the key of every row read, before --active and --limit: what `sessions history` searches, so a table
   * cuts keys to be unique among these, not just among the rows it shows. Not part of the --json document.
   */
  allKeys?: string[]
  /** Add each shown row's cost so far (`usage`), read from its transcript: only then is any transcript opened. */
  usage?: boolean
  /** With `usage`: where the calls are kept already (the local catalog's ledger), instead of reading each transcript. */
  usageCalls?: TranscriptCalls
}

export function parseActiveMinutes(raw: string | undefined): number | null {
  if (raw === undefined) return null
  const n = Number.parseInt(raw, 10)
  if (!Number.isFinite(n) || n <= 0) throw new UsageError('--active must be a positive integer (minutes)', 'E_BAD_ACTIVE')
  return n
}

export function parseLimit(raw: string | undefined): number | null {
  return raw === undefined ? null : positiveIntegerFlag('--limit', raw, {all: true})
}

const configuredModelCache = new WeakMap<ReadableState, Map<string, {provider?: string; model?: string}>>()

/** The agent's configured default model, memoized per state: a 10k-row list asks for it 10k times. */
function configuredModel(state: ReadableState, agentId: string): {provider?: string; model?: string} {
  let perState = configuredModelCache.get(state)
  if (!perState) configuredModelCache.set(state, (perState = new Map()))
  let hit = perState.get(agentId)
  if (!hit) perState.set(agentId, (hit = parseModelRef(resolveAgentModelRef(state.config, agentId))))
  return hit
}

/**
 * Whether a session's token total is fresh (the prompt size of its last call, not stale), by the rule of the OpenClaw
 * release whose store holds it, as its resolveFreshSessionTotalTokens decides: 2026.4.27 (JSON era) any total unless
 * `totalTokensFresh === false`; 2026.9.6 (SQLite era) only with `totalTokensFresh === true` and `totalTokensVersion ===
 * 1`, so a row imported from the JSON era without a version is not fresh. `sessions list` and `status` both ask here.
 */
export function totalTokensFresh(entry: SessionEntry, era: 'json' | 'sqlite'): boolean {
  const e = entry as Record<string, unknown>
  const total = e.totalTokens
  if (typeof total !== 'number' || !Number.isFinite(total) || (era === 'sqlite' && total < 0)) return false
  return era === 'sqlite' ? e.totalTokensFresh === true && e.totalTokensVersion === 1 : e.totalTokensFresh !== false
}

/** A row as `openclaw sessions --json` 2026.4.27 builds it; `era` only decides token freshness (totalTokensFresh). */
export function buildRow(state: ReadableState, key: string, entry: SessionEntry, storeAgentId: string, now: number, era: 'json' | 'sqlite' = 'json'): SessionRow {
  const agentId = resolveAgentIdFromKey(key, storeAgentId)
  const updatedAt = finiteNumber(entry.updatedAt)
  const rawTotal = finiteNumber(entry.totalTokens)
  const fresh = totalTokensFresh(entry, era)
  const configured = configuredModel(state, agentId)
  const modelOverride = nonEmptyString(entry.modelOverride)
  const providerOverride = nonEmptyString(entry.providerOverride)
  const modelProvider = nonEmptyString(entry.modelProvider)
  const model = modelOverride ?? nonEmptyString(entry.model) ?? configured.model
  const provider = providerOverride ?? modelProvider ?? configured.provider
  const defaultsCtx = finiteNumber(state.config.agents?.defaults?.contextTokens)
  const contextTokens = finiteNumber(entry.contextTokens) ?? lookupContextWindow(state.config, model, provider) ?? defaultsCtx ?? DEFAULT_CONTEXT_TOKENS
  const ageMs = updatedAt === undefined ? undefined : now - updatedAt
  const sessionId = nonEmptyString(entry.sessionId)
  const systemSent = strictBoolean(entry.systemSent)
  const abortedLastRun = strictBoolean(entry.abortedLastRun)
  const inputTokens = finiteNumber(entry.inputTokens)
  const outputTokens = finiteNumber(entry.outputTokens)
  // OpenClaw 2026.4.27 prints the stored total even when stale; freshness only changes its human table.
  const totalTokens = rawTotal ?? null
  const kind = classifySessionKind(key, entry)
  const thinkingLevel = nonEmptyString(entry.thinkingLevel)
  const verboseLevel = nonEmptyString(entry.verboseLevel)
  const traceLevel = nonEmptyString(entry.traceLevel)
  const reasoningLevel = nonEmptyString(entry.reasoningLevel)
  const elevatedLevel = nonEmptyString(entry.elevatedLevel)
  const responseUsage = nonEmptyString(entry.responseUsage)
  const groupActivation = nonEmptyString(entry.groupActivation)
  // Most sessions set none of these nine; their rows leave them out. The document is the same (JSON.stringify skips
  // undefined values), but stringifying 10 000 rows that carry nine undefined fields each took ~9 ms more.
  if ((thinkingLevel ?? verboseLevel ?? traceLevel ?? reasoningLevel ?? elevatedLevel ?? responseUsage ?? groupActivation ?? providerOverride ?? modelOverride) === undefined) {
    return {key, updatedAt, ageMs, sessionId, systemSent, abortedLastRun, inputTokens, outputTokens, totalTokens, totalTokensFresh: fresh, model, modelProvider, contextTokens, agentId, kind}
  }
  const row: SessionRow = {
    key,
    updatedAt,
    ageMs,
    sessionId,
    systemSent,
    abortedLastRun,
    thinkingLevel,
    verboseLevel,
    traceLevel,
    reasoningLevel,
    elevatedLevel,
    responseUsage,
    groupActivation,
    inputTokens,
    outputTokens,
    totalTokens,
    totalTokensFresh: fresh,
    model,
    modelProvider,
    providerOverride,
    modelOverride,
    contextTokens,
    agentId,
    kind,
  }
  return row
}

/** Which stores a list (or status) reads, with OpenClaw's validation of --agent/--all-agents/--store. */
export function resolveTargets(state: OpenClawState, opts: {agent?: string; allAgents?: boolean; store?: string}): {targets: StoreRef[]; multi: boolean} {
  if (opts.agent && opts.allAgents) throw new UsageError('--agent and --all-agents cannot be used together', 'E_FLAG_CONFLICT')
  if (opts.store && (opts.agent || opts.allAgents)) throw new UsageError('--store cannot be combined with --agent or --all-agents', 'E_FLAG_CONFLICT')
  if (opts.store) return {targets: [{agentId: state.activeAgentId, path: requireStoreFile(resolveUserPath(opts.store, state.env))}], multi: false}
  if (opts.allAgents) {
    const seen = new Set<string>()
    const targets: StoreRef[] = []
    for (const id of state.allAgentIds()) {
      const ref = state.storeRef(id)
      if (seen.has(ref.path)) continue // a shared session.store without {agentId}
      seen.add(ref.path)
      targets.push(ref)
    }
    return {targets, multi: true}
  }
  const agentId = opts.agent ? state.requireAgent(opts.agent) : state.activeAgentId
  return {targets: [state.storeRef(agentId)], multi: false}
}

/** OpenClaw 2026.9.6's normalizeOptionalAgentRuntimeId: `pi` is the old name of its own harness. */
function runtimeId(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined
  const v = raw.trim().toLowerCase()
  if (!v) return undefined
  if (v === 'openclaw' || v === 'pi') return 'openclaw'
  if (v === 'codex-app-server') return 'codex'
  return v
}
const isDefaultRuntime = (id: string | undefined) => id === undefined || id === 'auto' || id === 'default'

/**
 * The runtime a row reports (2026.9.6 resolveModelAgentRuntimeMetadata): the session's persisted harness (a locked
 * model selection's, else agentRuntimeOverride, else agentHarnessId) as `session`, else the policy default
 * `{auto, implicit}`. Config-driven runtime policies and ACP backends are not modelled (docs/sessions.md, sessions list).
 */
function agentRuntimeOf(entry: SessionEntry): {id: string; source: string} {
  const pinned = entry.modelSelectionLocked === true && !(typeof entry.pluginOwnerId === 'string' && entry.pluginOwnerId.trim()) ? runtimeId(entry.agentHarnessId) : undefined
  let persisted = pinned && !isDefaultRuntime(pinned) ? pinned : undefined
  if (!persisted) {
    const override = runtimeId(entry.agentRuntimeOverride)
    persisted = override && !isDefaultRuntime(override) ? override : runtimeId(entry.agentHarnessId)
  }
  return persisted && !isDefaultRuntime(persisted) ? {id: persisted, source: 'session'} : {id: 'auto', source: 'implicit'}
}

/** 2026.9.6's classifySessionKind: literal keys, then cron keys, then spawned children, then group by chat type or key. */
export function classifySqliteKind(key: string, entry: SessionEntry): SqliteSessionKind {
  if (key === 'global') return 'global'
  if (key === 'unknown') return 'unknown'
  // The cheap test first: a rest starting with `cron:` needs `cron:` in the lowercased key, and the full parse (trim,
  // lowercase, split, filter, join) was ~10 ms of a 10k-row list, once per row.
  if (key.toLowerCase().includes('cron:') && parseAgentSessionKey(key)?.rest.toLowerCase().startsWith('cron:')) return 'cron'
  if (entry.spawnedBy) return 'spawn-child'
  return classifySessionKind(key, entry)
}

function nonNegative(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined
}

/**
 * A row as `openclaw sessions --json` 2026.9.6 builds it (toSessionDisplayRow, then the JSON projection): the entry's
 * values as stored, `visibility` defaulting to "shared", `totalTokens` raw (not nulled when stale), `totalTokensFresh`
 * only with `totalTokensVersion` 1, and the display model and context window resolved as for the JSON era.
 */
export function buildSqliteRow(state: ReadableState, key: string, entry: SessionEntry, storeAgentId: string, now: number): SqliteSessionRow {
  const base = buildRow(state, key, entry, storeAgentId, now)
  // Values as stored (the document is OpenClaw's); the table escapes what it prints.
  const e = entry as Record<string, any>
  const updatedAt = (e.updatedAt ?? null) as number | null
  const total = nonNegative(e.totalTokens)
  const fresh = totalTokensFresh(entry, 'sqlite')
  // The resolved display model's provider (not the entry's raw field, as 2026.4.27 printed), and a context window only
  // when positive, else the model's, else the defaults'.
  const configured = configuredModel(state, base.agentId)
  const provider = nonEmptyString(e.providerOverride) ?? nonEmptyString(e.modelProvider) ?? configured.provider
  const contextTokens =
    typeof e.contextTokens === 'number' && e.contextTokens > 0 ? e.contextTokens : (lookupContextWindow(state.config, base.model, provider) ?? finiteNumber(state.config.agents?.defaults?.contextTokens) ?? DEFAULT_CONTEXT_TOKENS)
  return {
    key,
    updatedAt,
    ageMs: updatedAt ? now - updatedAt : null,
    sessionId: e.sessionId,
    spawnedBy: e.spawnedBy,
    spawnedWorkspaceDir: e.spawnedWorkspaceDir,
    spawnedCwd: e.spawnedCwd,
    parentSessionKey: e.parentSessionKey,
    forkedFromParent: e.forkSource !== undefined || e.forkedFromParent === true ? true : undefined,
    spawnDepth: e.spawnDepth,
    subagentRole: e.subagentRole,
    subagentControlScope: e.subagentControlScope,
    sessionStartedAt: e.sessionStartedAt,
    lastInteractionAt: e.lastInteractionAt,
    label: e.label,
    color: e.color,
    status: e.status,
    visibility: e.visibility ?? 'shared',
    createdActor: e.createdActor,
    owner: e.owner,
    participants: e.participants,
    participantCount: e.participantCount,
    systemSent: e.systemSent,
    abortedLastRun: e.abortedLastRun,
    thinkingLevel: e.thinkingLevel,
    verboseLevel: e.verboseLevel,
    traceLevel: e.traceLevel,
    reasoningLevel: e.reasoningLevel,
    elevatedLevel: e.elevatedLevel,
    responseUsage: e.responseUsage,
    groupActivation: e.groupActivation,
    inputTokens: e.inputTokens,
    outputTokens: e.outputTokens,
    totalTokens: total ?? null,
    totalTokensFresh: fresh,
    totalTokensVersion: e.totalTokensVersion,
    model: base.model,
    modelProvider: provider,
    providerOverride: e.providerOverride,
    modelOverride: e.modelOverride,
    contextTokens,
    agentId: base.agentId,
    acpRuntime: Boolean(e.acp),
    agentRuntime: agentRuntimeOf(entry),
    kind: classifySqliteKind(key, entry),
  }
}

/**
 * Order of both eras' rows: newest `updatedAt` first, stable (ties keep store order; a SQLite store is read in
 * session_key order). A JSON-era row without updatedAt sorts last, as before.
 */
function byUpdatedAtDesc(a: {updatedAt?: number | null}, b: {updatedAt?: number | null}): number {
  return (b.updatedAt ?? Number.NEGATIVE_INFINITY) - (a.updatedAt ?? Number.NEGATIVE_INFINITY)
}

/**
 * Top-level entry fields no row reads, dropped by the store before the entry is parsed (SQLite: json_remove). The first
 * two are most of a real entry's ~14 KB; contextBudgetStatus (~0.5 KB, an object of some twenty fields) is a third of
 * what is left and ~15 ms of JSON.parse on a 10k-session list. Any field may be added here only if buildSqliteRow,
 * buildRow and what they call never read it (test/sessions/list-omitted.test.ts checks that with a recording entry).
 */
export const LIST_OMITTED_FIELDS = ['skillsSnapshot', 'systemPromptReport', 'contextBudgetStatus'] as const

export async function listSessions(state: OpenClawState, opts: ListOptions = {}): Promise<SessionsListResult> {
  state.requireStateDir()
  const activeMinutes = parseActiveMinutes(opts.active)
  const limit = parseLimit(opts.limit)
  const {targets, multi} = resolveTargets(state, opts)
  const now = opts.now ?? Date.now()
  const rows: (SessionRow | SqliteSessionRow)[] = []
  const read: StoreRef[] = []
  const storeOf = new Map<SessionRow | SqliteSessionRow, {store: SessionReader; agentId: string}>()
  const unreadable: UnreadableStore[] = []
  let firstError: ClawkitError | undefined
  for (const target of targets) {
    // A SQLite-era agent's database is its truth (a legacy sessions.json beside it is stale import input). An explicit
    // --store is read as asked.
    const ref = opts.store ? target : state.sessionStoreRef(target.agentId)
    read.push(ref)
    // --store may also name an agent database (openclaw-agent.sqlite), recognised by its header.
    const sqlite = opts.store ? isSqliteFile(ref.path) : state.isSqliteRef(ref)
    // Rows are built as the index is read, so the parsed entries (~16 KB each in a real OpenClaw store) are not all
    // held at once.
    let store: SessionReader
    let built: Map<string, SessionRow | SqliteSessionRow>
    try {
      store = opts.store ? (sqlite ? state.sqliteStoreAt(ref) : openSessionStore(ref)) : state.storeFor(ref)
      // The fields no row shows (OpenClaw's listing drops the two large ones too) are left out where the store can.
      built = await store.readRows((key, entry) => (sqlite ? buildSqliteRow(state, key, entry, ref.agentId, now) : buildRow(state, key, entry, ref.agentId, now)), {omit: LIST_OMITTED_FIELDS})
    } catch (error) {
      // One damaged agent does not hide the others' sessions (status reads every agent the same way): with
      // --all-agents it is named in `unreadable`, and the command exits 1 so that a script sees the list is partial.
      if (!opts.allAgents || !(error instanceof ClawkitError) || error instanceof UsageError) throw error
      unreadable.push({agentId: ref.agentId, path: ref.path, code: error.code, message: error.message})
      firstError ??= error
      continue
    }
    for (const row of built.values()) {
      opts.allKeys?.push(row.key)
      const updatedAt = row.updatedAt
      if (activeMinutes !== null && (typeof updatedAt !== 'number' || now - updatedAt > activeMinutes * 60_000)) continue
      rows.push(row)
      if (opts.usage) storeOf.set(row, {store, agentId: ref.agentId})
    }
  }
  rows.sort(byUpdatedAtDesc)
  const sessions = limit === null ? rows : rows.slice(0, limit)
  if (opts.usage) {
    const {currentSessionCost} = await import('./usage.js')
    for (const row of sessions) {
      const {store, agentId} = storeOf.get(row)!
      row.usage = await currentSessionCost(state.config, store, row.key, opts.usageCalls ? {agentId, calls: opts.usageCalls} : undefined)
    }
  }
  const counts = {count: sessions.length, totalCount: rows.length, limitApplied: limit, hasMore: sessions.length < rows.length, activeMinutes}
  // Nothing could be read: the first agent's error, as a single agent's list fails.
  if (firstError && unreadable.length === targets.length) throw firstError
  if (multi) return {path: null, stores: read, ...(opts.allAgents ? {allAgents: true as const} : {}), ...(unreadable.length > 0 ? {unreadable} : {}), ...counts, sessions}
  return {path: read[0].path, ...counts, sessions}
}
