// Archive, delete and restore in an agent database (../lifecycle.ts), as OpenClaw 2026.9.6 leaves it (what its
// gateway wrote is in test/fixtures/README.md "openclaw-2026.9.6-deleted"):
// - archive: the entry gets archivedAt and archiveReason "manual" and a new updatedAt (session_nodes.archived_at is
//   projected from it); events, window and node stay.
// - delete: one `session_transcript_archives` row per window of the key (reason `deleted`, the whole JSONL transcript
//   zstd-compressed as one frame, archive_sha256 of the stored bytes, `<sid>.jsonl.deleted.<ISO ts>.<generation>.zst`),
//   then the key's windows and node removed (the schema's ON DELETE CASCADE takes events, identities, trajectory,
//   projection and watermark rows; the FTS row map goes by hand, its trigger takes the FTS rows). The row is then
//   published as `agents/<id>/sessions/<archive_name>` (0600, byte-identical to the blob) and marked published.
// - restore: a row's transcript written back as a new node and window of its key, each event with its own bytes (the
//   row stays: a row whose session has a window again is not listed as an archive, and OpenClaw keeps its rows after
//   publishing too).
// Every act is the `...Tx` of one BEGIN IMMEDIATE transaction; no DDL.
import {ClawkitError, ExitCode, NotFoundError, UsageError} from '../../errors.js'
import {sha256} from '../../util/hash.js'
import {archiveTimestamp} from '../fs-util.js'
import {randomUUID} from '../random-id.js'
import {activeSince, type ArchiveMark} from '../lifecycle.js'
import type {SessionEntry} from '../types.js'
import {appendEventsTx} from './append.js'
import {archiveText} from './archives.js'
import type {OpenedDb, SqlDatabase} from './driver.js'
import {readNodeTx, writeEntryTx} from './entry-rows.js'
import {pageEvents} from './read.js'
import {zlib} from './support.js'
import {requireTx} from './transaction.js'

export function sessionNotFound(key: string): NotFoundError {
  return new NotFoundError(`Session not found: ${key}`, 'E_SESSION_NOT_FOUND', ['List sessions with "clawkit sessions list".'])
}

/** archive: the entry marked as OpenClaw's manual archive marks it (nothing when it is archived already). */
export function archiveTx(db: SqlDatabase, agentId: string, key: string, now: number): {sessionId: string; archivedAt: number; changed: boolean} {
  requireTx(db)
  const node = readNodeTx(db, key)
  if (!node || node.entryValid !== 1) throw sessionNotFound(key)
  const e = node.entry as SessionEntry & {archivedAt?: unknown}
  if (typeof e.archivedAt === 'number') return {sessionId: e.sessionId, archivedAt: e.archivedAt, changed: false}
  writeEntryTx(db, {agentId, key, entry: {...e, updatedAt: now, archivedAt: now, archiveReason: 'manual'} as SessionEntry})
  return {sessionId: e.sessionId, archivedAt: now, changed: true}
}

/** Maintenance's archive of many entries in one transaction (archivedAt now, the reason, updatedAt kept). */
export function markTx(db: SqlDatabase, agentId: string, marks: readonly ArchiveMark[], now: number): string[] {
  requireTx(db)
  const done: string[] = []
  for (const m of marks) {
    const node = readNodeTx(db, m.key)
    const e = node?.entry as (SessionEntry & {archivedAt?: unknown; archivedBy?: unknown}) | undefined
    if (!node || node.entryValid !== 1 || !e || e.sessionId !== m.sessionId || e.archivedAt !== undefined || activeSince(e, m.activityAt)) continue
    const {archivedBy: _b, ...rest} = e
    writeEntryTx(db, {agentId, key: m.key, entry: {...rest, archivedAt: now, archiveReason: m.archiveReason} as SessionEntry})
    done.push(m.key)
  }
  return done
}

/** Un-archive: archivedAt and archiveReason removed, updatedAt now. E_NOT_ARCHIVED when it was not archived. */
export function unarchiveTx(db: SqlDatabase, agentId: string, key: string, now: number): {sessionId: string} {
  requireTx(db)
  const node = readNodeTx(db, key)
  if (!node || node.entryValid !== 1) throw sessionNotFound(key)
  const e = node.entry as SessionEntry & {archivedAt?: unknown; archiveReason?: unknown}
  const stored = db.prepare('SELECT archived_at FROM session_nodes WHERE session_key = ?').get(key)
  if (e.archivedAt === undefined && (stored?.archived_at === null || stored?.archived_at === undefined)) throw new UsageError(`Session ${key} is live and not archived; there is nothing to restore.`, 'E_NOT_ARCHIVED')
  const {archivedAt: _a, archiveReason: _r, ...rest} = e
  writeEntryTx(db, {agentId, key, entry: {...rest, updatedAt: now} as SessionEntry})
  return {sessionId: e.sessionId}
}

/** OpenClaw's resolveRegisteredArchiveSessionIdComponent: an id longer than 96 UTF-8 bytes is named by its hash. */
function idComponent(sessionId: string): string {
  return Buffer.byteLength(sessionId) > 96 ? `session-${sha256().update(sessionId).digest('hex')}` : sessionId
}

/** A session's events as the JSONL file OpenClaw archives: every event one line, in seq order, a final newline. */
export function transcriptJsonl(db: SqlDatabase, sessionId: string): string {
  const lines: string[] = []
  let after = -1
  for (;;) {
    const page = pageEvents(db, sessionId, after, 1000)
    if (page.length === 0) break
    for (const l of page) lines.push(l.raw)
    after = page.at(-1)!.line
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

export interface NewArchiveRow {
  sessionId: string
  name: string
  blob: Buffer
}

/**
 * delete: the key's windows archived (one row each, oldest first) and removed with their node, in the caller's
 * transaction. `expectIds` are the session ids the caller planned for (and journals); another set means the key
 * moved on meanwhile (E_SESSION_CHANGED, nothing written). With `plannedActivityAt` (a cleanup's removal), a key active
 * since then is left alone and the result says `skipped`.
 */
export function deleteTx(db: SqlDatabase, key: string, expectIds: readonly string[], now: number, plannedActivityAt?: number): {sessionId: string; rows: NewArchiveRow[]; skipped?: boolean} {
  requireTx(db)
  const node = readNodeTx(db, key)
  if (!node) throw sessionNotFound(key)
  if (activeSince(node.entry, plannedActivityAt)) return {sessionId: node.entry.sessionId, rows: [], skipped: true}
  const windows = db.prepare('SELECT session_id FROM session_windows WHERE session_key = ? ORDER BY created_at, session_id').all(key).map((r) => String(r.session_id))
  const ids = new Set([...windows, node.currentSessionId])
  if ([...ids].some((id) => !expectIds.includes(id))) {
    throw new ClawkitError(`Session ${key} changed while this command waited for its lock; nothing was changed.`, {code: 'E_SESSION_CHANGED', exitCode: ExitCode.failure, suggestions: ['Run the command again.']})
  }
  const zstd = zlib().zstdCompressSync
  const insert = db.prepare(`INSERT INTO session_transcript_archives (session_id, generation, session_key, reason, encoding, archive_blob, archive_sha256, archive_name, created_at, published_at, publish_attempts, last_publish_attempt_at, last_publish_error)
    VALUES (?, ?, ?, 'deleted', ?, ?, ?, ?, ?, NULL, 0, NULL, NULL)`)
  const rows: NewArchiveRow[] = []
  for (const sessionId of windows) {
    const text = transcriptJsonl(db, sessionId)
    if (text === '') continue
    const generation = randomUUID().replaceAll('-', '')
    // encodeSessionArchiveContent: zstd whenever the runtime has it and the content is not empty.
    const encoding = zstd ? 'zstd' : 'identity'
    const blob = zstd ? zstd(Buffer.from(text, 'utf8')) : Buffer.from(text, 'utf8')
    const name = deletedArchiveName(sessionId, now, generation)
    insert.run(sessionId, generation, key, encoding, blob, sha256().update(blob).digest('hex'), name, now)
    rows.push({sessionId, name, blob})
  }
  // The FTS row map has no foreign key; its delete trigger removes the FTS rows.
  db.prepare('DELETE FROM session_transcript_fts_rows WHERE session_id IN (SELECT value FROM json_each(?))').run(JSON.stringify([...ids]))
  db.prepare('DELETE FROM session_windows WHERE session_key = ?').run(key)
  db.prepare('DELETE FROM session_windows WHERE session_id IN (SELECT value FROM json_each(?))').run(JSON.stringify([...ids]))
  db.prepare('DELETE FROM session_nodes WHERE session_key = ?').run(key)
  return {sessionId: node.entry.sessionId, rows}
}

/** `<sid>.jsonl.deleted.<ISO time with : as ->.<generation>[.zst]`: the name OpenClaw 2026.9.6 gives a deleted window's row. */
export function deletedArchiveName(sessionId: string, now: number, generation: string): string {
  return `${idComponent(sessionId)}.jsonl.deleted.${archiveTimestamp(new Date(now))}.${generation}${zlib().zstdCompressSync ? '.zst' : ''}`
}

/**
 * What deleteTx would do to `key` now, without a write: its session id and the names of the rows it would write (one
 * per window holding events, oldest first; the generation, drawn when the row is written, as `<generation>`).
 */
export function previewDelete(db: SqlDatabase, key: string, now: number): {sessionId: string; names: string[]} {
  const node = readNodeTx(db, key)
  if (!node) throw sessionNotFound(key)
  const windows = db.prepare('SELECT session_id FROM session_windows WHERE session_key = ? ORDER BY created_at, session_id').all(key).map((r) => String(r.session_id))
  const names = windows.filter((id) => db.prepare('SELECT 1 AS x FROM transcript_events WHERE session_id = ? LIMIT 1').get(id) !== undefined).map((id) => deletedArchiveName(id, now, '<generation>'))
  return {sessionId: node.entry.sessionId, names}
}

/** The rows' publication recorded as OpenClaw's publisher records it. */
export function markPublishedTx(db: SqlDatabase, names: readonly string[], now: number): void {
  requireTx(db)
  const set = db.prepare('UPDATE session_transcript_archives SET published_at = ?, publish_attempts = publish_attempts + 1, last_publish_attempt_at = ?, last_publish_error = NULL WHERE archive_name = ?')
  for (const n of names) set.run(now, now, n)
}

export interface ArchiveRowRef {
  sessionId: string
  key: string
  reason: string
  name: string
  createdAt: number
}

/** The archive row a restore means: by session id, or the newest deleted (else reset) row of a key. */
export function findArchiveRow(db: SqlDatabase, src: {sessionId?: string; key?: string}): ArchiveRowRef | undefined {
  if (!db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'session_transcript_archives'").get()) return undefined
  const where = src.sessionId ? 'a.session_id = ?' : 'a.session_key = ?'
  const r = db
    .prepare(`SELECT a.session_id, a.session_key, a.reason, a.archive_name, a.created_at FROM session_transcript_archives a
      WHERE ${where} AND NOT EXISTS (SELECT 1 FROM session_windows w WHERE w.session_id = a.session_id)
      ORDER BY (a.reason = 'deleted') DESC, a.created_at DESC, a.archive_name DESC LIMIT 1`)
    .get(src.sessionId ?? src.key!)
  return r ? {sessionId: String(r.session_id), key: String(r.session_key), reason: String(r.reason), name: String(r.archive_name), createdAt: Number(r.created_at)} : undefined
}

/** restore: the row's transcript as a new live node and window of `key` (which must have none). */
export function restoreTx(db: SqlDatabase, agentId: string, row: ArchiveRowRef, key: string, now: number): void {
  requireTx(db)
  if (readNodeTx(db, key)) throw new ClawkitError(`Session ${key} exists (a live session holds the key); nothing was restored.`, {code: 'E_SESSION_EXISTS', exitCode: ExitCode.failure, suggestions: [`restore it under another key with --as <key>, or "clawkit sessions delete ${key}" first`]})
  if (db.prepare('SELECT 1 AS x FROM session_windows WHERE session_id = ?').get(row.sessionId)) throw new ClawkitError(`Session ${row.sessionId} is live already; nothing was restored.`, {code: 'E_SESSION_EXISTS', exitCode: ExitCode.failure})
  const decoded = archiveText(db, row.name)
  if (!decoded) throw sessionNotFound(row.sessionId)
  if ('error' in decoded) throw new ClawkitError(`Archive ${row.name} cannot be read: ${decoded.error}; nothing was restored.`, {code: 'E_ARCHIVE_UNREADABLE', exitCode: ExitCode.failure})
  // Each event keeps its own text: the archive holds the events' stored bytes (transcriptJsonl), and a restore puts
  // those back, not a re-serialization (which would change spacing, key order and escapes).
  const events: Record<string, unknown>[] = []
  const texts: string[] = []
  for (const line of decoded.text.split('\n')) {
    if (line.trim() === '') continue
    try {
      events.push(JSON.parse(line) as Record<string, unknown>)
      texts.push(line)
    } catch {
      throw new ClawkitError(`Archive ${row.name} holds a line that is not JSON; nothing was restored.`, {code: 'E_ARCHIVE_UNREADABLE', exitCode: ExitCode.failure})
    }
  }
  const header = events[0]
  if (!header || header.type !== 'session' || header.id !== row.sessionId) throw new ClawkitError(`Archive ${row.name} does not start with the header of session ${row.sessionId}; nothing was restored.`, {code: 'E_ARCHIVE_UNREADABLE', exitCode: ExitCode.failure})
  const started = Date.parse(String(header.timestamp ?? ''))
  writeEntryTx(db, {agentId, key, entry: {sessionId: row.sessionId, updatedAt: now, ...(Number.isFinite(started) ? {sessionStartedAt: started} : {})} as SessionEntry})
  appendEventsTx(db, row.sessionId, events, {now, texts})
}

/**
 * Give the pages a delete freed back to the file system, as OpenClaw's own maintenance does (sqlite-wal.ts): a passive
 * checkpoint, `PRAGMA incremental_vacuum(<= 512 pages)` in a BEGIN IMMEDIATE transaction, a checkpoint again, until
 * the freelist is empty or stops shrinking. Only in a database whose auto_vacuum is INCREMENTAL (2026.9.6 creates
 * them so); otherwise nothing (a full VACUUM is OpenClaw's `doctor`'s, offline). No DDL; rows are untouched.
 */
export function reclaimPages(h: Pick<OpenedDb, 'db' | 'path'>, immediate: <T>(fn: () => T) => T): {freedBytes: number; incremental: boolean} {
  const pragma = (sql: string) => Number(Object.values(h.db.prepare(sql).get() ?? {})[0] ?? 0)
  if (pragma('PRAGMA auto_vacuum') !== 2) return {freedBytes: 0, incremental: false}
  const pageSize = pragma('PRAGMA page_size')
  const before = pragma('PRAGMA page_count')
  let free = Number.POSITIVE_INFINITY
  for (let pass = 0; pass < 1000; pass++) {
    h.db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get()
    const now = pragma('PRAGMA freelist_count')
    if (now <= 0 || now >= free) break
    free = now
    immediate(() => h.db.exec(`PRAGMA incremental_vacuum(${Math.min(512, now)})`))
  }
  h.db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get()
  // OpenClaw's reclaimSqliteWalFreePages ends in a TRUNCATE checkpoint (busy_timeout 0): the WAL file counts toward its
  // disk budget, so only a truncated WAL gives the space back. With readers inside it, SQLite leaves it as it is.
  const busy = pragma('PRAGMA busy_timeout')
  try {
    h.db.exec('PRAGMA busy_timeout = 0')
    h.db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get()
  } catch {
    // busy: the WAL stays; the next maintenance truncates it
  } finally {
    h.db.exec(`PRAGMA busy_timeout = ${busy}`)
  }
  return {freedBytes: Math.max(0, before - pragma('PRAGMA page_count')) * pageSize, incremental: true}
}

/**
 * What OpenClaw 2026.9.6's disk budget (session-history-eviction.ts) may evict, in its order: published archive rows
 * (oldest created_at, then session id and generation first) with their bytes; the names of unpublished ones (their
 * files are not the budget's); the bytes the free pages take (its first reclaim gives them back); and per key the
 * bytes its sessions' events and entry take (an evicted entry's estimate).
 */
export function budgetInventory(db: SqlDatabase, keys: readonly string[]): {freeBytes: number; published: {name: string; key: string; sessionId: string; bytes: number}[]; unpublished: string[]; keyBytes: Record<string, number>} {
  const pragma = (sql: string) => Number(Object.values(db.prepare(sql).get() ?? {})[0] ?? 0)
  const freeBytes = pragma('PRAGMA auto_vacuum') === 2 ? pragma('PRAGMA freelist_count') * pragma('PRAGMA page_size') : 0
  const has = db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'session_transcript_archives'").get() !== undefined
  const published = has
    ? db
        .prepare('SELECT archive_name, session_key, session_id, length(archive_blob) AS n FROM session_transcript_archives WHERE published_at IS NOT NULL ORDER BY created_at, session_id, generation')
        .all()
        .map((r) => ({name: String(r.archive_name), key: String(r.session_key), sessionId: String(r.session_id), bytes: Number(r.n)}))
    : []
  const unpublished = has ? db.prepare('SELECT archive_name FROM session_transcript_archives WHERE published_at IS NULL').all().map((r) => String(r.archive_name)) : []
  const keyBytes: Record<string, number> = {}
  const events = db.prepare('SELECT coalesce(sum(coalesce(length(e.event_json), length(e.event_zstd), 0)), 0) AS n FROM transcript_events e JOIN session_windows w ON w.session_id = e.session_id WHERE w.session_key = ?')
  const entry = db.prepare('SELECT coalesce(length(entry_json), 0) AS n FROM session_nodes WHERE session_key = ?')
  for (const k of keys) keyBytes[k] = Number(events.get(k)?.n ?? 0) + Number(entry.get(k)?.n ?? 0)
  return {freeBytes, published, unpublished, keyBytes}
}

/**
 * Every archive row, oldest first, with its stored size (what evicting it frees), whether its session has a window
 * again (`windowed`: restored, so the row is a copy of a live session, not an archive) and whether its key has a node
 * (`keyLive`: a live session holds the key; without one no key claims the row any more).
 */
export function listArchiveRows(db: SqlDatabase): {name: string; key: string; sessionId: string; createdAt: number; bytes: number; windowed: boolean; keyLive: boolean}[] {
  if (!db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'session_transcript_archives'").get()) return []
  return db
    .prepare(`SELECT a.archive_name, a.session_key, a.session_id, a.created_at, length(a.archive_blob) AS n,
        EXISTS (SELECT 1 FROM session_windows w WHERE w.session_id = a.session_id) AS windowed,
        EXISTS (SELECT 1 FROM session_nodes s WHERE s.session_key = a.session_key) AS key_live
      FROM session_transcript_archives a ORDER BY a.created_at, a.archive_name`)
    .all()
    .map((r) => ({name: String(r.archive_name), key: String(r.session_key), sessionId: String(r.session_id), createdAt: Number(r.created_at), bytes: Number(r.n), windowed: Number(r.windowed) === 1, keyLive: Number(r.key_live) === 1}))
}

/** Conditions a row must still meet inside the transaction that removes it (the store may have moved since the plan). */
export interface DropGuard {
  /** Names removed only while their session has no window (a --keep or sweep removes archives, never a restored session's row). */
  archivedOnly?: readonly string[]
  /** Names removed only while no node holds their key (an orphan sweep: a key made live again claims its rows). */
  unclaimedOnly?: readonly string[]
}

/** Remove archive rows by name, inside the caller's transaction, each only while its guard holds; returns the names removed. */
export function dropArchivesTx(db: SqlDatabase, names: readonly string[], guard: DropGuard = {}): string[] {
  requireTx(db)
  const archivedOnly = new Set(guard.archivedOnly ?? [])
  const unclaimedOnly = new Set(guard.unclaimedOnly ?? [])
  const windowed = db.prepare('SELECT 1 AS x FROM session_transcript_archives a WHERE a.archive_name = ? AND EXISTS (SELECT 1 FROM session_windows w WHERE w.session_id = a.session_id)')
  const claimed = db.prepare('SELECT 1 AS x FROM session_transcript_archives a WHERE a.archive_name = ? AND EXISTS (SELECT 1 FROM session_nodes s WHERE s.session_key = a.session_key)')
  const del = db.prepare('DELETE FROM session_transcript_archives WHERE archive_name = ?')
  return names.filter((n) => {
    if (archivedOnly.has(n) && windowed.get(n)) return false
    if (unclaimedOnly.has(n) && claimed.get(n)) return false
    return Number(del.run(n).changes) > 0
  })
}
