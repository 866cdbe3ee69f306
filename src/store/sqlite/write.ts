// The SQLite era's write primitives: the rows OpenClaw 2026.9.6 writes for an entry write, an append and a reset.
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
// - `append(t, items)`: `appendChained(h, sessionId, items)`.
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
import fs from 'node:fs'
import path from 'node:path'

import {ClawkitError, ExitCode, NotFoundError} from '../../errors.js'
import {randomUUID} from '../random-id.js'
import {resetClearedFields, resetEntry} from '../reset.js'
import type {IdempotencyHit, NewEntry, SessionEntry, SessionStoreData} from '../types.js'
import {BUSY_TIMEOUT_MS, eventText, isSqliteBusy, mapSqliteError, type OpenedDb, type SqlDatabase, type SqlValue} from './driver.js'
import {isPidAlive, processesHoldingFile} from '../../os/process.js'

/** The transcript header version OpenClaw 2026.9.6 writes for new sessions. */
export const SQLITE_HEADER_VERSION = 4

type Json = Record<string, unknown>

function writeError(message: string, code: string, suggestions?: string[]): ClawkitError {
  return new ClawkitError(message, {code, exitCode: ExitCode.failure, suggestions})
}

function requireTx(db: SqlDatabase): void {
  if (!db.isTransaction) throw new Error('SQLite write primitive called outside a BEGIN IMMEDIATE transaction')
}

/** node:sqlite's own failures (busy, read-only, corrupt, constraint) get the store's one-line mapping; others pass. */
function mapWriteError(path: string, error: unknown, waitedMs?: number): unknown {
  const code = (error as {code?: unknown})?.code
  return code === 'ERR_SQLITE_ERROR' || typeof (error as {errcode?: unknown})?.errcode === 'number' ? mapSqliteError(path, error, {action: 'write', waitedMs}) : error
}

function envMs(name: string, fallback: number): number {
  const raw = process.env[name]
  const n = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw)
  return Number.isFinite(n) && n >= 0 ? n : fallback
}

/**
 * How long one clawkit write waits in all for another writer's lock. OpenClaw's own policy (sqlite-transaction.ts,
 * sqlite-busy-timeout.ts in 2026.9.6) is one BEGIN IMMEDIATE under busy_timeout 5000, retried every 25 ms until that
 * 5 s deadline: enough inside the gateway, whose writers queue in-process (runOpenClawAgentWriteAdmission) and never
 * meet each other's locks. clawkit is another process, so OpenClaw's 1-17 s maintenance transactions reach it as
 * SQLITE_BUSY; it makes OpenClaw's attempt again and again, up to this total, because the write it is making is often
 * a reply the user has already seen. CLAWKIT_SQLITE_WRITE_WAIT_MS changes it (0: OpenClaw's single attempt).
 */
export const WRITE_WAIT_MS = envMs('CLAWKIT_SQLITE_WRITE_WAIT_MS', 60_000)

/** How a write waits for another writer: told once when the wait begins, ended by its signal. */
export interface WriteWait {
  /** The total wait (default WRITE_WAIT_MS); never less than one attempt of OpenClaw's busy timeout. */
  waitMs?: number
  /** Called once, when OpenClaw's first attempt found the database locked and clawkit keeps waiting. */
  onWait?: (info: {path: string; waitedMs: number; timeoutMs: number}) => void
  /** Stop waiting (Ctrl-C, a turn's --timeout): the busy error is thrown after the attempt in progress. */
  signal?: AbortSignal
}

/**
 * BEGIN IMMEDIATE with OpenClaw's busy timeout per attempt, repeated while another writer holds the lock and the wait
 * lasts. Each attempt blocks (SQLite's busy handler sleeps and retries inside it); the last one is shortened so the
 * total stays near `waitMs`. A failure names the write and how long it waited.
 */
function begin(h: Pick<OpenedDb, 'db' | 'path'>, wait: WriteWait = {}): void {
  const started = Date.now()
  const limit = wait.waitMs ?? WRITE_WAIT_MS
  let shortened = false
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        h.db.exec('BEGIN IMMEDIATE')
        return
      } catch (error) {
        const waited = Date.now() - started
        if (!isSqliteBusy(error) || waited >= limit || wait.signal?.aborted) throw mapSqliteError(h.path, error, {action: 'write', waitedMs: waited})
        if (attempt === 1) wait.onWait?.({path: h.path, waitedMs: waited, timeoutMs: limit})
        const left = limit - waited
        if (left < BUSY_TIMEOUT_MS) {
          h.db.exec(`PRAGMA busy_timeout = ${Math.max(1, Math.ceil(left))}`)
          shortened = true
        }
      }
    }
  } finally {
    if (shortened && h.db.isOpen) h.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  }
}

function rollback(h: Pick<OpenedDb, 'db' | 'path'>, error: unknown): never {
  if (h.db.isOpen && h.db.isTransaction) h.db.exec('ROLLBACK')
  throw mapWriteError(h.path, error)
}

/**
 * `fn` (which may await) inside one BEGIN IMMEDIATE transaction, rolled back whole on any error. A mutator's own
 * error comes back as thrown; SQLite's are mapped to one line naming the database.
 */
export async function immediateAsync<T>(h: Pick<OpenedDb, 'db' | 'path'>, fn: () => T | Promise<T>, wait?: WriteWait): Promise<T> {
  begin(h, wait)
  try {
    const result = await fn()
    h.db.exec('COMMIT')
    return result
  } catch (error) {
    return rollback(h, error)
  }
}

/** The synchronous form every act below uses. */
export function immediateWrite<T>(h: Pick<OpenedDb, 'db' | 'path'>, fn: () => T, wait?: WriteWait): T {
  begin(h, wait)
  try {
    const result = fn()
    h.db.exec('COMMIT')
    return result
  } catch (error) {
    return rollback(h, error)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Value normalizers, as OpenClaw's session-accessor.sqlite-normalize / -session-row bind them

function text(v: unknown): string | null {
  return typeof v === 'string' && v.trim() ? v.trim() : null
}

/** finiteSqliteNumber; STRICT INTEGER columns refuse a fraction, so a fractional time is floored (OpenClaw would fail). */
function finiteInt(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? Math.floor(v) : null
}

function status(v: unknown): string | null {
  if (v === 'interrupted') return 'failed'
  return v === 'running' || v === 'done' || v === 'failed' || v === 'killed' || v === 'timeout' ? v : null
}

function oneOf(v: unknown, allowed: readonly string[]): string | null {
  return typeof v === 'string' && allowed.includes(v) ? v : null
}

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function chatType(v: unknown): string | null {
  return oneOf(v, ['direct', 'group', 'channel'])
}

/** The node's key as OpenClaw's canonical writer accepts it: trimmed, lowercase, `agent:<agentId>:<rest>`. */
export function assertCanonicalKey(agentId: string, key: string): void {
  const prefix = `agent:${agentId}:`
  if (key !== key.trim() || key !== key.toLowerCase() || !key.startsWith(prefix) || key.length === prefix.length || /[\u0000-\u001f]/.test(key)) {
    throw new ClawkitError(`"${key}" is not a canonical session key of agent "${agentId}" (agent:${agentId}:<rest>, trimmed and lowercase); OpenClaw 2026.9.6 refuses such a row, so nothing was written.`, {code: 'E_SQLITE_KEY', exitCode: ExitCode.usage})
  }
}

/** OpenClaw's isSafeSessionId (session ids become transcript identities and archive names). */
const SAFE_SQLITE_SESSION_ID = /^[\p{L}\p{N}][\p{L}\p{N}\p{M}._:@-]*$/u
function assertSessionId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id !== id.trim() || id.length > 255 || id !== id.normalize('NFC') || !SAFE_SQLITE_SESSION_ID.test(id)) {
    throw new ClawkitError(`Session id ${JSON.stringify(id)} is not one OpenClaw 2026.9.6 accepts (letters, digits, "._:@-", at most 255); nothing was written.`, {code: 'E_SQLITE_SESSION_ID', exitCode: ExitCode.usage})
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Entries: session_nodes + session_windows (bindSessionNode / bindSessionRoot)

/** Fields session-accessor's store-entry-shape never persists in entry_json (locators, projections of other tables). */
const NOT_PERSISTED = ['sessionFile', 'transcriptPath', 'owner', 'participants', 'participantCount'] as const
/** Fields whose presence means the entry still carries a legacy delivery route (normalizeSessionEntryTimestamp). */
const LEGACY_DELIVERY_FIELDS = ['route', 'deliveryContext', 'origin', 'channel', 'lastChannel', 'lastTo', 'lastAccountId', 'lastThreadId']

/**
 * The entry exactly as OpenClaw's writer persists it: without sessionFile/transcriptPath and the projected owner and
 * participants, without skillsSnapshot.resolvedSkills, and with `delivery: {kind: "none"}` when it has no delivery and
 * no legacy route. (OpenClaw also folds retired flat fields like pendingFinalDelivery*, fallbackNotice* and memoryFlush*
 * into objects; entries read from a SQLite store never carry them, and an entry that does keeps them verbatim.)
 */
export function canonicalEntry(entry: SessionEntry): Json {
  const out: Json = {...entry}
  for (const f of NOT_PERSISTED) delete out[f]
  if (isRecord(out.skillsSnapshot) && out.skillsSnapshot.resolvedSkills !== undefined) {
    const {resolvedSkills: _drop, ...rest} = out.skillsSnapshot
    out.skillsSnapshot = rest
  }
  if (out.delivery === undefined && !LEGACY_DELIVERY_FIELDS.some((f) => f in out)) out.delivery = {kind: 'none'}
  return out
}

function assertEntry(entry: SessionEntry): void {
  assertSessionId(entry?.sessionId)
  if (typeof entry.updatedAt !== 'number' || !Number.isSafeInteger(entry.updatedAt) || entry.updatedAt < 0) {
    throw new ClawkitError(`The entry of session ${entry.sessionId} has updatedAt ${String(entry.updatedAt)}; OpenClaw 2026.9.6 needs integer epoch milliseconds (updated_at must equal it exactly), so nothing was written.`, {code: 'E_SQLITE_ENTRY', exitCode: ExitCode.failure})
  }
}

function externalDelivery(e: Json): Json | undefined {
  return isRecord(e.delivery) && e.delivery.kind === 'external' ? e.delivery : undefined
}

/** session_nodes' columns for an entry (bindSessionNode), owner_* and legacy_acp_migration_json left to OpenClaw. */
function nodeRow(key: string, e: Json, entryJson: string): Record<string, SqlValue> {
  const actor = isRecord(e.createdActor) ? e.createdActor : undefined
  const fork = isRecord(e.forkSource) ? e.forkSource : undefined
  return {
    session_key: key,
    current_session_id: e.sessionId as string,
    entry_json: entryJson,
    updated_at: e.updatedAt as number,
    status: status(e.status),
    created_at: finiteInt(e.createdAt),
    created_via: oneOf(e.createdVia, ['operator', 'spawn', 'channel', 'cron', 'talk', 'run', 'plugin', 'internal']),
    created_actor_type: oneOf(actor?.type, ['human', 'agent', 'system']),
    created_actor_id: text(actor?.id),
    project_id: text(e.projectId),
    parent_session_key: text(e.parentSessionKey) ?? text(e.spawnedBy),
    spawned_by: text(e.spawnedBy),
    fork_source_session_key: text(fork?.sessionKey),
    fork_source_session_id: text(fork?.sessionId),
    fork_source_entry_id: text(fork?.entryId),
    label: text(e.label),
    display_name: text(e.displayName),
    category: text(e.category),
    icon: text(e.icon),
    pinned_at: finiteInt(e.pinnedAt),
    archived_at: finiteInt(e.archivedAt),
    last_read_at: finiteInt(e.lastReadAt),
    last_interaction_at: finiteInt(e.lastInteractionAt),
    last_activity_at: finiteInt(e.lastActivityAt),
  }
}

/** session_windows' columns for an entry's sessionId (bindSessionRoot + bindSessionEntryProvenance). */
function windowRow(key: string, e: Json): Record<string, SqlValue> {
  const updatedAt = e.updatedAt as number
  let createdAt = updatedAt
  for (const c of [e.sessionStartedAt, e.startedAt, e.updatedAt]) {
    if (typeof c === 'number' && Number.isFinite(c) && c >= 0) {
      createdAt = Math.floor(c)
      break
    }
  }
  const ct = chatType(e.chatType)
  const k = key.trim().toLowerCase()
  const scope = ct === 'direct' && (k === 'main' || k.endsWith(':main')) ? 'shared-main' : ct === 'group' || ct === 'channel' ? ct : 'conversation'
  const ext = externalDelivery(e)
  const ctx = isRecord(ext?.context) ? ext.context : undefined
  const origin = isRecord(ext?.origin) ? ext.origin : undefined
  const hook = e.hookExternalContentSource === 'email' ? 'webhook' : e.hookExternalContentSource
  return {
    session_id: e.sessionId as string,
    session_key: key,
    previous_session_id: text(e.previousSessionId),
    session_scope: scope,
    created_at: createdAt,
    updated_at: updatedAt,
    session_entry_provenance: 1,
    acp_owned: e.acp ? 1 : 0,
    plugin_owner_id: text(e.pluginOwnerId),
    hook_external_content_source: hook === 'gmail' || hook === 'webhook' ? hook : null,
    started_at: finiteInt(e.startedAt),
    ended_at: finiteInt(e.endedAt),
    status: status(e.status),
    chat_type: ct,
    channel: text(ctx?.channel ?? origin?.provider),
    account_id: text(ctx?.accountId),
    model_provider: text(e.modelProvider),
    model: text(e.model),
    agent_harness_id: text(e.agentHarnessId),
    parent_session_key: text(e.parentSessionKey),
    spawned_by: text(e.spawnedBy),
    display_name: text(e.displayName) ?? text(e.label) ?? text(e.subject) ?? text(e.groupId),
  }
}

const NODE_COLUMNS = Object.keys(nodeRow('k', {sessionId: 's', updatedAt: 0}, '{}'))
const WINDOW_COLUMNS = Object.keys(windowRow('k', {sessionId: 's', updatedAt: 0}))

function upsertSql(table: string, columns: string[], conflict: string, update: string[]): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON CONFLICT(${conflict}) DO UPDATE SET ${update.map((c) => `${c} = excluded.${c}`).join(', ')}`
}

export interface StoredEntry {
  key: string
  entry: SessionEntry
  entryValid: number
  currentSessionId: string
  updatedAt: number
}

/** One node as stored (entry_json parsed; undefined when the key has no row). Placeholder rows come back too. */
export function readNodeTx(db: SqlDatabase, key: string): StoredEntry | undefined {
  const row = db.prepare('SELECT session_key, current_session_id, entry_json, entry_valid, updated_at FROM session_nodes WHERE session_key = ?').get(key)
  if (!row) return undefined
  let entry: SessionEntry
  try {
    entry = JSON.parse(String(row.entry_json))
  } catch {
    throw writeError(`The stored entry of ${key} is not JSON; clawkit writes nothing to it. Stop the gateway and run "openclaw doctor --fix".`, 'E_SQLITE_ENTRY')
  }
  return {key, entry, entryValid: Number(row.entry_valid), currentSessionId: String(row.current_session_id), updatedAt: Number(row.updated_at)}
}

/** Every listable node's entry (entry_valid = 1), keyed by session_key, as `update` hands them to a mutator. */
export function readEntriesTx(db: SqlDatabase): SessionStoreData {
  const out: SessionStoreData = {}
  for (const row of db.prepare('SELECT session_key, entry_json FROM session_nodes WHERE entry_valid = 1 ORDER BY session_key').iterate()) {
    try {
      const entry = JSON.parse(String(row.entry_json))
      if (isRecord(entry) && typeof entry.sessionId === 'string') out[String(row.session_key)] = entry as SessionEntry
    } catch {}
  }
  return out
}

export interface WriteEntryParams {
  agentId: string
  key: string
  entry: SessionEntry
}

/**
 * OpenClaw's entry write (section 3.3 "OpenClaw's writer", section 5.4 steps 1-3), inside the caller's transaction: upsert the node
 * with its projections, set `entry_valid = 1` again (the schema trigger reset it), upsert the window of
 * `entry.sessionId`. The pending-validation marker the trigger adds is left for OpenClaw (section 5.4 step 5). Returns the
 * entry as persisted (parsed back from entry_json: what a reader gets).
 */
export function writeEntryTx(db: SqlDatabase, p: WriteEntryParams): Json {
  requireTx(db)
  assertCanonicalKey(p.agentId, p.key)
  assertEntry(p.entry)
  const entry = canonicalEntry(p.entry)
  const sessionId = entry.sessionId as string
  const previous = readNodeTx(db, p.key)
  if (previous && previous.entryValid !== 1 && previous.entryValid !== -1) {
    throw writeError(`The stored row of ${p.key} is marked invalid (entry_valid ${previous.entryValid}); OpenClaw refuses it too. Stop the gateway and run "openclaw doctor --fix", then retry.`, 'E_SQLITE_ENTRY')
  }
  const owner = db.prepare('SELECT session_key, transcript_updated_at, session_entry_provenance, acp_owned, plugin_owner_id, hook_external_content_source FROM session_windows WHERE session_id = ?').get(sessionId)
  if (owner && owner.session_key !== p.key) {
    throw writeError(`Session id ${sessionId} belongs to ${String(owner.session_key)}, not ${p.key}; nothing was written.`, 'E_SQLITE_SESSION_OWNER')
  }
  const entryJson = JSON.stringify(entry)
  const node = nodeRow(p.key, entry, entryJson)
  db.prepare(upsertSql('session_nodes', NODE_COLUMNS, 'session_key', NODE_COLUMNS.filter((c) => c !== 'session_key'))).run(...NODE_COLUMNS.map((c) => node[c]))
  db.prepare('UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?').run(p.key)

  const win = windowRow(p.key, entry)
  // resolveSessionEntryProvenanceRow: a window OpenClaw already owns keeps its ACP/plugin/hook ownership facts.
  if (owner && Number(owner.session_entry_provenance) === 1) {
    if (Number(owner.acp_owned) === 1) win.acp_owned = 1
    win.plugin_owner_id ??= (owner.plugin_owner_id as string | null) ?? null
    win.hook_external_content_source ??= (owner.hook_external_content_source as string | null) ?? null
  }
  // transcript_observed_at = the window's transcript_updated_at, or the entry's updatedAt before any transcript.
  const observed = owner?.transcript_updated_at ?? null
  const columns = [...WINDOW_COLUMNS, 'reason', 'transcript_observed_at']
  const values = {...win, reason: null, transcript_observed_at: observed === null ? (entry.updatedAt as number) : Number(observed)} as Record<string, SqlValue>
  // created_at is the window's birth and stays; primary_conversation_id is OpenClaw's link into its conversations
  // table, which clawkit does not maintain, so an existing link is kept rather than nulled.
  const update = columns.filter((c) => c !== 'session_id' && c !== 'created_at' && (c !== 'session_key' || previous?.currentSessionId !== sessionId))
  db.prepare(upsertSql('session_windows', columns, 'session_id', update)).run(...columns.map((c) => values[c]))
  return JSON.parse(entryJson)
}

/** `writeEntryTx` as one BEGIN IMMEDIATE transaction. */
export function writeEntry(h: Pick<OpenedDb, 'db' | 'path'>, p: WriteEntryParams, wait?: WriteWait): Json {
  return immediateWrite(h, () => writeEntryTx(h.db, p), wait)
}

/**
 * `update`'s write half: every key whose entry changed between `before` and `after` is written (OpenClaw's
 * writer for each), inside the caller's transaction. Removing a key is refused: OpenClaw's delete rehomes or drops
 * windows and artefacts of other tables, which clawkit does not reproduce.
 */
export function writeEntryChangesTx(db: SqlDatabase, agentId: string, before: SessionStoreData, after: SessionStoreData): string[] {
  requireTx(db)
  const removed = Object.keys(before).filter((k) => !(k in after))
  if (removed.length > 0) {
    throw writeError(`clawkit does not delete sessions of a SQLite store (${removed.join(', ')}); nothing was written. Use "openclaw sessions" maintenance for that.`, 'E_SQLITE_DELETE')
  }
  const written: string[] = []
  for (const [key, entry] of Object.entries(after)) {
    if (key in before && JSON.stringify(before[key]) === JSON.stringify(entry)) continue
    writeEntryTx(db, {agentId, key, entry})
    written.push(key)
  }
  return written
}

// ---------------------------------------------------------------------------------------------------------------
// Transcript events: transcript_events + identities + watermark + window clocks + forward projection (section 3.5, section 3.7)

const CANONICAL_TYPES = new Set(['message', 'thinking_level_change', 'model_change', 'compaction', 'reset', 'branch_summary', 'custom', 'custom_message', 'label', 'session_info'])

function isCanonical(e: Json): boolean {
  return typeof e.type === 'string' && CANONICAL_TYPES.has(e.type)
}

function nonBlank(v: unknown): string | undefined {
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

function readIndexState(db: SqlDatabase, sessionId: string): IndexCursor | undefined {
  const r = db.prepare('SELECT indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count FROM session_transcript_index_state WHERE session_id = ?').get(sessionId)
  if (!r) return undefined
  return {indexedSeq: Number(r.indexed_seq), leafEventId: (r.leaf_event_id as string | null) ?? null, needsRebuild: Number(r.needs_rebuild) !== 0, activeEventCount: Number(r.active_event_count), activeMessageCount: Number(r.active_message_count)}
}

function hasUnclassified(db: SqlDatabase, sessionId: string): boolean {
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
function indexAppender(db: SqlDatabase, sessionId: string): (seq: number, e: Json, createdAt: number) => boolean {
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
  for (const raw of events) {
    if (!isRecord(raw)) throw new Error('a transcript event must be a JSON object')
    const e = raw
    const id = nonBlank(e.id)?.trim()
    if (!id) throw writeError(`An event for session ${sessionId} has no id; clawkit writes only events with ids. Nothing was written.`, 'E_SQLITE_EVENT')
    if (identityOf.get(sessionId, id)) throw writeError(`Session ${sessionId} already holds an event with id ${id}; nothing was written.`, 'E_SQLITE_EVENT')
    const createdAt = eventTime(e) ?? now
    const json = JSON.stringify(e)
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

// ---------------------------------------------------------------------------------------------------------------
// Acts: a new session, a reset

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

/** What resetSession would do now (read only). NotFoundError when there is no such session. */
export function planSessionReset(db: SqlDatabase, key: string): SqliteResetPlan {
  const node = readNodeTx(db, key)
  if (!node || node.entryValid !== 1) throw new NotFoundError(`Session not found: ${key}`, 'E_SESSION_NOT_FOUND')
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
  const now = p.now ?? new Date()
  const newId = p.newSessionId ?? randomUUID()
  return immediateWrite(h, () => {
    const node = readNodeTx(h.db, p.key)
    if (!node || node.entryValid !== 1) throw new NotFoundError(`Session not found: ${p.key}`, 'E_SESSION_NOT_FOUND')
    const previousSessionId = node.entry.sessionId
    if (h.db.prepare('SELECT 1 AS x FROM session_windows WHERE session_id = ?').get(newId)) throw writeError(`Session id ${newId} is taken already; nothing was written.`, 'E_SESSION_EXISTS')
    const entry = writeEntryTx(h.db, {agentId: p.agentId, key: p.key, entry: resetSqliteEntry(node.entry, newId, now)})
    appendEventsTx(h.db, newId, [makeSqliteHeader(newId, p.cwd, now)], {now: now.getTime(), strict: true})
    return {key: p.key, previousSessionId, sessionId: newId, entry}
  }, p.wait)
}

// ---------------------------------------------------------------------------------------------------------------
// Ownership: OpenClaw's gateway (or an `agent --local` run) owns the state dir

export interface StateOwner {
  /** The ownership lock (`<state>/tmp/openclaw-<uid>/gateway.*.lock.sqlite`) a live process holds open. */
  lock: string
  pids: number[]
  /** From the lock's JSON payload when present: "gateway", "agent-embedded", "sqlite-maintenance", ... */
  role?: string
  port?: number
}

/** OpenClaw's resolveGatewayLockDir. */
export function gatewayLockDir(stateDir: string): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined
  return path.join(stateDir, 'tmp', uid === undefined ? 'openclaw' : `openclaw-${uid}`)
}

function readPayload(file: string): {pid?: number; role?: string; port?: number} | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8'))
    return isRecord(v) ? {pid: typeof v.pid === 'number' ? v.pid : undefined, role: typeof v.role === 'string' ? v.role : 'gateway', port: typeof v.port === 'number' ? v.port : undefined} : undefined
  } catch {
    return undefined
  }
}

/**
 * Who owns the state dir, without touching OpenClaw's locks. OpenClaw holds `gateway.state.lock.sqlite` and
 * `gateway.<hash8>.lock.sqlite` with an exclusive SQLite transaction for the owner's whole life (sqlite-coordinator),
 * so the owner is the live process that has one of them open (/proc/<pid>/fd on Linux): the files themselves outlive
 * their owners (both fixtures carry them from dead processes), and taking or testing their SQLite lock could only
 * disturb a live owner. Where /proc cannot be read, the JSON payload beside them (`gateway.state.lock`, present only
 * while held, with the owner's pid, role and port) is the fallback, trusted while its pid is alive.
 */
export function findStateOwner(stateDir: string): StateOwner | undefined {
  const dir = gatewayLockDir(stateDir)
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return undefined
  }
  const locks = names.filter((n) => /^gateway\.[^/]*\.lock\.sqlite$/.test(n)).sort((a, b) => Number(b === 'gateway.state.lock.sqlite') - Number(a === 'gateway.state.lock.sqlite'))
  for (const name of locks) {
    const lock = path.join(dir, name)
    const payload = readPayload(lock.slice(0, -'.sqlite'.length))
    const holders = processesHoldingFile(lock)?.filter((pid) => pid !== process.pid)
    if (holders === undefined) {
      if (payload?.pid !== undefined && payload.pid !== process.pid && isPidAlive(payload.pid)) return {lock, pids: [payload.pid], role: payload.role, port: payload.port}
      continue
    }
    if (holders.length > 0) return {lock, pids: holders, role: payload?.role, port: payload?.port}
  }
  return undefined
}

/** Refuse to write while OpenClaw owns the state dir: one line saying who, and what to do instead. */
export function assertNoGatewayOwner(stateDir: string): void {
  const owner = findStateOwner(stateDir)
  if (!owner) return
  const who =
    owner.role === 'agent-embedded'
      ? `an "openclaw agent --local" run (pid ${owner.pids.join(', ')})`
      : owner.role && owner.role !== 'gateway'
        ? `OpenClaw ${owner.role} (pid ${owner.pids.join(', ')})`
        : `an OpenClaw gateway (pid ${owner.pids.join(', ')}${owner.port ? `, port ${owner.port}` : ''})`
  throw new ClawkitError(`${who} owns ${stateDir} (it holds ${path.basename(owner.lock)}), so clawkit writes nothing there: two writers would race on the session database.`, {
    code: 'E_GATEWAY_OWNS_STATE',
    exitCode: ExitCode.failure,
    suggestions: [owner.role === 'agent-embedded' ? 'Wait for that run to finish, then retry.' : 'Stop the gateway ("openclaw gateway stop") and retry, or make the change through the gateway (e.g. "openclaw agent", or /new in its channel).'],
  })
}
