// The one line reader of JSONL transcripts: how a line is split off (in memory, forward in blocks, backward from the
// end); how it parses is ../lines.ts, which every backend shares. Every transcript reader of the file backend goes
// through it: tail (backward), the whole read and the agent's context read (in memory), doctor's scan (in memory, or
// its edges), streams, grep and the idempotency lookup (forward). They keep their own strategy (what to read, what to
// parse); what a line is, where it starts, its number and whether it is torn are decided here once.
import fs from 'node:fs'
import type {FileHandle} from 'node:fs/promises'

import {fileError} from '../../errors.js'
import {isBlankBytes, isBlankLine} from '../lines.js'
import type {ReadStats} from '../types.js'

// ---------------------------------------------------------------------------------------------------------------
// In memory

export interface TextLine {
  raw: string
  /** Byte offset of the line in the file. */
  offset: number
  /** 1-based line number (blank lines are numbered too). */
  line: number
  /** The last line, without a newline after it (when the text is not known to end complete). */
  torn: boolean
}

/**
 * The non-blank lines of decoded text. `baseOffset` and `lineBase` place the text in its file; `lastIsComplete` says
 * whether a final line without a newline was cut (a tail window) or is the file's unterminated last line. With
 * `offsets: false` every offset is 0: measuring each line's UTF-8 length is a second pass over the text that doctor's
 * scan of thousands of transcripts does not need (it cost its run ~8 %).
 */
export function* textLines(text: string, baseOffset = 0, lineBase = 1, lastIsComplete = true, opts: {offsets?: boolean} = {}): Generator<TextLine> {
  const offsets = opts.offsets ?? true
  let start = 0
  let line = lineBase
  let offset = baseOffset
  while (start < text.length) {
    const nl = text.indexOf('\n', start)
    const end = nl < 0 ? text.length : nl
    const raw = text.slice(start, end)
    if (!isBlankLine(raw)) yield {raw, offset, line, torn: nl < 0 && !lastIsComplete}
    if (offsets) offset += Buffer.byteLength(raw) + 1
    line++
    start = end + 1
  }
}

/** The non-blank lines of a buffer as byte ranges (nothing decoded): [starts[i], ends[i]) is line i, in order. */
export function lineRanges(buf: Buffer): {starts: number[]; ends: number[]} {
  const starts: number[] = []
  const ends: number[] = []
  for (let start = 0; start < buf.length; ) {
    const nl = buf.indexOf(0x0a, start)
    const end = nl < 0 ? buf.length : nl
    if (!isBlankBytes(buf, start, end)) {
      starts.push(start)
      ends.push(end)
    }
    start = end + 1
  }
  return {starts, ends}
}

// ---------------------------------------------------------------------------------------------------------------
// Forward, in blocks of whole lines

/** Forward reads take blocks this big: a line split costs a memchr per byte, so per-read overhead would show. */
const BLOCK = 1024 * 1024

/** Blocks of finished reads, reused: a fresh megabyte per transcript would be garbage a thousand times over. */
const spareBlocks: Buffer[] = []

export interface LineBlock {
  /** Whole lines (the last one ends at a newline, or at the end of the file). Valid until the next block. */
  block: Buffer
  /** File offset of block[0]. */
  base: number
  /** The block ends at the end of the file (its last line may then have no newline). */
  eof: boolean
}

/**
 * The file from its current position in blocks of whole lines: a line longer than the block grows it. The reads are
 * synchronous: a megabyte from the page cache takes ~0.2 ms, less than the round trip through libuv's thread pool that
 * an asynchronous read costs. `file` names the file in an I/O error.
 */
export function* forwardBlocks(fd: number, file: string): Generator<LineBlock> {
  let buf = spareBlocks.pop() ?? Buffer.allocUnsafe(BLOCK)
  try {
    let len = 0 // bytes of buf in use: the unfinished line carried over, then what the last read added
    let base = 0 // file offset of buf[0]
    for (;;) {
      if (len === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2)
        buf.copy(bigger, 0, 0, len)
        buf = bigger
      }
      let bytesRead: number
      try {
        bytesRead = fs.readSync(fd, buf, len, buf.length - len, null)
      } catch (error) {
        throw fileError(error, file, 'read the transcript')
      }
      const eof = bytesRead === 0
      if (eof && len === 0) return
      len += bytesRead
      // Whole lines only: up to the last newline (at the end of the file, everything left is the last line).
      const end = eof ? len : buf.lastIndexOf(10, len - 1) + 1
      if (end === 0) continue
      yield {block: buf.subarray(0, end), base, eof}
      if (eof) return
      buf.copy(buf, 0, end, len)
      len -= end
      base += end
    }
  } finally {
    if (buf.length === BLOCK && spareBlocks.length < 8) spareBlocks.push(buf)
  }
}

/** Every non-blank line of the file, in order, numbered; the unterminated last line is `torn`. */
export function* forwardLines(fd: number, file: string): Generator<TextLine> {
  let line = 0
  for (const {block, base, eof} of forwardBlocks(fd, file)) {
    for (let start = 0; start < block.length; ) {
      let nl = block.indexOf(10, start)
      const terminated = nl !== -1
      if (!terminated) nl = block.length
      line++
      if (!isBlankBytes(block, start, nl)) yield {raw: block.toString('utf8', start, nl), offset: base + start, line, torn: eof && !terminated}
      start = nl + 1
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Backward, from the end

const CHUNK = 64 * 1024
/** Reads of one long line grow to this size, so that a 100 MB line takes a few dozen reads, not thousands. */
const MAX_CHUNK = 8 * 1024 * 1024

export async function readAt(fh: FileHandle, buf: Buffer, pos: number, stats?: ReadStats): Promise<number> {
  let got = 0
  // A regular file returns short reads only at its end; loop anyway so a concurrent truncate cannot leave garbage.
  while (got < buf.length) {
    const {bytesRead} = await fh.read(buf, got, buf.length - got, pos + got)
    if (stats) {
      stats.reads++
      stats.bytesRead += bytesRead
    }
    if (bytesRead <= 0) break
    got += bytesRead
  }
  return got
}

export function joinPieces(parts: Buffer[], total: number, stats?: ReadStats): Buffer {
  if (parts.length === 1) return parts[0]
  if (stats) stats.bytesCopied += total
  return Buffer.concat(parts, total)
}

/** The first line of the file (up to `max` bytes), read in chunks; `complete` when its newline was found. */
export async function readFirstLine(fh: FileHandle, size: number, max: number, stats?: ReadStats): Promise<{raw: string; endOffset: number; complete: boolean}> {
  // Pieces are kept apart and joined once: concatenating on every read copied the line over and over.
  const parts: Buffer[] = []
  let pos = 0
  while (pos < size && pos < max) {
    const b = Buffer.allocUnsafe(Math.min(CHUNK, size - pos))
    const n = await readAt(fh, b, pos, stats)
    if (n <= 0) break
    const piece = b.subarray(0, n)
    const nl = piece.indexOf(0x0a)
    if (nl >= 0) {
      parts.push(piece.subarray(0, nl))
      return {raw: joinPieces(parts, pos + nl, stats).toString('utf8'), endOffset: pos + nl + 1, complete: true}
    }
    parts.push(piece)
    pos += n
  }
  return {raw: joinPieces(parts, pos, stats).toString('utf8'), endOffset: pos, complete: false}
}

/**
 * Yield the lines of [start, end) from the last to the first, reading backwards. Linear in the bytes read: a line that
 * spans reads is kept as a list of pieces and joined once when its start is found (joining the carried tail onto each
 * new chunk made a 40 MB last line cost 96 s), each read is scanned only for its own newlines, and while a line goes
 * on the reads grow, up to MAX_CHUNK. Blank lines are yielded too (the caller decides when to stop on them).
 */
export async function* linesFromEnd(fh: FileHandle, start: number, end: number, stats?: ReadStats): AsyncGenerator<{raw: string; offset: number; byteEnd: number}> {
  let pos = end
  let chunkSize = CHUNK
  // The part of the current line already read (it lies after pos), in reverse file order.
  let pending: Buffer[] = []
  let pendingLen = 0
  while (pos > start) {
    const len = Math.min(chunkSize, pos - start)
    pos -= len
    const chunk = Buffer.allocUnsafe(len)
    const n = await readAt(fh, chunk, pos, stats)
    // The file shrank under us: what is left of this read is zeros, not text; stop at what was read so far.
    if (n < len) {
      pending = []
      pendingLen = 0
      break
    }
    let lineEnd = len
    for (let nl = chunk.lastIndexOf(0x0a, lineEnd - 1); nl >= 0; nl = lineEnd > 0 ? chunk.lastIndexOf(0x0a, lineEnd - 1) : -1) {
      const head = chunk.subarray(nl + 1, lineEnd)
      const total = head.length + pendingLen
      if (total > 0) {
        const bytes = pendingLen > 0 ? joinPieces([head, ...pending.reverse()], total, stats) : head
        yield {raw: bytes.toString('utf8'), offset: pos + nl + 1, byteEnd: pos + nl + 1 + total}
      }
      pending = []
      pendingLen = 0
      lineEnd = nl
    }
    if (lineEnd > 0) {
      pending.push(chunk.subarray(0, lineEnd))
      pendingLen += lineEnd
    }
    chunkSize = pendingLen > 0 ? Math.min(MAX_CHUNK, chunkSize * 2) : CHUNK
  }
  if (pendingLen > 0) yield {raw: joinPieces(pending.reverse(), pendingLen, stats).toString('utf8'), offset: pos, byteEnd: pos + pendingLen}
}
