// The forward projection OpenClaw keeps beside a transcript's events (section 3.5, section 3.7): which events are
// canonical, their place in the tree, the FTS rows of message text, and the index state an append extends.
import type {SqlDatabase} from './driver.js'
import {type Json, isRecord} from './entry-rows.js'

const CANONICAL_TYPES = new Set(['message', 'thinking_level_change', 'model_change', 'compaction', 'reset', 'branch_summary', 'custom', 'custom_message', 'label', 'session_info'])

function isCanonical(e: Json): boolean {
  return typeof e.type === 'string' && CANONICAL_TYPES.has(e.type)
}

export function nonBlank(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v : undefined
}

/** parseSessionTranscriptTreeEntry, reduced to what the forward rule reads (its parent; leaf controls are refused). */
function treeParent(e: Json): {parentId: string | null} | undefined {
  if (e.type === 'session' || !Object.hasOwn(e, 'parentId')) return undefined
  const id = nonBlank(e.id)
  const parentId = e.parentId === null ? null : nonBlank(e.parentId)
  if (!id || parentId === undefined) return undefined
  if (e.type === 'leaf') {
    const target = e.targetId === null ? null : nonBlank(e.targetId)
    return target === undefined ? undefined : {parentId: target}
  }
  return {parentId}
}

function hasMessage(e: Json): boolean {
  return Object.hasOwn(e, 'message') && e.message !== undefined
}

function shouldProjectActive(e: Json): boolean {
  return e.type !== 'session' && (isCanonical(e) || treeParent(e) !== undefined || hasMessage(e))
}

/** extractTranscriptIndexEntry: the searchable text of a user/assistant message. */
function ftsEntry(e: Json, createdAt: number): {messageId: string; role: string; text: string; timestamp: number} | undefined {
  if (e.type !== 'message' || typeof e.id !== 'string') return undefined
  const m = isRecord(e.message) ? e.message : undefined
  const role = m?.role
  const id = e.id.trim()
  if (!id || (role !== 'user' && role !== 'assistant')) return undefined
  let body: string | undefined
  const content = m?.content
  if (typeof content === 'string') body = content.trim() || undefined
  else if (typeof m?.text === 'string') body = m.text.trim() || undefined
  else if (Array.isArray(content)) {
    const parts = content.flatMap((b: unknown) => (isRecord(b) && (b.type === 'text' || b.type === 'input_text' || b.type === 'output_text') && typeof b.text === 'string' && b.text.trim() ? [b.text] : []))
    body = parts.length > 0 ? parts.join('\n') : undefined
  }
  if (!body) return undefined
  const ts = typeof e.timestamp === 'number' ? e.timestamp : typeof e.timestamp === 'string' ? Date.parse(e.timestamp) : Number.NaN
  return {messageId: id, role, text: body, timestamp: Number.isFinite(ts) ? ts : createdAt}
}

interface IndexCursor {
  indexedSeq: number
  leafEventId: string | null
  activeEventCount: number
  activeMessageCount: number
  needsRebuild: boolean
}

export function readIndexState(db: SqlDatabase, sessionId: string): IndexCursor | undefined {
  const r = db.prepare('SELECT indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count FROM session_transcript_index_state WHERE session_id = ?').get(sessionId)
  if (!r) return undefined
  return {indexedSeq: Number(r.indexed_seq), leafEventId: (r.leaf_event_id as string | null) ?? null, needsRebuild: Number(r.needs_rebuild) !== 0, activeEventCount: Number(r.active_event_count), activeMessageCount: Number(r.active_message_count)}
}

export function hasUnclassified(db: SqlDatabase, sessionId: string): boolean {
  return db.prepare('SELECT 1 AS x FROM session_transcript_active_events WHERE session_id = ? AND context_eligible IS NULL LIMIT 1').get(sessionId) !== undefined
}

const STATE_UPSERT =
  'INSERT INTO session_transcript_index_state (session_id, indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) ' +
  'ON CONFLICT(session_id) DO UPDATE SET indexed_seq = excluded.indexed_seq, leaf_event_id = excluded.leaf_event_id, needs_rebuild = excluded.needs_rebuild, active_event_count = excluded.active_event_count, active_message_count = excluded.active_message_count, updated_at = excluded.updated_at'

/**
 * createTranscriptIndexAppenderInTransaction: extend the projection when the event continues the active branch (section 3.7),
 * otherwise mark the session for OpenClaw's rebuild (needs_rebuild = 1, counts kept), as OpenClaw does. With no state
 * row only a header at seq 0 creates one; a later event then leaves it missing, which readers also take as stale.
 */
export function indexAppender(db: SqlDatabase, sessionId: string): (seq: number, e: Json, createdAt: number) => boolean {
  let wm = readIndexState(db, sessionId)
  let unclassified: boolean | undefined
  const markDirty = () => {
    const dirty = {indexedSeq: wm?.indexedSeq ?? -1, leafEventId: wm?.leafEventId ?? null, activeEventCount: wm?.activeEventCount ?? 0, activeMessageCount: wm?.activeMessageCount ?? 0, needsRebuild: true}
    db.prepare(STATE_UPSERT).run(sessionId, dirty.indexedSeq, dirty.leafEventId, 1, dirty.activeEventCount, dirty.activeMessageCount, Date.now())
    wm = dirty
  }
  const extend = (cursor: IndexCursor, seq: number, e: Json, createdAt: number): boolean => {
    const tree = treeParent(e)
    const canonical = isCanonical(e)
    const init = cursor.indexedSeq === -1
    if (
      seq !== cursor.indexedSeq + 1 ||
      (!init &&
        (e.type === 'leaf' ||
          (canonical && e.appendMode === 'side') ||
          (canonical && cursor.leafEventId === null && cursor.activeEventCount > 0) ||
          (!canonical && cursor.leafEventId !== null && shouldProjectActive(e)) ||
          (tree !== undefined && tree.parentId !== cursor.leafEventId)))
    ) {
      return false
    }
    const fts = ftsEntry(e, createdAt)
    const active = shouldProjectActive(e)
    const message = active && hasMessage(e)
    if (fts) {
      db.prepare('INSERT INTO session_transcript_fts_rows (session_id, message_id) VALUES (?, ?)').run(sessionId, fts.messageId)
      db.prepare('INSERT INTO session_transcript_fts (rowid, text, session_id, message_id, role, timestamp) VALUES (last_insert_rowid(), ?, ?, ?, ?, ?)').run(fts.text, sessionId, fts.messageId, fts.role, fts.timestamp)
    }
    if (active) {
      const eligible = isRecord(e.message) && e.message.excludeFromContext === true ? 0 : 1
      db.prepare('INSERT INTO session_transcript_active_events (session_id, active_position, event_seq, message_position, context_eligible) VALUES (?, ?, ?, ?, ?)').run(sessionId, cursor.activeEventCount, seq, message ? cursor.activeMessageCount : null, eligible)
    }
    const id = canonical ? nonBlank(e.id)?.trim() : undefined
    const next: IndexCursor = {
      indexedSeq: seq,
      leafEventId: id ?? cursor.leafEventId,
      activeEventCount: cursor.activeEventCount + (active ? 1 : 0),
      activeMessageCount: cursor.activeMessageCount + (message ? 1 : 0),
      needsRebuild: false,
    }
    db.prepare(STATE_UPSERT).run(sessionId, next.indexedSeq, next.leafEventId, 0, next.activeEventCount, next.activeMessageCount, createdAt)
    wm = next
    return true
  }
  return (seq, e, createdAt) => {
    if (!wm) {
      if (seq !== 0) return false
      return extend({indexedSeq: -1, leafEventId: null, activeEventCount: 0, activeMessageCount: 0, needsRebuild: false}, seq, e, createdAt)
    }
    if (wm.needsRebuild) return false
    if ((unclassified ??= hasUnclassified(db, sessionId))) {
      markDirty()
      return false
    }
    if (extend(wm, seq, e, createdAt)) return true
    markDirty()
    return false
  }
}
