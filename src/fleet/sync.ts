// `clawkit sync`: one host's OpenClaw stores copied, incrementally, into the fleet's PostgreSQL (docs/fleet.md is the
// contract). Every transcript is read through the store (SessionStore.readSince) from the replica's high-water mark on,
// and uploaded in batches; each batch's events and the transcript's new mark commit in one transaction, so a sync killed
// at any point leaves every transcript consistent and the next run continues where the last commit stopped.
import os from 'node:os'

import {ClawkitError, ExitCode, UsageError} from '../errors.js'
import {SQLITE_NODE_REQUIREMENT, sqliteSupported, SqliteUnavailableError} from '../store/sqlite/support.js'
import type {OpenClawState} from '../store/state.js'
import {sha256 as newSha256} from '../util/hash.js'
import type {AgentSession, SessionEntry, TranscriptMark} from '../store/types.js'
import {addLineUsage, emptySums, eventRowOf, type EventRow, jsonbText, pgText, type UsageSums} from './events.js'
import {SEARCH_TEXT_VERSION} from '../sessions/search.js'
import {connectPg, displayUrl, pgError, type PgClient} from './pg.js'
import {migrate, MIGRATIONS, SchemaTooNewError, SCHEMA_VERSION, schemaVersion} from './schema.js'

export interface SyncTranscriptCounts {
  /** Not on the replica before. */
  new: number
  /** New events appended, or where/ended/key changed (an archive rename). */
  updated: number
  /** No longer what the replica held (rewritten, rotated): its events were replaced. */
  rewritten: number
  unchanged: number
}

export interface SyncAgentResult {
  agentId: string
  era: 'json' | 'sqlite'
  /** The host's own store path (sessions.json or the agent database). */
  storePath: string
  /** Index entries sent because they are new or changed (dry run: that would be). */
  entriesUpserted: number
  entriesUnchanged: number
  transcripts: SyncTranscriptCounts
  /** Events uploaded (dry run: that would be). */
  events: number
  /** Bytes of those events as stored (UTF-8). */
  bytes: number
  durationMs: number
  /** With --prune: what was removed from the replica (dry run: would be). */
  pruned: {entries: string[]; transcripts: string[]}
  /** Without --prune: entries and transcripts the replica still holds that are gone here (kept). */
  stale: {entries: number; transcripts: number}
}

/** An agent this sync left out whole: nothing of it was written, and the replica keeps what an earlier sync put there. */
export interface SyncSkippedAgent {
  agentId: string
  era: 'json' | 'sqlite'
  storePath: string
  /** Set when the running Node cannot read this agent's store: the Node version (or later) that can. */
  needsNode?: string
  /** Set when the store could not be read (a corrupt index, a damaged or locked database): the error's code. */
  code?: string
  reason: string
}

/** The `sync --json` document. */
export interface SyncResult {
  host: string
  /** The database, without its password. */
  database: string
  dryRun: boolean
  prune: boolean
  /** Schema version before and after; a dry run applies nothing (`to` equals `from`, `pending` lists what a sync would). */
  schema: {from: number; to: number; applied: string[]; pending: string[]}
  agents: SyncAgentResult[]
  /** Agents not synced because this Node cannot read their store (a partial sync: exit 6); a sync on Node 22.15+ uploads them. */
  skipped: SyncSkippedAgent[]
  total: {entriesUpserted: number; events: number; bytes: number; transcripts: SyncTranscriptCounts}
  durationMs: number
}

export interface SyncProgress {
  agentId: string
  transcript: number
  transcripts: number
  events: number
  bytes: number
}

export interface SyncOptions {
  url: string
  host?: string
  agent?: string
  allAgents?: boolean
  dryRun?: boolean
  prune?: boolean
  clawkitVersion?: string
  onProgress?: (p: SyncProgress) => void
  /** Told what --prune is about to remove, before it is removed. */
  onPrune?: (agentId: string, what: {entries: string[]; transcripts: string[]}) => void
  /** Rows (events or index entries) per INSERT (default 1000; CLAWKIT_SYNC_BATCH_ROWS overrides, for tests). */
  batchRows?: number
  /** Bytes of event or entry text per INSERT before it is sent anyway. */
  batchBytes?: number
  /** How long to wait for another sync of the same host to finish. */
  lockWaitMs?: number
}

/** Held by a running sync of this host; its name is in the message. */
export class SyncBusyError extends ClawkitError {
  constructor(host: string, waitedMs: number) {
    super(`another clawkit sync of host "${host}" is running against this database (waited ${Math.round(waitedMs / 1000)} s); it finishes what this one would do, so try again later`, {
      code: 'E_SYNC_BUSY',
      exitCode: ExitCode.failure,
    })
  }
}

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

/** The advisory lock of one host's syncs: a two-key lock (its own space, apart from the migrations' one-key lock). */
const SYNC_LOCK_CLASS = 7_264_019

async function takeHostLock(client: PgClient, host: string, waitMs: number): Promise<void> {
  const started = Date.now()
  for (;;) {
    const r = await client.query<{ok: boolean}>("SELECT pg_try_advisory_lock($1, hashtext('clawkit-sync:' || $2)) AS ok", [SYNC_LOCK_CLASS, host])
    if (r.rows[0]?.ok) return
    // A sync killed a moment ago holds it until its server process notices the closed connection: a short wait covers that.
    if (Date.now() - started >= waitMs) throw new SyncBusyError(host, Date.now() - started)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

interface RemoteTranscript {
  session_id: string
  session_key: string | null
  locator: string
  where: string
  ended: string
  ended_at: Date | null
  found_by: string
  format: string
  synced_seq: number
  synced_bytes: number | null
  prefix_sha256: string | null
  source_size: number | null
  source_mtime_ms: number | null
  source_ino: number | null
  source_ctime_ms: number | null
  source_generation: string | null
  search_text_version: number | null
}

function markOf(r: RemoteTranscript): TranscriptMark {
  return {
    seq: r.synced_seq,
    ...(r.synced_bytes === null ? {} : {bytes: r.synced_bytes}),
    ...(r.prefix_sha256 === null ? {} : {sha256: r.prefix_sha256}),
    ...(r.source_size === null ? {} : {size: r.source_size}),
    ...(r.source_mtime_ms === null ? {} : {mtimeMs: r.source_mtime_ms}),
    ...(r.source_ino === null ? {} : {ino: r.source_ino}),
    ...(r.source_ctime_ms === null ? {} : {ctimeMs: r.source_ctime_ms}),
    ...(r.source_generation === null ? {} : {generation: r.source_generation}),
  }
}

interface Meta {
  session_key: string | null
  locator: string
  where: string
  ended: string
  ended_at: string | null
  found_by: string
  format: 'jsonl' | 'sqlite'
}

function metaOf(s: AgentSession, era: 'json' | 'sqlite'): Meta {
  return {
    session_key: s.key === null ? null : pgText(s.key),
    locator: pgText(s.transcript.locator),
    where: s.where,
    ended: s.ended,
    ended_at: s.endedAt && Number.isFinite(Date.parse(s.endedAt)) ? new Date(s.endedAt).toISOString() : null,
    found_by: s.foundBy,
    // A SQLite-era deleted session's archive is a JSONL blob: its lines count from 1, as a file's do.
    format: era === 'sqlite' && s.transcript.location === 'sqlite' ? 'sqlite' : 'jsonl',
  }
}

const sameMeta = (m: Meta, r: RemoteTranscript) =>
  m.session_key === r.session_key && m.locator === r.locator && m.where === r.where && m.ended === r.ended && m.found_by === r.found_by && m.format === r.format && m.ended_at === (r.ended_at ? r.ended_at.toISOString() : null)


// Every statement below takes arrays (unnest), so that one batch is a handful of statements whatever the number of
// transcripts in it: a store of many short sessions commits once per batch, not once per session.
const INSERT_EVENTS = `INSERT INTO clawkit_events (host, agent_id, session_id, seq, raw, entry_type, entry_id, role, at, search_text)
SELECT $1, $2, * FROM unnest($3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[])
ON CONFLICT DO NOTHING`

// A new row's events are all written by this clawkit: its search-text version. An existing row keeps its own (a reset
// sets it, with the events it replaces).
const UPSERT_TRANSCRIPTS = `INSERT INTO clawkit_transcripts (host, agent_id, session_id, session_key, locator, "where", ended, ended_at, found_by, format, search_text_version)
SELECT $1, $2, *, $11::int FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::text[], $10::text[])
ON CONFLICT (host, agent_id, session_id) DO UPDATE SET session_key = EXCLUDED.session_key, locator = EXCLUDED.locator, "where" = EXCLUDED."where",
  ended = EXCLUDED.ended, ended_at = EXCLUDED.ended_at, found_by = EXCLUDED.found_by, format = EXCLUDED.format, synced_at = now()`

const ADVANCE_TRANSCRIPTS = `UPDATE clawkit_transcripts t SET synced_seq = u.seq, synced_bytes = u.bytes, prefix_sha256 = u.sha, source_size = u.size, source_mtime_ms = u.mtime,
  source_ino = u.ino, source_ctime_ms = u.ctime, source_generation = u.gen, input_tokens = t.input_tokens + u.input, output_tokens = t.output_tokens + u.output, cache_read_tokens = t.cache_read_tokens + u.cache_read,
  cache_write_tokens = t.cache_write_tokens + u.cache_write, total_tokens = t.total_tokens + u.total, cost_usd = t.cost_usd + u.cost, calls = t.calls + u.calls, synced_at = now()
FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::bigint[], $8::float8[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::float8[], $15::int[],
    $16::bigint[], $17::float8[], $18::text[])
  AS u(session_id, seq, bytes, sha, size, mtime, input, output, cache_read, cache_write, total, cost, calls, ino, ctime, gen)
WHERE t.host = $1 AND t.agent_id = $2 AND t.session_id = u.session_id`

const RESET_TRANSCRIPTS = `UPDATE clawkit_transcripts SET generation = generation + 1, synced_seq = 0, synced_bytes = NULL, prefix_sha256 = NULL, source_size = NULL, source_mtime_ms = NULL,
  source_ino = NULL, source_ctime_ms = NULL, source_generation = NULL, search_text_version = $4,
  input_tokens = 0, output_tokens = 0, cache_read_tokens = 0, cache_write_tokens = 0, total_tokens = 0, cost_usd = 0, calls = 0
WHERE host = $1 AND agent_id = $2 AND session_id = ANY($3::text[])`

/** One transcript's part of a batch: its new events and the mark after them, written in the batch's transaction. */
interface Segment {
  sessionId: string
  /** The transcript row to create or update first (its first write in this run). */
  meta?: Meta
  /** Its events on the replica are replaced (rewritten): deleted in the same transaction, before the new ones. */
  reset: boolean
  rows: EventRow[]
  sums: UsageSums
  mark?: TranscriptMark
}

/** A batch of segments (several transcripts, or part of one), committed as one transaction. */
class Batch {
  segments: Segment[] = []
  rows = 0
  bytes = 0

  constructor(
    private readonly client: PgClient,
    private readonly host: string,
    private readonly agentId: string,
    private readonly dryRun: boolean,
  ) {}

  /** The batch being written: the next one is read from the store meanwhile (the reader waits on the server otherwise). */
  private pending: Promise<void> = Promise.resolve()

  /**
   * Hands the batch to the server and returns once the previous one is committed: one transaction at a time on the
   * connection, in order, while the caller reads the next batch. A failed write surfaces at the next flush or drain.
   */
  async flush(): Promise<void> {
    const segs = this.segments
    this.segments = []
    this.rows = 0
    this.bytes = 0
    await this.pending
    if (this.dryRun || segs.length === 0) return
    this.pending = this.write(segs)
    this.pending.catch(() => {})
  }

  /** Waits for the last batch's commit. */
  async drain(): Promise<void> {
    await this.pending
  }

  private async write(segs: Segment[]): Promise<void> {
    const {client, host, agentId} = this
    const col = <T>(list: T[], f: (x: T) => unknown) => list.map(f)
    await inTransaction(client, async () => {
      const fresh = segs.filter((g) => g.meta)
      if (fresh.length > 0) {
        const m = fresh.map((g) => g.meta!)
        await client.query(UPSERT_TRANSCRIPTS, [host, agentId, col(fresh, (g) => g.sessionId), col(m, (x) => x.session_key), col(m, (x) => x.locator), col(m, (x) => x.where), col(m, (x) => x.ended), col(m, (x) => x.ended_at), col(m, (x) => x.found_by), col(m, (x) => x.format), SEARCH_TEXT_VERSION])
      }
      const reset = segs.filter((g) => g.reset).map((g) => g.sessionId)
      if (reset.length > 0) {
        await client.query('DELETE FROM clawkit_events WHERE host = $1 AND agent_id = $2 AND session_id = ANY($3::text[])', [host, agentId, reset])
        await client.query(RESET_TRANSCRIPTS, [host, agentId, reset, SEARCH_TEXT_VERSION])
      }
      const ev = segs.flatMap((g) => g.rows.map((r) => ({id: g.sessionId, r})))
      if (ev.length > 0) {
        await client.query(INSERT_EVENTS, [host, agentId, col(ev, (e) => e.id), col(ev, (e) => e.r.seq), col(ev, (e) => e.r.raw), col(ev, (e) => e.r.entryType), col(ev, (e) => e.r.entryId), col(ev, (e) => e.r.role), col(ev, (e) => e.r.at), col(ev, (e) => e.r.searchText)])
      }
      const moved = segs.filter((g) => g.mark)
      if (moved.length > 0) {
        const mk = (f: (m: TranscriptMark) => unknown) => moved.map((g) => f(g.mark!) ?? null)
        const us = (f: (u: UsageSums) => number) => moved.map((g) => f(g.sums))
        await client.query(ADVANCE_TRANSCRIPTS, [
          host,
          agentId,
          col(moved, (g) => g.sessionId),
          mk((m) => m.seq),
          mk((m) => m.bytes),
          mk((m) => m.sha256),
          mk((m) => m.size),
          mk((m) => m.mtimeMs),
          us((u) => u.input),
          us((u) => u.output),
          us((u) => u.cacheRead),
          us((u) => u.cacheWrite),
          us((u) => u.totalTokens),
          us((u) => u.costUsd),
          us((u) => u.calls),
          mk((m) => m.ino),
          mk((m) => m.ctimeMs),
          mk((m) => m.generation),
        ])
      }
    })
  }
}

async function inTransaction<T>(client: PgClient, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN')
  try {
    const out = await fn()
    await client.query('COMMIT')
    return out
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}

function envInt(name: string): number | undefined {
  const v = Number(process.env[name])
  return Number.isInteger(v) && v > 0 ? v : undefined
}

/** Whether an error says the transcript went away between the listing and the read (a reset renamed it meanwhile). */
function vanished(error: unknown): boolean {
  const code = (error as {code?: string}).code
  return code === 'E_ENOENT' || code === 'ENOENT' || code === 'E_TRANSCRIPT_MISSING'
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

interface AgentJob {
  host: string
  agentId: string
  dryRun: boolean
  prune: boolean
  batchRows: number
  batchBytes: number
  schemaFrom: number
  opts: SyncOptions
}

async function syncAgent(state: OpenClawState, client: PgClient, job: AgentJob): Promise<SyncAgentResult> {
  const started = Date.now()
  const {host, agentId, dryRun} = job
  const ref = state.sessionStoreRef(agentId)
  const era: 'json' | 'sqlite' = state.isSqliteRef(ref) ? 'sqlite' : 'json'
  const store = state.storeFor(ref)
  const out: SyncAgentResult = {
    agentId,
    era,
    storePath: ref.path,
    entriesUpserted: 0,
    entriesUnchanged: 0,
    transcripts: {new: 0, updated: 0, rewritten: 0, unchanged: 0},
    events: 0,
    bytes: 0,
    durationMs: 0,
    pruned: {entries: [], transcripts: []},
    stale: {entries: 0, transcripts: 0},
  }
  // A database that has never seen clawkit (a dry run before the first sync) has none of these tables yet.
  const haveTables = !dryRun || job.schemaFrom > 0
  if (!dryRun) {
    await client.query(
      `INSERT INTO clawkit_agents (host, agent_id, era, store_path) VALUES ($1, $2, $3, $4)
       ON CONFLICT (host, agent_id) DO UPDATE SET era = EXCLUDED.era, store_path = EXCLUDED.store_path, synced_at = now()`,
      [host, agentId, era, ref.path],
    )
  }

  // Index entries: the replica's hashes against the local ones; only new or changed entries are sent.
  const remoteEntries = new Map<string, string | null>()
  if (haveTables) {
    const hashCol = job.schemaFrom >= 2 || !dryRun ? 'entry_sha256' : 'NULL::text'
    const r = await client.query<{k: string; h: string | null}>(`SELECT session_key AS k, ${hashCol} AS h FROM clawkit_entries WHERE host = $1 AND agent_id = $2`, [host, agentId])
    for (const row of r.rows) remoteEntries.set(row.k, row.h)
  }
  const sha256 = (text: string) => newSha256().update(text).digest('hex')
  // Changed entries go up in batches while the index is read (the reader waits for each one), as the events do: a
  // first sync of 10k real ~16 KB entries would otherwise hold ~170 MB of their JSON at once.
  type EntryRow = {key: string; json: string; sha: string; sessionId: string | null; updatedAt: number | null}
  let part = new Map<string, EntryRow>()
  let partBytes = 0
  const sendEntries = async () => {
    const rows = [...part.values()]
    part = new Map()
    partBytes = 0
    if (dryRun || rows.length === 0) return
    await client.query(
      `INSERT INTO clawkit_entries (host, agent_id, session_key, session_id, updated_at, entry, entry_sha256)
       SELECT $1, $2, k, s, u, e::jsonb, h FROM unnest($3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[]) AS x(k, s, u, e, h)
       ON CONFLICT (host, agent_id, session_key) DO UPDATE SET session_id = EXCLUDED.session_id, updated_at = EXCLUDED.updated_at, entry = EXCLUDED.entry,
         entry_sha256 = EXCLUDED.entry_sha256, synced_at = now()`,
      [host, agentId, rows.map((c) => c.key), rows.map((c) => c.sessionId), rows.map((c) => c.updatedAt), rows.map((c) => c.json), rows.map((c) => c.sha)],
    )
  }
  const localKeys = new Set<string>()
  // Keys sent in this run: a key visited again (stored twice, or a store read again) is sent again, so that its last
  // value is the one on the replica even when the replica's hash matched an earlier one.
  const sent = new Set<string>()
  await store.eachEntry(async (stored: string, entry: SessionEntry) => {
    const key = pgText(stored)
    localKeys.add(key)
    const json = JSON.stringify(entry)
    const sha = sha256(json)
    if (remoteEntries.get(key) === sha && !sent.has(key)) return
    sent.add(key)
    const u = entry.updatedAt
    // A key twice in one statement would be an error (ON CONFLICT cannot update a row twice): the later value replaces it.
    part.set(key, {key, json: jsonbText(json), sha, sessionId: typeof entry.sessionId === 'string' ? pgText(entry.sessionId) : null, updatedAt: typeof u === 'number' && Number.isSafeInteger(Math.trunc(u)) ? Math.trunc(u) : null})
    partBytes += json.length
    if (part.size >= job.batchRows || partBytes >= job.batchBytes) await sendEntries()
  })
  await sendEntries()
  out.entriesUpserted = sent.size
  out.entriesUnchanged = localKeys.size - sent.size
  const goneEntries = [...remoteEntries.keys()].filter((k) => !localKeys.has(k))

  // Transcripts: each from its high-water mark on.
  const remote = new Map<string, RemoteTranscript>()
  if (haveTables) {
    const r = await client.query<RemoteTranscript & Record<string, unknown>>(
      // A dry run against a schema before v4 has no such columns: its marks are read as ones written before them.
      `SELECT session_id, session_key, locator, "where", ended, ended_at, found_by, format, synced_seq, synced_bytes, prefix_sha256, source_size, source_mtime_ms,
         ${job.schemaFrom >= 4 || !dryRun ? 'source_ino, source_ctime_ms, source_generation' : 'NULL::bigint AS source_ino, NULL::float8 AS source_ctime_ms, NULL::text AS source_generation'},
         ${job.schemaFrom >= 5 || !dryRun ? 'search_text_version' : '1 AS search_text_version'}
       FROM clawkit_transcripts WHERE host = $1 AND agent_id = $2`,
      [host, agentId],
    )
    for (const row of r.rows) remote.set(row.session_id, row)
  }
  const sessions = (await store.allSessions()).filter((s) => s.transcript.exists)
  const local = new Set<string>()
  const batch = new Batch(client, host, agentId, dryRun)
  let n = 0
  try {
    for (const s of sessions) {
      n++
      // A session id is one transcript on the replica; a second transcript naming the same id (a copy left beside an
      // archive) would be a second history under one key, so the first one listed (the key's own) wins.
      if (local.has(s.sessionId)) continue
      local.add(s.sessionId)
      job.opts.onProgress?.({agentId, transcript: n, transcripts: sessions.length, events: out.events, bytes: out.bytes})
      const r = remote.get(s.sessionId)
      const meta = metaOf(s, era)
      // search_text written by another searchTextOf (SEARCH_TEXT_VERSION): the transcript is uploaded again whole, so
      // that fleet search may narrow by it again (until then it reads that transcript in full).
      const staleText = r !== undefined && r.search_text_version !== SEARCH_TEXT_VERSION
      let since
      try {
        since = await store.readSince(s.transcript, r && !staleText ? markOf(r) : undefined)
      } catch (error) {
        if (vanished(error)) continue
        throw error
      }
      const metaMoved = !r || !sameMeta(meta, r)
      const replace = since.rewritten || staleText
      let seg: Segment = {sessionId: s.sessionId, meta: metaMoved || replace ? meta : undefined, reset: Boolean(r && replace), rows: [], sums: emptySums()}
      let sent = 0
      let flushed = false
      for await (const line of since.lines) {
        const e = eventRowOf(line)
        seg.rows.push(e)
        const b = Buffer.byteLength(e.raw)
        batch.rows++
        batch.bytes += b
        out.bytes += b
        out.events++
        sent++
        addLineUsage(seg.sums, line)
        if (batch.rows >= job.batchRows || batch.bytes >= job.batchBytes) {
          // The mark after exactly these rows; mid-read it never carries size/mtime (TranscriptSince.mark).
          seg.mark = since.mark()
          batch.segments.push(seg)
          await batch.flush()
          flushed = true
          seg = {sessionId: s.sessionId, reset: false, rows: [], sums: emptySums()}
          job.opts.onProgress?.({agentId, transcript: n, transcripts: sessions.length, events: out.events, bytes: out.bytes})
        }
      }
      const endMark = since.mark()
      const markMoved =
        !r ||
        replace ||
        endMark.seq !== r.synced_seq ||
        endMark.size !== (r.source_size ?? undefined) ||
        endMark.mtimeMs !== (r.source_mtime_ms ?? undefined) ||
        endMark.sha256 !== (r.prefix_sha256 ?? undefined) ||
        endMark.ino !== (r.source_ino ?? undefined) ||
        endMark.ctimeMs !== (r.source_ctime_ms ?? undefined) ||
        endMark.generation !== (r.source_generation ?? undefined)
      // The last segment of a transcript is the only one whose mark has the source's size and mtime ("nothing left to
      // read"); one written before it never does, so a kill between batches cannot skip lines.
      if (seg.rows.length > 0 || seg.meta || flushed || markMoved) {
        seg.mark = endMark
        batch.segments.push(seg)
      }
      out.transcripts[!r ? 'new' : replace ? 'rewritten' : sent > 0 || metaMoved ? 'updated' : 'unchanged']++
    }
  } catch (error) {
    // A batch may still be on its way to the server: it ends (committed or rolled back) before the caller goes on
    // with this connection, for instance to the next agent when this one's store could not be read.
    await batch.drain().catch(() => {})
    throw error
  }
  await batch.flush()
  await batch.drain()
  const goneTranscripts = [...remote.keys()].filter((id) => !local.has(id))

  if (job.prune) {
    out.pruned = {entries: goneEntries, transcripts: goneTranscripts}
    if (goneEntries.length + goneTranscripts.length > 0) {
      job.opts.onPrune?.(agentId, out.pruned)
      if (!dryRun) {
        await inTransaction(client, async () => {
          if (goneEntries.length > 0) await client.query('DELETE FROM clawkit_entries WHERE host = $1 AND agent_id = $2 AND session_key = ANY($3::text[])', [host, agentId, goneEntries])
          // Their events go with them (ON DELETE CASCADE).
          if (goneTranscripts.length > 0) await client.query('DELETE FROM clawkit_transcripts WHERE host = $1 AND agent_id = $2 AND session_id = ANY($3::text[])', [host, agentId, goneTranscripts])
        })
      }
    }
  } else {
    out.stale = {entries: goneEntries.length, transcripts: goneTranscripts.length}
  }
  out.durationMs = Date.now() - started
  return out
}
