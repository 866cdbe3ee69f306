// What every backend knows of a transcript's lines: the header and entry tests, a new transcript's header, new entries
// chained with OpenClaw's ids, and whether a line is the message that carries an idempotency key.
import {newEntryId} from './random-id.js'
import {CURRENT_TRANSCRIPT_VERSION, type EntryBase, type TranscriptEntry, type TranscriptHeader} from './transcript-types.js'
import type {IdempotencyHit, NewEntry} from './types.js'

export function isHeader(v: unknown): v is TranscriptHeader {
  return Boolean(v) && (v as {type?: unknown}).type === 'session' && typeof (v as {id?: unknown}).id === 'string'
}

export function isEntry(v: unknown): v is EntryBase {
  const e = v as EntryBase
  return typeof e?.type === 'string' && e.type !== 'session'
}

export function makeHeader(sessionId: string, cwd: string, now = new Date()): TranscriptHeader {
  return {type: 'session', version: CURRENT_TRANSCRIPT_VERSION, id: sessionId, timestamp: now.toISOString(), cwd}
}

/**
 * Serialize entries in pi's field order (type, id, parentId, timestamp, then the rest) and chain them onto `leafId`.
 * Custom entries keep pi's literal order (type, customType, data, id, parentId, timestamp).
 */
export function chainEntries(items: NewEntry[], leafId: string | null, ids: Set<string>, now: () => Date = () => new Date()): TranscriptEntry[] {
  let parent = leafId
  return items.map((item) => {
    const id = newEntryId(ids)
    const timestamp = now().toISOString()
    const {type, ...rest} = item
    const entry = type === 'custom' ? {type, ...rest, id, parentId: parent, timestamp} : {type, id, parentId: parent, timestamp, ...rest}
    parent = id
    return entry as TranscriptEntry
  })
}

/** The hit when this transcript line is a message carrying the key (every backend's test for one line). */
export function idempotencyHitOf(line: unknown, key: string): IdempotencyHit | undefined {
  const v = line as {id?: unknown; message?: {idempotencyKey?: unknown; openclawMessageMeta?: Record<string, unknown>}} | null
  if (v?.message?.idempotencyKey === key && typeof v.id === 'string') return {entryId: v.id, meta: v.message.openclawMessageMeta}
  return undefined
}
