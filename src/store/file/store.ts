// The embedded backend: OpenClaw's sessions.json, read without a lock and rewritten atomically under sessions.json.lock.
import fs from 'node:fs'
import type {FileHandle} from 'node:fs/promises'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {ClawkitError, CorruptFileError, fileError, jsonErrorPosition} from '../../errors.js'
import {FileTooLargeError, NotRegularFileError, openRegular, readRegularFile, regularFileSize} from '../../os/safe-open.js'
import {stripBom} from '../../text/bom.js'
import {findEntryIn} from '../entry-lookup.js'
import {SqliteStoreError} from '../era.js'
import {appendDurable, ensurePrivateDir, FILE_MODE, isEnoent, writeFileAtomic} from '../fs-util.js'
import {emptyStoreData} from '../index-data.js'
import {DEFAULT_LOCK_TIMEOUT_MS, withLock} from '../lock.js'
import {renameForNewSessionId, type ResetBackend} from '../reset.js'
import {isSafeSessionId, transcriptFileName} from '../session-id.js'
import {transcriptTopicId} from '../session-key.js'
import type {FoundEntry, IdempotencyHit, LineSpan, LockedTranscript, MarkCheck, RawLineFilter, SessionEntry, SessionStore, SessionStoreData, StoreCapabilities, StoreRef, TailOptions, TranscriptLine, TranscriptLockOptions, TranscriptMark, TranscriptReadResult, TranscriptRef, TranscriptSince, UpdateOptions} from '../types.js'
import {readTranscriptForContext} from './context-read.js'
import {grepFileLines, grepFileSpans} from './grep-scan.js'
import {readTranscriptHeaderSync} from './header-sync.js'
import {findIdempotencyKey} from './idempotency.js'
import {isEntryObject, projectEntries, readStoreEntry, visitEntries} from './index-scan.js'
import {JsonLayoutStore} from './layout-store.js'
import {parseArchiveName, type LineageSource} from './lineage.js'
import {fileListingToken} from './listing-token.js'
import {readTranscriptSince, sameSource, streamTranscriptLines, trajectoryKey} from './transcript-stream.js'
import {appendEntriesLocked, isTranscriptFileName, resolveTranscriptPath, tailTranscript, TRANSCRIPT_FILE} from './transcript.js'

/**
 * Exactly OpenClaw's serialization: JSON.stringify(store, null, 2), no trailing newline. JSON.parse reads arrays nested
 * hundreds of thousands deep, but JSON.stringify recurses and gives up after a few thousand levels ("Maximum call stack
 * size exceeded"); OpenClaw's own writer fails on such a row the same way. The row is named so that the user can fix
 * it: writers refuse (nothing is written) rather than drop a row they cannot write back.
 */
export function serializeStore(data: SessionStoreData, file = 'sessions.json'): string {
  try {
    return JSON.stringify(data, null, 2)
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    let row: string | undefined
    for (const key of Object.keys(data)) {
      try {
        JSON.stringify(data[key])
      } catch {
        row = key
        break
      }
    }
    const which = row === undefined ? 'a row' : `the row ${JSON.stringify(row.length > 120 ? `${row.slice(0, 120)}…` : row)}`
    throw new ClawkitError(`Cannot write ${file}: ${which} is nested too deeply to be written back as JSON (thousands of levels). Nothing was written. Remove or flatten that row by hand (its transcript is not affected).`, {code: 'E_STORE_TOO_DEEP', cause: error})
  }
}

/** Parse sessions.json text; an unparseable or non-object file is a CorruptFileError, never an empty store. */
export function parseStoreText(text: string, file: string): SessionStoreData {
  // After a byte order mark OpenClaw 2026.4.27 reads the whole index as empty and overwrites it on its next save;
  // clawkit reads past it, so that nothing treats a readable index as broken. A rewrite drops it (as OpenClaw's does).
  text = stripBom(text)
  // A 0-byte file is what a crash mid-write leaves behind (openclaw#77783); it holds no sessions but it is not a
  // healthy store either, so it is reported rather than silently read as empty.
  if (text.trim() === '') throw new CorruptFileError(file, 'the file is empty')
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    // V8 quotes the bytes around the error ("root:*:202"... is not valid JSON); the position is enough, and the quote
    // would copy file content (control characters, secrets from a wrongly named file) into the message.
    const detail = (error as Error).message.replace(/ in JSON at position \d+.*$/s, '').replace(/, ".*is not valid JSON$/s, '')
    throw new CorruptFileError(file, detail, jsonErrorPosition(text, error))
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new CorruptFileError(file, `the top level is ${Array.isArray(parsed) ? 'an array' : String(parsed === null ? 'null' : typeof parsed)}, expected an object of session entries`)
  }
  // The parsed object is fresh and ours: dropping its prototype costs nothing, where a copy into a new null-prototype
  // object cost ~5 ms and as much again in garbage collection on a 10k-session index (sessions list's hot path).
  // JSON.parse already made a "__proto__" key an own property; it stays one.
  return Object.setPrototypeOf(parsed, null) as SessionStoreData
}

/**
 * The most a sessions.json read as a whole may hold: V8 cannot make a string much longer (2^29 - 24 characters), so a
 * larger index could not be parsed by OpenClaw either. Larger files in OpenClaw's layout are scanned in chunks.
 */
export const MAX_WHOLE_INDEX_BYTES = 500 * 1024 * 1024

/** Advice for a sessions.json path that is not a regular file. */
const STORE_ADVICE = 'Point --store or session.store at a sessions.json file, or move this one out of the way (clawkit then sees no sessions).'

export const STORE_FILE = {what: 'Session store', advice: STORE_ADVICE, maxBytes: MAX_WHOLE_INDEX_BYTES}

/** EISDIR, EACCES, ENAMETOOLONG…: name the file and the reason instead of a bare errno message. */
export function unreadableStore(file: string, error: unknown): ClawkitError {
  // Already says which file and what to do.
  if (error instanceof NotRegularFileError || error instanceof FileTooLargeError) return error
  const e = error as NodeJS.ErrnoException
  const why = e.code === 'EISDIR' ? 'it is a directory' : e.code === 'EACCES' ? 'permission denied' : (e.code ?? e.message)
  return new ClawkitError(`Cannot read session store ${file}: ${why}. Point --store or session.store at a sessions.json file.`, {code: 'E_STORE_UNREADABLE', cause: error})
}

export async function readStoreFile(file: string): Promise<{data: SessionStoreData; text?: string; exists: boolean}> {
  let text: string
  try {
    text = (await readRegularFile(file, STORE_FILE)).toString('utf8')
  } catch (error) {
    if (isEnoent(error)) return {data: emptyStoreData(), exists: false}
    throw unreadableStore(file, error)
  }
  return {data: parseStoreText(text, file), text, exists: true}
}

/** Stores below this size are simply parsed whole; above it a key lookup scans for the one entry. */
const FAST_LOOKUP_MIN_BYTES = 1024 * 1024

export interface FileStoreOptions {
  /** The agent's SQLite-era database, if it has one now: update() then refuses (src/store/era.ts). */
  sqliteStore?: () => string | undefined
}

export class FileSessionStore extends JsonLayoutStore implements SessionStore {
  /** Its files' stats tell what changed (listingToken, unchangedSince); spans are read back by byte offset. */
  override readonly capabilities: StoreCapabilities = {fullText: false, contentIndex: false, changeTracking: true}
  readonly ref: StoreRef
  private readonly opts: FileStoreOptions

  constructor(ref: StoreRef, opts: FileStoreOptions = {}) {
    super()
    this.ref = ref
    this.opts = opts
  }

  async read(): Promise<SessionStoreData> {
    return (await readStoreFile(this.ref.path)).data
  }

  /**
   * One entry without parsing a large index whole (a 10k-session index of real OpenClaw entries is ~170 MB; parsing it
   * costs ~1 s and ~550 MiB): a key stored exactly as given is found by a chunked scan. Otherwise (small or unusually
   * formatted file, key absent or spelled in mixed case) the one whole parse is searched with OpenClaw's fold. A hit
   * from the scan wins even if a legacy spelling of the key were newer; OpenClaw's own writers delete those spellings.
   * Both read the same open file, so an atomic replace in between cannot mix two versions.
   */
  async findEntry(key: string): Promise<FoundEntry | undefined> {
    let fh: FileHandle
    let size: number
    try {
      ;({fh, stat: {size}} = await openRegular(this.ref.path, STORE_FILE))
    } catch (error) {
      if (isEnoent(error)) return undefined
      throw unreadableStore(this.ref.path, error)
    }
    let text: string
    try {
      if (size >= FAST_LOOKUP_MIN_BYTES) {
        const hit = await readStoreEntry(fh, size, key)
        if (hit) return {storedKey: key, entry: hit}
      }
      if (size > MAX_WHOLE_INDEX_BYTES) throw new FileTooLargeError(this.ref.path, size, MAX_WHOLE_INDEX_BYTES, STORE_FILE)
      text = (await fh.readFile()).toString('utf8')
    } catch (error) {
      throw unreadableStore(this.ref.path, error)
    } finally {
      // Closed before the parse: an open handle can make a writer's rename over the file fail on Windows.
      await fh.close()
    }
    return findEntryIn(parseStoreText(text, this.ref.path), key)
  }

  async readRows<T>(project: (key: string, entry: SessionEntry) => T): Promise<Map<string, T>> {
    // Only the reading is reported as an unreadable store; an error of `project` (a caller's bug) passes through.
    let projectError: unknown
    const guarded = (key: string, entry: unknown): T | undefined => {
      if (!isEntryObject(entry)) return undefined
      try {
        return project(key, entry)
      } catch (error) {
        projectError = error
        throw error
      }
    }
    try {
      return (await projectEntries(this.ref.path, guarded, (text) => parseStoreText(text, this.ref.path), {file: STORE_FILE})) ?? new Map()
    } catch (error) {
      if (error instanceof CorruptFileError || (projectError !== undefined && error === projectError)) throw error
      throw unreadableStore(this.ref.path, error)
    }
  }

  async eachEntry(visit: (key: string, entry: SessionEntry) => void | Promise<void>): Promise<void> {
    let visitError: unknown
    const guarded = async (key: string, entry: SessionEntry) => {
      try {
        await visit(key, entry)
      } catch (error) {
        visitError = error
        throw error
      }
    }
    try {
      await visitEntries(this.ref.path, guarded, (text) => parseStoreText(text, this.ref.path), {file: STORE_FILE})
    } catch (error) {
      // Only the reading is reported as an unreadable store; the visitor's own error (a failed upload) passes through.
      if (error instanceof CorruptFileError || (visitError !== undefined && error === visitError)) throw error
      throw unreadableStore(this.ref.path, error)
    }
  }

  private refuseSqliteEra(): void {
    const db = this.opts.sqliteStore?.()
    if (db) throw new SqliteStoreError(this.ref.agentId, db)
  }

  async update<T>(mutator: (data: SessionStoreData) => T | Promise<T>, opts: UpdateOptions = {}): Promise<T> {
    // Before the lock too: taking it would create sessions.json.lock beside the database.
    this.refuseSqliteEra()
    return withLock(
      this.ref.path,
      async () => {
        // Inside the lock as well: OpenClaw may have migrated the agent since the caller looked.
        this.refuseSqliteEra()
        const {data, text} = await readStoreFile(this.ref.path)
        const result = await mutator(data)
        const next = serializeStore(data, this.ref.path)
        // Same skip as OpenClaw: an unchanged store is not rewritten (keeps mtime, avoids needless I/O). A leading BOM
        // alone is no change; a real change drops it with the rest of the old text.
        if (text === undefined || next !== stripBom(text)) await writeFileAtomic(this.ref.path, next)
        return result
      },
      {timeoutMs: opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS, onWait: opts.onWait},
    )
  }

  // Transcripts: thin wrappers over transcript.ts, context-read.ts and lock.ts, which hold the byte-level rules.

  /** The directory transcripts of this store live in: always dirname(sessions.json). */
  private get sessionsDir(): string {
    return path.dirname(this.ref.path)
  }

  transcriptOf(entry: Pick<SessionEntry, 'sessionId' | 'sessionFile'>, key?: string): TranscriptRef {
    const r = resolveTranscriptPath(this.sessionsDir, entry, key)
    return {locator: r.path, location: r.location, exists: r.exists, ...(r.storedSessionFile === undefined ? {} : {storedSessionFile: r.storedSessionFile})}
  }

  newSessionFile(sessionId: string, key: string): string {
    return path.join(this.sessionsDir, transcriptFileName(sessionId, transcriptTopicId(key)))
  }

  async tail(t: TranscriptRef, opts: TailOptions): Promise<TranscriptReadResult | undefined> {
    try {
      return await tailTranscript(t.locator, opts)
    } catch (error) {
      if (isEnoent(error)) return undefined
      throw error
    }
  }

  async withTranscript<T>(t: TranscriptRef, fn: (tx: LockedTranscript) => Promise<T>, opts: TranscriptLockOptions = {}): Promise<T> {
    const file = t.locator
    // Before the lock file exists, and again at each write (OpenClaw may migrate the agent meanwhile): a JSON-era
    // transcript beside a SQLite-era database is a fork OpenClaw would later import.
    this.refuseSqliteEra()
    const tx: LockedTranscript = {
      ref: t,
      // A FIFO here reads as size 0 through stat, and an append would then block on it for good.
      readContext: async () => (((await regularFileSize(file, TRANSCRIPT_FILE)) ?? 0) === 0 ? undefined : readTranscriptForContext(file)),
      append: (items, o = {}) => {
        this.refuseSqliteEra()
        return appendEntriesLocked(file, items, o)
      },
      write: async (lines, o = {}) => {
        this.refuseSqliteEra()
        await ensurePrivateDir(path.dirname(file))
        const text = (o.fenceTornLine ? '\n' : '') + lines.map((l) => `${JSON.stringify(l)}\n`).join('')
        await appendDurable(file, text, FILE_MODE, TRANSCRIPT_FILE)
      },
      findIdempotencyKey: (key) => findIdempotencyKey(file, key),
    }
    return withLock(file, () => fn(tx), {timeoutMs: opts.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS, signal: opts.signal, onWait: opts.onWait})
  }

  findIdempotencyKey(t: TranscriptRef, key: string): Promise<IdempotencyHit | undefined> {
    return findIdempotencyKey(t.locator, key)
  }

  /** The sessions dir's archives and orphans, listed once per lineage walk. */
  protected lineageSource(): (isOrphan: (name: string) => boolean) => LineageSource {
    const dir = this.sessionsDir
    let listed: string[] | undefined
    const names = async () => {
      try {
        listed ??= await fsp.readdir(dir)
      } catch (error) {
        if (!isEnoent(error)) throw error
        listed = []
      }
      return listed
    }
    const candidate = (n: string) => ({name: n, ref: {locator: path.join(dir, n), location: 'derived' as const, exists: true}})
    return (isOrphan) => ({
      archives: async () => (await names()).filter((n) => parseArchiveName(n)).map(candidate),
      orphans: async () => (await names()).filter((n) => isTranscriptFileName(n) && isOrphan(n)).map(candidate),
      header: async (t) => {
        try {
          return readTranscriptHeaderSync(t.locator)
        } catch {
          return undefined
        }
      },
      sidecarKey: async (sessionId) => (isSafeSessionId(sessionId) ? trajectoryKey(path.join(dir, `${sessionId.trim()}.trajectory.jsonl`)) : undefined),
    })
  }

  readLines(t: TranscriptRef): AsyncIterable<TranscriptLine> {
    return streamTranscriptLines(t.locator)
  }

  grepLines(t: TranscriptRef, filter: RawLineFilter): AsyncIterable<TranscriptLine> {
    return grepFileLines(t.locator, filter)
  }

  readSince(t: TranscriptRef, mark?: TranscriptMark, opts?: {verify?: MarkCheck}): Promise<TranscriptSince> {
    return readTranscriptSince(t.locator, mark, opts)
  }

  override grepSpans(t: TranscriptRef, spans: readonly LineSpan[], filter?: RawLineFilter): AsyncIterable<TranscriptLine> {
    return grepFileSpans(t.locator, spans, filter)
  }

  /** One stat per transcript, synchronously: thousands of them cost a few milliseconds, where each await would cost more. */
  override async unchangedSince(items: readonly {t: TranscriptRef; mark: TranscriptMark}[]): Promise<boolean[]> {
    return items.map(({t, mark}) => {
      if (mark.bytes === undefined || mark.size === undefined) return false
      try {
        const st = fs.statSync(t.locator)
        return st.isFile() && sameSource(mark, st)
      } catch {
        return false
      }
    })
  }

  override transcriptBytes(t: TranscriptRef): number | undefined {
    try {
      const st = fs.statSync(t.locator)
      return st.isFile() ? st.size : undefined
    } catch {
      return undefined
    }
  }

  override listingToken(prev?: string): Promise<{token: string; changed: boolean}> {
    return fileListingToken({indexFile: this.ref.path, sessionsDir: this.sessionsDir, readRows: (project) => this.readRows(project)}, prev)
  }

  protected resetBackend(): ResetBackend {
    return {
      findEntry: (key) => this.findEntry(key),
      transcriptOf: (entry, key) => this.transcriptOf(entry, key),
      transcriptPresent: (t) => {
        try {
          return fs.statSync(t.locator).isFile()
        } catch {
          return false
        }
      },
      renamedFor: (old, oldId, newId) => path.join(this.sessionsDir, renameForNewSessionId(path.basename(old.locator), oldId, newId)),
      update: (mutator) => this.update(mutator),
      lockTranscript: (file, fn) => withLock(file, fn),
      // 0600, and never over a transcript someone else created meanwhile.
      createTranscript: async (file, header) => {
        await fsp.writeFile(file, `${JSON.stringify(header)}\n`, {flag: 'wx', mode: FILE_MODE}).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw fileError(error, file, 'create the new transcript')
        })
      },
      archiveTranscript: async (file, to) => {
        if (!fs.existsSync(file)) return false
        await fsp.rename(file, to)
        return true
      },
      assertWritable: () => this.refuseSqliteEra(),
    }
  }
}
