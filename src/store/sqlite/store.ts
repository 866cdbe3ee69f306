// The SQLite-era backend: an agent's sessions in OpenClaw's `agents/<id>/agent/openclaw-agent.sqlite` (2026.7+), behind
// the same SessionStore interface as the JSON files. This file holds the read side; the writes are wired in from
// write.ts (see the block at the end of the class).
import fs from 'node:fs'

import {ClawkitError, ExitCode} from '../../errors.js'
import {emptyStoreData} from '../file-store.js'
import {normalizeSessionKey} from '../session-key.js'
import type {AppendResult, NewEntry, TailOptions, TranscriptReadResult} from '../transcript.js'
import type {
  FoundEntry,
  IdempotencyHit,
  LockedTranscript,
  ResetOptions,
  ResetOutcome,
  ResetPlan,
  SessionEntry,
  SessionStore,
  SessionStoreData,
  StoreRef,
  TranscriptAppendOptions,
  TranscriptLockOptions,
  TranscriptRef,
  UpdateOptions,
} from '../types.js'
import {openAgentDb, type OpenedDb} from './driver.js'
import {entriesBySessionId, entryByKey, hasEvents, headerLine, iterateEntries, lastUpdatedAt, newestEntries, snapshot, storeCounts, tailEvents} from './read.js'

/**
 * A session's transcript in the database is named `<db path>#<sessionId>`: printable, stable for the life of the
 * session, and what `sessions history` prints as `sessionFile`. A path cannot be used: the events are rows, not a file.
 * The session id is the last `#` segment (ids never contain `#`; a directory name may).
 */
/** Whether a file starts with SQLite's header ("SQLite format 3\0"): `--store` may name a database, not a sessions.json. */
export function isSqliteFile(file: string): boolean {
  let fd: number | undefined
  try {
    fd = fs.openSync(file, 'r')
    const head = Buffer.alloc(16)
    return fs.readSync(fd, head, 0, 16, 0) === 16 && head.toString('latin1') === 'SQLite format 3\u0000'
  } catch {
    return false
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

export function sqliteLocator(dbPath: string, sessionId: string): string {
  return `${dbPath}#${sessionId}`
}

/** The write side is another module (issue 16); until it is wired in, every write says so in one line. */
export class SqliteWriteUnsupportedError extends ClawkitError {
  constructor(what: string, dbPath: string) {
    super(`${what} is not supported yet on a SQLite store (${dbPath}); nothing was written.`, {
      code: 'E_SQLITE_WRITE_UNSUPPORTED',
      exitCode: ExitCode.failure,
      suggestions: ['Use "openclaw" for this agent until clawkit writes SQLite-era stores.'],
    })
  }
}

export class SqliteSessionStore implements SessionStore {
  /** `path` is the database file. */
  readonly ref: StoreRef
  private opened?: OpenedDb
  private readonly checkAgent: boolean

  /** `checkAgent: false` for a database named by path (`--store`), whose schema_meta may name any agent. */
  constructor(ref: StoreRef, opts: {checkAgent?: boolean} = {}) {
    this.ref = ref
    this.checkAgent = opts.checkAgent ?? true
  }

  /** One read-only connection per store, opened on first use and kept until close() (the command's end). */
  private get conn(): OpenedDb {
    if (!this.opened || !this.opened.db.isOpen) this.opened = openAgentDb(this.ref.path, this.checkAgent ? {agentId: this.ref.agentId} : {})
    return this.opened
  }

  /** The schema version of the open database (status). */
  get schemaVersion(): number {
    return this.conn.schemaVersion
  }

  close(): void {
    if (this.opened?.db.isOpen) this.opened.db.close()
    this.opened = undefined
  }

  private snap<T>(fn: (db: OpenedDb['db']) => T): T {
    const {db, path} = this.conn
    return snapshot(db, path, () => fn(db))
  }

  async read(): Promise<SessionStoreData> {
    return this.snap((db) => {
      const out = emptyStoreData()
      for (const {key, entry} of iterateEntries(db, this.ref.path)) out[key] = entry
      return out
    })
  }

  /** Keys are stored canonical (lowercase) in the database; a mixed-case spelling finds its lowercase key. */
  async findEntry(key: string): Promise<FoundEntry | undefined> {
    return this.snap((db) => {
      for (const k of new Set([key, normalizeSessionKey(key)])) {
        const hit = entryByKey(db, this.ref.path, k)
        if (hit) return {storedKey: hit.key, entry: hit.entry}
      }
      return undefined
    })
  }

  /** The sessions whose current id is this one, newest first, by the current_session_id index (no full parse). */
  async findBySessionId(sessionId: string): Promise<FoundEntry[]> {
    return this.snap((db) => entriesBySessionId(db, this.ref.path, sessionId).map((h) => ({storedKey: h.key, entry: h.entry})))
  }

  async readRows<T>(project: (key: string, entry: SessionEntry) => T, opts: {omit?: readonly string[]} = {}): Promise<Map<string, T>> {
    return this.snap((db) => {
      const out = new Map<string, T>()
      for (const {key, entry} of iterateEntries(db, this.ref.path, opts.omit)) out.set(key, project(key, entry))
      return out
    })
  }

  transcriptOf(entry: Pick<SessionEntry, 'sessionId' | 'sessionFile'>): TranscriptRef {
    const sessionId = String(entry.sessionId)
    const exists = this.snap((db) => hasEvents(db, sessionId))
    return {locator: sqliteLocator(this.ref.path, sessionId), location: 'sqlite', exists}
  }

  newSessionFile(sessionId: string): string {
    return sqliteLocator(this.ref.path, sessionId)
  }

  /** The session id a locator of this store names; anything else is a caller's bug. */
  private sessionIdOf(t: TranscriptRef): string {
    const at = t.locator.lastIndexOf('#')
    if (at < 0 || t.locator.slice(0, at) !== this.ref.path) throw new ClawkitError(`Transcript ${t.locator} is not in ${this.ref.path}`, {code: 'E_INTERNAL'})
    return t.locator.slice(at + 1)
  }

  async tail(t: TranscriptRef, opts: TailOptions): Promise<TranscriptReadResult | undefined> {
    const sessionId = this.sessionIdOf(t)
    return this.snap((db) => tailEvents(db, sessionId, t.locator, opts))
  }

  /** The header event as stored (history --raw of a whole transcript starts with it). */
  async headerLine(t: TranscriptRef): Promise<string | undefined> {
    const sessionId = this.sessionIdOf(t)
    return this.snap((db) => headerLine(db, sessionId))
  }

  /** Sessions and events by SQL, the newest updated_at and the `recent` newest entries (status), in one snapshot. */
  stats(recent: number): {sessions: number; events: number; lastUpdatedAt: number | null; schemaVersion: number; newest: FoundEntry[]} {
    return this.snap((db) => ({
      ...storeCounts(db),
      lastUpdatedAt: lastUpdatedAt(db),
      schemaVersion: this.conn.schemaVersion,
      newest: newestEntries(db, this.ref.path, recent).map((h) => ({storedKey: h.key, entry: h.entry})),
    }))
  }

  // -------------------------------------------------------------------------------------------------------------
  // Writes: src/store/sqlite/write.ts (another change of issue 16). Until the integrator wires them in, each refuses
  // in one line before touching the database.

  update<T>(_mutator: (data: SessionStoreData) => T | Promise<T>, _opts?: UpdateOptions): Promise<T> {
    return Promise.reject(new SqliteWriteUnsupportedError('Changing a session entry', this.ref.path))
  }

  withTranscript<T>(_t: TranscriptRef, _fn: (tx: LockedTranscript) => Promise<T>, _opts?: TranscriptLockOptions): Promise<T> {
    return Promise.reject(new SqliteWriteUnsupportedError('Writing a transcript', this.ref.path))
  }

  append(_t: TranscriptRef, _items: NewEntry[], _opts?: TranscriptAppendOptions & {lockTimeoutMs?: number}): Promise<AppendResult> {
    return Promise.reject(new SqliteWriteUnsupportedError('Appending to a transcript', this.ref.path))
  }

  findIdempotencyKey(_t: TranscriptRef, _key: string): Promise<IdempotencyHit | undefined> {
    return Promise.reject(new SqliteWriteUnsupportedError('An idempotency lookup', this.ref.path))
  }

  planReset(_key: string, _now: Date): Promise<ResetPlan> {
    return Promise.reject(new SqliteWriteUnsupportedError('sessions reset', this.ref.path))
  }

  reset(_key: string, _opts: ResetOptions): Promise<ResetOutcome> {
    return Promise.reject(new SqliteWriteUnsupportedError('sessions reset', this.ref.path))
  }
}
