// `clawkit status`: one fast look at the state dir, agents, recent sessions, cheap doctor checks and the gateway port.
import fs from 'node:fs'
import path from 'node:path'

import {chooseModel} from '../agent/model.js'
import {catalogSummary, type CatalogSummary} from '../catalog/status.js'
import {DEFAULT_CONTEXT_TOKENS, lookupContextWindow, resolveWorkspaceDir} from '../config/config.js'
import {collectFindings} from '../doctor/doctor.js'
import type {Runaway} from '../sessions/budget-types.js'
import {freshTotal, percentUsed} from '../sessions/format.js'
import {buildRow, type SessionRow} from '../sessions/list.js'
import {findRunaways} from '../sessions/runaway.js'
import {scanAgentStores} from '../store/diagnostics/index.js'
import {agentStoreStats, indexKeys, pushTop, type RecentCandidate} from '../store/diagnostics/stats.js'
import type {SessionKind} from '../store/session-key.js'
import type {OpenClawState} from '../store/state.js'
import {finiteNumber} from '../util/values.js'
import {type GatewayProbe, probeGateway, resolveGatewayPort} from './gateway.js'

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
  agents: {
    defaultId: string
    agents: AgentStatus[]
    /** Sessions of the stores that could be read: those of `unreadable` agents are not in it. */
    totalSessions: number
    bootstrapPendingCount: number
    /**
     * Agents whose store could not be read (their `storeError`): their `sessionsCount` is 0 because nothing was
     * counted, not because they have no sessions, and `totalSessions`, `sessions.count` and `recent` leave them out.
     */
    unreadable: string[]
  }
  sessions: {
    paths: string[]
    count: number
    defaults: {model: string | null; contextTokens: number}
    recent: SessionStatusRow[]
    byAgent: {agentId: string; path: string; count: number; recent: SessionStatusRow[]}[]
  }
  transcripts: {files: number; bytes: number}
  /** clawkit's local catalog of this state dir (in clawkit's data dir; `clawkit index --status` says more). */
  catalog: CatalogSummary
  /**
   * Sessions spending far above their own usual rate in the last hour (docs/sessions.md, "Runaway sessions"): only the
   * transcripts of sessions updated in the last hour are read for it.
   */
  runaways: Runaway[]
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

export async function getStatus(state: OpenClawState, opts: StatusOptions = {}): Promise<StatusResult> {
  state.requireStateDir()
  const now = opts.now ?? Date.now()
  const {port, source} = resolveGatewayPort(state.config, state.env, opts.profile)
  const gatewayPromise = probeGateway(port, source, opts.probeTimeoutMs)
  const agentIds = state.allAgentIds()
  const stateExists = fs.existsSync(state.stateDir)
  const scans = stateExists ? await scanAgentStores(state, agentIds) : []
  const {findings} = await collectFindings(state, agentIds, {cheap: true, now, scans})
  if (opts.allKeys) indexKeys(scans, opts.allKeys)

  const agents: AgentStatus[] = []
  const byAgent: StatusResult['sessions']['byAgent'] = []
  const recentTop: RecentCandidate[] = []
  let count = 0
  const totals = {files: 0, bytes: 0}
  for (const id of agentIds) {
    const st = await agentStoreStats(state, scans, id, {recent: RECENT_LIMIT, allKeys: opts.allKeys})
    const agentCount = st.count
    const agentRecent = st.top.map((c) => toStatusRow(buildRow(state, c.key, c.entry, c.storeAgentId, now, c.era), c.entry))
    for (const c of st.top) pushTop(recentTop, c, RECENT_LIMIT)
    totals.files += st.transcripts.files
    totals.bytes += st.transcripts.bytes
    count += agentCount
    let workspaceDir = ''
    try {
      workspaceDir = resolveWorkspaceDir(state.stateDir, state.config, id, state.env)
    } catch {}
    agents.push({
      id,
      configured: st.configured || state.configuredAgentIds().includes(id),
      sessionsPath: st.storePath,
      sessionsCount: agentCount,
      storeError: st.storeError,
      lastUpdatedAt: st.last,
      lastActiveAgeMs: st.last === null ? null : now - st.last,
      workspaceDir,
      bootstrapPending: workspaceDir ? fs.existsSync(path.join(workspaceDir, 'BOOTSTRAP.md')) : false,
      transcripts: st.transcripts,
      era: st.sqlite ? 'sqlite' : 'json',
      ...(st.sqlite ? {sqliteStore: st.sqlite.store, sqlite: st.sqlite.figures} : {}),
    })
    byAgent.push({agentId: id, path: st.sqlite?.store ?? st.storePath, count: agentCount, recent: agentRecent})
  }
  // The model a turn of the default agent would use (the same function `agent` calls), with OpenClaw's built-in
  // default when nothing is configured, rather than "unknown".
  const defaultsRef = chooseModel(state.config, state.defaultAgentId)
  const defaultsCtx = finiteNumber(state.config.agents?.defaults?.contextTokens) ?? lookupContextWindow(state.config, defaultsRef.model, defaultsRef.provider) ?? DEFAULT_CONTEXT_TOKENS
  const recent = recentTop.map((c) => toStatusRow(buildRow(state, c.key, c.entry, c.storeAgentId, now, c.era), c.entry))
  const newest = recent[0]
  const open = findings.filter((f) => !f.fixed)
  const gateway = await gatewayPromise
  return {
    stateDir: state.stateDir,
    stateDirReason: state.stateDirReason,
    configPath: state.configPath,
    configExists: state.configExists,
    configError: state.configError ? state.configError.message : null,
    agents: {
      defaultId: state.defaultAgentId,
      agents,
      totalSessions: count,
      bootstrapPendingCount: agents.filter((a) => a.bootstrapPending).length,
      unreadable: agents.filter((a) => a.storeError !== null).map((a) => a.id),
    },
    sessions: {
      // The stores read: a SQLite-era agent's database, not its sessionsPath (the legacy location).
      paths: [...new Set(agents.map((a) => a.sqliteStore ?? a.sessionsPath))],
      count,
      defaults: {model: defaultsRef.model ?? null, contextTokens: defaultsCtx},
      recent,
      byAgent,
    },
    transcripts: totals,
    catalog: catalogSummary(state.stateDir, state.env),
    runaways: stateExists ? await findRunaways(state, {agents: agentIds.filter((id) => !agents.find((a) => a.id === id)?.storeError), now: new Date(now), index: (id) => scans.find((sc) => sc.agentId === id && sc.agentIds.length === 1 && !state.sqliteStore(id))?.data}) : [],
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
