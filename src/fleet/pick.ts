// Which host of the replica a single-session read (history, lineage) means: --host, the only host, else the one host
// where the key or id resolves. The same key (agent:main:main) exists on every host, so a key found on several is a
// usage error that names them, never a silent pick.
import {NotFoundError, UsageError} from '../errors.js'
import {keyLineage} from '../sessions/lineage.js'
import type {FleetHostState, FleetState} from './state.js'

export async function pickHost(fleet: FleetState, opts: {host?: string; agent?: string}, target: string): Promise<FleetHostState> {
  if (opts.host) return fleet.host(opts.host)
  const views = fleet.select({})
  if (views.length === 1) return views[0]
  const hits: FleetHostState[] = []
  for (const v of views) {
    try {
      await keyLineage(v, target, {agent: opts.agent})
      hits.push(v)
    } catch (error) {
      // Not there, or the host has no such agent: another host may have it.
      if (error instanceof NotFoundError || (error instanceof UsageError && error.code === 'E_UNKNOWN_AGENT')) continue
      throw error
    }
  }
  if (hits.length === 1) return hits[0]
  if (hits.length === 0) throw new NotFoundError(`Session not found on any host of the fleet replica: ${target}`, 'E_SESSION_NOT_FOUND', ['List sessions with "clawkit sessions list --store-url <url>".'])
  throw new UsageError(`Session "${target}" exists on ${hits.length} hosts of the fleet replica (${hits.map((h) => h.host).join(', ')}): pass --host <name>.`, 'E_AMBIGUOUS_HOST')
}
