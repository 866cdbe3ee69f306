// Opens OpenClaw's per-agent SQLite database (node:sqlite, loaded only when a SQLite-era store is met) and decodes its events.
import fs from 'node:fs'

import {ClawkitError, ExitCode} from '../../errors.js'
import {nodeSqlite, type SqlDatabase, type SqliteModule} from '../../util/node-sqlite.js'
import {SQLITE_NODE_REQUIREMENT, SqliteUnavailableError, sqliteSupported, zlib} from './support.js'

// Re-exported: the era checks outside the store (sync's per-agent skip) import them from support.ts, which opens nothing.
export {SQLITE_NODE_REQUIREMENT, SqliteUnavailableError, sqliteSupported}

/** The schema (PRAGMA user_version, schema_meta) OpenClaw 2026.9.6 writes; the only one clawkit writes to. */
export const AGENT_SCHEMA_VERSION = 23
/** Oldest schema whose session tables clawkit can read (nodes, windows and events as in 23, zstd payloads from 23). */
export const MIN_READ_SCHEMA_VERSION = 23
export const BUSY_TIMEOUT_MS = 5000

// The node:sqlite types live with the module's loader (shared with clawkit's own catalog, which is not session I/O).
export type {SqlDatabase, SqlStatement, SqlValue} from '../../util/node-sqlite.js'

/**
 * node:sqlite for an OpenClaw database, loaded on first use: commands on a JSON-era store never pay for it, and Node 20
 * never sees the import. OpenClaw's databases also need zlib's zstd (sqliteSupported).
 */
export function loadSqlite(what = 'A SQLite-era session store (OpenClaw 2026.7 and later)'): SqliteModule {
  if (!sqliteSupported()) throw new SqliteUnavailableError(what)
  const mod = nodeSqlite()
  if (!mod) throw new SqliteUnavailableError(what)
  return mod
}

/** What clawkit was doing when SQLite failed: errors say which, since a failed write is not a damaged store. */
export type SqliteAction = 'read' | 'write'

/**
 * The database could not be opened, read or written as an OpenClaw agent database. Exit 1; a failed write is rolled
 * back whole, so the file holds what it held before. The message names what was attempted (read or write).
 */
export class SqliteStoreOpenError extends ClawkitError {
  readonly path: string
  constructor(path: string, detail: string, code = 'E_SQLITE_OPEN', suggestions?: string[], action: SqliteAction = 'read') {
    super(`Cannot ${action === 'write' ? 'write to' : 'read'} the SQLite session store ${path}: ${detail}`, {code, exitCode: ExitCode.failure, suggestions: suggestions ?? ['Run "clawkit doctor" to inspect it; nothing was changed.']})
    this.path = path
  }
}

/**
 * The database file is empty (0 bytes, no WAL): SQLite would open it as a database of schema 0, but it is no database
 * anyone wrote, so no sessions are stored in it. OpenClaw 2026.9.6 lists none for it and creates its schema there on its
 * next turn; clawkit never creates one. Exit 1, whatever the command meant to do; the file is never changed.
 */
export class SqliteEmptyFileError extends ClawkitError {
  readonly path: string
  constructor(path: string) {
    super(`${path} is an empty file (0 bytes), not an OpenClaw database: no sessions are stored in it.`, {
      code: 'E_SQLITE_EMPTY',
      exitCode: ExitCode.failure,
      suggestions: [
        'If this agent\'s sessions were in it, restore it from a backup; otherwise OpenClaw 2026.9.6 lists no sessions for it and creates a new database there on its next turn (clawkit creates none). Nothing was changed.',
      ],
    })
    this.path = path
  }
}

/** Whether `path` is a 0-byte regular file with no WAL holding pages for it (SqliteEmptyFileError). */
export function isEmptyDatabaseFile(path: string): boolean {
  try {
    const st = fs.statSync(path)
    if (!st.isFile() || st.size !== 0) return false
  } catch {
    return false
  }
  try {
    return fs.statSync(`${path}-wal`).size === 0
  } catch {
    return true
  }
}

/** The database's schema is one clawkit does not know: reads may continue, writes refuse (both versions named). */
export class SqliteSchemaError extends ClawkitError {
  constructor(path: string, found: number, forWrite: boolean) {
    const newer = found > AGENT_SCHEMA_VERSION
    super(
      newer
        ? `${path} uses OpenClaw agent schema version ${found}; clawkit knows version ${AGENT_SCHEMA_VERSION}${forWrite ? ', so it writes nothing there' : ' and cannot read it'}.`
        : `${path} uses OpenClaw agent schema version ${found}; clawkit needs version ${AGENT_SCHEMA_VERSION}. Stop the gateway and run "openclaw doctor --fix" to migrate it.`,
      {code: newer ? 'E_SQLITE_SCHEMA_NEWER' : 'E_SQLITE_SCHEMA_OLDER', exitCode: ExitCode.failure, suggestions: newer ? ['Update clawkit, or use "openclaw" for this agent.'] : undefined},
    )
  }
}

export interface OpenOptions {
  /** Write access (BEGIN IMMEDIATE transactions); refused for a schema other than AGENT_SCHEMA_VERSION. */
  write?: boolean
  /** The agent id schema_meta must name (checked when given). */
  agentId?: string
}

export interface OpenedDb {
  db: SqlDatabase
  path: string
  schemaVersion: number
}

function describeSqliteError(error: unknown): string {
  const e = error as {message?: string; errcode?: number; errstr?: string}
  const msg = (e?.message ?? String(error)).replace(/\s+/g, ' ').trim()
  return msg
}

/**
 * Open the agent database the way OpenClaw's own readers do (section 5.3): busy_timeout 5000, foreign keys on, and for a
 * read-only handle `query_only`. Never DDL, never a journal_mode change. Checks user_version: newer than known is
 * readable only when the session tables are still there (reads), never writable.
 */
export function openAgentDb(path: string, opts: OpenOptions = {}): OpenedDb {
  const {DatabaseSync} = loadSqlite()
  // SQLite reads an empty file as an empty database of schema 0, which would be reported as one to migrate.
  if (isEmptyDatabaseFile(path)) throw new SqliteEmptyFileError(path)
  let db: SqlDatabase
  try {
    db = new DatabaseSync(path, {readOnly: !opts.write, enableForeignKeyConstraints: true})
  } catch (error) {
    throw new SqliteStoreOpenError(path, describeSqliteError(error))
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    if (opts.write) db.exec('PRAGMA synchronous = NORMAL')
    else db.exec('PRAGMA query_only = 1')
    db.exec('PRAGMA trusted_schema = OFF')
    const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0)
    if (version < MIN_READ_SCHEMA_VERSION) throw new SqliteSchemaError(path, version, !!opts.write)
    if (version > AGENT_SCHEMA_VERSION) {
      if (opts.write) throw new SqliteSchemaError(path, version, true)
      const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => String(r.name)))
      for (const t of ['session_nodes', 'session_windows', 'transcript_events']) {
        if (!tables.has(t)) throw new SqliteSchemaError(path, version, false)
      }
    }
    if (opts.agentId !== undefined) {
      const meta = db.prepare("SELECT role, agent_id FROM schema_meta WHERE meta_key = 'primary'").get()
      if (!meta || meta.role !== 'agent' || (meta.agent_id !== null && meta.agent_id !== opts.agentId)) {
        throw new SqliteStoreOpenError(path, `its schema_meta names ${meta ? `role "${String(meta.role)}", agent "${String(meta.agent_id)}"` : 'no primary row'}, not agent "${opts.agentId}".`, 'E_SQLITE_NOT_AGENT_DB')
      }
    }
    return {db, path, schemaVersion: version}
  } catch (error) {
    db.close()
    if (error instanceof ClawkitError) throw error
    throw mapSqliteError(path, error)
  }
}

/** SQLITE_BUSY or SQLITE_LOCKED: another connection holds the lock this one needs (not damage). */
export function isSqliteBusy(error: unknown): boolean {
  if (error instanceof ClawkitError) return error.code === 'E_SQLITE_BUSY'
  const errcode = (error as {errcode?: unknown})?.errcode
  // The primary result code is the low byte of the extended one (SQLITE_BUSY 5, SQLITE_LOCKED 6).
  if (typeof errcode === 'number') return (errcode & 0xff) === 5 || (errcode & 0xff) === 6
  return /database is locked|database table is locked|SQLITE_BUSY|SQLITE_LOCKED/i.test(describeSqliteError(error))
}

/**
 * A SQLite failure as one line: corrupt, locked or read-only stores are named, never shown as stack traces. `action`
 * says what was attempted; `waitedMs` how long a busy write waited for the lock (a read waits the busy timeout).
 */
export function mapSqliteError(path: string, error: unknown, opts: {action?: SqliteAction; waitedMs?: number} = {}): ClawkitError {
  if (error instanceof ClawkitError) return error
  const action = opts.action ?? 'read'
  const msg = describeSqliteError(error)
  if (isSqliteBusy(error)) {
    const waited = Math.round((opts.waitedMs ?? BUSY_TIMEOUT_MS) / 1000)
    return new SqliteStoreOpenError(path, `the database is locked by another writer (waited ${waited} s). ${msg}`, 'E_SQLITE_BUSY', ['Retry when the gateway or other OpenClaw process is idle.'], action)
  }
  if (/readonly|read-only/i.test(msg)) return new SqliteStoreOpenError(path, `the database is read-only. ${msg}`, 'E_SQLITE_READONLY', ['Check the file and directory permissions.'], action)
  if (/malformed|not a database|corrupt|disk image/i.test(msg)) {
    return new SqliteStoreOpenError(path, `the database is damaged (${msg}).`, 'E_SQLITE_CORRUPT', ['Run "clawkit doctor" to inspect it, and restore it from a backup; nothing was changed.'], action)
  }
  return new SqliteStoreOpenError(path, msg, undefined, undefined, action)
}

/** One row of transcript_events as stored. */
export interface EventRow {
  seq: number
  event_json: string | null
  event_zstd: Uint8Array | null
  event_utf8_bytes: number | null
}

const fatalUtf8 = new TextDecoder('utf-8', {fatal: true})

/**
 * The event's JSON text (section 3.6): event_json, else the zstd blob decoded with the declared size as the output limit
 * and checked to decode as strict UTF-8 to exactly that size. Undefined with a reason when it cannot be decoded.
 */
export function eventText(row: EventRow): {text: string} | {error: string} {
  if (row.event_json !== null && row.event_json !== undefined) return {text: row.event_json}
  if (!row.event_zstd) return {error: 'neither event_json nor event_zstd is set'}
  const size = Number(row.event_utf8_bytes)
  if (!Number.isInteger(size) || size < 1 || size > 4 * 1024 * 1024) return {error: `event_utf8_bytes is ${String(row.event_utf8_bytes)}`}
  let out: Buffer
  try {
    out = (zlib() as {zstdDecompressSync(b: Uint8Array, o: {maxOutputLength: number}): Buffer}).zstdDecompressSync(row.event_zstd, {maxOutputLength: size})
  } catch (error) {
    return {error: `its zstd payload does not decode (${describeSqliteError(error)})`}
  }
  if (out.length !== size) return {error: `its zstd payload decodes to ${out.length} bytes, not the ${size} recorded`}
  try {
    return {text: fatalUtf8.decode(out)}
  } catch {
    return {error: 'its zstd payload is not valid UTF-8'}
  }
}
