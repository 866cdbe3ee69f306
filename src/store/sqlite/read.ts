// Read-only queries on OpenClaw's per-agent database (store-sqlite.md section 3.1, section 3.5, section 4, section 5.3): the session index from
// session_nodes, and a transcript's last events read backwards by seq. Every function runs inside the caller's
// BEGIN ... COMMIT (see snapshot()), so one read sees one WAL snapshot.
import {ClawkitError, ExitCode} from '../../errors.js'
import {type LineGrep, sqlNeedle} from '../grep.js'
import {headerVersion} from '../transcript-migrations.js'
import type {BadLine, TranscriptEntry, TranscriptHeader} from '../transcript-types.js'
import type {RawLineFilter, SessionEntry, TranscriptLine, TranscriptReadResult} from '../types.js'
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

/** session_nodes' columns an entry read takes; nodeRowOf names them by position (test/store/sqlite/node-row.test.ts). */
export const NODE_COLUMNS =
  'session_key, current_session_id, entry_json, entry_valid, updated_at, parent_session_key, spawned_by, fork_source_session_key, owner_actor_type, owner_actor_id, owner_assigned_by_type, owner_assigned_by_id, owner_assigned_at'

/**
 * A NODE_COLUMNS row read as an array, as the object node:sqlite would give. node:sqlite builds each row object of its
 * own key by key with a null prototype; one literal of a fixed shape instead was ~12 ms less over a 10k-session list
 * (the values, and so every entry, are the same).
 */
export function nodeRowOf(a: readonly unknown[]): Row {
  return {
    session_key: a[0],
    current_session_id: a[1],
    entry_json: a[2],
    entry_valid: a[3],
    updated_at: a[4],
    parent_session_key: a[5],
    spawned_by: a[6],
    fork_source_session_key: a[7],
    owner_actor_type: a[8],
    owner_actor_id: a[9],
    owner_assigned_by_type: a[10],
    owner_assigned_by_id: a[11],
    owner_assigned_at: a[12],
  }
}

const orUndefined = (v: unknown) => (v === null || v === undefined ? undefined : v)

/**
 * One session_nodes row as an entry, by the reader invariants of section 3.1: undefined for rows OpenClaw silently skips
 * (placeholders, internal keys, `updated_at` not the entry's `updatedAt`, current id not the entry's), an error for
 * rows it refuses to list (entry_valid 0, entry_json not a JSON object).
 */
/** A participant as OpenClaw's entry read projects it: only its identity, the namespace's fields plus the actor id. */
export interface Participant {
  identity: Record<string, unknown>
}

/**
 * The session_participants rows of the given keys (all when omitted) in OpenClaw's order (session_key,
 * first_prompted_at, actor_id, identity_namespace), as the `participants`/`participantCount` its entry reads add
 * (session-accessor.sqlite-participant-projection). A namespace that is not a JSON object is skipped: OpenClaw refuses
 * the whole read and asks for its doctor, clawkit keeps listing (its doctor reports the row).
 */
export function participantsByKey(db: SqlDatabase, key?: string | {from: string; through: string}): Map<string, Participant[]> {
  const out = new Map<string, Participant[]>()
  if (!db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'session_participants'").get()) return out
  const order = 'ORDER BY session_key, first_prompted_at, actor_id, identity_namespace'
  const rows =
    key === undefined
      ? db.prepare(`SELECT session_key, identity_namespace, actor_id FROM session_participants ${order}`).all()
      : typeof key === 'object'
        ? db.prepare(`SELECT session_key, identity_namespace, actor_id FROM session_participants WHERE session_key >= ? AND session_key <= ? ${order}`).all(key.from, key.through)
        : db.prepare(`SELECT session_key, identity_namespace, actor_id FROM session_participants WHERE session_key = ? ${order}`).all(key)
  for (const r of rows) {
    let ns: unknown
    try {
      ns = JSON.parse(String(r.identity_namespace))
    } catch {
      continue
    }
    if (ns === null || typeof ns !== 'object' || Array.isArray(ns)) continue
    const k = String(r.session_key)
    const person = {identity: {...(ns as Record<string, unknown>), id: String(r.actor_id)}}
    const list = out.get(k)
    if (list) list.push(person)
    else out.set(k, [person])
  }
  return out
}

export function entryOfNode(
  dbPath: string,
  row: Row,
  placeholderWindow?: (key: string, sessionId: string) => boolean,
  participants?: ReadonlyMap<string, Participant[]>,
): {key: string; entry: SessionEntry} | undefined {
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
  const people = participants?.get(key)
  if (!owner && !people) return {key, entry: e}
  return {key, entry: {...e, ...(owner ? {owner} : {}), ...(people ? {participants: people, participantCount: people.length} : {})} as SessionEntry}
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
  const people = participantsByKey(db)
  const stmt = db.prepare(`SELECT ${columns} FROM session_nodes ORDER BY session_key`)
  if (!stmt.setReturnArrays) {
    for (const row of stmt.iterate()) {
      const hit = entryOfNode(dbPath, row, placeholder, people)
      if (hit) yield hit
    }
    return
  }
  stmt.setReturnArrays(true)
  for (const a of stmt.iterate() as unknown as Iterable<unknown[]>) {
    const hit = entryOfNode(dbPath, nodeRowOf(a), placeholder, people)
    if (hit) yield hit
  }
}

/**
 * Up to `limit` nodes after the key `after` (session_key order), as iterateEntries projects them; `last` is the last key
 * looked at (undefined once there are no more), so that a page of skipped rows does not end the walk.
 */
export function entriesPage(db: SqlDatabase, dbPath: string, after: string | undefined, limit: number): {entries: {key: string; entry: SessionEntry}[]; last: string | undefined} {
  const rows =
    after === undefined
      ? db.prepare(`SELECT ${NODE_COLUMNS} FROM session_nodes ORDER BY session_key LIMIT ?`).all(limit)
      : db.prepare(`SELECT ${NODE_COLUMNS} FROM session_nodes WHERE session_key > ? ORDER BY session_key LIMIT ?`).all(after, limit)
  if (rows.length === 0) return {entries: [], last: undefined}
  const placeholder = windowCheck(db)
  const people = participantsByKey(db, {from: String(rows[0].session_key), through: String(rows.at(-1)!.session_key)})
  const entries: {key: string; entry: SessionEntry}[] = []
  for (const row of rows) {
    const hit = entryOfNode(dbPath, row, placeholder, people)
    if (hit) entries.push(hit)
  }
  return {entries, last: rows.length < limit ? undefined : String(rows.at(-1)!.session_key)}
}

/** The node stored under exactly this key, if it is listed. */
export function entryByKey(db: SqlDatabase, dbPath: string, key: string): {key: string; entry: SessionEntry} | undefined {
  const row = db.prepare(`SELECT ${NODE_COLUMNS} FROM session_nodes WHERE session_key = ?`).get(key)
  return row ? entryOfNode(dbPath, row, windowCheck(db), participantsByKey(db, key)) : undefined
}

/** The listed nodes whose current session is this id, newest first. */
export function entriesBySessionId(db: SqlDatabase, dbPath: string, sessionId: string): {key: string; entry: SessionEntry}[] {
  const out: {key: string; entry: SessionEntry}[] = []
  const placeholder = windowCheck(db)
  for (const row of db.prepare(`SELECT ${NODE_COLUMNS} FROM session_nodes WHERE current_session_id = ? ORDER BY session_key`).iterate(sessionId)) {
    const hit = entryOfNode(dbPath, row, placeholder, participantsByKey(db, String(row.session_key)))
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
  const version = headerVersion(header)
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
export function pageEvents(db: SqlDatabase, sessionId: string, after: number, limit: number, upTo = Number.MAX_SAFE_INTEGER): TranscriptLine[] {
  return db
    .prepare(`SELECT ${EVENT_COLUMNS} FROM transcript_events WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`)
    .all(sessionId, after, upTo, limit)
    .map((row) => {
      const d = decodeEvent(row)
      const raw = d.text === undefined ? '' : d.value ? oneLine(d.text, d.value) : d.text
      return {line: d.seq, raw, ...(d.bad ? {bad: d.bad} : {value: d.value})}
    })
}

/**
 * pageEvents restricted to the events whose JSON may contain one of the filter's needles: SQLite compares event_json
 * (instr, or LIKE, which folds ASCII case only, as the filter asks), and zstd events are decoded and checked here.
 */
export function grepEventPage(db: SqlDatabase, sessionId: string, after: number, limit: number, filter: RawLineFilter, grep: LineGrep, upTo = Number.MAX_SAFE_INTEGER): {lines: TranscriptLine[]; last: number; more: boolean} {
  const like = (n: string) => `%${n.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
  const conds: string[] = filter.needles.map(() => (filter.ignoreCase ? "event_json LIKE ? ESCAPE '\\'" : 'instr(event_json, ?) > 0'))
  // RawLineFilter.unreadable: every event whose JSON SQLite finds invalid or not an object (json_type would raise an
  // error on invalid JSON, hence the CASE), decoded and judged again below as readLines judges it.
  if (filter.unreadable) conds.push("CASE WHEN json_valid(event_json) THEN json_type(event_json) <> 'object' ELSE 1 END")
  // Each needle by its first SQL_NEEDLE_CHARS (a longer LIKE pattern is an error in SQLite): a superset, as promised.
  const args = filter.needles.map((n) => (filter.ignoreCase ? like(sqlNeedle(n)) : sqlNeedle(n)))
  const where = conds.length > 0 ? `(event_json IS NULL OR ${conds.join(' OR ')})` : '0'
  const rows = db.prepare(`SELECT ${EVENT_COLUMNS} FROM transcript_events WHERE session_id = ? AND seq > ? AND seq <= ? AND ${where} ORDER BY seq LIMIT ?`).all(sessionId, after, upTo, ...args, limit)
  const lines: TranscriptLine[] = []
  for (const row of rows) {
    if (row.event_json === null || row.event_json === undefined) {
      const text = eventText(row as unknown as EventRow)
      if ('text' in text && !grep.test(text.text) && !(filter.unreadable && decodeEvent(row).bad)) continue
    }
    const d = decodeEvent(row)
    const raw = d.text === undefined ? '' : d.value ? oneLine(d.text, d.value) : d.text
    lines.push({line: d.seq, raw, ...(d.bad ? {bad: d.bad} : {value: d.value})})
  }
  return {lines, last: rows.length > 0 ? Number(rows.at(-1)!.seq) : after, more: rows.length === limit}
}

/**
 * The events OpenClaw's FTS5 table (section 3.7) matches as a phrase of `tokens`, through its row map and the event
 * identities; undefined unless the projection covers the whole session: a state row not marked for rebuild, indexed up
 * to the last event, every active row classified, and every event after the header on the active path (the index
 * holds the active branch only, a scan reads every event).
 */
export function ftsEventLines(db: SqlDatabase, sessionId: string, tokens: readonly string[]): TranscriptLine[] | undefined {
  if (tokens.length === 0 || tokens.some((t) => !/^[A-Za-z0-9]+$/.test(t))) return undefined
  try {
    const st = db.prepare('SELECT indexed_seq, needs_rebuild FROM session_transcript_index_state WHERE session_id = ?').get(sessionId)
    if (!st || Number(st.needs_rebuild) !== 0) return undefined
    const max = db.prepare('SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?').get(sessionId)?.m
    if (max === null || max === undefined || Number(st.indexed_seq) !== Number(max)) return undefined
    if (db.prepare('SELECT 1 AS x FROM session_transcript_active_events WHERE session_id = ? AND context_eligible IS NULL LIMIT 1').get(sessionId)) return undefined
    const off = db
      .prepare('SELECT 1 AS x FROM transcript_events e WHERE e.session_id = ? AND e.seq > 0 AND NOT EXISTS (SELECT 1 FROM session_transcript_active_events a WHERE a.session_id = e.session_id AND a.event_seq = e.seq) LIMIT 1')
      .get(sessionId)
    if (off) return undefined
    const rows = db
      .prepare(
        `SELECT DISTINCT e.seq, e.event_json, e.event_zstd, e.event_utf8_bytes FROM session_transcript_fts
         JOIN session_transcript_fts_rows r ON r.id = session_transcript_fts.rowid
         JOIN transcript_event_identities i ON i.session_id = r.session_id AND i.event_id = r.message_id
         JOIN transcript_events e ON e.session_id = i.session_id AND e.seq = i.seq
         WHERE session_transcript_fts MATCH ? AND r.session_id = ? ORDER BY e.seq`,
      )
      .all(`"${tokens.join(' ')}"`, sessionId)
    return rows.map((row) => {
      const d = decodeEvent(row)
      const raw = d.text === undefined ? '' : d.value ? oneLine(d.text, d.value) : d.text
      return {line: d.seq, raw, ...(d.bad ? {bad: d.bad} : {value: d.value})}
    })
  } catch {
    // A database without the projection tables (or an FTS5-less SQLite) is scanned instead.
    return undefined
  }
}

/** The session's header event (seq 0) as stored, one line; undefined when it has none. */
export function headerLine(db: SqlDatabase, sessionId: string): string | undefined {
  const row = db.prepare(`SELECT ${EVENT_COLUMNS} FROM transcript_events WHERE session_id = ? ORDER BY seq ASC LIMIT 1`).get(sessionId)
  if (!row) return undefined
  const d = decodeEvent(row)
  return d.value?.type === 'session' ? oneLine(d.text!, d.value) : undefined
}

/** The session's first event as stored (decoded) and its highest seq: what a replica's high-water mark is checked by. */
export function eventBounds(db: SqlDatabase, sessionId: string): {firstSeq: number; firstText: string; maxSeq: number; generation?: string} | undefined {
  const row = db.prepare(`SELECT ${EVENT_COLUMNS} FROM transcript_events WHERE session_id = ? ORDER BY seq ASC LIMIT 1`).get(sessionId)
  if (!row) return undefined
  const decoded = eventText(row as unknown as EventRow)
  const max = db.prepare('SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?').get(sessionId)
  // The rewrite watermark (section 3.5): rotated by OpenClaw on every destructive rewrite of the session's events.
  const gen = db.prepare('SELECT generation FROM transcript_rewrite_watermarks WHERE session_id = ?').get(sessionId)?.generation
  return {firstSeq: Number(row.seq), firstText: 'error' in decoded ? `undecodable: ${decoded.error}` : decoded.text, maxSeq: Number(max?.m), ...(typeof gen === 'string' ? {generation: gen} : {})}
}

/**
 * Every window's last seq and rewrite watermark, in one query (SessionStore.unchangedSince): each is an index lookup, so
 * ten thousand sessions cost milliseconds, where readSince's per-session bounds would cost a query each.
 */
export function windowMarks(db: SqlDatabase): Map<string, {maxSeq: number | null; generation?: string}> {
  const out = new Map<string, {maxSeq: number | null; generation?: string}>()
  const rows = db
    .prepare(
      `SELECT w.session_id AS s, (SELECT max(seq) FROM transcript_events e WHERE e.session_id = w.session_id) AS m,
         (SELECT generation FROM transcript_rewrite_watermarks r WHERE r.session_id = w.session_id) AS g FROM session_windows w`,
    )
    .all()
  for (const r of rows) out.set(String(r.s), {maxSeq: r.m === null || r.m === undefined ? null : Number(r.m), ...(typeof r.g === 'string' ? {generation: r.g} : {})})
  return out
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
  if (limit <= 0) return out
  const it = db.prepare(`SELECT ${NODE_COLUMNS} FROM session_nodes WHERE entry_valid != -1 ORDER BY updated_at DESC, session_key LIMIT ?`).all(limit * 4 + 16)
  const placeholder = windowCheck(db)
  for (const row of it) {
    const hit = entryOfNode(dbPath, row, placeholder)
    if (hit) out.push(hit)
    if (out.length >= limit) break
  }
  return out
}
