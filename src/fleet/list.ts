// `sessions list --store-url`: the rows of every host's sessions in the fleet replica, built by the same row builders
// as a local list (each host's era decides which), newest first. The database sorts, counts and cuts to --limit, so a
// fleet of 40 000 sessions sends back only the rows shown.
import {normalizeAgentId} from '../config/agent-id.js'
import {UsageError} from '../errors.js'
import {buildRow, buildSqliteRow, LIST_OMITTED_FIELDS, type ListOptions, parseActiveMinutes, parseLimit, type SessionRow, type SessionsListResult, type SqliteSessionRow} from '../sessions/list.js'
import type {SessionEntry} from '../store/types.js'
import type {FleetState} from './state.js'

export interface FleetListOptions extends ListOptions {
  host?: string
  allHosts?: boolean
}

/**
 * Which agents: --agent on every host that has it, else every agent (the replica holds no host's config to name a
 * default agent). Ties in updatedAt are ordered by host, agent and key (a local list keeps its store's order).
 */
export async function listFleetSessions(fleet: FleetState, opts: FleetListOptions = {}): Promise<SessionsListResult> {
  if (opts.store) throw new UsageError('--store reads a local file; it cannot be combined with --store-url', 'E_FLAG_CONFLICT')
  if (opts.agent && opts.allAgents) throw new UsageError('--agent and --all-agents cannot be used together', 'E_FLAG_CONFLICT')
  const activeMinutes = parseActiveMinutes(opts.active)
  const limit = parseLimit(opts.limit)
  const views = fleet.select(opts)
  const agent = opts.agent ? normalizeAgentId(opts.agent) : undefined
  const stores: {host: string; agentId: string; path: string}[] = []
  for (const v of views) for (const a of fleet.agentsOf(v.host)) if (!agent || a.agentId === agent) stores.push({host: v.host, agentId: a.agentId, path: a.storePath})
  if (agent && stores.length === 0) throw new UsageError(`Unknown agent id "${opts.agent}": no ${opts.host ? `agent of host ${opts.host}` : 'host'} in the fleet replica has it.`, 'E_UNKNOWN_AGENT')
  const now = opts.now ?? Date.now()
  const hosts = views.map((v) => v.host)
  const where = 'e.host = ANY($1::text[]) AND ($2::text IS NULL OR e.agent_id = $2) AND ($3::bigint IS NULL OR e.updated_at >= $3)'
  const args = [hosts, agent ?? null, activeMinutes === null ? null : now - activeMinutes * 60_000]
  const [{n: totalCount}] = await fleet.query<{n: number}>(`SELECT count(*)::int AS n FROM clawkit_entries e WHERE ${where}`, args)
  const rows = await fleet.query<{host: string; agent_id: string; session_key: string; entry: SessionEntry}>(
    `SELECT e.host, e.agent_id, e.session_key, e.entry - $4::text[] AS entry FROM clawkit_entries e WHERE ${where}
      ORDER BY e.updated_at DESC NULLS LAST, e.host COLLATE "C", e.agent_id COLLATE "C", e.session_key COLLATE "C" LIMIT $5`,
    [...args, [...LIST_OMITTED_FIELDS], limit],
  )
  const sessions: (SessionRow | SqliteSessionRow)[] = []
  const agentOf: string[] = []
  for (const r of rows) {
    const view = fleet.host(r.host)
    const store = fleet.store(r.agent_id, r.host)
    const row = store.era === 'sqlite' ? buildSqliteRow(view, r.session_key, r.entry, r.agent_id, now) : buildRow(view, r.session_key, r.entry, r.agent_id, now)
    opts.allKeys?.push(row.key)
    sessions.push({host: r.host, ...row})
    agentOf.push(r.agent_id)
  }
  if (opts.usage) {
    const {currentSessionCost} = await import('../sessions/usage.js')
    for (const [i, row] of sessions.entries()) row.usage = await currentSessionCost(fleet.host(row.host!).config, fleet.store(agentOf[i], row.host!), row.key)
  }
  return {
    path: null,
    stores,
    ...(opts.allAgents ? {allAgents: true as const} : {}),
    hosts,
    count: sessions.length,
    totalCount,
    limitApplied: limit,
    hasMore: sessions.length < totalCount,
    activeMinutes,
    sessions,
  }
}

