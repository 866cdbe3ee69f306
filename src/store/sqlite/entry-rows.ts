// Entries as OpenClaw 2026.9.6 stores them: the values normalized as its session-accessor binds them, an entry's
// session_nodes and session_windows rows (bindSessionNode / bindSessionRoot), and the entry writes inside a transaction.
import {ClawkitError, ExitCode} from '../../errors.js'
import type {SessionEntry, SessionStoreData} from '../types.js'
import type {OpenedDb, SqlDatabase, SqlValue} from './driver.js'
import {type WriteWait, immediateWrite, requireTx, writeError} from './transaction.js'

export type Json = Record<string, unknown>

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

export function isRecord(v: unknown): v is Json {
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
export function assertSessionId(id: unknown): asserts id is string {
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
