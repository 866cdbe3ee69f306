// What the catalog keeps of a run of a transcript's lines, before any of it is written: the lines grouped into spans of
// about SPAN_BYTES (each span's searched text as full-text tokens), the calls usage sums, the unreadable lines. Pure (no
// database), so that a first build can digest lines in a worker thread (build-worker.ts) while the main thread writes.
import {searchTextOf} from '../sessions/search-text.js'
import {type CallFields, callFieldsOf} from '../sessions/usage.js'
import type {TranscriptLine} from '../store/types.js'
import {TokenWriter} from './tokens.js'

/** A span (one full-text row) closes once it covers this many bytes of the transcript: big enough to keep the index small, small enough to read a candidate cheaply. */
export const SPAN_BYTES = 8 * 1024

/** What `sessions search` reads in a line: its searched text, or all of an unreadable line (badLines counts it when it matches). */
export function catalogText(l: TranscriptLine): string | null {
  if (l.bad) return l.raw
  return l.value ? searchTextOf(l.value) : null
}

/** A span being filled: its first and last line, where it starts, its texts so far. */
export interface Group {
  line: number
  lastLine: number
  offset?: number
  texts: string[]
  /** Bytes of the lines so far (SQLite events, which have no offsets). */
  raw: number
}

/**
 * A closed span as the catalog writes it: its lines, where they are (JSONL: byte offset and length), the bytes of its
 * searched text, and its tokens at [tokStart, tokEnd) of the digest's token buffer; `empty` when none of its lines has
 * searched text (no full-text row).
 */
export interface SpanOut {
  line: number
  lines: number
  offset: number | null
  bytes: number | null
  raw: number
  textBytes: number
  tokStart: number
  tokEnd: number
  empty: boolean
}

/** A call line and what usage reads of it. */
export interface CallOut {
  line: number
  f: CallFields
}

export class Digest {
  readonly tokens = new TokenWriter()
  spans: SpanOut[] = []
  calls: CallOut[] = []
  bad: number[] = []
  /** The number of the last line digested. */
  lastLine = 0
  private group?: Group

  /** `carry`: the transcript's last span, read again, that the next lines are added to. */
  constructor(carry?: Group) {
    this.group = carry
  }

  /** Adds one line; returns its size in bytes (with its newline). */
  line(l: TranscriptLine): number {
    const size = Buffer.byteLength(l.raw) + 1
    let g = this.group
    if (g && (l.offset !== undefined && g.offset !== undefined ? l.offset - g.offset >= SPAN_BYTES : g.raw >= SPAN_BYTES)) {
      this.close(l.offset)
      g = undefined
    }
    g ??= this.group = {line: l.line, lastLine: l.line, ...(l.offset === undefined ? {} : {offset: l.offset}), texts: [], raw: 0}
    const text = catalogText(l)
    if (text !== null) g.texts.push(text)
    g.lastLine = l.line
    g.raw += size
    this.lastLine = l.line
    if (l.bad) this.bad.push(l.line)
    else {
      const f = callFieldsOf(l.value)
      if (f) this.calls.push({line: l.line, f})
    }
    return size
  }

  /** Closes the open span, which ends at byte `end` (JSONL). */
  close(end: number | undefined): void {
    const g = this.group
    if (!g) return
    this.group = undefined
    const bytes = g.offset !== undefined && end !== undefined ? end - g.offset : null
    const base = {line: g.line, lines: g.lastLine - g.line + 1, offset: g.offset ?? null, bytes, raw: g.raw}
    if (g.texts.length === 0) {
      this.spans.push({...base, textBytes: 0, tokStart: 0, tokEnd: 0, empty: true})
      return
    }
    const text = g.texts.join('\n')
    const tokStart = this.tokens.len
    this.tokens.add(text)
    this.spans.push({...base, textBytes: Buffer.byteLength(text), tokStart, tokEnd: this.tokens.len, empty: false})
  }

  /** Forgets what was taken (written): spans, calls, unreadable lines and their tokens. */
  clear(): void {
    this.spans = []
    this.calls = []
    this.bad = []
    this.tokens.reset()
  }
}
