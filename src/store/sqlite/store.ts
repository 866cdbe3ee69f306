// The SQLite-era backend: an agent's sessions in OpenClaw's `agents/<id>/agent/openclaw-agent.sqlite` (2026.7+), behind
// the same SessionStore interface as the JSON files: reads here and in read.ts, writes from write.ts (the block at the
// end of the class).
import fs from 'node:fs'
import path from 'node:path'

import {ClawkitError} from '../../errors.js'
import {openRegularSync} from '../../os/safe-open.js'
import {sha256} from '../../util/hash.js'
import {ChainMutexes} from '../chain-mutex.js'
import {isHeader} from '../entries.js'
import {compileGrep} from '../grep.js'
import {emptyStoreData} from '../index-data.js'
import {DEFAULT_LOCK_TIMEOUT_MS, withLock} from '../lock.js'
import {normalizeSessionKey} from '../session-key.js'
import {badEntrySessionId, isOpenClawSessionId} from '../session-id.js'
import type {TranscriptEntry, TranscriptHeader} from '../transcript-types.js'
import type {JournalEntry, RowScope, RowsStep} from '../journal.js'
import type {AgentSession, FoundEntry, IdempotencyHit, KeySession, LineSpan, LockedTranscript, MarkCheck, RawLineFilter, ResetOptions, ResetOutcome, ResetPlan, SessionEntry, SessionStore, SessionStoreData, StatsOptions, StoreMaintenance, StoreRef, StoreStats, TailOptions, TranscriptLine, TranscriptLockOptions, TranscriptMark, TranscriptReadResult, TranscriptRef, TranscriptSince, UpdateOptions} from '../types.js'
import {appendChained, appendEvents, appendEventsTx, chainNew, currentLeaf, findIdempotencyKey} from './append.js'
import {archiveLines, archiveNameOf, archiveSession, archiveSha, archiveText, listArchives, mergeArchives, tailArchive} from './archives.js'
import {readSessionForContext} from './context.js'
import {openAgentDb, type OpenedDb, type SqlDatabase} from './driver.js'
import {writeEntryChangesTx} from './entry-rows.js'
import {lazyEntries} from './lazy-entries.js'
import {assertNoGatewayOwner} from './ownership.js'
import {entriesBySessionId, entriesPage, entryByKey, eventBounds, ftsEventLines, grepEventPage, pageEvents, hasEvents, headerLine, iterateEntries, lastUpdatedAt, newestEntries, snapshot, storeCounts, tailEvents, windowMarks} from './read.js'
import {captureRows, describeRowDifference, type RowImage, rowImageHash, rowsMatch, writeRowImage} from './journal.js'
import {immediateAsync, immediateWrite, type WriteWait} from './transaction.js'
import {planSessionReset, resetSession, resetSessionTx, SQLITE_HEADER_VERSION} from './write.js'
import {randomUUID} from '../random-id.js'
import {filesStepConflicts, replayFilesStep} from '../journal-files.js'
import {ensurePrivateDir, fsyncDir, writeFileAtomic} from '../fs-util.js'
import {ABSENT, hashBytes} from '../journal.js'
import type {DeleteOutcome, SessionLifecycle} from '../lifecycle.js'
import {archiveLocator} from './archives.js'
import {scopeOf, unionScope} from './journal.js'
import {archiveTx, budgetInventory, deleteTx, dropArchivesTx, listArchiveRows, markTx, type NewArchiveRow, previewDelete, reclaimPages, findArchiveRow, markPublishedTx, restoreTx, sessionNotFound, unarchiveTx} from './lifecycle.js'

/**
 * A session's transcript in the database is named `<db path>#<sessionId>`: printable, stable for the life of the
 * session, and what `sessions history` prints as `sessionFile`. A path cannot be used: the events are rows, not a file.
 * The session id is the last `#` segment (ids never contain `#`; a directory name may).
 */
/** Whether a file starts with SQLite's header ("SQLite format 3\0"): `--store` may name a database, not a sessions.json. */
export function isSqliteFile(file: string): boolean {
  let fd: number | undefined
  try {
    // Regular files only: a FIFO or a device named by --store would block the read or never end; the caller's
    // sessions.json path then refuses it with the path and its kind.
    fd = openRegularSync(file, {what: 'Session store'}).fd
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

/** Keys per snapshot of eachEntry: a real entry is ~14 KB, so a page is a few MB at most. */
const ENTRY_PAGE = 256
/** Keys per transaction in deleteMany: a cleanup of thousands in a few dozen writes, each holding its sessions' locks. */
const DELETE_CHUNK = 64

export class SqliteSessionStore implements SessionStore {
  /** `path` is the database file. */
  readonly ref: StoreRef
  /**
   * OpenClaw's FTS5 table answers indexedLines; there is no content index over the whole agent. Its seqs, watermarks and
   * file stats tell what changed (listingToken, unchangedSince).
   */
  readonly capabilities = {fullText: true, contentIndex: false, changeTracking: true}
  private opened?: OpenedDb
  private readonly checkAgent: boolean

  /** The state dir whose ownership locks are checked before the first write (none for a database named by path). */
  private readonly stateDir?: string

  /**
   * Where clawkit keeps its per-session write locks for this database (clawkit's data dir, never the state dir). Unset
   * (library use), a session's writers take turns only within this process.
   */
  private readonly lockDir?: string

  /** `checkAgent: false` for a database named by path (`--store`), whose schema_meta may name any agent. */
  constructor(ref: StoreRef, opts: {checkAgent?: boolean; stateDir?: string; lockDir?: string} = {}) {
    this.ref = ref
    this.checkAgent = opts.checkAgent ?? true
    this.stateDir = opts.stateDir
    this.lockDir = opts.lockDir
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
    for (const h of [this.opened, this.writer]) if (h?.db.isOpen) h.db.close()
    this.opened = undefined
    this.writer = undefined
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

  /**
   * In pages of keys, each read in its own snapshot and visited outside it (a visit may wait on the network, and a
   * snapshot must not stay open meanwhile). A key written between pages is seen by the next call.
   */
  async eachEntry(visit: (key: string, entry: SessionEntry) => void | Promise<void>): Promise<void> {
    let after: string | undefined
    for (;;) {
      const page = this.snap((db) => entriesPage(db, this.ref.path, after, ENTRY_PAGE))
      for (const {key, entry} of page.entries) await visit(key, entry)
      if (page.last === undefined) return
      after = page.last
    }
  }

  transcriptOf(entry: Pick<SessionEntry, 'sessionId' | 'sessionFile'>, key?: string): TranscriptRef {
    const sessionId = typeof entry.sessionId === 'string' ? entry.sessionId : ''
    // Bound as a parameter either way; refused so that the locator splits back to this id (no "#" or "/" in it).
    if (!isOpenClawSessionId(sessionId)) throw badEntrySessionId(sessionId, key)
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
    // An archived transcript is a blob, read by tail/readLines only: never a session id to write events under.
    if (archiveNameOf(this.ref.path, t.locator) !== undefined) throw new ClawkitError(`${t.locator} is an archived transcript of a deleted session; it cannot be continued or changed.`, {code: 'E_ARCHIVED_TRANSCRIPT'})
    return t.locator.slice(at + 1)
  }

  async tail(t: TranscriptRef, opts: TailOptions): Promise<TranscriptReadResult | undefined> {
    const archive = archiveNameOf(this.ref.path, t.locator)
    if (archive !== undefined) {
      const decoded = this.snap((db) => archiveText(db, archive))
      return decoded && tailArchive(t.locator, archive, decoded, opts)
    }
    const sessionId = this.sessionIdOf(t)
    return this.snap((db) => tailEvents(db, sessionId, t.locator, opts))
  }

  /**
   * The key's windows oldest first (section 3.4: windows sharing session_key, by created_at); the node's current one is the
   * live session. `reset` events inside a window are boundaries the reader finds in the events (section 6).
   */
  async sessionsOf(key: string): Promise<KeySession[]> {
    return this.snap((db) => {
      for (const k of new Set([key, normalizeSessionKey(key)])) {
        const node = db.prepare('SELECT current_session_id FROM session_nodes WHERE session_key = ?').get(k)
        const windows = db.prepare('SELECT session_id, reason, created_at FROM session_windows WHERE session_key = ? ORDER BY created_at, session_id').all(k)
        const archives = listArchives(db, k)
        if (!node && windows.length === 0 && archives.length === 0) continue
        return this.withArchives(this.windowSessions(db, windows, node ? String(node.current_session_id) : undefined), windows, archives)
      }
      return []
    })
  }

  /**
   * Every key's windows and archives in one snapshot, keys in index order (as readRows), then windows-only keys, then the
   * keys only archives are left of. A deleted session's rows go with its node (ON DELETE CASCADE); its transcript stays
   * in session_transcript_archives under its key, listed once (never when a window still holds the session).
   */
  async allSessions(): Promise<AgentSession[]> {
    return this.snap((db) => {
      const rows = db
        .prepare('SELECT w.session_key AS k, w.session_id, w.reason, w.created_at FROM session_windows w ORDER BY w.session_key, w.created_at, w.session_id')
        .all()
      const byKey = new Map<string, Record<string, unknown>[]>()
      for (const r of rows) byKey.set(String(r.k), [...(byKey.get(String(r.k)) ?? []), r])
      const archives = new Map<string, ReturnType<typeof listArchives>>()
      for (const a of listArchives(db)) archives.set(a.key, [...(archives.get(a.key) ?? []), a])
      const out: AgentSession[] = []
      const seen = new Set<string>()
      const add = (key: string, current: string | undefined) => {
        seen.add(key)
        const windows = byKey.get(key) ?? []
        for (const s of this.withArchives(this.windowSessions(db, windows, current), windows, archives.get(key) ?? [])) out.push({...s, key})
      }
      for (const n of db.prepare('SELECT session_key, current_session_id FROM session_nodes ORDER BY session_key').all()) add(String(n.session_key), String(n.current_session_id))
      for (const key of byKey.keys()) if (!seen.has(key)) add(key, undefined)
      for (const key of archives.keys()) if (!seen.has(key)) add(key, undefined)
      return out
    })
  }

  /** A key's window sessions with its archives put in time order among them (archives.ts). */
  private withArchives(sessions: KeySession[], windows: readonly Record<string, unknown>[], archives: ReturnType<typeof listArchives>): KeySession[] {
    const starts = new Map(windows.map((w) => [String(w.session_id), Number(w.created_at)]))
    return mergeArchives(sessions, starts, archives.map((a) => archiveSession(this.ref.path, a)), archives.map((a) => a.createdAt))
  }

  /** A key's windows oldest first as sessions, the node's current one last. */
  private windowSessions(db: SqlDatabase, windows: readonly Record<string, unknown>[], current: string | undefined): KeySession[] {
    const out: KeySession[] = windows.map((w, i) => {
      const sessionId = String(w.session_id)
      const ref: TranscriptRef = {locator: sqliteLocator(this.ref.path, sessionId), location: 'sqlite', exists: hasEvents(db, sessionId)}
      const ended = sessionId === current ? 'current' : w.reason === 'compaction' ? 'compaction' : 'reset'
      // A window ends when the next one starts (the database records no end time of its own).
      const next = Number(windows[i + 1]?.created_at)
      const endedAt = ended !== 'current' && Number.isFinite(next) && next > 0 ? {endedAt: new Date(next).toISOString()} : {}
      return {sessionId, where: 'window', transcript: ref, ended, ...endedAt, foundBy: 'window'}
    })
    // The current window last whatever its created_at (a restored or hand-edited sessionStartedAt).
    const at = out.findIndex((s) => s.ended === 'current')
    if (at >= 0) out.push(...out.splice(at, 1))
    return out
  }

  /** Events in seq order, a page per read snapshot: no transaction stays open while the caller awaits. */
  async *readLines(t: TranscriptRef): AsyncIterable<TranscriptLine> {
    const archive = archiveNameOf(this.ref.path, t.locator)
    if (archive !== undefined) {
      const decoded = this.snap((db) => archiveText(db, archive))
      if (decoded) yield* archiveLines(archive, decoded)
      return
    }
    const sessionId = this.sessionIdOf(t)
    let after = -1
    for (;;) {
      const page = this.snap((db) => pageEvents(db, sessionId, after, 256))
      if (page.length === 0) return
      for (const l of page) yield l
      after = page.at(-1)!.line
    }
  }

  /** readLines with the filter applied in SQL to event_json (zstd events decoded and checked in JS), a page per snapshot. */
  async *grepLines(t: TranscriptRef, filter: RawLineFilter): AsyncIterable<TranscriptLine> {
    const grep = compileGrep(filter)
    // A deleted session's archive is one decoded blob: its lines are tested as strings.
    if (archiveNameOf(this.ref.path, t.locator) !== undefined) {
      for await (const l of this.readLines(t)) if (l.bad || grep.test(l.raw)) yield l
      return
    }
    const sessionId = this.sessionIdOf(t)
    let after = -1
    for (;;) {
      const page = this.snap((db) => grepEventPage(db, sessionId, after, 256, filter, grep))
      for (const l of page.lines) yield l
      if (!page.more) return
      after = page.last
    }
  }

  async contentCandidates(): Promise<undefined> {
    return undefined
  }

  /** OpenClaw's FTS5 index, where its projection covers the whole session (read.ts ftsEventLines). */
  async indexedLines(t: TranscriptRef, tokens: readonly string[]): Promise<TranscriptLine[] | undefined> {
    // OpenClaw's FTS rows leave with a deleted session: its archive is always scanned.
    if (archiveNameOf(this.ref.path, t.locator) !== undefined) return undefined
    const sessionId = this.sessionIdOf(t)
    return this.snap((db) => ftsEventLines(db, sessionId, tokens))
  }

  /**
   * Events from `mark.seq` on (seq order, pages of snapshots as readLines). The mark's hash is the first event's: a
   * different one, or fewer events than the mark covers, is a window recreated under the same id, read again whole.
   * Events committed after the call began are read next time (the read stops at the highest seq seen first).
   */
  async readSince(t: TranscriptRef, mark?: TranscriptMark, _opts?: {verify?: MarkCheck}): Promise<TranscriptSince> {
    const archive = archiveNameOf(this.ref.path, t.locator)
    if (archive !== undefined) return this.archiveSince(archive, mark)
    const sessionId = this.sessionIdOf(t)
    const bounds = this.snap((db) => eventBounds(db, sessionId))
    if (!bounds) {
      throw new ClawkitError(`Transcript ${t.locator} has no events (the session was deleted or never started)`, {code: 'E_TRANSCRIPT_MISSING'})
    }
    const headerHash = sha256().update(bounds.firstText).digest('hex')
    const size = bounds.maxSeq + 1
    const gen = bounds.generation === undefined ? {} : {generation: bounds.generation}
    let next = bounds.firstSeq
    let rewritten = false
    if (mark && mark.seq > 0) {
      // The header and the last seq alone miss a destructive rewrite that kept both; its rotated watermark does not.
      // A mark without one (written before it was kept, or before the first append created it) is judged as before.
      const regenerated = mark.generation !== undefined && mark.generation !== bounds.generation
      if (mark.sha256 !== headerHash || bounds.maxSeq < mark.seq - 1 || regenerated) rewritten = true
      else if (bounds.maxSeq < mark.seq) return {rewritten: false, unchanged: true, lines: (async function* () {})(), mark: () => ({seq: mark.seq, sha256: headerHash, size, ...gen})}
      else next = mark.seq
    }
    let done = false
    const snap = this.snap.bind(this)
    async function* lines(): AsyncGenerator<TranscriptLine> {
      let after = next - 1
      while (after < bounds!.maxSeq) {
        const page = snap((db) => pageEvents(db, sessionId, after, 256)).filter((l) => l.line <= bounds!.maxSeq)
        if (page.length === 0) break
        for (const l of page) {
          next = l.line + 1
          yield l
        }
        after = page.at(-1)!.line
      }
      done = true
    }
    return {rewritten, unchanged: false, lines: lines(), mark: () => ({seq: next, sha256: headerHash, ...gen, ...(done ? {size} : {})})}
  }

  /** grepLines of some events only (LineSpan: `lines` events from seq `line`), or of some lines of an archive's blob. */
  async *grepSpans(t: TranscriptRef, spans: readonly LineSpan[], filter?: RawLineFilter): AsyncIterable<TranscriptLine> {
    const grep = filter ? compileGrep(filter) : undefined
    const archive = archiveNameOf(this.ref.path, t.locator)
    if (archive !== undefined) {
      const decoded = this.snap((db) => archiveText(db, archive))
      if (!decoded) return
      const lines = archiveLines(archive, decoded)
      for (const span of spans) {
        const upTo = span.lines === undefined ? Number.MAX_SAFE_INTEGER : span.line + span.lines - 1
        for (const l of lines) if (l.line >= span.line && l.line <= upTo && (!grep || l.bad || grep.test(l.raw))) yield l
      }
      return
    }
    const sessionId = this.sessionIdOf(t)
    for (const span of spans) {
      const upTo = span.lines === undefined ? Number.MAX_SAFE_INTEGER : span.line + span.lines - 1
      let after = span.line - 1
      for (;;) {
        if (filter && grep) {
          const page = this.snap((db) => grepEventPage(db, sessionId, after, 256, filter, grep, upTo))
          for (const l of page.lines) yield l
          if (!page.more) break
          after = page.last
        } else {
          const page = this.snap((db) => pageEvents(db, sessionId, after, 256, upTo))
          for (const l of page) yield l
          if (page.length < 256) break
          after = page.at(-1)!.line
        }
      }
    }
  }

  /**
   * One query for every window of the database: a session whose last seq and rewrite watermark are the mark's has not
   * changed (OpenClaw rotates the watermark on every destructive rewrite). A mark without a watermark (a session with no
   * append yet) is read again by readSince, which also compares the header. An archive row: its archive_sha256.
   */
  async unchangedSince(items: readonly {t: TranscriptRef; mark: TranscriptMark}[]): Promise<boolean[]> {
    return this.snap((db) => {
      let windows: ReturnType<typeof windowMarks> | undefined
      return items.map(({t, mark}) => {
        const archive = archiveNameOf(this.ref.path, t.locator)
        if (archive !== undefined) return mark.size !== undefined && mark.generation !== undefined && archiveSha(db, archive) === mark.generation && mark.seq >= mark.size
        const at = t.locator.lastIndexOf('#')
        if (at < 0 || t.locator.slice(0, at) !== this.ref.path || mark.generation === undefined || mark.size === undefined) return false
        windows ??= windowMarks(db)
        const w = windows.get(t.locator.slice(at + 1))
        return w !== undefined && w.maxSeq !== null && w.generation === mark.generation && w.maxSeq === mark.seq - 1
      })
    })
  }

  /** Not known cheaply: a session's events are rows, not a file. */
  transcriptBytes(): number | undefined {
    return undefined
  }

  /**
   * The database file and its WAL as stat sees them: any commit changes one of them. When they moved, the listing's
   * own tables are hashed (keys, windows, archive names), so an append (a WAL change) does not count as a new listing.
   */
  async listingToken(prev?: string): Promise<{token: string; changed: boolean}> {
    const sig = (p: string) => {
      try {
        const st = fs.statSync(p)
        return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`
      } catch {
        return '-'
      }
    }
    const files = `${sig(this.ref.path)}|${sig(`${this.ref.path}-wal`)}`
    let old: {files?: string; digest?: string} | undefined
    try {
      old = prev ? (JSON.parse(prev) as {files?: string; digest?: string}) : undefined
    } catch {}
    if (old?.files === files && typeof old.digest === 'string') return {token: prev!, changed: false}
    const digest = this.snap((db) => {
      const h = sha256()
      for (const r of db.prepare('SELECT session_key, current_session_id FROM session_nodes ORDER BY session_key').all()) h.update(`n\t${String(r.session_key)}\t${String(r.current_session_id)}\n`)
      for (const r of db.prepare('SELECT session_id, session_key, reason, created_at FROM session_windows ORDER BY session_id').all()) h.update(`w\t${String(r.session_id)}\t${String(r.session_key)}\t${String(r.reason)}\t${String(r.created_at)}\n`)
      // A window gets its first event (hasEvents: the transcript starts to exist) or loses all of them.
      for (const r of db.prepare('SELECT w.session_id AS s FROM session_windows w WHERE EXISTS (SELECT 1 FROM transcript_events e WHERE e.session_id = w.session_id) ORDER BY w.session_id').all()) h.update(`e\t${String(r.s)}\n`)
      for (const a of listArchives(db)) h.update(`a\t${JSON.stringify(a)}\n`)
      return h.digest('hex')
    })
    // The files move on every commit (an append); the listing only when its tables do.
    return {token: JSON.stringify({files, digest}), changed: old?.digest !== digest}
  }

  /**
   * readSince of a deleted session's archive row: the blob never changes once written, so its lines are numbered as
   * readLines numbers them and the mark's hash is the decoded text's; a different text (a row replaced under the same
   * name) is read again whole.
   */
  private archiveSince(archive: string, mark?: TranscriptMark): TranscriptSince {
    const {decoded, rowSha} = this.snap((db) => ({decoded: archiveText(db, archive), rowSha: archiveSha(db, archive)}))
    if (!decoded) throw new ClawkitError(`The archive ${archive} is not in the database any more`, {code: 'E_TRANSCRIPT_MISSING'})
    // The row's own archive_sha256 rides along as the mark's generation: unchangedSince compares it without decoding.
    const gen = rowSha === undefined ? {} : {generation: rowSha}
    const all = archiveLines(archive, decoded)
    const hash = sha256().update('text' in decoded ? decoded.text : decoded.error).digest('hex')
    // Marked as a JSONL file is (the blob is one): seq is the number of the last line read, lines count from 1.
    const last = all.at(-1)?.line ?? 0
    const rewritten = Boolean(mark && mark.seq > 0 && mark.sha256 !== hash)
    const from = mark && !rewritten ? mark.seq : 0
    if (mark && !rewritten && from >= last) return {rewritten: false, unchanged: true, lines: (async function* () {})(), mark: () => ({seq: from, sha256: hash, size: last, ...gen})}
    let read = from
    return {
      rewritten,
      unchanged: false,
      lines: (async function* () {
        // readSince numbers every line, blank ones too (archiveLines skips them): fill the gaps so seq stays contiguous.
        for (const l of all) {
          if (l.line <= from) continue
          for (let n = Math.max(read, from) + 1; n < l.line; n++) yield {line: n, raw: ''}
          read = l.line
          yield l
        }
        read = last
      })(),
      mark: () => ({seq: read, sha256: hash, ...gen, ...(read >= last ? {size: last} : {})}),
    }
  }

  /** The header event as stored (history --raw of a whole transcript starts with it). */
  async headerLine(t: TranscriptRef): Promise<string | undefined> {
    const archive = archiveNameOf(this.ref.path, t.locator)
    if (archive !== undefined) {
      const first = this.snap((db) => {
        const decoded = archiveText(db, archive)
        return decoded && archiveLines(archive, decoded)[0]
      })
      return first?.value?.type === 'session' ? first.raw : undefined
    }
    const sessionId = this.sessionIdOf(t)
    return this.snap((db) => headerLine(db, sessionId))
  }

  /**
   * Sessions and events by SQL, the newest updated_at and the `newest` newest entries (status), in one snapshot, never
   * every entry. One database per agent: `ofAgent` and `index` do not apply.
   */
  async stats(opts: StatsOptions = {}): Promise<StoreStats> {
    return this.snap((db) => ({
      ...storeCounts(db),
      lastUpdatedAt: lastUpdatedAt(db),
      newest: newestEntries(db, this.ref.path, opts.newest ?? 0).map((h) => ({storedKey: h.key, entry: h.entry})),
      ...(opts.keys ? {keys: db.prepare('SELECT session_key FROM session_nodes').all().map((r) => String(r.session_key))} : {}),
    }))
  }

  // -------------------------------------------------------------------------------------------------------------
  // Writes (write.ts): each act is one BEGIN IMMEDIATE transaction on a write connection of its own, opened after the
  // check that no OpenClaw gateway or `agent --local` run owns the state dir. withTranscript holds no transaction
  // across its callback (a model call would keep OpenClaw's writers waiting past their busy timeout); it holds
  // clawkit's own lock of the session instead (sessionLock), so two clawkit writers of one session take turns as
  // they do on a JSONL transcript's lock, and its appends still check that the leaf is the one the caller chained onto
  // (another program may append meanwhile; write.ts header, docs/sqlite-writes.md). Appends are strict: an event
  // that would not continue the active branch is refused rather than left for OpenClaw to rebuild.

  private writer?: OpenedDb
  private readonly transcriptLocks = new ChainMutexes()

  private get w(): OpenedDb {
    if (!this.writer || !this.writer.db.isOpen) {
      if (this.stateDir) assertNoGatewayOwner(this.stateDir)
      this.writer = openAgentDb(this.ref.path, {write: true, agentId: this.ref.agentId})
    }
    return this.writer
  }

  /** How a write of this store waits for a locked database: announced through the caller's onWait. */
  private waitFor(onWait?: TranscriptLockOptions['onWait'], signal?: AbortSignal): WriteWait {
    return {signal, onWait: onWait && ((i) => onWait({lockPath: i.path, timeoutMs: i.timeoutMs, database: true}))}
  }

  /**
   * Run `fn` holding clawkit's lock of one session of this database. OpenClaw 2026.9.6 has no per-session lock file
   * (its gateway queues a session's writers in-process, and `agent --local` owns the whole state dir), so two clawkit
   * processes would otherwise interleave two turns: the second would chain onto the first's user message and the
   * first's reply would then be refused (issue 25). The lock is OpenClaw's JSON-era protocol (O_EXCL file with pid,
   * stale reclaim, 10 s acquire timeout) on a file in clawkit's data dir named by a hash of the database's real path
   * and the session id: clawkit's files never go into the state dir, and every clawkit of this user finds the same one.
   */
  private sessionLock<T>(sessionId: string, fn: () => Promise<T>, opts: TranscriptLockOptions = {}): Promise<T> {
    if (!this.lockDir) return this.transcriptLocks.run(sqliteLocator(this.ref.path, sessionId), fn, opts.signal)
    let real = this.ref.path
    try {
      real = fs.realpathSync(this.ref.path)
    } catch {
      // A database that vanished fails at its first read or write, with the store's own error.
    }
    const file = path.join(this.lockDir, `sqlite-session-${sha256().update(`${real}\n${sessionId}`).digest('hex').slice(0, 32)}`)
    return withLock(file, fn, {timeoutMs: opts.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS, signal: opts.signal, onWait: opts.onWait})
  }

  /** Updates of this store take turns within the process: a mutator may await, and its transaction stays open meanwhile. */
  private readonly updateLock = new ChainMutexes()

  async update<T>(mutator: (data: SessionStoreData) => T | Promise<T>, opts: UpdateOptions = {}): Promise<T> {
    // One write connection: a second BEGIN IMMEDIATE on it while the first update's mutator awaits would fail with
    // "cannot start a transaction within a transaction" (the contract promises turns, as the file store's lock gives).
    return this.updateLock.run(this.ref.path, () => {
      const h = this.w
      return immediateAsync(
        h,
        async () => {
          const lazy = lazyEntries(h.db)
          const result = await mutator(lazy.data)
          const {before, after} = lazy.changes()
          writeEntryChangesTx(h.db, this.ref.agentId, before, after)
          return result
        },
        this.waitFor(opts.onWait),
      )
    })
  }

  withTranscript<T>(t: TranscriptRef, fn: (tx: LockedTranscript) => Promise<T>, opts: TranscriptLockOptions = {}): Promise<T> {
    const sessionId = this.sessionIdOf(t)
    const wait = this.waitFor(opts.onWait, opts.signal)
    return this.sessionLock(
      sessionId,
      async () => {
        const h = this.w
        // The leaf this caller's appends chain onto: undefined while the session has no events at all.
        let leaf: string | null | undefined = this.snap((db) => hasEvents(db, sessionId)) ? currentLeaf(h.db, sessionId) : undefined
        const firstEvents = (events: object[], header?: TranscriptHeader): object[] => {
          if (!header) throw new ClawkitError(`${t.locator} has no transcript yet and no header was given; nothing was written.`, {code: 'E_NO_HEADER'})
          return [{...header, version: SQLITE_HEADER_VERSION}, ...events]
        }
        // The first events of a session: refused if another writer started the transcript meanwhile.
        const startTranscript = (events: object[]) =>
          immediateWrite(
            h,
            () => {
              if (hasEvents(h.db, sessionId)) throw new ClawkitError(`Session ${sessionId} moved on while this command ran (another writer started its transcript); nothing was written. Run it again.`, {code: 'E_SQLITE_LEAF_MOVED'})
              return appendEventsTx(h.db, sessionId, events, {strict: true})
            },
            wait,
          )
        const tx: LockedTranscript = {
          ref: t,
          readContext: async () => this.snap((db) => readSessionForContext(db, sessionId, t.locator)),
          append: async (items, o = {}) => {
            const date = o.now?.() ?? new Date()
            if (leaf === undefined) {
              const entries = chainNew(items, null, date)
              startTranscript(firstEvents(entries, o.header))
              leaf = (entries.at(-1)?.id as string | undefined) ?? null
              return {created: true, entries: entries as unknown as TranscriptEntry[]}
            }
            const done = appendChained(h, sessionId, items, {expectedLeaf: leaf, date, strict: true, wait})
            leaf = (done.entries.at(-1)?.id as string | undefined) ?? leaf
            return {created: false, entries: done.entries as unknown as TranscriptEntry[]}
          },
          write: async (lines) => {
            if (lines.length === 0) return
            const last = (lines.at(-1) as {id?: unknown}).id
            if (leaf === undefined) {
              const [first, ...rest] = lines as Record<string, unknown>[]
              // The caller's header (pi's version 3) becomes the one OpenClaw 2026.9.6 writes for a new session.
              startTranscript(isHeader(first) ? firstEvents(rest, first) : firstEvents([first, ...rest]))
            } else {
              appendEvents(h, sessionId, lines, {expectedLeaf: leaf, strict: true, wait})
            }
            if (typeof last === 'string') leaf = last
          },
          findIdempotencyKey: async (key) => findIdempotencyKey(h.db, sessionId, key),
        }
        return fn(tx)
      },
      opts,
    )
  }

  async findIdempotencyKey(t: TranscriptRef, key: string): Promise<IdempotencyHit | undefined> {
    const sessionId = this.sessionIdOf(t)
    return this.snap((db) => findIdempotencyKey(db, sessionId, key))
  }

  /**
   * A reset keeps the old session's events where they are (its window stays under the key, linked from the new one by
   * previous_session_id), so `transcript` and `archivedTranscript` both name the old session's locator.
   */
  async planReset(key: string, _now: Date): Promise<ResetPlan> {
    return this.snap((db) => {
      const plan = planSessionReset(db, normalizeSessionKey(key))
      const old = hasEvents(db, plan.previousSessionId) ? sqliteLocator(this.ref.path, plan.previousSessionId) : null
      return {key: plan.key, previousSessionId: plan.previousSessionId, transcript: old, archivedTranscript: old, clearedFields: plan.clearedFields}
    })
  }

  /**
   * Under the session's lock, as the JSON era's reset holds the transcript's: a reset waits for a clawkit turn on the
   * session to end instead of rotating the session under it (whose index update would then point the key back at the
   * old id). Another reset may rotate the session while this one waits: the lock is then taken again for the new id.
   */
  async reset(key: string, opts: ResetOptions): Promise<ResetOutcome> {
    const k = normalizeSessionKey(key)
    const currentId = () => this.snap((db) => planSessionReset(db, k).previousSessionId)
    let done: ReturnType<typeof resetSession> | undefined
    for (let round = 1; !done; round++) {
      const id = currentId()
      done = await this.sessionLock(id, async () => {
        if (currentId() !== id) return undefined
        if (!opts.journal) return resetSession(this.w, {agentId: this.ref.agentId, key: k, now: opts.now, cwd: opts.cwd})
        // Journaled: the rows of the key and of both sessions, before and after, recorded before the commit.
        const newSessionId = randomUUID()
        return this.journaledWrite({scope: {keys: [k], sessionIds: [id, newSessionId].sort()}, label: `reset ${k}`, entry: opts.journal}, (db) => {
          const out = resetSessionTx(db, {agentId: this.ref.agentId, key: k, now: opts.now, cwd: opts.cwd, newSessionId})
          return out
        })
      })
      if (!done && round >= 50) {
        throw new ClawkitError(`Session ${k} changed 50 times while this reset waited for its lock; nothing was reset.`, {code: 'E_SESSION_ROTATING', suggestions: ['Run the command again once other writers (sessions reset, OpenClaw) are done.']})
      }
    }
    const kept = this.snap((db) => hasEvents(db, done!.previousSessionId))
    return {
      key: done.key,
      previousSessionId: done.previousSessionId,
      sessionId: done.sessionId,
      archivedTranscript: kept ? sqliteLocator(this.ref.path, done.previousSessionId) : null,
      sessionFile: sqliteLocator(this.ref.path, done.sessionId),
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // The journal's part (sqlite/journal.ts): a write whose rows are captured before and after inside its transaction,
  // recorded before it commits, and the replay of such a step in either direction.

  /** Archive, delete and restore as OpenClaw 2026.9.6 leaves the database (sqlite/lifecycle.ts), journaled when asked. */
  get lifecycle(): SessionLifecycle {
    const agentId = this.ref.agentId
    const db = this.ref.path
    const published = path.join(path.dirname(path.dirname(db)), 'sessions')
    const lastNode = (k: string) => this.snap((d) => d.prepare('SELECT 1 AS x FROM session_nodes WHERE session_key = ?').get(k) !== undefined)
    /**
     * New archive rows published as OpenClaw publishes each (a file byte-identical to its blob beside the live
     * transcripts), recorded in one files step before they are written, their directory synced once after the last,
     * then marked published.
     */
    const publish = async (rows: readonly NewArchiveRow[], scope: RowScope, what: string, journal: JournalEntry | undefined): Promise<void> => {
      if (rows.length === 0) return
      await ensurePrivateDir(published)
      const image = (r: NewArchiveRow) => ({exists: true as const, sha256: hashBytes(r.blob), size: r.blob.length, mode: 0o600, mtimeMs: Date.now()})
      if (journal) await journal.record({kind: 'files', agentId, store: db, label: `${what}: ${rows.length} archive(s) published`, files: rows.map((r) => ({path: path.join(published, r.name), before: ABSENT, after: image(r)}))})
      for (const r of rows) await writeFileAtomic(path.join(published, r.name), r.blob, 0o600, {syncDir: false})
      await fsyncDir(published)
      await this.journaledWrite({scope, label: `${what}: archives marked published`, entry: journal}, (d) => markPublishedTx(d, rows.map((r) => r.name), Date.now()))
    }
    return {
      archive: async (key, opts) => {
        const k = normalizeSessionKey(key)
        const now = (opts.now ?? new Date()).getTime()
        const scope = this.snap((d) => scopeOf(d, [k]))
        if (!lastNode(k)) throw sessionNotFound(k)
        const r = await this.journaledWrite({scope, label: `archive ${k}`, entry: opts.journal}, (d) => archiveTx(d, agentId, k, now))
        return {key: k, ...r}
      },
      archiveRows: async () => this.snap((d) => listArchiveRows(d)),
      budgetInventory: async (keys) => this.snap((d) => budgetInventory(d, keys.map((k) => normalizeSessionKey(k)))),
      dropArchives: async (names, opts, guard = {}) => {
        if (names.length === 0) return []
        const wanted = new Set(names)
        const rows = this.snap((d) => listArchiveRows(d)).filter((r) => wanted.has(r.name))
        // Scoped by the rows' session ids only: an archive row is found by its session id, and a key's live rows (a
        // --keep's key is usually live) are not the step's, so a turn on that key since does not stop its undo.
        const scope = {keys: [], sessionIds: [...new Set(rows.map((r) => r.sessionId))].sort()}
        return this.journaledWrite({scope, label: guard.label ?? `cleanup: ${names.length} archive row(s) evicted for the disk budget`, entry: opts.journal}, (d) => dropArchivesTx(d, names, guard))
      },
      reclaim: async () => this.updateLock.run(this.ref.path, async () => reclaimPages(this.w, (fn) => immediateWrite(this.w, fn))),
      mark: async (marks, opts) => {
        if (marks.length === 0) return []
        const now = (opts.now ?? new Date()).getTime()
        const keys = marks.map((m) => normalizeSessionKey(m.key))
        const scope = this.snap((d) => scopeOf(d, keys))
        return this.journaledWrite({scope, label: `cleanup: ${marks.length} entr${marks.length === 1 ? 'y' : 'ies'} archived`, entry: opts.journal}, (d) => markTx(d, agentId, marks.map((m) => ({...m, key: normalizeSessionKey(m.key)})), now))
      },
      delete: async (key, opts) => {
        const k = normalizeSessionKey(key)
        const now = (opts.now ?? new Date()).getTime()
        const scope = this.snap((d) => scopeOf(d, [k]))
        if (!lastNode(k)) throw sessionNotFound(k)
        const out = await this.journaledWrite({scope, label: `delete ${k}: rows archived and removed`, entry: opts.journal}, (d) => deleteTx(d, k, scope.sessionIds, now, opts.plannedActivityAt))
        if (out.skipped) return {key: k, sessionId: out.sessionId, archived: [], skipped: true}
        await publish(out.rows, scope, `delete ${k}`, opts.journal)
        return {key: k, sessionId: out.sessionId, archived: out.rows.map((r) => archiveLocator(db, r.name))}
      },
      deleteMany: async (items, opts) => {
        const now = (opts.now ?? new Date()).getTime()
        const out: DeleteOutcome[] = []
        for (let i = 0; i < items.length; i += DELETE_CHUNK) {
          // The keys whose session is still the planned one (the others are left out: the caller says "changed"), each
          // with the session ids it had when looked at, which deleteTx holds it to under the lock.
          const chunk = this.snap((d) =>
            items.slice(i, i + DELETE_CHUNK).flatMap((it) => {
              const key = normalizeSessionKey(it.key)
              const hit = entryByKey(d, this.ref.path, key)
              return hit && hit.entry.sessionId === it.sessionId ? [{key, sessionId: it.sessionId, activityAt: it.activityAt, ids: scopeOf(d, [key]).sessionIds}] : []
            }),
          )
          if (chunk.length === 0) continue
          const scope = chunk.reduce((a, c) => unionScope(a, {keys: [c.key], sessionIds: c.ids}), {keys: [], sessionIds: []} as RowScope)
          // One transaction and one journal step for the chunk, where one per key cost ~25 ms each (two transactions,
          // three journal steps and their syncs): a key that moved on meanwhile is left out of it, unwritten (deleteTx
          // checks before it writes), as one by one it failed alone.
          const done = await this.journaledWrite({scope, label: `cleanup: ${chunk.length} session(s) archived into rows and removed`, entry: opts.journal}, (d) =>
            chunk.flatMap((c) => {
              try {
                return [{...c, ...deleteTx(d, c.key, c.ids, now, c.activityAt)}]
              } catch (error) {
                if (error instanceof ClawkitError && (error.code === 'E_SESSION_CHANGED' || error.code === 'E_SESSION_NOT_FOUND')) return []
                throw error
              }
            }),
          )
          await publish(done.flatMap((c) => c.rows), scope, 'cleanup', opts.journal)
          for (const c of done) out.push(c.skipped ? {key: c.key, sessionId: c.sessionId, archived: [], skipped: true} : {key: c.key, sessionId: c.sessionId, archived: c.rows.map((r) => archiveLocator(db, r.name))})
        }
        return out
      },
      previewDelete: async (key, opts) => {
        const k = normalizeSessionKey(key)
        const p = this.snap((d) => previewDelete(d, k, (opts.now ?? new Date()).getTime()))
        return {key: k, sessionId: p.sessionId, archived: p.names.map((n) => archiveLocator(db, n))}
      },
      restore: async (src, opts) => {
        const now = (opts.now ?? new Date()).getTime()
        if (src.key && !src.sessionId && lastNode(normalizeSessionKey(src.key))) {
          const k = normalizeSessionKey(src.key)
          const scope = this.snap((d) => scopeOf(d, [k]))
          const r = await this.journaledWrite({scope, label: `restore ${k}: archivedAt cleared`, entry: opts.journal}, (d) => unarchiveTx(d, agentId, k, now))
          return {key: k, sessionId: r.sessionId, how: 'unarchived', from: null, sessionFile: sqliteLocator(db, r.sessionId)}
        }
        const row = this.snap((d) => findArchiveRow(d, src.sessionId ? {sessionId: src.sessionId} : {key: normalizeSessionKey(src.key!)}))
        if (!row) throw sessionNotFound(src.sessionId ?? src.key!)
        const k = normalizeSessionKey(src.asKey ?? row.key)
        const scope = {keys: [k], sessionIds: [row.sessionId]}
        await this.journaledWrite({scope, label: `restore ${k}: ${row.name}`, entry: opts.journal}, (d) => restoreTx(d, agentId, row, k, now))
        return {key: k, sessionId: row.sessionId, how: row.reason === 'reset' ? 'reset-archive' : 'deleted-archive', from: archiveLocator(db, row.name), sessionFile: sqliteLocator(db, row.sessionId)}
      },
    }
  }

  /** The journal's replays of this store: its rows, and the archive files it publishes beside the database. */
  readonly maintenance: StoreMaintenance = {
    conflicts: async (step, to, source) => {
      if (step.kind === 'files') return filesStepConflicts(step, to)
      if (step.kind === 'rows') return this.rowConflicts(step, to, source)
      throw new ClawkitError(`A ${step.kind} step is not the SQLite store's to replay.`, {code: 'E_INTERNAL'})
    },
    replay: async (step, to, source, keep) => {
      if (step.kind === 'files') return replayFilesStep(step, to, source, keep)
      if (step.kind === 'rows') return this.replayRows(step, to, source)
      throw new ClawkitError(`A ${step.kind} step is not the SQLite store's to replay.`, {code: 'E_INTERNAL'})
    },
  }

  /** Run `fn` holding clawkit's locks of these sessions (sorted, so two writers never wait on each other). */
  private async withSessionLocks<T>(ids: readonly string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(ids)].sort()
    const next = (i: number): Promise<T> => (i >= sorted.length ? fn() : this.sessionLock(sorted[i], () => next(i + 1)))
    return next(0)
  }

  /**
   * One BEGIN IMMEDIATE transaction under the sessions' locks. With a journal entry, every row of `scope` is captured
   * before `fn` and after it, both kept as blobs and the step recorded (synced) before COMMIT: a crash before the
   * commit leaves the rows in the before image, after it in the after image, and the journal knows both.
   */
  async journaledWrite<T>(p: {scope: RowScope; label: string; entry?: JournalEntry; onWait?: TranscriptLockOptions['onWait']}, fn: (db: SqlDatabase) => T): Promise<T> {
    return this.withSessionLocks(p.scope.sessionIds, () =>
      this.updateLock.run(this.ref.path, () => {
        const h = this.w
        return immediateAsync(
          h,
          async () => {
            // The scope is closed over its keys: every window a key has now is in it, since an undo replaces the rows
            // of a key (and the schema's cascades take a window's events with it) and must give all of them back.
            const scope = p.entry ? unionScope(p.scope, scopeOf(h.db, p.scope.keys)) : p.scope
            const before = p.entry ? captureRows(h.db, scope) : undefined
            const result = fn(h.db)
            if (p.entry && before) {
              // Windows the write gave its keys (a restore) join the scope: they had no rows before, so the before
              // image taken over the narrower scope is also the before image of the wider one.
              const full = unionScope(scope, scopeOf(h.db, scope.keys))
              const after = captureRows(h.db, full)
              const b = await p.entry.putBlob(JSON.stringify(before))
              const a = await p.entry.putBlob(JSON.stringify(after))
              await p.entry.record({kind: 'rows', agentId: this.ref.agentId, store: this.ref.path, label: p.label, scope: full, before: {blob: b, hash: rowImageHash(before)}, after: {blob: a, hash: rowImageHash(after)}})
            }
            return result
          },
          this.waitFor(p.onWait),
        )
      }),
    )
  }

  /** Why a replay of this step to `to` would be refused now (empty: it would not). */
  async rowConflicts(step: RowsStep, to: 'before' | 'after', entry: JournalEntry): Promise<string[]> {
    const now = this.snap((db) => captureRows(db, step.scope))
    const hash = rowImageHash(now)
    if (hash === step.before.hash || hash === step.after.hash) return []
    const leaving = JSON.parse((await entry.readBlob((to === 'before' ? step.after : step.before).blob)).toString('utf8')) as RowImage
    const want = JSON.parse((await entry.readBlob((to === 'before' ? step.before : step.after).blob)).toString('utf8')) as RowImage
    if (rowsMatch(now, '', leaving) || rowsMatch(now, '', want)) return []
    return [`${step.label}: the rows of ${step.scope.keys.join(', ') || step.scope.sessionIds.join(', ')} changed since (${describeRowDifference(now, leaving).join('; ')})`]
  }

  /** Move the step's rows to its `to` image in one transaction (nothing when they are there already); refused when they match neither image. */
  async replayRows(step: RowsStep, to: 'before' | 'after', entry: JournalEntry): Promise<void> {
    const want = JSON.parse((await entry.readBlob((to === 'before' ? step.before : step.after).blob)).toString('utf8')) as RowImage
    const leaving = JSON.parse((await entry.readBlob((to === 'before' ? step.after : step.before).blob)).toString('utf8')) as RowImage
    const wantHash = to === 'before' ? step.before.hash : step.after.hash
    const leavingHash = to === 'before' ? step.after.hash : step.before.hash
    await this.withSessionLocks(step.scope.sessionIds, () =>
      this.updateLock.run(this.ref.path, () => {
        const h = this.w
        return immediateAsync(h, () => {
          const now = captureRows(h.db, step.scope)
          if (rowsMatch(now, wantHash, want)) return
          if (!rowsMatch(now, leavingHash, leaving)) {
            throw new ClawkitError(`Cannot undo ${step.label}: the rows of ${step.scope.keys.join(', ') || step.scope.sessionIds.join(', ')} changed since (${describeRowDifference(now, leaving).join('; ')}). Nothing was changed.`, {code: 'E_UNDO_CONFLICT'})
          }
          writeRowImage(h.db, step.scope, now, want, leaving)
        })
      }),
    )
  }
}
