// Appending events to a SQLite-era transcript: transcript_events, identities, the watermark, the window's clocks and
// the projection extended in one transaction; the active leaf; new entries chained onto it; the idempotency lookup.
import {NotFoundError} from '../../errors.js'
import {randomUUID} from '../random-id.js'
import type {IdempotencyHit, NewEntry} from '../types.js'
import {eventText, type OpenedDb, type SqlDatabase} from './driver.js'
import {type Json, assertSessionId, isRecord} from './entry-rows.js'
import {hasUnclassified, indexAppender, nonBlank, readIndexState} from './projection.js'
import {type WriteWait, immediateWrite, requireTx, writeError} from './transaction.js'

/** readEventTimestamp: the event's own timestamp (ISO or number) in integer ms, else undefined. */
function eventTime(e: Json): number | undefined {
  const v = e.timestamp
  if (typeof v === 'number' && Number.isFinite(v)) return Math.floor(v)
  if (typeof v !== 'string' || !v.trim()) return undefined
  const t = Date.parse(v)
  return Number.isFinite(t) ? t : undefined
}

function assertHot(db: SqlDatabase, sessionId: string): void {
  if (db.prepare('SELECT 1 AS x FROM session_transcript_cold_archives WHERE session_id = ?').get(sessionId)) {
    throw writeError(`Session ${sessionId} is in OpenClaw's cold storage; clawkit never appends to a cold session. Restore it with OpenClaw first.`, 'E_SQLITE_COLD')
  }
}

export interface AppendOptions {
  /** Refuse unless the active leaf is still this id (null: a header-only transcript). */
  expectedLeaf?: string | null
  /** The clock for the window's transcript_updated_at (default Date.now()). */
  now?: number
  /**
   * Refuse (E_SQLITE_CHAIN, nothing written) an event that does not continue the active branch, instead of marking the
   * projection for OpenClaw's rebuild as OpenClaw's own appender does. clawkit's writers always chain onto the leaf, so
   * an event that does not is a bug or a parent that was never stored; writing it would leave `needs_rebuild` set,
   * which stops OpenClaw's next turn ("projection is rebuilding") and clawkit's (E_SQLITE_PROJECTION_STALE).
   */
  strict?: boolean
  /** How the transaction waits for another writer (default: WRITE_WAIT_MS, silently). */
  wait?: WriteWait
  /**
   * Each event's text as it was stored (a restore from an archive row, which holds the events' own bytes): stored byte
   * for byte instead of JSON.stringify(event), so that spacing, key order and escapes come back as they were. Each
   * must be the JSON text `events[i]` was parsed from.
   */
  texts?: readonly string[]
}

export interface AppendOutcome {
  sessionId: string
  firstSeq: number
  lastSeq: number
  /** Whether every event extended the projection; false means it was marked for OpenClaw's rebuild. */
  indexed: boolean
}

/**
 * Append fully formed events (each with a string `id`; chained by the caller) to an existing, hot session inside the
 * caller's transaction: seq = max + 1 on, identity rows (the message's idempotencyKey, unless another event of the
 * session holds it already), the watermark once, the window clocks, and the forward projection or its rebuild mark.
 * Events are stored as identity rows (event_json); never event_zstd or navigation_json.
 */
export function appendEventsTx(db: SqlDatabase, sessionId: string, events: readonly object[], opts: AppendOptions = {}): AppendOutcome {
  requireTx(db)
  assertSessionId(sessionId)
  if (events.length === 0) throw new Error('appendEvents needs at least one event')
  const win = db.prepare('SELECT session_key, transcript_updated_at, transcript_observed_at FROM session_windows WHERE session_id = ?').get(sessionId)
  if (!win) throw new NotFoundError(`Session ${sessionId} has no window in this database; nothing was written.`, 'E_SESSION_NOT_FOUND')
  const node = db.prepare('SELECT entry_valid FROM session_nodes WHERE session_key = ?').get(String(win.session_key))
  if (!node || (Number(node.entry_valid) !== 1 && Number(node.entry_valid) !== -1)) {
    throw writeError(`The row of ${String(win.session_key)} is not valid (entry_valid ${String(node?.entry_valid)}); OpenClaw refuses it too. Stop the gateway and run "openclaw doctor --fix".`, 'E_SQLITE_ENTRY')
  }
  assertHot(db, sessionId)
  if (opts.expectedLeaf !== undefined) {
    const leaf = currentLeafTx(db, sessionId)
    if (leaf !== opts.expectedLeaf) {
      throw writeError(`Session ${sessionId} moved on while this turn ran (its leaf is ${leaf ?? 'the header'}, not ${opts.expectedLeaf ?? 'the header'}): another writer appended. Nothing was written; run the turn again.`, 'E_SQLITE_LEAF_MOVED')
    }
  }
  const max = db.prepare('SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?').get(sessionId)?.m
  let seq = max === null || max === undefined ? 0 : Number(max) + 1
  const firstSeq = seq
  const now = opts.now ?? Date.now()
  // ensureTranscriptGenerationInTransaction: a 32-hex generation, created once; an existing one is never rotated.
  db.prepare('INSERT INTO transcript_rewrite_watermarks (session_id, generation, updated_at) VALUES (?, ?, ?) ON CONFLICT(session_id) DO NOTHING').run(sessionId, randomUUID().replace(/-/g, ''), now)
  const index = indexAppender(db, sessionId)
  const insertEvent = db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?, ?, ?, ?, NULL, ?, NULL)')
  const insertIdentity = db.prepare('INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, message_idempotency_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(session_id, event_id) DO NOTHING')
  const identityOf = db.prepare('SELECT 1 AS x FROM transcript_event_identities WHERE session_id = ? AND event_id = ?')
  const keyOwner = db.prepare('SELECT 1 AS x FROM transcript_event_identities WHERE session_id = ? AND message_idempotency_key = ? LIMIT 1')
  const touchWindow = db.prepare('UPDATE session_windows SET updated_at = ? WHERE session_id = ?')
  let indexed = true
  if (opts.texts && opts.texts.length !== events.length) throw new Error('appendEvents: one text per event')
  for (const [i, raw] of events.entries()) {
    if (!isRecord(raw)) throw new Error('a transcript event must be a JSON object')
    const e = raw
    const id = nonBlank(e.id)?.trim()
    if (!id) throw writeError(`An event for session ${sessionId} has no id; clawkit writes only events with ids. Nothing was written.`, 'E_SQLITE_EVENT')
    if (identityOf.get(sessionId, id)) throw writeError(`Session ${sessionId} already holds an event with id ${id}; nothing was written.`, 'E_SQLITE_EVENT')
    const createdAt = eventTime(e) ?? now
    const json = opts.texts?.[i] ?? JSON.stringify(e)
    insertEvent.run(sessionId, seq, json, createdAt, Buffer.byteLength(json, 'utf8'))
    touchWindow.run(createdAt, sessionId)
    if (!index(seq, e, createdAt)) {
      if (opts.strict) {
        throw writeError(`Event ${id} (seq ${seq}) would not continue session ${sessionId}'s active branch (its parent is ${typeof e.parentId === 'string' ? e.parentId : 'missing'}), so OpenClaw would have to rebuild the session's index; nothing was written.`, 'E_SQLITE_CHAIN')
      }
      indexed = false
    }
    const m = isRecord(e.message) ? e.message : undefined
    let idem = typeof m?.idempotencyKey === 'string' && m.idempotencyKey.trim() ? m.idempotencyKey.trim() : null
    if (idem && keyOwner.get(sessionId, idem)) idem = null
    insertIdentity.run(sessionId, id, seq, typeof e.type === 'string' ? e.type : null, typeof e.parentId === 'string' ? e.parentId : null, idem, createdAt)
    seq++
  }
  // touchTranscriptMutationInTransaction, once per batch: strictly after the last recorded and observed change.
  const prev = win.transcript_updated_at === null ? null : Number(win.transcript_updated_at)
  const observed = win.transcript_observed_at === null ? null : Number(win.transcript_observed_at)
  const next = Math.max(now, (prev ?? -1) + 1, (observed ?? -1) + 1)
  if (prev === null || prev < next) db.prepare('UPDATE session_windows SET transcript_updated_at = ? WHERE session_id = ?').run(next, sessionId)
  return {sessionId, firstSeq, lastSeq: seq - 1, indexed}
}

/** `appendEventsTx` as one BEGIN IMMEDIATE transaction. */
export function appendEvents(h: Pick<OpenedDb, 'db' | 'path'>, sessionId: string, events: readonly object[], opts: AppendOptions = {}): AppendOutcome {
  return immediateWrite(h, () => appendEventsTx(h.db, sessionId, events, opts), opts.wait)
}

/**
 * The id new entries chain onto: the projection's leaf, when the projection is current and that leaf is the last
 * event (section 5.4 Append 1). null for a header-only transcript. Anything else is refused: a stale projection is
 * OpenClaw's to rebuild, and a leaf that is not the last event means a branch clawkit would fork from.
 */
export function currentLeafTx(db: SqlDatabase, sessionId: string): string | null {
  const last = db.prepare('SELECT e.seq AS seq, i.event_id AS id, i.event_type AS type FROM transcript_events e LEFT JOIN transcript_event_identities i ON i.session_id = e.session_id AND i.seq = e.seq WHERE e.session_id = ? ORDER BY e.seq DESC LIMIT 1').get(sessionId)
  if (!last) throw writeError(`Session ${sessionId} has no transcript events (not even a header); nothing was written.`, 'E_SQLITE_NO_TRANSCRIPT')
  const state = readIndexState(db, sessionId)
  const stale = !state || state.needsRebuild || state.indexedSeq !== Number(last.seq) || hasUnclassified(db, sessionId)
  if (stale) {
    throw writeError(`The transcript index of session ${sessionId} is stale (OpenClaw rebuilds it on its next turn); clawkit appends only to a current one. Nothing was written.`, 'E_SQLITE_PROJECTION_STALE', ['Run "openclaw agent --local --session-id <id>" once, or "openclaw doctor --fix" with the gateway stopped, then retry.'])
  }
  if (Number(last.seq) === 0 && last.type === 'session' && state.leafEventId === null) return null
  if (last.id === null || last.id !== state.leafEventId) {
    throw writeError(`Session ${sessionId}'s active leaf (${state.leafEventId ?? 'none'}) is not its last event (${String(last.id ?? `seq ${String(last.seq)}`)}): it is on another branch. clawkit does not append there; nothing was written.`, 'E_SQLITE_LEAF_MISMATCH')
  }
  return state.leafEventId
}

/** `currentLeafTx` in a read transaction of its own (one consistent WAL snapshot). */
export function currentLeaf(db: SqlDatabase, sessionId: string): string | null {
  if (db.isTransaction) return currentLeafTx(db, sessionId)
  db.exec('BEGIN')
  try {
    return currentLeafTx(db, sessionId)
  } finally {
    db.exec('COMMIT')
  }
}

/**
 * New entries (without id/parentId/timestamp) chained onto the current leaf with OpenClaw 2026.9.6's UUID ids, in pi's
 * field order (custom entries keep pi's literal order), all stamped `now`.
 */
export function chainNew(items: readonly NewEntry[], leaf: string | null, now: Date): Json[] {
  let parent = leaf
  const timestamp = now.toISOString()
  return items.map((item) => {
    const id = randomUUID()
    const {type, ...rest} = item
    const entry = type === 'custom' ? {type, ...rest, id, parentId: parent, timestamp} : {type, id, parentId: parent, timestamp, ...rest}
    parent = id
    return entry
  })
}

/** `LockedTranscript.append`: chain `items` onto the current leaf and append them, in one transaction. */
export function appendChained(h: Pick<OpenedDb, 'db' | 'path'>, sessionId: string, items: readonly NewEntry[], opts: AppendOptions & {date?: Date} = {}): AppendOutcome & {entries: Json[]} {
  return immediateWrite(h, () => {
    const leaf = currentLeafTx(h.db, sessionId)
    if (opts.expectedLeaf !== undefined && leaf !== opts.expectedLeaf) {
      throw writeError(`Session ${sessionId} moved on while this turn ran (another writer appended); nothing was written. Run the turn again.`, 'E_SQLITE_LEAF_MOVED')
    }
    const entries = chainNew(items, leaf, opts.date ?? new Date(opts.now ?? Date.now()))
    return {...appendEventsTx(h.db, sessionId, entries, {now: opts.now, strict: opts.strict}), entries}
  }, opts.wait)
}

/**
 * A message carrying this idempotency key (OpenClaw's identity lookup: the newest owner), with its
 * openclawMessageMeta; undefined when none.
 */
export function findIdempotencyKey(db: SqlDatabase, sessionId: string, key: string): IdempotencyHit | undefined {
  const row = db.prepare('SELECT i.event_id AS id, e.event_json, e.event_zstd, e.event_utf8_bytes, e.seq FROM transcript_event_identities i JOIN transcript_events e ON e.session_id = i.session_id AND e.seq = i.seq WHERE i.session_id = ? AND i.message_idempotency_key = ? ORDER BY i.seq DESC LIMIT 1').get(sessionId, key.trim())
  if (!row) return undefined
  const decoded = eventText(row as never)
  let meta: Record<string, unknown> | undefined
  if ('text' in decoded) {
    try {
      const m = JSON.parse(decoded.text)?.message?.openclawMessageMeta
      if (isRecord(m)) meta = m
    } catch {}
  }
  return {entryId: String(row.id), ...(meta ? {meta} : {})}
}
