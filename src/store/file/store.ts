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
import {ABSENT, type FileImage, type FilesStep, hashBytes, type JournalEntry} from '../journal.js'
import {fileImage, filesStepConflicts, replayFilesStep} from '../journal-files.js'
import type {FoundEntry, IdempotencyHit, LineSpan, LockedTranscript, MarkCheck, RawLineFilter, SessionEntry, SessionStore, SessionStoreData, StoreCapabilities, StoreMaintenance, StoreRef, TailOptions, TranscriptLine, TranscriptLockOptions, TranscriptMark, TranscriptReadResult, TranscriptRef, TranscriptSince, UpdateOptions} from '../types.js'
import {readTranscriptForContext} from './context-read.js'
import {MAX_WHOLE_INDEX_BYTES, parseStoreText, readStoreFile, serializeStore, STORE_FILE, unreadableStore} from './index-text.js'
import {indexConflicts, journaledIndexUpdate, replayIndex} from './journal.js'
import {fileLifecycle} from './lifecycle.js'
import type {SessionLifecycle} from '../lifecycle.js'
import {grepFileLines, grepFileSpans} from './grep-scan.js'
import {readTranscriptHeaderSync} from './header-sync.js'
import {findIdempotencyKey} from './idempotency.js'
import {isEntryObject, projectEntries, readStoreEntry, visitEntries} from './index-scan.js'
import {JsonLayoutStore} from './layout-store.js'
import {parseArchiveName, type LineageSource} from './lineage.js'
import {fileListingToken} from './listing-token.js'
import {readTranscriptSince, sameSource, streamTranscriptLines, trajectoryKey} from './transcript-stream.js'
import {appendEntriesLocked, isTranscriptFileName, resolveTranscriptPath, tailTranscript, TRANSCRIPT_FILE} from './transcript.js'

export * from './index-text.js'

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

  transcriptFile(t: TranscriptRef): string {
    return t.locator
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

  /** update() recorded in a journal entry ahead of the write (file/journal.ts). */
  journaledUpdate<T>(mutator: (data: SessionStoreData) => T | Promise<T>, entry: JournalEntry | undefined, label: string, opts: UpdateOptions = {}): Promise<T> {
    this.refuseSqliteEra()
    return journaledIndexUpdate({file: this.ref.path, agentId: this.ref.agentId, label, entry, lockTimeoutMs: opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS}, async (data) => {
      this.refuseSqliteEra()
      return mutator(data)
    })
  }

  /** Record a files step: each path from what it is now to `after`, under these transcripts' locks. */
  async recordFiles(entry: JournalEntry, label: string, files: {path: string; after: FileImage | 'same-as'; sameAs?: string}[], locks: string[]): Promise<FilesStep> {
    const now = new Map<string, FileImage>()
    for (const f of files) now.set(f.path, await fileImage(f.path))
    for (const f of files) if (f.sameAs && !now.has(f.sameAs)) now.set(f.sameAs, await fileImage(f.sameAs))
    const out = files.map((f) => ({path: f.path, before: now.get(f.path)!, after: f.after === 'same-as' ? now.get(f.sameAs!)! : f.after}))
    return (await entry.record({kind: 'files', agentId: this.ref.agentId, store: this.ref.path, label, files: out, locks})) as FilesStep
  }

  /** A reset's file moves, recorded before they happen: the new header-only transcript, the old one to its archive. */
  private async journalMoves(entry: JournalEntry, label: string, p: {created: string; header: object; archived: {from: string; to: string}}): Promise<void> {
    const text = `${JSON.stringify(p.header)}\n`
    const created: FileImage = {exists: true, sha256: hashBytes(text), size: Buffer.byteLength(text), mode: FILE_MODE, mtimeMs: Date.now()}
    // Only whether the old transcript is there: recordFiles hashes it (its before image), once; a second hash here read
    // the whole transcript again on every journaled reset.
    // (Anything but a regular file there makes recordFiles refuse, as before.)
    const oldExists = await fsp.lstat(p.archived.from).then(
      () => true,
      () => false,
    )
    const existing = await fileImage(p.created)
    const files: {path: string; after: FileImage | 'same-as'; sameAs?: string}[] = [{path: p.created, after: existing.exists ? existing : created}]
    if (oldExists && p.archived.from !== p.created) files.push({path: p.archived.from, after: ABSENT}, {path: p.archived.to, after: 'same-as', sameAs: p.archived.from})
    await this.recordFiles(entry, label, files, [p.archived.from, p.created])
  }

  /** Archive, delete and restore as OpenClaw leaves the JSON layout (file/lifecycle.ts), journaled when asked. */
  get lifecycle(): SessionLifecycle {
    this.refuseSqliteEra()
    return fileLifecycle({
      sessionsDir: this.sessionsDir,
      findEntry: (key) => this.findEntry(key),
      read: () => this.read(),
      transcriptOf: (entry, key) => this.transcriptOf(entry, key),
      update: (mutator, journal) => (journal ? this.journaledUpdate(mutator, journal.entry, journal.label) : this.update(mutator)),
      recordFiles: (entry, label, files, locks) => this.recordFiles(entry, label, files, locks),
      sessionsOf: (key) => this.sessionsOf(key),
      allSessions: () => this.allSessions(),
    })
  }

  /** The journal's replays of this layout: its files and its index. */
  readonly maintenance: StoreMaintenance = {
    conflicts: async (step, to) => {
      if (step.kind === 'files') return filesStepConflicts(step, to)
      if (step.kind === 'index') return (await indexConflicts(step, to)).map((c) => `${step.label}: ${c.reason}`)
      throw new ClawkitError(`A ${step.kind} step is not the JSON layout's to replay.`, {code: 'E_INTERNAL'})
    },
    replay: async (step, to, source, keep) => {
      if (step.kind === 'files') return replayFilesStep(step, to, source, keep)
      if (step.kind === 'index') return replayIndex(step, to, source, keep)
      throw new ClawkitError(`A ${step.kind} step is not the JSON layout's to replay.`, {code: 'E_INTERNAL'})
    },
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
      update: (mutator, journal) => (journal ? this.journaledUpdate(mutator, journal.entry, journal.label) : this.update(mutator)),
      lockTranscript: (file, fn) => withLock(file, fn),
      journalMoves: (entry, label, p) => this.journalMoves(entry, label, p),
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
