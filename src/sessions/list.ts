// `sessions list`: rows with the same fields and fallbacks as `openclaw sessions --json`, for every store asked for.
import fs from 'node:fs'

import {lookupContextWindow, parseModelRef, resolveAgentModelRef, DEFAULT_CONTEXT_TOKENS} from '../config/config.js'
import {resolveUserPath} from '../config/paths.js'
import {UsageError} from '../errors.js'
import {sqliteEraMessage} from '../store/era.js'
import {positiveIntegerFlag} from '../flags.js'
import {classifySessionKind, resolveAgentIdFromKey, type SessionKind} from '../store/session-key.js'
import {openSessionStore, type OpenClawState} from '../store/state.js'
import type {SessionEntry, StoreRef} from '../store/types.js'

/** One row of `sessions list --json`; field order and fallbacks follow OpenClaw 2026.4.x. Undefined fields are omitted. */
export interface SessionRow {
  key: string
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

/** The `sessions list --json` document (a superset-compatible copy of `openclaw sessions --json`). */
export interface SessionsListResult {
  /**
   * The store path, or null when several stores were read. For one SQLite-era agent it is still the JSON-era location
   * (OpenClaw's shape), which was not read: `sqliteStores` says why `sessions` is empty.
   */
  path: string | null
  /** The stores read (with several): a SQLite-era agent's is not one of them, it is in `sqliteStores`. */
  stores?: StoreRef[]
  allAgents?: true
  /** Number of matching sessions (after --active, before --limit). */
  count: number
  activeMinutes: number | null
  sessions: SessionRow[]
  /**
   * Agents whose sessions live in a SQLite-era database (OpenClaw 2026.7+), which clawkit cannot read yet: none of
   * their sessions are in `sessions` or `count`. Present only when there are such agents.
   */
  sqliteStores?: SqliteStoreNote[]
}

export interface SqliteStoreNote {
  agentId: string
  path: string
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

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined
}
function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}
function bool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined
}

const configuredModelCache = new WeakMap<OpenClawState, Map<string, {provider?: string; model?: string}>>()

/** The agent's configured default model, memoized per state: a 10k-row list asks for it 10k times. */
function configuredModel(state: OpenClawState, agentId: string): {provider?: string; model?: string} {
  let perState = configuredModelCache.get(state)
  if (!perState) configuredModelCache.set(state, (perState = new Map()))
  let hit = perState.get(agentId)
  if (!hit) perState.set(agentId, (hit = parseModelRef(resolveAgentModelRef(state.config, agentId))))
  return hit
}

export function buildRow(state: OpenClawState, key: string, entry: SessionEntry, storeAgentId: string, now: number): SessionRow {
  const agentId = resolveAgentIdFromKey(key, storeAgentId)
  const updatedAt = num(entry.updatedAt)
  const rawTotal = num(entry.totalTokens)
  const fresh = rawTotal !== undefined && entry.totalTokensFresh !== false
  const configured = configuredModel(state, agentId)
  const modelOverride = str(entry.modelOverride)
  const providerOverride = str(entry.providerOverride)
  const modelProvider = str(entry.modelProvider)
  const model = modelOverride ?? str(entry.model) ?? configured.model
  const provider = providerOverride ?? modelProvider ?? configured.provider
  const defaultsCtx = num(state.config.agents?.defaults?.contextTokens)
  const contextTokens = num(entry.contextTokens) ?? lookupContextWindow(state.config, model, provider) ?? defaultsCtx ?? DEFAULT_CONTEXT_TOKENS
  const ageMs = updatedAt === undefined ? undefined : now - updatedAt
  const sessionId = str(entry.sessionId)
  const systemSent = bool(entry.systemSent)
  const abortedLastRun = bool(entry.abortedLastRun)
  const inputTokens = num(entry.inputTokens)
  const outputTokens = num(entry.outputTokens)
  // OpenClaw 2026.4.27 prints the stored total even when stale; freshness only changes its human table.
  const totalTokens = rawTotal ?? null
  const kind = classifySessionKind(key, entry)
  const thinkingLevel = str(entry.thinkingLevel)
  const verboseLevel = str(entry.verboseLevel)
  const traceLevel = str(entry.traceLevel)
  const reasoningLevel = str(entry.reasoningLevel)
  const elevatedLevel = str(entry.elevatedLevel)
  const responseUsage = str(entry.responseUsage)
  const groupActivation = str(entry.groupActivation)
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

/** An explicit --store names one file: a missing one is a typo, not an empty store. */
function requireStoreFile(file: string): string {
  let st: fs.Stats
  try {
    st = fs.statSync(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
    throw new UsageError(`Session store not found: ${file} (--store). Check the path; a store is an agent's sessions.json.`, 'E_STORE_NOT_FOUND')
  }
  if (st.isDirectory()) throw new UsageError(`Session store is a directory: ${file} (--store). Name its sessions.json.`, 'E_STORE_NOT_FOUND')
  return file
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

export async function listSessions(state: OpenClawState, opts: ListOptions = {}): Promise<SessionsListResult> {
  state.requireStateDir()
  const activeMinutes = parseActiveMinutes(opts.active)
  const limit = parseLimit(opts.limit)
  const {targets, multi} = resolveTargets(state, opts)
  const now = opts.now ?? Date.now()
  const rows: SessionRow[] = []
  const sqliteStores: SqliteStoreNote[] = []
  // Only the stores actually read: a SQLite-era agent's legacy path beside `sqliteStores` would claim it was.
  const read: StoreRef[] = []
  for (const ref of targets) {
    // A SQLite-era agent's legacy sessions.json (if any is left) is stale import input, not its sessions. An explicit
    // --store is read as asked.
    const db = opts.store ? undefined : state.sqliteStore(ref.agentId)
    if (db) {
      sqliteStores.push({agentId: ref.agentId, path: db, message: `${sqliteEraMessage(ref.agentId, db)}.`})
      continue
    }
    read.push(ref)
    // Rows are built as the index is read, so the parsed entries (~16 KB each in a real OpenClaw store) are not all
    // held at once.
    const built = await openSessionStore(ref).readRows((key, entry) => buildRow(state, key, entry, ref.agentId, now))
    for (const row of built.values()) {
      opts.allKeys?.push(row.key)
      if (activeMinutes !== null && (row.updatedAt === undefined || now - row.updatedAt > activeMinutes * 60_000)) continue
      rows.push(row)
    }
  }
  rows.sort((a, b) => (b.updatedAt ?? Number.NEGATIVE_INFINITY) - (a.updatedAt ?? Number.NEGATIVE_INFINITY))
  const extra = sqliteStores.length > 0 ? {sqliteStores} : {}
  const result: SessionsListResult = {path: multi ? null : targets[0].path, count: rows.length, activeMinutes, sessions: limit === null ? rows : rows.slice(0, limit), ...extra}
  if (multi) {
    return {path: null, stores: read, ...(opts.allAgents ? {allAgents: true as const} : {}), count: result.count, activeMinutes, sessions: result.sessions, ...extra}
  }
  return result
}
