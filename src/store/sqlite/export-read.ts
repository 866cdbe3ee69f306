// The few reads `clawkit store` needs from an agent database: nodes with their entry, windows by key, events of one
// session streamed in seq order. Kept small and separate so it can be folded into the general reader (read.ts).
import {eventText, type EventRow, type SqlDatabase} from './driver.js'

export interface NodeRow {
  sessionKey: string
  currentSessionId: string
  entryJson: string
  /** 1 valid, 0 pending validation, -1 placeholder (transcript rows before any entry; listings skip it). */
  entryValid: number
  updatedAt: number
}

export interface WindowRow {
  sessionId: string
  sessionKey: string
  createdAt: number | null
  updatedAt: number | null
}

export interface StoreCounts {
  sessions: number
  windows: number
  events: number
}

/** Every node, key order. entry_json is returned as stored (the canonical record, section 3.1). */
export function readNodes(db: SqlDatabase): NodeRow[] {
  return db
    .prepare('SELECT session_key, current_session_id, entry_json, entry_valid, updated_at FROM session_nodes ORDER BY session_key')
    .all()
    .map((r) => ({
      sessionKey: String(r.session_key),
      currentSessionId: String(r.current_session_id),
      entryJson: String(r.entry_json),
      entryValid: Number(r.entry_valid),
      updatedAt: Number(r.updated_at),
    }))
}

/** The windows (one per sessionId) of every key, each key's oldest first: the lineage order of section 6. */
export function readWindowsByKey(db: SqlDatabase): Map<string, WindowRow[]> {
  const out = new Map<string, WindowRow[]>()
  const rows = db.prepare('SELECT session_id, session_key, created_at, updated_at FROM session_windows ORDER BY session_key, created_at, session_id').all()
  for (const r of rows) {
    const w: WindowRow = {
      sessionId: String(r.session_id),
      sessionKey: String(r.session_key),
      createdAt: r.created_at === null ? null : Number(r.created_at),
      updatedAt: r.updated_at === null ? null : Number(r.updated_at),
    }
    const list = out.get(w.sessionKey)
    if (list) list.push(w)
    else out.set(w.sessionKey, [w])
  }
  return out
}

/** Sessions whose events moved to cold storage (section 3.8): they have no hot rows to read. Empty before schema 20. */
export function readColdSessionIds(db: SqlDatabase): Set<string> {
  try {
    return new Set(db.prepare('SELECT session_id FROM session_transcript_cold_archives').all().map((r) => String(r.session_id)))
  } catch {
    return new Set()
  }
}

/** Nodes (placeholders excluded), windows and events. */
export function readCounts(db: SqlDatabase): StoreCounts {
  const n = (sql: string) => Number(db.prepare(sql).get()?.n ?? 0)
  return {
    sessions: n('SELECT count(*) AS n FROM session_nodes WHERE entry_valid != -1'),
    windows: n('SELECT count(*) AS n FROM session_windows'),
    events: n('SELECT count(*) AS n FROM transcript_events'),
  }
}

export interface StreamedEvent {
  seq: number
  /** The event's own time in ms (transcript_events.created_at). */
  createdAt: number | null
  /** The JSON text exactly as OpenClaw stored it (zstd payloads decoded), or why it cannot be decoded. */
  text?: string
  error?: string
}

/**
 * The events of one session in seq order, one row at a time (`iterate`): a session of a million events is never held
 * in memory. The caller must finish or abandon the iteration before the next statement on this connection.
 */
export function* streamEvents(db: SqlDatabase, sessionId: string): Generator<StreamedEvent> {
  const stmt = db.prepare('SELECT seq, event_json, event_zstd, event_utf8_bytes, created_at FROM transcript_events WHERE session_id = ? ORDER BY seq')
  for (const r of stmt.iterate(sessionId)) {
    const decoded = eventText(r as unknown as EventRow)
    yield {seq: Number(r.seq), createdAt: r.created_at === null ? null : Number(r.created_at), ...decoded}
  }
}
