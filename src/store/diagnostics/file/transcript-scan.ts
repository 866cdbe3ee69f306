// Lean transcript inspection for doctor: header, bad/torn lines and the last assistant message, with bounded reads.
import fs from 'node:fs'

import {openRegularSync} from '../../../os/safe-open.js'
import {textLines} from '../../file/line-reader.js'
import {TRANSCRIPT_FILE} from '../../file/transcript.js'
import {parseLine} from '../../lines.js'

/** Files up to this size are read whole; bigger ones get a header + tail read unless --deep. */
export const FULL_SCAN_MAX_BYTES = 2 * 1024 * 1024
const EDGE_BYTES = 64 * 1024

export interface LineSpan {
  /** 1-based line number (0 when unknown: tail reads of big files). */
  line: number
  /** Bytes of the line, without its newline. */
  length: number
}

export interface TranscriptInspection {
  size: number
  /** Whole-file read (false: only the first and last 64 KiB were read). */
  complete: boolean
  /** Parsed first line when it is a session header. */
  header?: {id?: unknown; version?: unknown; timestamp?: unknown; cwd?: unknown}
  /** The first line exists but is not a `{type:"session", id}` header. */
  badHeader: boolean
  /** Non-blank lines (complete reads only). */
  lineCount: number
  /** Unparseable lines other than a torn last line. */
  badLines: LineSpan[]
  /** The last line has no newline and does not parse: an interrupted append. */
  tornTail?: LineSpan
  /** The file does not end with "\n" (whether or not the last line parses). */
  missingFinalNewline: boolean
  /** At least one `message` entry. */
  hasMessages: boolean
  lastAssistant?: {provider?: string; model?: string; usage?: Record<string, unknown>; timestamp?: number}
  /** Timestamp (ms) of the last entry with one. */
  lastTimestamp?: number
}

/** A line's JSON object, as the store's reader parses it (CRLF tolerated); undefined for anything else. */
function parse(text: string): Record<string, unknown> | undefined {
  return parseLine(text, 0, 0, false).value as Record<string, unknown> | undefined
}

function isObject(v: unknown): v is Record<string, unknown> {
  return Boolean(v) && typeof v === 'object' && !Array.isArray(v)
}

function entryTime(v: Record<string, unknown>): number | undefined {
  if (typeof v.timestamp === 'string') {
    const t = Date.parse(v.timestamp)
    if (Number.isFinite(t)) return t
  }
  const msg = v.message as Record<string, unknown> | undefined
  if (msg && typeof msg.timestamp === 'number') return msg.timestamp
  return undefined
}

function observe(out: TranscriptInspection, v: Record<string, unknown>): void {
  if (v.type === 'session') return
  const t = entryTime(v)
  if (t !== undefined) out.lastTimestamp = t
  if (v.type !== 'message') return
  out.hasMessages = true
  const msg = v.message as Record<string, unknown> | undefined
  if (msg?.role === 'assistant') {
    out.lastAssistant = {
      provider: typeof msg.provider === 'string' ? msg.provider : undefined,
      model: typeof msg.model === 'string' ? msg.model : undefined,
      usage: isObject(msg.usage) ? msg.usage : undefined,
      timestamp: typeof msg.timestamp === 'number' ? msg.timestamp : undefined,
    }
  }
}

function scanLines(out: TranscriptInspection, text: string, startLine: number, endsComplete: boolean, headerFromFirst: boolean): void {
  let first = headerFromFirst
  // Tail windows (startLine 0) number lines from 0 and report 0: their place in the file is unknown.
  for (const {raw, line, torn} of textLines(text, 0, startLine, endsComplete, {offsets: false})) {
    if (startLine > 0) out.lineCount++
    const v = parse(raw)
    if (first && isObject(v)) {
      // pi decides on the first *parsed* object: unparseable lines before it are just bad lines.
      first = false
      if (v.type === 'session' && typeof v.id === 'string') {
        out.header = v
        continue
      }
      out.badHeader = true
    }
    if (!isObject(v)) {
      const span = {line: startLine > 0 ? line : 0, length: Buffer.byteLength(raw)}
      if (torn) out.tornTail = span
      else out.badLines.push(span)
      continue
    }
    observe(out, v)
  }
  if (first && headerFromFirst && out.lineCount > 0) out.badHeader = true
}

/** Inspect a transcript synchronously (small reads; doctor is a batch job and sync I/O is cheapest per file). */
export function inspectTranscriptSync(file: string, opts: {deep?: boolean; size?: number} = {}): TranscriptInspection {
  // A FIFO named like a transcript blocked doctor here for good; a directory failed with a bare EISDIR.
  const {fd, stat} = openRegularSync(file, TRANSCRIPT_FILE)
  try {
    const size = opts.size ?? stat.size
    const out: TranscriptInspection = {size, complete: true, badHeader: false, lineCount: 0, badLines: [], missingFinalNewline: false, hasMessages: false}
    if (size === 0) return out
    if (opts.deep || size <= FULL_SCAN_MAX_BYTES) {
      const buf = Buffer.allocUnsafe(size)
      const n = fs.readSync(fd, buf, 0, size, 0)
      out.size = n
      out.missingFinalNewline = buf[n - 1] !== 0x0a
      scanLines(out, buf.toString('utf8', 0, n), 1, !out.missingFinalNewline, true)
      return out
    }
    // Big file: the header from the start, then complete lines from the last 64 KiB.
    out.complete = false
    const head = Buffer.allocUnsafe(Math.min(EDGE_BYTES * 16, size))
    fs.readSync(fd, head, 0, head.length, 0)
    const nl = head.indexOf(0x0a)
    scanLines(out, head.toString('utf8', 0, nl < 0 ? head.length : nl), 1, true, true)
    out.lineCount = 0
    const tailStart = Math.max(0, size - EDGE_BYTES)
    const tail = Buffer.allocUnsafe(size - tailStart)
    fs.readSync(fd, tail, 0, tail.length, tailStart)
    out.missingFinalNewline = tail[tail.length - 1] !== 0x0a
    const firstNl = tail.indexOf(0x0a)
    scanLines(out, tail.toString('utf8', firstNl + 1), 0, !out.missingFinalNewline, false)
    // Messages exist further up when the tail shows none (a big file is not header-only).
    out.hasMessages ||= size > EDGE_BYTES
    return out
  } finally {
    fs.closeSync(fd)
  }
}

/** Async form for callers that await; the work is the same bounded reads. ENOENT propagates. */
export async function inspectTranscript(file: string, opts: {deep?: boolean; size?: number} = {}): Promise<TranscriptInspection> {
  return inspectTranscriptSync(file, opts)
}
