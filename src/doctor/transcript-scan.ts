// Lean transcript inspection for doctor: header, bad/torn lines and the last assistant message, with bounded reads.
import fsp from 'node:fs/promises'

/** Files up to this size are read whole; bigger ones get a header + tail read unless --deep. */
export const FULL_SCAN_MAX_BYTES = 2 * 1024 * 1024
const EDGE_BYTES = 64 * 1024

export interface LineSpan {
  /** 1-based line number (0 when unknown: tail reads of big files). */
  line: number
  offset: number
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

function parse(text: string): unknown {
  try {
    return JSON.parse(text.endsWith('\r') ? text.slice(0, -1) : text)
  } catch {
    return undefined
  }
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

/** Lines of a buffer with their byte offsets; the last piece may lack a newline. */
function* lines(buf: Buffer, base: number): Generator<{raw: string; offset: number; length: number; last: boolean}> {
  let start = 0
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start)
    const end = nl < 0 ? buf.length : nl
    yield {raw: buf.subarray(start, end).toString('utf8'), offset: base + start, length: end - start, last: nl < 0}
    start = end + 1
  }
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

function classifyFirst(out: TranscriptInspection, raw: string): void {
  const v = parse(raw)
  if (isObject(v) && v.type === 'session' && typeof v.id === 'string') out.header = v
  else out.badHeader = true
}

/** Inspect a transcript. `deep` forces a whole read of big files. ENOENT propagates. */
export async function inspectTranscript(file: string, opts: {deep?: boolean; size?: number} = {}): Promise<TranscriptInspection> {
  const fh = await fsp.open(file, 'r')
  try {
    const size = opts.size ?? (await fh.stat()).size
    const out: TranscriptInspection = {size, complete: true, badHeader: false, lineCount: 0, badLines: [], missingFinalNewline: false, hasMessages: false}
    if (size === 0) return out
    if (opts.deep || size <= FULL_SCAN_MAX_BYTES) {
      const buf = Buffer.alloc(size)
      await fh.read(buf, 0, size, 0)
      out.missingFinalNewline = buf[size - 1] !== 0x0a
      let lineNo = 0
      let first = true
      for (const l of lines(buf, 0)) {
        lineNo++
        if (l.raw.trim() === '') continue
        out.lineCount++
        if (first) {
          first = false
          classifyFirst(out, l.raw)
          if (out.header) continue
        }
        const v = parse(l.raw)
        if (!isObject(v)) {
          const span = {line: lineNo, offset: l.offset, length: l.length}
          if (l.last) out.tornTail = span
          else out.badLines.push(span)
          continue
        }
        observe(out, v)
      }
      // A bad first line is reported as a bad header, not again as a bad line.
      if (out.badHeader && out.badLines[0]?.line === 1) out.badLines.shift()
      return out
    }
    // Big file: the header from the start, then complete lines from the last 64 KiB.
    out.complete = false
    const head = Buffer.alloc(Math.min(EDGE_BYTES * 16, size))
    await fh.read(head, 0, head.length, 0)
    const nl = head.indexOf(0x0a)
    classifyFirst(out, head.subarray(0, nl < 0 ? head.length : nl).toString('utf8'))
    const tailStart = Math.max(0, size - EDGE_BYTES)
    const tail = Buffer.alloc(size - tailStart)
    await fh.read(tail, 0, tail.length, tailStart)
    out.missingFinalNewline = tail[tail.length - 1] !== 0x0a
    const firstNl = tailStart === 0 ? -1 : tail.indexOf(0x0a)
    const body = tail.subarray(firstNl + 1)
    for (const l of lines(body, tailStart + firstNl + 1)) {
      if (l.raw.trim() === '') continue
      const v = parse(l.raw)
      if (!isObject(v)) {
        const span = {line: 0, offset: l.offset, length: l.length}
        if (l.last) out.tornTail = span
        else out.badLines.push(span)
        continue
      }
      observe(out, v)
    }
    // Messages exist further up when the tail shows none (a big file is not header-only).
    out.hasMessages ||= size > EDGE_BYTES
    return out
  } finally {
    await fh.close().catch(() => {})
  }
}

/** Run `fn` over items with at most `limit` in flight (enough to keep the disk busy without 10 000 open files). */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const workers = Array.from({length: Math.min(limit, items.length)}, async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i])
    }
  })
  await Promise.all(workers)
  return out
}
