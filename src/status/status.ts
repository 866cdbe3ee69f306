// `clawkit status`: one fast look at the state dir, agents, recent sessions, cheap doctor checks and the gateway port.
import fs from 'node:fs'
import path from 'node:path'

import {chooseModel} from '../agent/model.js'
import {DEFAULT_CONTEXT_TOKENS, lookupContextWindow, resolveWorkspaceDir} from '../config/config.js'
import {collectFindings} from '../doctor/doctor.js'
import {scanStores, type StoreScan} from '../doctor/scan.js'
import {freshTotal, percentUsed} from '../sessions/format.js'
import {buildRow, type SessionRow} from '../sessions/list.js'
import {isEntryObject} from '../store/index-scan.js'
import type {SqliteSessionStore} from '../store/sqlite/store.js'
import type {OpenClawState} from '../store/state.js'
import {resolveAgentIdFromKey, type SessionKind} from '../store/session-key.js'
import type {SessionEntry} from '../store/types.js'
import {type GatewayProbe, probeGateway, resolveGatewayPort} from './gateway.js'
import {finiteNumber} from '../util/values.js'

export const RECENT_LIMIT = 10

/** One row of `sessions.recent` (OpenClaw's SessionStatus). */
export interface SessionStatusRow {
  agentId: string
  key: string
  kind: SessionKind
  sessionId?: string
  updatedAt: number | null
  age: number | null
  thinkingLevel?: string
  fastMode?: boolean
  verboseLevel?: string
  reasoningLevel?: string
  elevatedLevel?: string
  systemSent?: boolean
  abortedLastRun?: boolean
  inputTokens?: number
  outputTokens?: number
  cacheRead?: number
  cacheWrite?: number
  /** Prompt size of the last call when fresh, else null. */
  totalTokens: number | null
  totalTokensFresh: boolean
  remainingTokens: number | null
  percentUsed: number | null
  model: string | null
  modelProvider?: string
  contextTokens: number
  flags: string[]
}

export interface AgentStatus {
  id: string
  configured: boolean
  sessionsPath: string
  sessionsCount: number
  /** null when the index could not be parsed (run doctor). */
  storeError: string | null
  lastUpdatedAt: number | null
  lastActiveAgeMs: number | null
  workspaceDir: string
  bootstrapPending: boolean
  transcripts: {files: number; bytes: number}
  /** Which store holds the agent's sessions: its SQLite database (OpenClaw 2026.7+) or sessions.json. */
  era: 'json' | 'sqlite'
  /** The agent's SQLite-era database, when it has one (then sessionsCount counts its sessions). */
  sqliteStore?: string
  /** SQLite era only: the database's schema version, file sizes and counts (by SQL; null when it cannot be read). */
  sqlite?: {path: string; schemaVersion: number | null; databaseBytes: number; walBytes: number; sessions: number | null; events: number | null}
}

/** The `clawkit status --json` document; `sessions` and `agents` mirror OpenClaw's status JSON. */
export interface StatusResult {
  stateDir: string
  stateDirReason: string
  configPath: string
  configExists: boolean
  configError: string | null
  agents: {defaultId: string; agents: AgentStatus[]; totalSessions: number; bootstrapPendingCount: number}
  sessions: {
    paths: string[]
    count: number
    defaults: {model: string | null; contextTokens: number}
    recent: SessionStatusRow[]
    byAgent: {agentId: string; path: string; count: number; recent: SessionStatusRow[]}[]
  }
  transcripts: {files: number; bytes: number}
  lastActivity: {key: string; agentId: string; updatedAt: number; ageMs: number} | null
  /** Counts from doctor's cheap checks (no transcript contents read). */
  doctor: {errors: number; warnings: number; info: number; ids: string[]; checks: 'cheap'}
  gateway: GatewayProbe
  all: boolean
}

export interface StatusOptions {
  all?: boolean
  profile?: string
  now?: number
  probeTimeoutMs?: number
  /**
   * Filled with every key of the stores read (not just the 10 recent rows): `sessions history` searches them all, so
   * the Sessions table cuts keys to be unique among these. Not part of the --json document.
   */
  allKeys?: string[]
}

/** OpenClaw's status flags: like `sessions` but `elevated:` and `fast`/`fast:off`, as arrays. */
export function statusFlags(row: SessionRow, fastMode: boolean | undefined): string[] {
  const flags: string[] = []
  if (row.thinkingLevel) flags.push(`think:${row.thinkingLevel}`)
  if (row.verboseLevel) flags.push(`verbose:${row.verboseLevel}`)
  if (fastMode === true) flags.push('fast')
  else if (fastMode === false) flags.push('fast:off')
  if (row.reasoningLevel) flags.push(`reasoning:${row.reasoningLevel}`)
  if (row.elevatedLevel) flags.push(`elevated:${row.elevatedLevel}`)
  if (row.systemSent) flags.push('system')
  if (row.abortedLastRun) flags.push('aborted')
  if (row.sessionId) flags.push(`id:${row.sessionId}`)
  return flags
}

function toStatusRow(row: SessionRow, entry: Record<string, unknown>): SessionStatusRow {
  // OpenClaw's status JSON, unlike its sessions list, nulls a stale total.
  const totalTokens = freshTotal(row)
  const fastMode = typeof entry.fastMode === 'boolean' ? entry.fastMode : undefined
  return {
    agentId: row.agentId,
    key: row.key,
    kind: row.kind,
    sessionId: row.sessionId,
    updatedAt: row.updatedAt ?? null,
    age: row.ageMs ?? null,
    thinkingLevel: row.thinkingLevel,
    fastMode,
    verboseLevel: row.verboseLevel,
    reasoningLevel: row.reasoningLevel,
    elevatedLevel: row.elevatedLevel,
    systemSent: row.systemSent,
    abortedLastRun: row.abortedLastRun,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    cacheRead: finiteNumber(entry.cacheRead),
    cacheWrite: finiteNumber(entry.cacheWrite),
    totalTokens,
    totalTokensFresh: row.totalTokensFresh,
    remainingTokens: totalTokens === null ? null : Math.max(0, row.contextTokens - totalTokens),
    percentUsed: percentUsed(totalTokens, row.contextTokens),
    model: row.model ?? null,
    modelProvider: row.modelProvider,
    contextTokens: row.contextTokens,
    flags: statusFlags(row, fastMode),
  }
}

/** A session that may make a recent list: rows are built only for the few that do (10 of 10 000). */
interface Candidate {
  key: string
  entry: SessionEntry
  storeAgentId: string
  updatedAt: number | null
}

const byNewest = (a: {updatedAt: number | null}, b: {updatedAt: number | null}) => (b.updatedAt ?? Number.NEGATIVE_INFINITY) - (a.updatedAt ?? Number.NEGATIVE_INFINITY)

/** Keep the n newest without sorting everything (10 000 sessions, 10 kept): insertion into a short sorted list. */
function pushTop<T extends {updatedAt: number | null}>(top: T[], item: T, n: number): void {
  if (top.length === n && byNewest(top[n - 1], item) <= 0) return
  let i = top.length
  while (i > 0 && byNewest(top[i - 1], item) > 0) i--
  top.splice(i, 0, item)
  if (top.length > n) top.pop()
}

function fileSize(p: string): number {
  try {
    return fs.statSync(p).size
  } catch {
    return 0
  }
}

/**
 * A SQLite-era agent: counts by SQL and the newest rows by the updated_at index, never every entry. A database that
 * cannot be read (damaged, locked, a Node without node:sqlite) is reported on the agent's line, not a failed status.
 */
function sqliteAgent(state: OpenClawState, id: string, db: string, allKeys: string[] | undefined): {sessions: {count: number; last: number | null; top: Candidate[]}; info: NonNullable<AgentStatus['sqlite']>; error: string | null} {
  const info: NonNullable<AgentStatus['sqlite']> = {path: db, schemaVersion: null, databaseBytes: fileSize(db), walBytes: fileSize(`${db}-wal`), sessions: null, events: null}
  try {
    const store = state.storeFor({agentId: id, path: db}) as SqliteSessionStore
    const st = store.stats(RECENT_LIMIT)
    info.schemaVersion = st.schemaVersion
    info.sessions = st.sessions
    info.events = st.events
    const top = st.newest.map((h) => ({key: h.storedKey, entry: h.entry, storeAgentId: id, updatedAt: h.entry.updatedAt}))
    if (allKeys) for (const h of st.newest) allKeys.push(h.storedKey)
    return {sessions: {count: st.sessions, last: st.lastUpdatedAt, top}, info, error: null}
  } catch (error) {
    return {sessions: {count: 0, last: null, top: []}, info, error: error instanceof Error ? error.message : String(error)}
  }
}

/**
 * One agent's sessions in a scanned store: how many, the newest updatedAt, the RECENT_LIMIT newest. A function of its
 * own, not a loop inside getStatus: on 10 000 sessions V8 optimizes whatever function holds this loop, and Node waits
 * at exit for a compile still running; getStatus's took 40–60 ms after the output was written, this one's ~5 ms ends long before.
 */
function agentSessions(scan: StoreScan, id: string): {count: number; last: number | null; top: Candidate[]} {
  const top: Candidate[] = []
  let count = 0
  let last: number | null = null
  if (!scan.data) return {count, last, top}
  // A shared store is read once; its rows belong to the agent named in each key.
  const ownsUnscoped = scan.agentIds.length === 1 && id === scan.agentId
  for (const key of Object.keys(scan.data)) {
    const entry = scan.data[key]
    if (key === 'global' || key === 'unknown' || !isEntryObject(entry)) continue
    if (!ownsUnscoped && resolveAgentIdFromKey(key, scan.agentId) !== id) continue
    count++
    const updatedAt = finiteNumber(entry.updatedAt) ?? null
    if (updatedAt !== null && (last === null || updatedAt > last)) last = updatedAt
    pushTop(top, {key, entry, storeAgentId: scan.agentId, updatedAt}, RECENT_LIMIT)
  }
  return {count, last, top}
}

export async function getStatus(state: OpenClawState, opts: StatusOptions = {}): Promise<StatusResult> {
  state.requireStateDir()
  const now = opts.now ?? Date.now()
  const {port, source} = resolveGatewayPort(state.config, state.env, opts.profile)
  const gatewayPromise = probeGateway(port, source, opts.probeTimeoutMs)
  const agentIds = state.allAgentIds()
  const stateExists = fs.existsSync(state.stateDir)
  const scans = stateExists ? await scanStores(state, agentIds) : []
  const {findings} = await collectFindings(state, agentIds, {cheap: true, now, scans})
  if (opts.allKeys) for (const scan of scans) if (scan.data) for (const key of Object.keys(scan.data)) opts.allKeys.push(key)

  const agents: AgentStatus[] = []
  const byAgent: StatusResult['sessions']['byAgent'] = []
  const recentTop: Candidate[] = []
  let count = 0
  const totals = {files: 0, bytes: 0}
  for (const id of agentIds) {
    const scan = scans.find((s) => s.agentIds.includes(id))
    const storePath = scan?.storePath ?? state.storeRef(id).path
    const sqliteStore = state.sqliteStore(id)
    // A legacy sessions.json left beside the database is stale import input, not this agent's sessions.
    const sq = sqliteStore ? sqliteAgent(state, id, sqliteStore, opts.allKeys) : undefined
    const {count: agentCount, last, top: agentTop} = sq ? sq.sessions : scan ? agentSessions(scan, id) : {count: 0, last: null, top: []}
    const agentRecent = agentTop.map((c) => toStatusRow(buildRow(state, c.key, c.entry, c.storeAgentId, now), c.entry))
    for (const c of agentTop) pushTop(recentTop, c, RECENT_LIMIT)
    const owner = scan && scan.agentId === id
    const files = owner ? scan.transcripts.length : 0
    const bytes = owner ? scan.transcripts.reduce((s, t) => s + t.size, 0) : 0
    totals.files += files
    totals.bytes += bytes
    count += agentCount
    let workspaceDir = ''
    try {
      workspaceDir = resolveWorkspaceDir(state.stateDir, state.config, id, state.env)
    } catch {}
    agents.push({
      id,
      configured: Boolean(scan?.configured) || state.configuredAgentIds().includes(id),
      sessionsPath: storePath,
      sessionsCount: agentCount,
      storeError: sq ? sq.error : scan?.storeError ? scan.storeError.message : (scan?.readError ?? null),
      lastUpdatedAt: last,
      lastActiveAgeMs: last === null ? null : now - last,
      workspaceDir,
      bootstrapPending: workspaceDir ? fs.existsSync(path.join(workspaceDir, 'BOOTSTRAP.md')) : false,
      transcripts: {files, bytes},
      era: sq ? 'sqlite' : 'json',
      ...(sq ? {sqliteStore, sqlite: sq.info} : {}),
    })
    byAgent.push({agentId: id, path: sqliteStore ?? storePath, count: agentCount, recent: agentRecent})
  }
  // The model a turn of the default agent would use (the same function `agent` calls), with OpenClaw's built-in
  // default when nothing is configured, rather than "unknown".
  const defaultsRef = chooseModel(state.config, state.defaultAgentId)
  const defaultsCtx = finiteNumber(state.config.agents?.defaults?.contextTokens) ?? lookupContextWindow(state.config, defaultsRef.model, defaultsRef.provider) ?? DEFAULT_CONTEXT_TOKENS
  const recent = recentTop.map((c) => toStatusRow(buildRow(state, c.key, c.entry, c.storeAgentId, now), c.entry))
  const newest = recent[0]
  const open = findings.filter((f) => !f.fixed)
  const gateway = await gatewayPromise
  return {
    stateDir: state.stateDir,
    stateDirReason: state.stateDirReason,
    configPath: state.configPath,
    configExists: state.configExists,
    configError: state.configError ? state.configError.message : null,
    agents: {defaultId: state.defaultAgentId, agents, totalSessions: count, bootstrapPendingCount: agents.filter((a) => a.bootstrapPending).length},
    sessions: {
      // The stores read: a SQLite-era agent's database, not its sessionsPath (the legacy location).
      paths: [...new Set(agents.map((a) => a.sqliteStore ?? a.sessionsPath))],
      count,
      defaults: {model: defaultsRef.model ?? null, contextTokens: defaultsCtx},
      recent,
      byAgent,
    },
    transcripts: totals,
    lastActivity: newest && newest.updatedAt !== null ? {key: newest.key, agentId: newest.agentId, updatedAt: newest.updatedAt, ageMs: now - newest.updatedAt} : null,
    doctor: {
      errors: open.filter((f) => f.severity === 'error').length,
      warnings: open.filter((f) => f.severity === 'warn').length,
      info: open.filter((f) => f.severity === 'info').length,
      ids: [...new Set(open.map((f) => f.id))],
      checks: 'cheap',
    },
    gateway,
    all: Boolean(opts.all),
  }
}
