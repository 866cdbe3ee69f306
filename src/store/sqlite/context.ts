// Reads a SQLite-era session for an agent turn: every event's id, parent and type from OpenClaw's identity rows, and
// the event itself (decoded, zstd included) only where the model's context uses it, as context-read.ts does for JSONL.
//
// Why: a turn rebuilds the context from the leaf's path, and on a long session most of that path lies before the last
// compaction. Decoding and parsing every event of a session of a million events cost seconds per turn.
//
// The assumption: transcript_event_identities (OpenClaw writes one row per event with a string id, header included,
// in the transaction that writes the event, and so does clawkit) names each event's type, id and parentId as its JSON
// does. Every event the context needs is decoded and checked against its identity row; a difference, an event without
// an identity row, or one with no type, falls back to the whole read.
//
// A damaged event the context does not use (one before the last compaction) is never decoded, so it no longer stops
// a turn on a long session, where the whole read of a shorter one still refuses it (E_SQLITE_EVENT): the context is
// exact either way, and the JSON era's lazy read likewise never parses such lines. `clawkit doctor` reports them.
import {ClawkitError} from '../../errors.js'
import {contextPath, type ContextRead, type Slot, stubSlot} from '../context-path.js'
import {pathToLeaf} from '../context.js'
import {isEntry, isHeader} from '../entries.js'
import type {TranscriptEntry, TranscriptHeader} from '../transcript-types.js'
import {type EventRow, eventText, type SqlDatabase} from './driver.js'

/** Shorter sessions are read whole: the saving is for long ones, and below this it is a few milliseconds. */
export const LAZY_CONTEXT_MIN_EVENTS = 2000

const EVENT_COLUMNS = 'seq, event_json, event_zstd, event_utf8_bytes'

/** One event, decoded and parsed; a broken event stops a writer (it would otherwise continue a session it cannot read). */
function eventValue(row: EventRow, locator: string): unknown {
  const decoded = eventText(row)
  try {
    if ('error' in decoded) throw new Error(decoded.error)
    return JSON.parse(decoded.text)
  } catch (error) {
    throw new ClawkitError(`Event seq ${String(row.seq)} of ${locator} cannot be read (${(error as Error).message}); the session cannot be continued. Nothing was written.`, {
      code: 'E_SQLITE_EVENT',
      suggestions: ['Run "clawkit doctor" to see the damaged events.'],
    })
  }
}

/** Every event of a session (header first), decoded; undefined when it has none. */
export function readWholeSession(db: SqlDatabase, sessionId: string, locator: string): {header?: TranscriptHeader; entries: TranscriptEntry[]} | undefined {
  let header: TranscriptHeader | undefined
  const entries: TranscriptEntry[] = []
  let any = false
  for (const row of db.prepare(`SELECT ${EVENT_COLUMNS} FROM transcript_events WHERE session_id = ? ORDER BY seq`).iterate(sessionId)) {
    any = true
    const value = eventValue(row as unknown as EventRow, locator)
    if (Number(row.seq) === 0 && isHeader(value)) header = value
    else if (isEntry(value)) entries.push(value as TranscriptEntry)
  }
  return any ? {header, entries} : undefined
}

/** A turn's read of a session: lazy from `minEvents` events on, whole below or when the identity rows cannot be trusted. */
export function readSessionForContext(db: SqlDatabase, sessionId: string, locator: string, minEvents = LAZY_CONTEXT_MIN_EVENTS): ContextRead | undefined {
  const lazy = lazyRead(db, sessionId, locator, minEvents)
  if (lazy) return lazy
  const all = readWholeSession(db, sessionId, locator)
  if (!all) return undefined
  return {header: all.header, badHeader: !all.header, missingFinalNewline: false, entries: all.entries, path: pathToLeaf(all.entries), stubs: 0}
}

function lazyRead(db: SqlDatabase, sessionId: string, locator: string, minEvents: number): ContextRead | undefined {
  const count = Number((db.prepare('SELECT count(*) AS n FROM transcript_events WHERE session_id = ?').get(sessionId) as {n: number}).n)
  if (count < minEvents) return undefined
  const ids = db.prepare('SELECT seq, event_id, event_type, parent_id FROM transcript_event_identities WHERE session_id = ? ORDER BY seq').all(sessionId) as {
    seq: number
    event_id: unknown
    event_type: unknown
    parent_id: unknown
  }[]
  // One identity row per event, the header first: anything else (an event without a string id, say) is read whole.
  if (ids.length !== count || Number(ids[0]?.seq) !== 0 || ids[0].event_type !== 'session') return undefined
  const one = db.prepare(`SELECT ${EVENT_COLUMNS} FROM transcript_events WHERE session_id = ? AND seq = ?`)
  const load = (seq: number) => {
    const row = one.get(sessionId, seq)
    return row ? eventValue(row as unknown as EventRow, locator) : undefined
  }
  const header = load(0)
  if (!isHeader(header)) return undefined
  const entries: Slot[] = []
  let prev = 0
  for (let i = 1; i < ids.length; i++) {
    const r = ids[i]
    const seq = Number(r.seq)
    if (!(seq > prev) || typeof r.event_id !== 'string' || typeof r.event_type !== 'string' || r.event_type === 'session') return undefined
    if (r.parent_id !== null && typeof r.parent_id !== 'string') return undefined
    prev = seq
    entries.push(stubSlot(r.event_type, r.event_id, r.parent_id, seq))
  }
  const walked = contextPath(entries, (stub) => {
    const value = load(stub.at)
    return isEntry(value) && !isHeader(value) ? (value as TranscriptEntry) : undefined
  })
  if (!walked) return undefined
  return {header, badHeader: false, missingFinalNewline: false, entries, path: walked.path, stubs: walked.stubs}
}
