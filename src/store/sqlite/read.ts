// Read-only queries on OpenClaw's per-agent database (store-sqlite.md section 3.1, section 3.5, section 4, section 5.3): the session index from
// session_nodes, and a transcript's last events read backwards by seq. Every function runs inside the caller's
// BEGIN ... COMMIT (see snapshot()), so one read sees one WAL snapshot.
import {ClawkitError, ExitCode} from '../../errors.js'
import type {TranscriptReadResult} from '../transcript.js'
import type {BadLine, TranscriptEntry, TranscriptHeader} from '../transcript-types.js'
import type {SessionEntry, TranscriptLine} from '../types.js'
import {eventText, mapSqliteError, type EventRow, type SqlDatabase} from './driver.js'

/** A row OpenClaw itself refuses to list: the whole listing fails, as `openclaw sessions` does (section 3.1 invariant 4). */
export class SqliteInvalidRowError extends ClawkitError {
  constructor(dbPath: string, key: string, why: string) {
    super(`Invalid persisted session row ${JSON.stringify(key.length > 160 ? `${key.slice(0, 160)}\u2026` : key)} in ${dbPath} (${why}); it requires repair: stop the gateway and run "openclaw doctor --fix".`, {
      code: 'E_SQLITE_INVALID_ROW',
      exitCode: ExitCode.failure,
    })
  }
}

/**
 * Run `fn` inside one read transaction (a consistent WAL snapshot, section 5.3). A deferred BEGIN takes no lock; the first
 * SELECT takes the snapshot. Errors of SQLite become one line naming the file.
 */
export function snapshot<T>(db: SqlDatabase, dbPath: string, fn: () => T): T {
  try {
    db.exec('BEGIN')
  } catch (error) {
    throw mapSqliteError(dbPath, error)
  }
  try {
    const out = fn()
    db.exec('COMMIT')
    return out
  } catch (error) {
    if (db.isTransaction) {
      try {
        db.exec('ROLLBACK')
      } catch {
        // The original error says more than a failed rollback of a read.
      }
    }
    throw mapSqliteError(dbPath, error)
  }
}

const INTERNAL_EFFECTS_RE = /^agent:[^:]+:internal-session-effects(?::|$)/

/** Keys OpenClaw never lists: its own bookkeeping sessions (section 4 "Silently skipped"). */
export function isInternalSessionEffectsKey(key: string): boolean {
  return INTERNAL_EFFECTS_RE.test(key.toLowerCase())
}

type Row = Record<string, unknown>

function optionalString(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined
  const t = v.trim()
  return t === '' ? undefined : t
}

function actorFromColumns(type: unknown, id: unknown): {type: string; id: string} | undefined {
  const t = type === 'human' || type === 'agent' || type === 'system' ? type : undefined
  const i = optionalString(id)
  return t && i ? {type: t, id: i} : undefined
}

/** `entry.owner` as OpenClaw reads it back from the owner_* columns (they are not in entry_json). */
function ownerFromColumns(row: Row): Record<string, unknown> | undefined {
  const actor = actorFromColumns(row.owner_actor_type, row.owner_actor_id)
  if (!actor) return undefined
  const assignedBy = actorFromColumns(row.owner_assigned_by_type, row.owner_assigned_by_id)
  const at = typeof row.owner_assigned_at === 'number' && Number.isFinite(row.owner_assigned_at) ? row.owner_assigned_at : undefined
  return {actor, ...(assignedBy ? {assignedBy} : {}), ...(at === undefined ? {} : {assignedAt: at})}
}

const NODE_COLUMNS =
  'session_key, current_session_id, entry_json, entry_valid, updated_at, parent_session_key, spawned_by, fork_source_session_key, owner_actor_type, owner_actor_id, owner_assigned_by_type, owner_assigned_by_id, owner_assigned_at'

const orUndefined = (v: unknown) => (v === null || v === undefined ? undefined : v)

/**
 * One session_nodes row as an entry, by the reader invariants of section 3.1: undefined for rows OpenClaw silently skips
 * (placeholders, internal keys, `updated_at` not the entry's `updatedAt`, current id not the entry's), an error for
 * rows it refuses to list (entry_valid 0, entry_json not a JSON object).
 */
export function entryOfNode(dbPath: string, row: Row, placeholderWindow?: (key: string, sessionId: string) => boolean): {key: string; entry: SessionEntry} | undefined {
  const key = String(row.session_key)
  // A placeholder (transcript rows written before any entry, so its window exists) is not a session yet.
  if (Number(row.entry_valid) === -1 && row.entry_json === '{}' && (!placeholderWindow || placeholderWindow(key, String(row.current_session_id)))) return undefined
  if (isInternalSessionEffectsKey(key)) return undefined
  if (Number(row.entry_valid) !== 1) throw new SqliteInvalidRowError(dbPath, key, `entry_valid is ${String(row.entry_valid)}`)
  let entry: unknown
  try {
    entry = JSON.parse(String(row.entry_json))
  } catch {
    throw new SqliteInvalidRowError(dbPath, key, 'entry_json is not JSON')
  }
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new SqliteInvalidRowError(dbPath, key, 'entry_json is not an object')
  const e = entry as SessionEntry
  if (typeof e.sessionId !== 'string' || typeof e.updatedAt !== 'number' || !Number.isFinite(e.updatedAt)) {
    throw new SqliteInvalidRowError(dbPath, key, 'entry_json has no string sessionId and numeric updatedAt')
  }
  // OpenClaw hides a row whose projection disagrees with its entry (exp UM): count and totalCount both drop it.
  if (Number(row.updated_at) !== e.updatedAt || String(row.current_session_id) !== e.sessionId) return undefined
  // Invariant 6: the lineage columns are the entry's (OpenClaw's canonical validation refuses the listing otherwise).
  const forkKey = (e.forkSource as {sessionKey?: unknown} | undefined)?.sessionKey
  if (
    orUndefined(row.parent_session_key) !== orUndefined(e.parentSessionKey ?? e.spawnedBy) ||
    orUndefined(row.spawned_by) !== orUndefined(e.spawnedBy) ||
    orUndefined(row.fork_source_session_key) !== orUndefined(forkKey)
  ) {
    throw new SqliteInvalidRowError(dbPath, key, 'its parent_session_key, spawned_by or fork_source_session_key column disagrees with the entry')
  }
  const owner = ownerFromColumns(row)
  return {key, entry: owner ? ({...e, owner} as SessionEntry) : e}
}

/** Whether a placeholder's window is there (OpenClaw lists a placeholder without one as an invalid row). */
function windowCheck(db: SqlDatabase): (key: string, sessionId: string) => boolean {
  const q = db.prepare('SELECT 1 AS x FROM session_windows WHERE session_id = ? AND session_key = ?')
  return (key, sessionId) => q.get(sessionId, key) !== undefined
}

/**
 * Every listed node in session_key order (OpenClaw's store order), projected as it is read. `omit`: top-level entry
 * fields SQLite drops before the entry reaches JavaScript (a real entry is ~14 KB, mostly skillsSnapshot and
 * systemPromptReport, which a listing never shows: half the time of a 10k-session list went into parsing them).
 */
export function* iterateEntries(db: SqlDatabase, dbPath: string, omit: readonly string[] = []): Generator<{key: string; entry: SessionEntry}> {
  const placeholder = windowCheck(db)
  const fields = omit.filter((f) => /^[A-Za-z0-9_]+$/.test(f))
  // json_remove fails on malformed JSON; such a row keeps its text so the reader names it (entryOfNode).
  const columns = fields.length === 0 ? NODE_COLUMNS : NODE_COLUMNS.replace('entry_json', `CASE WHEN json_valid(entry_json) THEN json_remove(entry_json, ${fields.map((f) => `'$.${f}'`).join(', ')}) ELSE entry_json END AS entry_json`)
  for (const row of db.prepare(`SELECT ${columns} FROM session_nodes ORDER BY session_key`).iterate()) {
    const hit = entryOfNode(dbPath, row, placeholder)
    if (hit) yield hit
  }
}

/** The node stored under exactly this key, if it is listed. */
export function entryByKey(db: SqlDatabase, dbPath: string, key: string): {key: string; entry: SessionEntry} | undefined {
  const row = db.prepare(`SELECT ${NODE_COLUMNS} FROM session_nodes WHERE session_key = ?`).get(key)
  return row ? entryOfNode(dbPath, row, windowCheck(db)) : undefined
}

/** The listed nodes whose current session is this id, newest first. */
export function entriesBySessionId(db: SqlDatabase, dbPath: string, sessionId: string): {key: string; entry: SessionEntry}[] {
  const out: {key: string; entry: SessionEntry}[] = []
  const placeholder = windowCheck(db)
  for (const row of db.prepare(`SELECT ${NODE_COLUMNS} FROM session_nodes WHERE current_session_id = ? ORDER BY session_key`).iterate(sessionId)) {
    const hit = entryOfNode(dbPath, row, placeholder)
    if (hit) out.push(hit)
  }
  return out.sort((a, b) => b.entry.updatedAt - a.entry.updatedAt)
}

function preview(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}\u2026` : s
}

interface DecodedEvent {
  seq: number
  text?: string
  value?: Record<string, unknown>
  bad?: BadLine
}

/** One event: decoded (zstd included) and parsed; an event that cannot be is a bad line naming its seq, never a crash. */
function decodeEvent(row: Row): DecodedEvent {
  const seq = Number(row.seq)
  const decoded = eventText(row as unknown as EventRow)
  if ('error' in decoded) return {seq, bad: {line: seq, offset: seq, reason: 'undecodable', preview: `event seq ${seq}: ${decoded.error}`}}
  let value: unknown
  try {
    value = JSON.parse(decoded.text)
  } catch {
    return {seq, text: decoded.text, bad: {line: seq, offset: seq, reason: 'invalid-json', preview: preview(decoded.text)}}
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {seq, text: decoded.text, bad: {line: seq, offset: seq, reason: 'not-an-object', preview: preview(decoded.text)}}
  return {seq, text: decoded.text, value: value as Record<string, unknown>}
}

/** The event's JSON as one line: as stored when it is one (OpenClaw stores compact JSON), else re-serialized. */
function oneLine(text: string, value: unknown): string {
  return /[\r\n\u2028\u2029]/.test(text) ? JSON.stringify(value) : text
}

const EVENT_COLUMNS = 'seq, event_json, event_zstd, event_utf8_bytes'

export interface EventTailOptions {
  limit: number
  count?: (e: TranscriptEntry) => boolean
  exactPartial?: boolean
}

/**
 * The last `limit` counted events of a session and the others after the first of them, read by `seq DESC` in pages
 * with LIMIT (never a scan of the whole transcript). `locator` names the transcript in the result. Undefined when the
 * session has no events at all. Line numbers of bad events are their seq.
 */
export function tailEvents(db: SqlDatabase, sessionId: string, locator: string, opts: EventTailOptions): TranscriptReadResult | undefined {
  const count = opts.count ?? (() => true)
  const headerRow = db.prepare(`SELECT ${EVENT_COLUMNS} FROM transcript_events WHERE session_id = ? ORDER BY seq ASC LIMIT 1`).get(sessionId)
  if (!headerRow) return undefined
  const badLines: BadLine[] = []
  let header: TranscriptHeader | undefined
  let badHeader = false
  const first = decodeEvent(headerRow)
  if (first.value && first.value.type === 'session' && typeof first.value.id === 'string') header = first.value as TranscriptHeader
  else badHeader = true
  // The events after the header; without a header (a damaged or hand-made session) the first row is an event too.
  const after = badHeader ? first.seq - 1 : first.seq
  const page = db.prepare(`SELECT ${EVENT_COLUMNS} FROM transcript_events WHERE session_id = ? AND seq < ? AND seq > ? ORDER BY seq DESC LIMIT ?`)
  // Newest first while reading; reversed at the end.
  const kept: {entry: TranscriptEntry; raw: string}[] = []
  let counted = 0
  let partial = false
  let cursor = Number.MAX_SAFE_INTEGER
  let pageSize = Math.min(Math.max(opts.limit * 2, 32), 1000)
  let done = false
  while (!done) {
    const rows = page.all(sessionId, cursor, after, pageSize)
    if (rows.length === 0) break
    for (const row of rows) {
      cursor = Number(row.seq)
      if (counted >= opts.limit) {
        // Past the window: does a counted entry exist before it?
        if (!opts.exactPartial) {
          partial = true
          done = true
          break
        }
        const d = decodeEvent(row)
        if (d.value && typeof d.value.type === 'string' && count(d.value as unknown as TranscriptEntry)) {
          partial = true
          done = true
          break
        }
        continue
      }
      const d = decodeEvent(row)
      if (d.bad) {
        badLines.push(d.bad)
        continue
      }
      const v = d.value!
      if (v.type === 'session') continue // a duplicate header, as pi ignores it
      if (typeof v.type !== 'string') {
        badLines.push({line: d.seq, offset: d.seq, reason: 'missing-id', preview: preview(d.text ?? '')})
        continue
      }
      const entry = v as unknown as TranscriptEntry
      kept.push({entry, raw: oneLine(d.text!, v)})
      if (count(entry)) counted++
    }
    pageSize = Math.min(pageSize * 2, 1000)
  }
  kept.reverse()
  badLines.sort((a, b) => a.line - b.line)
  const version = typeof header?.version === 'number' ? header.version : 1
  return {
    file: locator,
    header,
    version,
    entries: kept.map((k) => k.entry),
    rawLines: kept.map((k) => k.raw),
    badLines,
    duplicateHeaders: 0,
    badHeader,
    missingFinalNewline: false,
    size: 0,
    partial,
  }
}

/** Up to `limit` events after seq `after`, decoded, as transcript lines (line = seq). */
export function pageEvents(db: SqlDatabase, sessionId: string, after: number, limit: number): TranscriptLine[] {
  return db
    .prepare(`SELECT ${EVENT_COLUMNS} FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`)
    .all(sessionId, after, limit)
    .map((row) => {
      const d = decodeEvent(row)
      const raw = d.text === undefined ? '' : d.value ? oneLine(d.text, d.value) : d.text
      return {line: d.seq, raw, ...(d.bad ? {bad: d.bad} : {value: d.value})}
    })
}

/** The session's header event (seq 0) as stored, one line; undefined when it has none. */
export function headerLine(db: SqlDatabase, sessionId: string): string | undefined {
  const row = db.prepare(`SELECT ${EVENT_COLUMNS} FROM transcript_events WHERE session_id = ? ORDER BY seq ASC LIMIT 1`).get(sessionId)
  if (!row) return undefined
  const d = decodeEvent(row)
  return d.value?.type === 'session' ? oneLine(d.text!, d.value) : undefined
}

/** The session's first event as stored (decoded) and its highest seq: what a replica's high-water mark is checked by. */
export function eventBounds(db: SqlDatabase, sessionId: string): {firstSeq: number; firstText: string; maxSeq: number} | undefined {
  const row = db.prepare(`SELECT ${EVENT_COLUMNS} FROM transcript_events WHERE session_id = ? ORDER BY seq ASC LIMIT 1`).get(sessionId)
  if (!row) return undefined
  const decoded = eventText(row as unknown as EventRow)
  const max = db.prepare('SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?').get(sessionId)
  return {firstSeq: Number(row.seq), firstText: 'error' in decoded ? `undecodable: ${decoded.error}` : decoded.text, maxSeq: Number(max?.m)}
}

/** Whether the session has any transcript event (a window may exist without them). */
export function hasEvents(db: SqlDatabase, sessionId: string): boolean {
  return db.prepare('SELECT 1 AS x FROM transcript_events WHERE session_id = ? LIMIT 1').get(sessionId) !== undefined
}

/** Counts for status: by SQL, never by reading entries. Listed sessions follow the listing's rules except parsing. */
export function storeCounts(db: SqlDatabase): {sessions: number; events: number} {
  const sessions = Number(db.prepare("SELECT count(*) AS n FROM session_nodes WHERE entry_valid != -1 AND session_key NOT LIKE 'agent:%:internal-session-effects%'").get()?.n ?? 0)
  const events = Number(db.prepare('SELECT count(*) AS n FROM transcript_events').get()?.n ?? 0)
  return {sessions, events}
}

/** Last activity among the listed sessions (status's "last active"), by the updated_at index. */
export function lastUpdatedAt(db: SqlDatabase): number | null {
  const v = db.prepare("SELECT max(updated_at) AS t FROM session_nodes WHERE entry_valid = 1 AND session_key NOT LIKE 'agent:%:internal-session-effects%'").get()?.t
  return typeof v === 'number' || typeof v === 'bigint' ? Number(v) : null
}

/** The `limit` newest listed sessions, by the updated_at index (status's recent list): rows it skips are passed over. */
export function newestEntries(db: SqlDatabase, dbPath: string, limit: number): {key: string; entry: SessionEntry}[] {
  const out: {key: string; entry: SessionEntry}[] = []
  const it = db.prepare(`SELECT ${NODE_COLUMNS} FROM session_nodes WHERE entry_valid != -1 ORDER BY updated_at DESC, session_key LIMIT ?`).all(limit * 4 + 16)
  const placeholder = windowCheck(db)
  for (const row of it) {
    const hit = entryOfNode(dbPath, row, placeholder)
    if (hit) out.push(hit)
    if (out.length >= limit) break
  }
  return out
}
