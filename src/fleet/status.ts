// `status --store-url`: what the fleet replica holds, per host: when it last synced and how far behind that is now
// (lag), its agents with their store era, and the newest session. Counts by SQL; no transcript is read.
import {displayUrl} from './pg.js'
import type {FleetState} from './state.js'

export interface FleetAgentStatus {
  agentId: string
  era: 'json' | 'sqlite'
  /** The host's own store path. */
  storePath: string
  syncedAt: string | null
  sessions: number
  transcripts: number
}

export interface FleetHostStatus {
  host: string
  firstSyncAt: string | null
  lastSyncStartedAt: string | null
  lastSyncAt: string | null
  /** now - lastSyncAt in ms; null when no sync has finished. */
  lagMs: number | null
  /** A sync started after the last one finished: running now, or killed (the next one completes it). */
  syncInProgress: boolean
  clawkitVersion: string | null
  sessions: number
  /** The newest session of the host. */
  lastActivity: {agentId: string; key: string; updatedAt: number; ageMs: number} | null
  agents: FleetAgentStatus[]
}

/** The `status --store-url --json` document. */
export interface FleetStatusResult {
  /** The database, without its password. */
  storeUrl: string
  schemaVersion: number
  hosts: FleetHostStatus[]
}

export async function fleetStatus(fleet: FleetState, opts: {host?: string; now?: number} = {}): Promise<FleetStatusResult> {
  const now = opts.now ?? Date.now()
  const hosts = fleet.select({host: opts.host}).map((v) => v.info)
  const names = hosts.map((h) => h.host)
  const counts = async (table: string) => {
    const m = new Map<string, number>()
    for (const r of await fleet.query<{host: string; agent_id: string; n: number}>(`SELECT host, agent_id, count(*)::int AS n FROM ${table} WHERE host = ANY($1::text[]) GROUP BY host, agent_id`, [names])) m.set(`${r.host}\u0000${r.agent_id}`, r.n)
    return m
  }
  const sessions = await counts('clawkit_entries')
  const transcripts = await counts('clawkit_transcripts')
  const newest = new Map<string, {agent_id: string; session_key: string; updated_at: number}>()
  for (const r of await fleet.query<{host: string; agent_id: string; session_key: string; updated_at: number}>(
    'SELECT DISTINCT ON (host) host, agent_id, session_key, updated_at FROM clawkit_entries WHERE host = ANY($1::text[]) AND updated_at IS NOT NULL ORDER BY host, updated_at DESC',
    [names],
  ))
    newest.set(r.host, r)
  return {
    storeUrl: displayUrl(fleet.url),
    schemaVersion: fleet.schemaVersion,
    hosts: hosts.map((h) => {
      const agents = fleet.agentsOf(h.host).map((a) => ({
        agentId: a.agentId,
        era: a.era,
        storePath: a.storePath,
        syncedAt: a.syncedAt,
        sessions: sessions.get(`${h.host}\u0000${a.agentId}`) ?? 0,
        transcripts: transcripts.get(`${h.host}\u0000${a.agentId}`) ?? 0,
      }))
      const n = newest.get(h.host)
      return {
        host: h.host,
        firstSyncAt: h.firstSyncAt,
        lastSyncStartedAt: h.lastSyncStartedAt,
        lastSyncAt: h.lastSyncAt,
        lagMs: h.lastSyncAt ? now - Date.parse(h.lastSyncAt) : null,
        syncInProgress: h.lastSyncStartedAt !== null && (h.lastSyncAt === null || h.lastSyncStartedAt > h.lastSyncAt),
        clawkitVersion: h.clawkitVersion,
        sessions: agents.reduce((sum, a) => sum + a.sessions, 0),
        lastActivity: n ? {agentId: n.agent_id, key: n.session_key, updatedAt: n.updated_at, ageMs: now - n.updated_at} : null,
        agents,
      }
    }),
  }
}
