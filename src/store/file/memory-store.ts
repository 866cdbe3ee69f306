// The in-memory twin of the file backend: the same SessionStore contract, with rows and entries kept as JSON values.
// Used by tests (test/store/contract.test.ts runs the same cases on both), never by the CLI.
import {FileSystemError} from '../../errors.js'
import {ChainMutexes} from '../chain-mutex.js'
import {compileGrep} from '../grep.js'
import {sha256} from '../../util/hash.js'

import {pathToLeaf} from '../context.js'
import {findEntryIn} from '../entry-lookup.js'
import {renameForNewSessionId, type ResetBackend} from '../reset.js'
import {transcriptTopicId} from '../session-key.js'
import {parseArchiveName, type LineageSource} from './lineage.js'
import {isTranscriptFileName} from './transcript.js'
import {headerVersion} from '../transcript-migrations.js'
import type {TranscriptEntry, TranscriptHeader} from '../transcript-types.js'
import {JsonLayoutStore} from './layout-store.js'
import type {AppendResult, FoundEntry, IdempotencyHit, LockedTranscript, NewEntry, RawLineFilter, SessionEntry, SessionStore, SessionStoreData, StoreRef, TailOptions, TranscriptAppendOptions, TranscriptLine, TranscriptLockOptions, TranscriptMark, TranscriptReadResult, TranscriptRef, TranscriptSince} from '../types.js'
import {chainEntries, idempotencyHitOf, isHeader} from '../entries.js'
import {storeDataFrom} from '../index-data.js'
import {badEntrySessionId, isSafeSessionId, transcriptFileName} from '../session-id.js'

/** A JSON value copied, as a write to disk and a read back would copy it: no caller ever shares an object with the store. */
function copy<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T
}

export interface MemoryStoreOptions {
  /** Rows to start with (copied). */
  index?: SessionStoreData
  /** Transcripts to start with, by locator: the header first, then the entries (copied). */
  transcripts?: Record<string, readonly object[]>
}

export class MemorySessionStore extends JsonLayoutStore implements SessionStore {
  readonly ref: StoreRef
  private index: SessionStoreData | undefined
  /** Locator → header and entries, in order. */
  private readonly transcripts = new Map<string, object[]>()
  private readonly locks = new ChainMutexes()
  private readonly prefix: string

  constructor(agentId: string, opts: MemoryStoreOptions = {}) {
    super()
    this.prefix = `memory:${agentId}/`
    this.ref = {agentId, path: `${this.prefix}sessions.json`}
    this.index = opts.index ? storeDataFrom(copy(opts.index)) : undefined
    for (const [k, lines] of Object.entries(opts.transcripts ?? {})) this.transcripts.set(k, copy([...lines]))
  }

  /** The locator of a transcript named `name` in this store (what the file backend's path is to its sessions dir). */
  locatorOf(name: string): string {
    return this.prefix + name
  }

  /** The stored lines of a transcript (copies), for tests; undefined when there is none. */
  lines(locator: string): object[] | undefined {
    const t = this.transcripts.get(locator)
    return t && copy(t)
  }

  /** Store lines under a locator as a file would hold them (an archive OpenClaw left, a sidecar), for tests. */
  put(locator: string, lines: readonly object[]): void {
    this.transcripts.set(locator, copy([...lines]))
  }

  async read(): Promise<SessionStoreData> {
    return storeDataFrom(copy(this.index ?? {}))
  }

  async findEntry(key: string): Promise<FoundEntry | undefined> {
    return findEntryIn(await this.read(), key)
  }

  async readRows<T>(project: (key: string, entry: SessionEntry) => T): Promise<Map<string, T>> {
    const out = new Map<string, T>()
    for (const [k, e] of Object.entries(await this.read())) if (e && typeof e === 'object' && !Array.isArray(e)) out.set(k, project(k, e))
    return out
  }

  async eachEntry(visit: (key: string, entry: SessionEntry) => void | Promise<void>): Promise<void> {
    for (const [k, e] of Object.entries(await this.read())) if (e && typeof e === 'object' && !Array.isArray(e)) await visit(k, e)
  }

  update<T>(mutator: (data: SessionStoreData) => T | Promise<T>): Promise<T> {
    return this.locks.run(this.ref.path, async () => {
      const data = await this.read()
      const result = await mutator(data)
      this.index = storeDataFrom(copy(data))
      return result
    })
  }

  transcriptOf(entry: Pick<SessionEntry, 'sessionId' | 'sessionFile'>, key?: string): TranscriptRef {
    const stored = typeof entry.sessionFile === 'string' ? entry.sessionFile.trim() : ''
    // As in the file layout: a sessionFile is used only when it names a transcript of this store.
    if (stored.startsWith(this.prefix) && isTranscriptFileName(stored.slice(this.prefix.length))) {
      return {locator: stored, location: 'session-file', exists: this.transcripts.has(stored)}
    }
    // A sessionFile of another place (a copied state dir) whose transcript name exists here: used, as the file layout does.
    const base = stored.slice(Math.max(stored.lastIndexOf('/'), stored.lastIndexOf('\\')) + 1)
    if (stored && isTranscriptFileName(base) && this.transcripts.has(this.locatorOf(base))) {
      return {locator: this.locatorOf(base), location: 'relocated', exists: true, storedSessionFile: stored}
    }
    const sessionId = typeof entry.sessionId === 'string' ? entry.sessionId : ''
    if (!isSafeSessionId(sessionId)) throw badEntrySessionId(sessionId, key)
    const extra = stored ? {storedSessionFile: stored} : {}
    const topic = key ? transcriptTopicId(key) : undefined
    if (topic) {
      const topicLocator = this.locatorOf(transcriptFileName(sessionId, topic))
      if (this.transcripts.has(topicLocator)) return {locator: topicLocator, location: 'derived', exists: true, ...extra}
    }
    const plain = this.locatorOf(transcriptFileName(sessionId))
    return {locator: plain, location: 'derived', exists: this.transcripts.has(plain), ...extra}
  }

  newSessionFile(sessionId: string, key: string): string {
    return this.locatorOf(transcriptFileName(sessionId, transcriptTopicId(key)))
  }

  async tail(t: TranscriptRef, opts: TailOptions): Promise<TranscriptReadResult | undefined> {
    const lines = this.transcripts.get(t.locator)
    if (!lines) return undefined
    const [header, ...entries] = copy(lines) as [TranscriptHeader, ...TranscriptEntry[]]
    const count = opts.count ?? (() => true)
    let counted = 0
    let start = entries.length
    while (start > 0 && counted < opts.limit) {
      start--
      if (count(entries[start])) counted++
    }
    const before = entries.slice(0, start)
    const window = entries.slice(start)
    const size = lines.reduce((n, l) => n + Buffer.byteLength(JSON.stringify(l)) + 1, 0)
    return {
      file: t.locator,
      header,
      version: headerVersion(header),
      entries: window,
      rawLines: window.map((e) => JSON.stringify(e)),
      badLines: [],
      duplicateHeaders: 0,
      badHeader: false,
      missingFinalNewline: false,
      size,
      partial: opts.exactPartial ? before.some((e) => count(e)) : before.length > 0,
    }
  }

  withTranscript<T>(t: TranscriptRef, fn: (tx: LockedTranscript) => Promise<T>, opts: TranscriptLockOptions = {}): Promise<T> {
    const locator = t.locator
    const tx: LockedTranscript = {
      ref: t,
      readContext: async () => {
        const lines = this.transcripts.get(locator)
        if (!lines || lines.length === 0) return undefined
        const [header, ...entries] = copy(lines) as [TranscriptHeader, ...TranscriptEntry[]]
        return {header, badHeader: false, missingFinalNewline: false, entries, path: pathToLeaf(entries), stubs: 0}
      },
      append: async (items, o = {}) => this.appendLocked(locator, items, o),
      write: async (lines) => {
        const list = this.transcripts.get(locator) ?? []
        list.push(...copy([...lines]))
        this.transcripts.set(locator, list)
      },
      findIdempotencyKey: (key) => this.findIdempotencyKey(t, key),
    }
    return this.locks.run(locator, () => fn(tx), opts.signal)
  }

  private appendLocked(locator: string, items: NewEntry[], opts: TranscriptAppendOptions): AppendResult {
    const list = this.transcripts.get(locator) ?? []
    let created = false
    if (list.length === 0) {
      if (!opts.header) throw new Error(`cannot create ${locator} without a session header`)
      list.push(copy(opts.header))
      created = true
    }
    const prior = list.slice(1) as TranscriptEntry[]
    const leaf = [...prior].reverse().find((e) => typeof e.id === 'string')?.id ?? null
    const entries = chainEntries(items, leaf, new Set(prior.map((e) => e.id)), opts.now)
    list.push(...copy(entries))
    this.transcripts.set(locator, list)
    return {entries, created}
  }

  async findIdempotencyKey(t: TranscriptRef, key: string): Promise<IdempotencyHit | undefined> {
    for (const line of this.transcripts.get(t.locator) ?? []) {
      const hit = idempotencyHitOf(line, key)
      if (hit) return copy(hit)
    }
    return undefined
  }

  protected lineageSource(): (isOrphan: (name: string) => boolean) => LineageSource {
    const nameOf = (locator: string) => locator.slice(this.prefix.length)
    const candidates = (keep: (name: string) => boolean) =>
      [...this.transcripts.keys()].filter((l) => keep(nameOf(l))).map((l) => ({name: nameOf(l), ref: {locator: l, location: 'derived' as const, exists: true}}))
    return (isOrphan) => ({
      archives: async () => candidates((n) => parseArchiveName(n) !== undefined),
      orphans: async () => candidates((n) => isTranscriptFileName(n) && isOrphan(n)),
      header: async (t) => {
        const first = this.transcripts.get(t.locator)?.[0]
        return isHeader(first) ? copy(first) : undefined
      },
      sidecarKey: async (sessionId) => {
        const first = this.transcripts.get(this.locatorOf(`${sessionId}.trajectory.jsonl`))?.[0] as {sessionKey?: unknown} | undefined
        return typeof first?.sessionKey === 'string' ? first.sessionKey : undefined
      },
    })
  }

  async *readLines(t: TranscriptRef): AsyncIterable<TranscriptLine> {
    const lines = this.transcripts.get(t.locator)
    if (!lines) throw new FileSystemError(t.locator, 'read the transcript', Object.assign(new Error('ENOENT: no such file or directory'), {code: 'ENOENT', syscall: 'open'}))
    let n = 0
    for (const l of lines) {
      n++
      yield {line: n, raw: JSON.stringify(l), value: copy(l) as Record<string, unknown>}
    }
  }

  /** The lines are stored as values: their text is JSON.stringify's, which the needles are looked for in. */
  async *grepLines(t: TranscriptRef, filter: RawLineFilter): AsyncIterable<TranscriptLine> {
    const grep = compileGrep(filter)
    for await (const l of this.readLines(t)) if (grep.test(l.raw) || (filter.unreadable && l.bad)) yield l
  }

  /**
   * The file layout's rules on the lines as a file would hold them (one JSON text and a newline each): the mark covers a
   * prefix by its length and sha256. There is no mtime, so every call hashes the prefix again (it is all in memory).
   */
  async readSince(t: TranscriptRef, mark?: TranscriptMark): Promise<TranscriptSince> {
    const stored = this.transcripts.get(t.locator)
    if (!stored) throw new FileSystemError(t.locator, 'read the transcript', Object.assign(new Error('ENOENT: no such file or directory'), {code: 'ENOENT', syscall: 'open'}))
    const texts = stored.map((l) => JSON.stringify(l))
    let hash = sha256()
    let bytes = 0
    let seq = 0
    let rewritten = false
    if (mark && (mark.bytes ?? 0) > 0) {
      let n = 0
      while (n < texts.length && bytes < mark.bytes!) {
        hash.update(`${texts[n]}\n`)
        bytes += Buffer.byteLength(texts[n++]) + 1
      }
      if (bytes === mark.bytes && n === mark.seq && hash.copy().digest('hex') === mark.sha256) seq = n
      else {
        rewritten = true
        hash = sha256()
        bytes = 0
      }
    } else if (mark && mark.seq > 0) rewritten = true
    const size = texts.reduce((a, x) => a + Buffer.byteLength(x) + 1, 0)
    let done = false
    const from = seq
    async function* lines(): AsyncGenerator<TranscriptLine> {
      for (let i = from; i < texts.length; i++) {
        hash.update(`${texts[i]}\n`)
        bytes += Buffer.byteLength(texts[i]) + 1
        seq = i + 1
        yield {line: seq, raw: texts[i], value: JSON.parse(texts[i]) as Record<string, unknown>}
      }
      done = true
    }
    return {rewritten, unchanged: false, lines: lines(), mark: () => ({seq, bytes, sha256: hash.copy().digest('hex'), ...(done ? {size} : {})})}
  }

  protected resetBackend(): ResetBackend {
    return {
      findEntry: (key) => this.findEntry(key),
      transcriptOf: (entry, key) => this.transcriptOf(entry, key),
      transcriptPresent: (t) => this.transcripts.has(t.locator),
      renamedFor: (old, oldId, newId) => this.locatorOf(renameForNewSessionId(old.locator.slice(old.locator.lastIndexOf('/') + 1), oldId, newId)),
      update: (mutator) => this.update(mutator),
      lockTranscript: (locator, fn) => this.locks.run(locator, fn),
      createTranscript: async (locator, header) => {
        if (!this.transcripts.has(locator)) this.transcripts.set(locator, [copy(header)])
      },
      archiveTranscript: async (locator, to) => {
        const lines = this.transcripts.get(locator)
        if (!lines) return false
        this.transcripts.delete(locator)
        this.transcripts.set(to, lines)
        return true
      },
    }
  }
}
