// What the catalog keeps of a run of a transcript's lines, before any of it is written: the lines grouped into spans of
// about SPAN_BYTES (where to read them back, and the newest time in each), one full-text row per searchable part (its
// distinct tokens, tokens.ts), the calls usage sums, the lines the index does not describe. Pure (no database), so that
// a first build can digest lines in a worker thread (build-worker.ts) while the main thread writes.
import {partsOf, searchTextOf, timeOf, timeRank} from '../sessions/search-text.js'
import {type CallFields, callFieldsOf} from '../sessions/usage.js'
import type {TranscriptLine} from '../store/types.js'
import {TokenWriter} from './tokens.js'

/** A span closes once it covers this many bytes of the transcript: a candidate is read back a span at a time. */
export const SPAN_BYTES = 8 * 1024

/**
 * A part's full-text rowid is its transcript and its number in the transcript (parts numbered from 0 in the order they
 * are read): transcript << 32 | n. Dense, so that the postings' rowid deltas are one byte, and FTS5 flushes nothing
 * while a transcript's parts go in in order. Which span holds a part is in the spans (part_lo, parts).
 */
export const TRANSCRIPT_SHIFT = 32n

/** The first and last full-text rowid of a transcript's parts (BigInt: rowids pass 2^53). */
export const rowidRange = (transcript: number): [bigint, bigint] => [BigInt(transcript) << TRANSCRIPT_SHIFT, ((BigInt(transcript) + 1n) << TRANSCRIPT_SHIFT) - 1n]

/** What `sessions search` reads in a line: its searched text, or all of an unreadable line (badLines counts it when it matches). */
export function catalogText(l: TranscriptLine): string | null {
  if (l.bad) return l.raw
  return l.value ? searchTextOf(l.value) : null
}

/** A span being filled: its first and last line, where it starts, its text bytes and newest time so far. */
export interface Group {
  line: number
  lastLine: number
  offset?: number
  /** Bytes of the lines so far (SQLite events, which have no offsets). */
  raw: number
  textBytes: number
  /** Whether a line of it has a full-text row or must be read back (else no span is written). */
  found: boolean
  tmax: number | null
  /** Full-text rows (parts) of its lines. */
  parts: number
}

/** A closed span as the catalog writes it: its lines, where they are (JSONL: byte offset and length), its text bytes, its newest time's rank. */
export interface SpanOut {
  line: number
  lines: number
  offset: number | null
  bytes: number | null
  raw: number
  textBytes: number
  tmax: number | null
  /** Its parts (full-text rows), numbered on from the transcript's parts before it. */
  parts: number
  /** No line of it has a full-text row or is read back: no span row. */
  empty: boolean
  /** The distinct trigrams of its lines' id-like tokens, space-separated (tokens.ts GramSet; '' for none). */
  grams: string
}

/** A call line and what usage reads of it. */
export interface CallOut {
  line: number
  f: CallFields
}

/** Digested parts, in order: where each one's tokens end in the token buffer (each starts where the one before ends). */
export interface PartsOut {
  parts: number[]
  tokens: Uint8Array
  /** The distinct tokens of these parts (the vocabulary must hold each). */
  vocab: string[]
}

export class Digest {
  readonly tokens = new TokenWriter()
  parts: number[] = []
  spans: SpanOut[] = []
  calls: CallOut[] = []
  bad: number[] = []
  /** The number of the last line digested. */
  lastLine = 0
  private group?: Group

  /** `carry`: the transcript's last span, which the next lines are added to. */
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
    g ??= this.group = {line: l.line, lastLine: l.line, ...(l.offset === undefined ? {} : {offset: l.offset}), raw: 0, textBytes: 0, found: false, tmax: null, parts: 0}
    g.lastLine = l.line
    g.raw += size
    this.lastLine = l.line
    if (l.bad) {
      this.bad.push(l.line)
      g.textBytes += size - 1
      g.found = true
    } else if (l.value) {
      const parts = partsOf(l.value)
      if (parts.length > 0) {
        let bytes = parts.length - 1
        for (const p of parts) bytes += Buffer.byteLength(p.text)
        g.textBytes += bytes
        g.found = true
        const r = timeRank(timeOf(l.value))
        if (r !== null && (g.tmax === null || r > g.tmax)) g.tmax = r
        for (const p of parts) {
          if (this.tokens.add(p.text) === 0) continue
          this.parts.push(this.tokens.len)
          g.parts++
        }
      }
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
    const grams = this.tokens.grams.text()
    this.tokens.grams.clear()
    this.spans.push({line: g.line, lines: g.lastLine - g.line + 1, offset: g.offset ?? null, bytes, raw: g.raw, textBytes: g.textBytes, tmax: g.tmax, parts: g.parts, empty: !g.found, grams})
  }

  /** What was digested, as the writer takes it. */
  out(): PartsOut & {spans: SpanOut[]; calls: CallOut[]; bad: number[]; lastLine: number} {
    return {parts: this.parts, tokens: this.tokens.buf.subarray(0, this.tokens.len), vocab: this.tokens.vocab, spans: this.spans, calls: this.calls, bad: this.bad, lastLine: this.lastLine}
  }

  /** Forgets what was taken (written): spans, parts, calls, lines and their tokens. */
  clear(): void {
    this.spans = []
    this.parts = []
    this.calls = []
    this.bad = []
    this.tokens.reset()
    this.tokens.resetVocab()
  }
}
