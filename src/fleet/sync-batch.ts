// How a sync writes the replica: the transcript rows it compares with the store (marks and metadata), and batches of
// events, each committed with the marks after it in one transaction, so a sync killed at any point leaves every
// transcript consistent and the next one continues where the last commit stopped.
import {SEARCH_TEXT_VERSION} from '../sessions/search-text.js'
import type {AgentSession, TranscriptMark} from '../store/types.js'
import {type EventRow, pgText, type UsageSums} from './events.js'
import type {PgClient} from './pg.js'

export interface RemoteTranscript {
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

export function markOf(r: RemoteTranscript): TranscriptMark {
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

export interface Meta {
  session_key: string | null
  locator: string
  where: string
  ended: string
  ended_at: string | null
  found_by: string
  format: 'jsonl' | 'sqlite'
}

export function metaOf(s: AgentSession, era: 'json' | 'sqlite'): Meta {
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

export const sameMeta = (m: Meta, r: RemoteTranscript) =>
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
export interface Segment {
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
export class Batch {
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

export async function inTransaction<T>(client: PgClient, fn: () => Promise<T>): Promise<T> {
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

