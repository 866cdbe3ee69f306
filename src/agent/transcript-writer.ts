// Appends a turn's entries to a transcript the way pi's SessionManager does: nothing hits disk before the first assistant reply.
import path from 'node:path'

import {CorruptFileError} from '../errors.js'
import {appendDurable, ensurePrivateDir, FILE_MODE} from '../store/fs-util.js'
import {contextFromPath, type SessionContext} from '../store/context.js'
import {readTranscriptForContext} from '../store/context-read.js'
import {regularFileSize} from '../store/safe-open.js'
import {chainEntries, makeHeader, type NewEntry, TRANSCRIPT_FILE} from '../store/transcript.js'
import type {TranscriptEntry, TranscriptHeader} from '../store/transcript-types.js'

export class TranscriptWriter {
  readonly file: string
  /**
   * Every entry of the file plus this turn's (flushed or not), in file order. On a long file the entries the context
   * does not use are stubs with only type, id and parentId (store/context-read.ts).
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

  private constructor(file: string, entries: TranscriptEntry[], path: TranscriptEntry[], opts: {existed: boolean; header?: TranscriptHeader; needsNewline: boolean}) {
    this.file = file
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
   * Open for a turn; the caller already holds `<file>.lock`. A file whose first line is not a session header is
   * refused rather than rewritten (pi would treat it as empty and lose it).
   */
  static async open(file: string, sessionId: string, cwd: string): Promise<TranscriptWriter> {
    // A FIFO here reads as size 0 through stat, and the first append would then block on it for good.
    const size = (await regularFileSize(file, TRANSCRIPT_FILE)) ?? 0
    if (size === 0) return new TranscriptWriter(file, [], [], {existed: false, header: makeHeader(sessionId, cwd), needsNewline: false})
    const t = await readTranscriptForContext(file)
    if (t.badHeader || !t.header) throw new CorruptFileError(file, 'the first line is not a session header, so the transcript cannot be continued')
    return new TranscriptWriter(file, t.entries, t.path, {existed: true, needsNewline: t.missingFinalNewline})
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

  /** Chain entries onto the leaf; the first assistant message flushes the header and everything buffered. */
  async append(items: NewEntry[]): Promise<TranscriptEntry[]> {
    const chained = chainEntries(items, this.leafId, this.ids)
    this.entries.push(...chained)
    // Without a leaf id (an empty file, or a last entry with no id) the new entries start a root of their own.
    if (!this.leafId) this.path.length = 0
    this.path.push(...chained)
    this.leafId = chained.at(-1)?.id ?? this.leafId
    if (!this.flushed) {
      this.pending.push(...chained)
      const hasAssistant = this.pending.some((e) => e.type === 'message' && (e as {message?: {role?: string}}).message?.role === 'assistant')
      if (!hasAssistant) return chained
      await ensurePrivateDir(path.dirname(this.file))
      const lines = [this.header!, ...this.pending].map((e) => `${JSON.stringify(e)}\n`).join('')
      this.pending = []
      this.flushed = true
      await appendDurable(this.file, lines, FILE_MODE, TRANSCRIPT_FILE)
      return chained
    }
    const prefix = this.needsNewline ? '\n' : ''
    this.needsNewline = false
    await appendDurable(this.file, prefix + chained.map((e) => `${JSON.stringify(e)}\n`).join(''), FILE_MODE, TRANSCRIPT_FILE)
    return chained
  }
}
