// Reading the fleet replica (`--store-url`): one connection for the command, the hosts and agents `clawkit sync` has
// written, and for each host a FleetHostState, a ReadableState whose stores are the replica's (PgSessionStore). The
// reading cores (list, history, lineage, export, usage, search) take it where they take a local state, unchanged: the
// host is the state dir, its agents are the replica's, its config is empty but for the model prices sync copied.
import {normalizeAgentId} from '../config/agent-id.js'
import {type OpenClawConfig, resolveDefaultAgentId} from '../config/config.js'
import {ClawkitError, NotFoundError, UsageError} from '../errors.js'
import {PgSessionStore} from '../store/pg/store.js'
import {insideDir, type ReadableState} from '../store/state.js'
import type {StoreRef} from '../store/types.js'
import {connectPg, displayUrl, pgError, type PgClient} from './pg.js'
import {SCHEMA_VERSION, schemaVersion, searchIndexKind} from './schema.js'

export interface FleetHost {
  host: string
  firstSyncAt: string | null
  lastSyncStartedAt: string | null
  lastSyncAt: string | null
  clawkitVersion: string | null
  prices: Record<string, unknown>
}

export interface FleetAgent {
  host: string
  agentId: string
  era: 'json' | 'sqlite'
  storePath: string
  syncedAt: string | null
}

const iso = (v: unknown): string | null => (v instanceof Date ? v.toISOString() : typeof v === 'string' ? new Date(v).toISOString() : null)

/**
 * `clawkit_hosts.prices` as an OpenClaw config's `models.providers` (what usage estimates read): sync stores
 * `{"<provider>": {"<model id>": <cost>}}` (docs/fleet.md); a copy of the providers' own shape is accepted too.
 */
export function pricesConfig(prices: unknown): OpenClawConfig {
  if (!prices || typeof prices !== 'object') return {}
  const providers: Record<string, {models: {id: string; cost: unknown}[]}> = {}
  for (const [provider, models] of Object.entries(prices as Record<string, unknown>)) {
    if (!models || typeof models !== 'object') continue
    const list = Array.isArray(models)
      ? (models as {id?: unknown; cost?: unknown}[]).filter((m) => typeof m?.id === 'string').map((m) => ({id: String(m.id), cost: m.cost}))
      : Object.entries(models as Record<string, unknown>).map(([id, cost]) => ({id, cost}))
    providers[provider] = {models: list}
  }
  return {models: {providers}} as unknown as OpenClawConfig
}

export class FleetState {
  private readonly stores = new Map<string, PgSessionStore>()
  private readonly views = new Map<string, FleetHostState>()

  private constructor(
    readonly url: string,
    private readonly client: PgClient,
    readonly schemaVersion: number,
    private readonly hostRows: FleetHost[],
    private readonly agentRows: FleetAgent[],
    /** Which index migration v3 left on the searched text (searchIndexKind). */
    readonly searchIndex: 'pg_trgm' | 'fts' | 'none',
  ) {}

  /** Connects, checks that clawkit's schema is there and not newer than this clawkit, and loads hosts and agents. */
  static async open(url: string): Promise<FleetState> {
    const client = await connectPg(url, {applicationName: 'clawkit (read)'})
    try {
      const version = await schemaVersion(client).catch((error: unknown) => {
        throw pgError(error, url, 'read the fleet database')
      })
      if (version === 0) throw new NotFoundError(`${displayUrl(url)} holds no fleet replica yet (no clawkit_* tables)`, 'E_STORE_EMPTY', ['run "clawkit sync --to <url>" on each host first (docs/fleet.md)'])
      if (version > SCHEMA_VERSION) {
        throw new ClawkitError(`the fleet database has clawkit schema v${version}, newer than this clawkit reads (v${SCHEMA_VERSION}): upgrade clawkit here`, {code: 'E_STORE_SCHEMA_NEWER'})
      }
      const q = async (text: string) => (await client.query(text).catch((error: unknown) => {
        throw pgError(error, url, 'read the fleet database')
      })).rows
      const hosts = (await q('SELECT host, first_sync_at, last_sync_started_at, last_sync_at, clawkit_version, prices FROM clawkit_hosts ORDER BY host COLLATE "C"')).map((r) => ({
        host: String(r.host),
        firstSyncAt: iso(r.first_sync_at),
        lastSyncStartedAt: iso(r.last_sync_started_at),
        lastSyncAt: iso(r.last_sync_at),
        clawkitVersion: (r.clawkit_version as string | null) ?? null,
        prices: (r.prices as Record<string, unknown>) ?? {},
      }))
      const agents = (await q('SELECT host, agent_id, era, store_path, synced_at FROM clawkit_agents ORDER BY host COLLATE "C", agent_id COLLATE "C"')).map((r) => ({
        host: String(r.host),
        agentId: String(r.agent_id),
        era: r.era === 'sqlite' ? ('sqlite' as const) : ('json' as const),
        storePath: String(r.store_path),
        syncedAt: iso(r.synced_at),
      }))
      const index = await searchIndexKind(client).catch((error: unknown) => {
        throw pgError(error, url, 'read the fleet database')
      })
      return new FleetState(url, client, version, hosts, agents, index)
    } catch (error) {
      await client.end().catch(() => {})
      throw error
    }
  }

  /** A query whose failure is one line naming the database without its password. */
  readonly query = async <R extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<R[]> => {
    try {
      return (await this.client.query<R>(text, values)).rows
    } catch (error) {
      throw pgError(error, this.url, 'read the fleet database')
    }
  }

  get hosts(): readonly FleetHost[] {
    return this.hostRows
  }

  get agents(): readonly FleetAgent[] {
    return this.agentRows
  }

  agentsOf(host: string): FleetAgent[] {
    return this.agentRows.filter((a) => a.host === host)
  }

  /** Agent ids of one host, or of every host (each once): with store(agentId, host), what a fleet-wide reader walks. */
  allAgentIds(host?: string): string[] {
    return [...new Set((host === undefined ? this.agentRows : this.agentsOf(host)).map((a) => a.agentId))]
  }

  /** One host's view; an unknown host is a usage error naming the ones there are. */
  host(name: string): FleetHostState {
    const row = this.hostRows.find((h) => h.host === name)
    if (!row) {
      const known = this.hostRows.map((h) => h.host)
      throw new UsageError(`Unknown host "${name}" in the fleet replica${known.length ? ` (hosts: ${known.join(', ')})` : ' (no host has synced yet)'}.`, 'E_UNKNOWN_HOST')
    }
    let v = this.views.get(name)
    if (!v) this.views.set(name, (v = new FleetHostState(this, row)))
    return v
  }

  /** The hosts a command reads: `--host` (one), else every host that has synced. */
  select(opts: {host?: string; allHosts?: boolean}): FleetHostState[] {
    if (opts.host && opts.allHosts) throw new UsageError('--host and --all-hosts cannot be used together', 'E_FLAG_CONFLICT')
    if (opts.host) return [this.host(opts.host)]
    return this.hostRows.map((h) => this.host(h.host))
  }

  /** The replica store of one host's agent (one per command, so lookups are cached across cores). */
  store(agentId: string, host: string): PgSessionStore {
    const k = `${host}\u0000${agentId}`
    let s = this.stores.get(k)
    if (!s) {
      const a = this.agentRows.find((r) => r.host === host && r.agentId === agentId)
      s = new PgSessionStore(this.query, {host, agentId, storePath: a?.storePath ?? `pg:${host}/${agentId}`, era: a?.era ?? 'json', searchIndex: this.searchIndex, searchTextVersions: this.schemaVersion >= 5})
      this.stores.set(k, s)
    }
    return s
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => {})
  }
}

/**
 * One host of the replica seen as a state dir: what the reading cores need (ReadableState). Its stores are the replica's
 * PgSessionStores, which have no writes: the writing cores take an OpenClawState, so none can be handed a host.
 */
export class FleetHostState implements ReadableState {
  readonly host: string
  /** What a local state's directory is to the reading cores; no local path is inside it. */
  readonly stateDir: string
  /** No openclaw.json travels to the replica: only the model prices sync copied (usage estimates). */
  readonly config: OpenClawConfig

  constructor(
    readonly fleet: FleetState,
    readonly info: FleetHost,
  ) {
    this.host = info.host
    this.stateDir = `pg:${info.host}`
    this.config = pricesConfig(info.prices)
  }

  /** OpenClaw's default agent under the host's (empty) config, as a local state without one picks it. */
  get activeAgentId(): string {
    return resolveDefaultAgentId(this.config)
  }

  /** The host is there: the replica listed it. */
  requireStateDir(): void {}

  contains(p: string): boolean {
    return insideDir(this.stateDir, p)
  }

  allAgentIds(): string[] {
    return this.fleet.agentsOf(this.host).map((a) => a.agentId)
  }

  requireAgent(raw: string): string {
    const id = normalizeAgentId(raw)
    if (!this.allAgentIds().includes(id)) throw new UsageError(`Unknown agent id "${raw}" on host ${this.host} in the fleet replica (agents: ${this.allAgentIds().join(', ') || 'none'}).`, 'E_UNKNOWN_AGENT')
    return id
  }

  sessionStoreRef(agentId: string): StoreRef {
    return this.fleet.store(agentId, this.host).ref
  }

  isSqliteRef(ref: StoreRef): boolean {
    return this.fleet.store(ref.agentId, this.host).era === 'sqlite'
  }

  storeFor(ref: StoreRef): PgSessionStore {
    return this.fleet.store(ref.agentId, this.host)
  }

  store(agentId: string): PgSessionStore {
    return this.fleet.store(agentId, this.host)
  }
}
