// One agent's sync: its index entries (only new or changed ones are sent), then each transcript from the replica's
// high-water mark on, in batches, then what the host no longer has (pruned, or counted as stale).
import {SEARCH_TEXT_VERSION} from '../sessions/search-text.js'
import type {OpenClawState} from '../store/state.js'
import type {SessionEntry, SessionReader} from '../store/types.js'
import {sha256 as newSha256} from '../util/hash.js'
import {addLineUsage, emptySums, eventRowOf, jsonbText, pgText} from './events.js'
import type {PgClient} from './pg.js'
import {Batch, type RemoteTranscript, type Segment, inTransaction, markOf, metaOf, sameMeta} from './sync-batch.js'
import type {SyncAgentResult, SyncOptions} from './sync-types.js'

/** Whether an error says the transcript went away between the listing and the read (a reset renamed it meanwhile). */
function vanished(error: unknown): boolean {
  const code = (error as {code?: string}).code
  return code === 'E_ENOENT' || code === 'ENOENT' || code === 'E_TRANSCRIPT_MISSING'
}

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

export async function syncAgent(state: OpenClawState, client: PgClient, job: AgentJob): Promise<SyncAgentResult> {
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
  const goneEntries = await syncEntries(store, client, job, haveTables, out)
  const goneTranscripts = await syncTranscripts(store, client, job, era, haveTables, out)
  await settleGone(client, job, goneEntries, goneTranscripts, out)
  out.durationMs = Date.now() - started
  return out
}

/** The index entries: the replica's hashes against the local ones; only new or changed entries are sent. The keys the replica has and the store no longer has. */
async function syncEntries(store: SessionReader, client: PgClient, job: AgentJob, haveTables: boolean, out: SyncAgentResult): Promise<string[]> {
  const {host, agentId, dryRun} = job
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
  return [...remoteEntries.keys()].filter((k) => !localKeys.has(k))
}

/** Each transcript from the replica's high-water mark on, in batches. The session ids the replica has and the store no longer has. */
async function syncTranscripts(store: SessionReader, client: PgClient, job: AgentJob, era: 'json' | 'sqlite', haveTables: boolean, out: SyncAgentResult): Promise<string[]> {
  const {host, agentId, dryRun} = job
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
  return [...remote.keys()].filter((id) => !local.has(id))
}

/** What the host no longer has: deleted from the replica with --prune (its events with it), else counted as stale. */
async function settleGone(client: PgClient, job: AgentJob, goneEntries: string[], goneTranscripts: string[], out: SyncAgentResult): Promise<void> {
  const {host, agentId, dryRun} = job
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
}
