// The SQLite era's writes: the rows OpenClaw 2026.9.6 writes for an entry write, an append and a reset. The acts of a
// new session and a reset are here; the primitives they are made of live beside it and are re-exported at the end,
// so that one import reaches the whole write side: the transaction (transaction.ts), entries and their rows
// (entry-rows.ts), the forward projection (projection.ts), appends (append.ts) and the state dir's owner
// (ownership.ts).
//
// Every exported act (`writeEntry`, `appendEvents`, `appendChained`, `newSession`, `resetSession`; `immediateAsync`
// around `writeEntryChangesTx`) is ONE `BEGIN IMMEDIATE` transaction (busy_timeout 5000) on a handle from
// `openAgentDb(path, {write: true, agentId})`; the `...Tx` forms run inside a transaction the caller already holds, so
// several of them commit together. Nothing here opens a database, runs DDL or touches what store-sqlite.md section 5.5 lists.
//
// How SqliteSessionStore's write methods (src/store/types.ts) map onto these:
// - `update(mutator)`: `await immediateAsync(h, async () => { const before = readEntriesTx(h.db); const after =
//   structuredClone(before); const r = await mutator(after); writeEntryChangesTx(h.db, agentId, before, after); return r })`.
//   Only keys whose entry changed are written; removing a key is refused (OpenClaw's delete rehomes windows).
// - `withTranscript(t, fn)`: holds NO transaction across `fn` (a model call would keep OpenClaw's writers waiting past
//   their 5 s busy timeout), but clawkit's own lock of the session (store.ts sessionLock: two clawkit writers of one
//   session take turns). It captures `currentLeaf(db, sessionId)` once; `LockedTranscript.append(items)` is
//   `appendChained(h, sessionId, items, {expectedLeaf})` and `write(lines)` is `appendEvents(h, sessionId, lines,
//   {expectedLeaf})`, each its own transaction that refuses (E_SQLITE_LEAF_MOVED) when another writer moved the leaf
//   meanwhile (after each of its own appends the turn's expectedLeaf becomes its last id), against writers outside
//   clawkit. Its appends are `strict` (an event that does not extend the projection is refused, never left for
//   OpenClaw's rebuild) and wait for a locked database up to WRITE_WAIT_MS. `readContext` is the read side's;
//   `findIdempotencyKey(key)` is `findIdempotencyKey(db, sessionId, key)`.
// - `findIdempotencyKey(t, key)`: `findIdempotencyKey(db, sessionId, key)` (a read, no transaction).
// - `planReset(key, now)`: `planSessionReset(db, key)`; `reset(key, opts)`: `resetSession(h, {agentId, key, now, cwd})`.
// - Every act first needs `assertNoGatewayOwner(stateDir)` (once per command, before opening for write).
//
// DECISION (reset): clawkit's `sessions reset` on a SQLite store starts a NEW sessionId, as OpenClaw's idle/daily
// expiry does (section 6), and links it: the new window's `previous_session_id` is the old id, written the only way OpenClaw
// itself writes that column (bindSessionRoot projects `entry.previousSessionId`), so OpenClaw's later entry writes
// keep it and its maintenance treats the old window as referenced. The old window and its events stay, untouched;
// the new window starts with a version-4 header at seq 0. The entry is rewritten like the JSON era's reset
// (RESET_CLEARED_FIELDS, counters zeroed). docs/sqlite-writes.md says why not the gateway's same-id `reset` event.
import {NotFoundError} from '../../errors.js'
import {randomUUID} from '../random-id.js'
import {resetClearedFields, resetEntry} from '../reset.js'
import {badEntrySessionId, isOpenClawSessionId} from '../session-id.js'
import type {NewEntry, SessionEntry} from '../types.js'
import {appendEventsTx, chainNew} from './append.js'
import type {OpenedDb, SqlDatabase} from './driver.js'
import {type Json, readNodeTx, writeEntryTx} from './entry-rows.js'
import {type WriteWait, immediateWrite, writeError} from './transaction.js'

/** The transcript header version OpenClaw 2026.9.6 writes for new sessions. */
export const SQLITE_HEADER_VERSION = 4

export function makeSqliteHeader(sessionId: string, cwd: string, now: Date): Json {
  return {type: 'session', version: SQLITE_HEADER_VERSION, id: sessionId, timestamp: now.toISOString(), cwd}
}

export interface NewSessionParams {
  agentId: string
  key: string
  /** Default: a random UUID. */
  sessionId?: string
  now?: Date
  /** The header's cwd (the agent's workspace). */
  cwd: string
  /** Fields of the entry beyond the minimal one (model, modelProvider, label, ...). */
  entry?: Partial<SessionEntry>
  /** Entries chained after the header (user/assistant messages, model_change, ...). */
  items?: readonly NewEntry[]
  wait?: WriteWait
}

/**
 * A new session in one transaction (section 5.4 New session): node (entry_valid 1) and window, a version-4 header at seq 0
 * whose id is the sessionId, then `items` chained from it (the first with parentId null), all projected.
 */
export function newSession(h: Pick<OpenedDb, 'db' | 'path'>, p: NewSessionParams): {sessionId: string; entry: Json; events: Json[]} {
  const now = p.now ?? new Date()
  const t = now.getTime()
  const sessionId = p.sessionId ?? randomUUID()
  return immediateWrite(h, () => {
    if (readNodeTx(h.db, p.key)) throw writeError(`Session ${p.key} exists already; nothing was written.`, 'E_SESSION_EXISTS')
    if (h.db.prepare('SELECT 1 AS x FROM session_windows WHERE session_id = ?').get(sessionId)) throw writeError(`Session id ${sessionId} is taken already; nothing was written.`, 'E_SESSION_EXISTS')
    const entry = writeEntryTx(h.db, {agentId: p.agentId, key: p.key, entry: {...p.entry, sessionId, updatedAt: t, sessionStartedAt: t, lastInteractionAt: t, lastActivityAt: t} as SessionEntry})
    const events = [makeSqliteHeader(sessionId, p.cwd, now), ...chainNew(p.items ?? [], null, now)]
    appendEventsTx(h.db, sessionId, events, {now: t, strict: true})
    return {sessionId, entry, events}
  }, p.wait)
}

export interface SqliteResetPlan {
  key: string
  previousSessionId: string
  clearedFields: string[]
}

/**
 * A session whose id OpenClaw would refuse (validateSessionId) is not reset: its old window could not be read back by
 * its locator afterwards, and the JSON era refuses the same entry (it cannot name the file to archive).
 */
function assertResettableId(sessionId: unknown, key: string): void {
  if (typeof sessionId !== 'string' || !isOpenClawSessionId(sessionId)) throw badEntrySessionId(String(sessionId), key)
}

/** What resetSession would do now (read only). NotFoundError when there is no such session. */
export function planSessionReset(db: SqlDatabase, key: string): SqliteResetPlan {
  const node = readNodeTx(db, key)
  if (!node || node.entryValid !== 1) throw new NotFoundError(`Session not found: ${key}`, 'E_SESSION_NOT_FOUND')
  assertResettableId(node.entry.sessionId, key)
  return {key, previousSessionId: node.entry.sessionId, clearedFields: resetClearedFields(node.entry)}
}

/**
 * The entry after a reset, as the JSON era's resetEntry shapes it (same cleared fields and zeroed counters), for a new
 * sessionId linked to the old one by previousSessionId. Fields OpenClaw's own writer drops when the sessionId
 * changes (visibility, publicShare, providerReview) go too.
 */
export function resetSqliteEntry(entry: SessionEntry, newId: string, now: Date): SessionEntry {
  const next = resetEntry(entry, newId, undefined, now)
  for (const f of ['visibility', 'publicShare', 'providerReview']) delete next[f]
  next.previousSessionId = entry.sessionId
  next.sessionStartedAt = now.getTime()
  return next
}

export interface ResetParams {
  agentId: string
  key: string
  now?: Date
  cwd: string
  /** Default: a random UUID. */
  newSessionId?: string
  wait?: WriteWait
}

export interface SqliteResetOutcome {
  key: string
  previousSessionId: string
  sessionId: string
  entry: Json
}

/** clawkit's reset on a SQLite store, in one transaction (see DECISION at the top). */
export function resetSession(h: Pick<OpenedDb, 'db' | 'path'>, p: ResetParams): SqliteResetOutcome {
  return immediateWrite(h, () => resetSessionTx(h.db, p), p.wait)
}

/** `resetSession` inside the caller's transaction (a journaled write captures its rows around it). */
export function resetSessionTx(db: SqlDatabase, p: ResetParams): SqliteResetOutcome {
  const now = p.now ?? new Date()
  const newId = p.newSessionId ?? randomUUID()
  const node = readNodeTx(db, p.key)
  if (!node || node.entryValid !== 1) throw new NotFoundError(`Session not found: ${p.key}`, 'E_SESSION_NOT_FOUND')
  assertResettableId(node.entry.sessionId, p.key)
  const previousSessionId = node.entry.sessionId
  if (db.prepare('SELECT 1 AS x FROM session_windows WHERE session_id = ?').get(newId)) throw writeError(`Session id ${newId} is taken already; nothing was written.`, 'E_SESSION_EXISTS')
  const entry = writeEntryTx(db, {agentId: p.agentId, key: p.key, entry: resetSqliteEntry(node.entry, newId, now)})
  appendEventsTx(db, newId, [makeSqliteHeader(newId, p.cwd, now)], {now: now.getTime(), strict: true})
  return {key: p.key, previousSessionId, sessionId: newId, entry}
}

// The write side's primitives, from the files they live in (see the top of this file).
export * from './append.js'
export * from './entry-rows.js'
export * from './ownership.js'
export * from './transaction.js'
