// `clawkit sync`: one host's OpenClaw stores copied, incrementally, into the fleet's PostgreSQL (docs/fleet.md is the
// contract). Every transcript is read through the store (SessionStore.readSince) from the replica's high-water mark on,
// and uploaded in batches; each batch's events and the transcript's new mark commit in one transaction, so a sync killed
// at any point leaves every transcript consistent and the next run continues where the last commit stopped.
import os from 'node:os'

import {ClawkitError, UsageError} from '../errors.js'
import {SQLITE_NODE_REQUIREMENT, sqliteSupported, SqliteUnavailableError} from '../store/sqlite/support.js'
import type {OpenClawState} from '../store/state.js'
import {connectPg, displayUrl, pgError} from './pg.js'
import {migrate, MIGRATIONS, SchemaTooNewError, SCHEMA_VERSION, schemaVersion} from './schema.js'
import {syncAgent} from './sync-agent.js'
import {takeHostLock} from './sync-lock.js'
import type {SyncAgentResult, SyncOptions, SyncResult, SyncSkippedAgent} from './sync-types.js'

export type {SyncAgentResult, SyncOptions, SyncProgress, SyncResult, SyncSkippedAgent, SyncTranscriptCounts} from './sync-types.js'

/** `--host`: what the replica keys every row by. Printable, no surrounding space, at most 255 characters. */
export function validateHost(raw: string): string {
  if (raw.trim() === '' || raw !== raw.trim()) throw new UsageError(`--host ${JSON.stringify(raw)} must be a non-empty name without leading or trailing spaces`, 'E_BAD_HOST')
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]/u.test(raw)) throw new UsageError(`--host ${JSON.stringify(raw)} contains control or invisible characters; use a printable name`, 'E_BAD_HOST')
  if (raw.length > 255) throw new UsageError(`--host is ${raw.length} characters long; use at most 255`, 'E_BAD_HOST')
  return raw
}

/** `models.providers.*.models[].cost` of openclaw.json: prices only, keyed by provider and model id, never any other field. */
export function pricesOf(config: OpenClawState['config']): Record<string, Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, Record<string, number>>> = {}
  const providers = config.models?.providers
  if (!providers || typeof providers !== 'object') return out
  for (const [name, p] of Object.entries(providers)) {
    if (!p || !Array.isArray(p.models)) continue
    for (const m of p.models) {
      if (!m || typeof m.id !== 'string' || !m.cost || typeof m.cost !== 'object') continue
      const cost: Record<string, number> = {}
      for (const k of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) {
        const v = (m.cost as Record<string, unknown>)[k]
        if (typeof v === 'number' && Number.isFinite(v)) cost[k] = v
      }
      ;(out[name] ??= {})[m.id] = cost
    }
  }
  return out
}

function envInt(name: string): number | undefined {
  const v = Number(process.env[name])
  return Number.isInteger(v) && v > 0 ? v : undefined
}

export async function syncToFleet(state: OpenClawState, opts: SyncOptions): Promise<SyncResult> {
  const started = Date.now()
  const host = validateHost(opts.host ?? os.hostname())
  if (opts.agent && opts.allAgents) throw new UsageError('--agent and --all-agents cannot be used together', 'E_FLAG_CONFLICT')
  state.requireStateDir()
  // Every agent by default: a fleet view wants everything this host has.
  const wanted = opts.agent ? [state.requireAgent(opts.agent)] : state.allAgentIds()
  // A SQLite-era agent on a Node without node:sqlite is left out whole, before anything is written: the replica then
  // shows it as an earlier sync left it (or not at all), never half uploaded, and the others still sync.
  const skipped: SyncSkippedAgent[] = []
  const agents = wanted.filter((agentId) => {
    const ref = state.sessionStoreRef(agentId)
    if (!state.isSqliteRef(ref) || sqliteSupported()) return true
    skipped.push({agentId, era: 'sqlite', storePath: ref.path, needsNode: SQLITE_NODE_REQUIREMENT, reason: `its SQLite-era store needs Node ${SQLITE_NODE_REQUIREMENT} or later (node:sqlite and zstd); this is Node ${process.versions.node}`})
    return false
  })
  if (agents.length === 0 && skipped.length > 0) throw new SqliteUnavailableError(skipped.length === 1 ? `Agent ${skipped[0].agentId}'s SQLite-era session store` : 'A SQLite-era session store (every agent here has one)')
  const dryRun = Boolean(opts.dryRun)
  const prune = Boolean(opts.prune)
  const batchRows = opts.batchRows ?? envInt('CLAWKIT_SYNC_BATCH_ROWS') ?? 1000
  const batchBytes = opts.batchBytes ?? 4 * 1024 * 1024
  const url = opts.url
  const client = await connectPg(url, {applicationName: `clawkit sync ${host}`.slice(0, 63)})
  const fail = (doing: string) => (error: unknown): never => {
    if (error instanceof ClawkitError) throw error
    throw pgError(error, url, doing)
  }
  try {
    let schema: SyncResult['schema']
    if (dryRun) {
      // Read-only: no migration, no lock, no write. What a sync would apply is listed as pending.
      const from = await schemaVersion(client).catch(fail('read the schema version'))
      if (from > SCHEMA_VERSION) throw new SchemaTooNewError(from)
      schema = {from, to: from, applied: [], pending: MIGRATIONS.filter((m) => m.version > from).map((m) => `v${m.version}: ${m.name}`)}
    } else {
      const m = await migrate(client).catch(fail('migrate the fleet schema'))
      schema = {...m, pending: []}
      await takeHostLock(client, host, opts.lockWaitMs ?? 3000).catch(fail('take the sync lock'))
      await client
        .query(
          `INSERT INTO clawkit_hosts (host, last_sync_started_at, clawkit_version, prices) VALUES ($1, now(), $2, $3::jsonb)
           ON CONFLICT (host) DO UPDATE SET last_sync_started_at = now(), clawkit_version = EXCLUDED.clawkit_version, prices = EXCLUDED.prices`,
          [host, opts.clawkitVersion ?? null, JSON.stringify(pricesOf(state.config))],
        )
        .catch(fail('record the host'))
    }
    const results: SyncAgentResult[] = []
    let firstReadError: unknown
    for (const agentId of agents) {
      try {
        results.push(await syncAgent(state, client, {host, agentId, dryRun, prune, batchRows, batchBytes, schemaFrom: schema.from, opts}))
      } catch (error) {
        // One agent's store that cannot be read now does not hold back the others: it is reported and left as the
        // replica has it (batches already committed stay: each is whole with its high-water mark). A failure of the
        // replica itself, or anything unforeseen, still ends the sync.
        if (!(error instanceof ClawkitError) || !AGENT_READ_ERRORS.has(error.code ?? '')) fail(`sync agent ${agentId}`)(error)
        const ref = state.sessionStoreRef(agentId)
        skipped.push({agentId, era: state.isSqliteRef(ref) ? 'sqlite' : 'json', storePath: ref.path, code: (error as ClawkitError).code, reason: (error as Error).message})
        firstReadError ??= error
      }
    }
    // Nothing synced and a store unreadable: that is the sync's failure, as before (exit 1 with its own error).
    if (results.length === 0 && firstReadError !== undefined) throw firstReadError
    if (!dryRun) await client.query('UPDATE clawkit_hosts SET last_sync_at = now() WHERE host = $1', [host]).catch(fail('record the sync'))
    const total: SyncResult['total'] = {entriesUpserted: 0, events: 0, bytes: 0, transcripts: {new: 0, updated: 0, rewritten: 0, unchanged: 0}}
    for (const a of results) {
      total.entriesUpserted += a.entriesUpserted
      total.events += a.events
      total.bytes += a.bytes
      for (const k of ['new', 'updated', 'rewritten', 'unchanged'] as const) total.transcripts[k] += a.transcripts[k]
    }
    return {host, database: displayUrl(url), dryRun, prune, schema, agents: results, skipped, total, durationMs: Date.now() - started}
  } finally {
    // Ending the session releases the host lock too.
    await client.end().catch(() => {})
  }
}

/**
 * Errors that say one agent's store cannot be read at the moment (corrupt, too large, not a file, damaged, locked, or
 * another agent's database): sync skips that agent (exit 6, `skipped`) rather than the whole host.
 */
const AGENT_READ_ERRORS = new Set([
  'E_CORRUPT_STORE',
  'E_STORE_UNREADABLE',
  'E_STORE_TOO_DEEP',
  'E_FILE_TOO_LARGE',
  'E_NOT_A_FILE',
  'E_SQLITE_CORRUPT',
  'E_SQLITE_BUSY',
  'E_SQLITE_READONLY',
  'E_SQLITE_INVALID_ROW',
  'E_SQLITE_NOT_AGENT_DB',
  'E_SQLITE_STORE',
  'E_SQLITE_SCHEMA_NEWER',
  'E_SQLITE_SCHEMA_OLDER',
  'E_SQLITE_EMPTY',
])

