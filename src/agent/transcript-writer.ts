// Appends a turn's entries to a transcript the way pi's SessionManager does: nothing hits disk before the first assistant reply.
import {CorruptFileError} from '../errors.js'
import {contextFromPath, type SessionContext} from '../store/context.js'
import {chainEntries, makeHeader} from '../store/entries.js'
import type {TranscriptEntry, TranscriptHeader} from '../store/transcript-types.js'
import type {LockedTranscript, NewEntry} from '../store/types.js'

export class TranscriptWriter {
  /** The transcript's locator (its path in the file layout), for messages. */
  readonly file: string
  private readonly tx: LockedTranscript
  /**
   * Every entry of the file plus this turn's (flushed or not), in file order. On a long file the entries the context
   * does not use are stubs with only type, id and parentId (store/file/context-read.ts).
   */
  readonly entries: TranscriptEntry[]
  readonly existed: boolean
  private readonly ids: Set<string>
  private leafId: string | null
  private flushed: boolean
  private pending: TranscriptEntry[] = []
  private header?: TranscriptHeader
  private needsNewline: boolean
  /** Root-to-leaf path: appends always chain onto the leaf, so it only ever grows at the end. */
  private readonly path: TranscriptEntry[]
  private cached?: {length: number; context: SessionContext}

  private constructor(tx: LockedTranscript, entries: TranscriptEntry[], path: TranscriptEntry[], opts: {existed: boolean; header?: TranscriptHeader; needsNewline: boolean}) {
    this.tx = tx
    this.file = tx.ref.locator
    this.entries = entries
    this.path = path
    this.existed = opts.existed
    this.ids = new Set(entries.map((e) => e.id))
    this.leafId = entries.at(-1)?.id ?? null
    this.flushed = opts.existed
    this.header = opts.header
    this.needsNewline = opts.needsNewline
  }

  /**
   * Open for a turn, inside the store's withTranscript (the caller holds the transcript lock). A transcript whose
   * first line is not a session header is refused rather than rewritten (pi would treat it as empty and lose it).
   */
  static async open(tx: LockedTranscript, sessionId: string, cwd: string): Promise<TranscriptWriter> {
    const t = await tx.readContext()
    if (!t) return new TranscriptWriter(tx, [], [], {existed: false, header: makeHeader(sessionId, cwd), needsNewline: false})
    if (t.badHeader || !t.header) throw new CorruptFileError(tx.ref.locator, 'the first line is not a session header, so the transcript cannot be continued')
    return new TranscriptWriter(tx, t.entries, t.path, {existed: true, needsNewline: t.missingFinalNewline})
  }

  get isNew(): boolean {
    return !this.existed
  }

  /**
   * The model's context (buildSessionContext over `entries`), rebuilt only after an append and from the kept path: a
   * turn asks for it several times per call, and on a long session a walk of the entries costs ~20 ms each.
   */
  context(): SessionContext {
    if (this.cached?.length !== this.entries.length) this.cached = {length: this.entries.length, context: contextFromPath(this.path)}
    return this.cached.context
  }

  /**
   * Chain entries onto the leaf; the first assistant message flushes the header and everything buffered. The leaf
   * moves only once the entries are stored: after a failed write the next entry would otherwise name a parent that is
   * not in the transcript (a broken chain here, a projection OpenClaw must rebuild in the SQLite era). A failed write
   * ends the writer: its entries are kept in `unstored` and every later append throws the same error, so a turn never
   * stores entries after a gap.
   */
  async append(items: NewEntry[]): Promise<TranscriptEntry[]> {
    if (this.failure) throw this.failure.error
    const chained = chainEntries(items, this.leafId, this.ids)
    const before = {entries: this.entries.length, path: [...this.path], leafId: this.leafId}
    this.entries.push(...chained)
    // Without a leaf id (an empty file, or a last entry with no id) the new entries start a root of their own.
    if (!this.leafId) this.path.length = 0
    this.path.push(...chained)
    this.leafId = chained.at(-1)?.id ?? this.leafId
    let lines: Array<TranscriptHeader | TranscriptEntry> | undefined
    if (!this.flushed) {
      const pending = [...this.pending, ...chained]
      const hasAssistant = pending.some((e) => e.type === 'message' && (e as {message?: {role?: string}}).message?.role === 'assistant')
      if (!hasAssistant) {
        this.pending = pending
        return chained
      }
      lines = [this.header!, ...pending]
    } else lines = chained
    try {
      await this.tx.write(lines, {fenceTornLine: this.flushed && this.needsNewline})
    } catch (error) {
      this.entries.length = before.entries
      this.path.splice(0, this.path.length, ...before.path)
      this.leafId = before.leafId
      this.failure = {error, unstored: lines, parentId: before.leafId ?? null}
      throw error
    }
    if (this.flushed) this.needsNewline = false
    this.pending = []
    this.flushed = true
    this.storedThisTurn.push(...lines.filter((l): l is TranscriptEntry => l.type !== 'session'))
    return chained
  }

  /** This turn's entries that reached the transcript, in order. */
  readonly storedThisTurn: TranscriptEntry[] = []

  /**
   * Set when a write failed: the error, the lines that were not stored (the header first when the transcript was to
   * be created), and the stored entry the first of them chains onto.
   */
  failure?: {error: unknown; unstored: Array<TranscriptHeader | TranscriptEntry>; parentId: string | null}

  /** The stored leaf's id: what the next entry chains onto. */
  get leaf(): string | null {
    return this.leafId
  }
}
