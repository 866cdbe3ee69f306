// SessionStore.grepLines for JSONL transcripts: grepTranscriptLines' contract (the lines holding a needle, numbered and
// parsed as streamTranscriptLines would; the others only counted), with each block read straight into WebAssembly
// memory and searched there by the SIMD finder (grep-simd.ts). Without SIMD it is grepTranscriptLines itself.
import fs from 'node:fs'

import {fileError} from '../../errors.js'
import {openRegularSync} from '../../os/safe-open.js'
import {SimdBlock} from '../grep-simd.js'
import {type BlockGrep, compileBlockGrep, compileGrep, type LineGrep} from '../grep.js'
import type {LineSpan, RawLineFilter, TranscriptLine} from '../types.js'
import {grepTranscriptLines, hitLines} from './transcript-stream.js'
import {TRANSCRIPT_FILE} from './transcript.js'

/** Bytes read at once: per read overhead is then negligible next to the copy. */
const BLOCK = 1024 * 1024

/** Blocks of finished greps, reused (a search reads thousands of transcripts, a few at a time). */
const spare: SimdBlock[] = []

export function grepFileLines(file: string, filter: RawLineFilter): AsyncIterable<TranscriptLine> {
  const block = spare.pop() ?? SimdBlock.create(BLOCK + 4096)
  if (!block) return grepTranscriptLines(file, filter)
  return grepIn(block, file, filter)
}

async function* grepIn(block: SimdBlock, file: string, filter: RawLineFilter): AsyncGenerator<TranscriptLine> {
  let fd: number | undefined
  try {
    try {
      fd = openRegularSync(file, TRANSCRIPT_FILE).fd
    } catch (error) {
      throw fileError(error, file, 'read the transcript')
    }
    yield* scanFd(block, fd, file, filter)
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
    if (spare.length < 8) spare.push(block)
  }
}

function* scanFd(block: SimdBlock, fd: number, file: string, filter: RawLineFilter): Generator<TranscriptLine> {
  const grep = compileBlockGrep(filter)
  let cap = BLOCK // bytes of the block used for data; the rest is the finder's slack
  block.grow(cap + grep.slack)
  let len = 0 // bytes in use: the unfinished line carried over, then what the last read added
  let base = 0 // file offset of byte 0
  const count = {lines: 0} // lines that end before byte 0
  for (;;) {
    if (len === cap) {
      // A line longer than the block: double it (the carried bytes stay where they are).
      cap *= 2
      block.grow(cap + grep.slack)
    }
    let bytesRead: number
    try {
      bytesRead = fs.readSync(fd, block.bytes, len, cap - len, null)
    } catch (error) {
      throw fileError(error, file, 'read the transcript')
    }
    const eof = bytesRead === 0
    if (eof && len === 0) break
    len += bytesRead
    // Whole lines only: up to the last newline (at the end of the file, everything left is the last line).
    const end = eof ? len : block.bytes.lastIndexOf(10, len - 1) + 1
    if (end === 0) continue
    const buf = block.bytes.subarray(0, end)
    grep.begin()
    yield* hitLines(buf, end, base, count, (from) => grep.next(block, from, end), filter.unreadable)
    if (eof) break
    block.bytes.copy(block.bytes, 0, end, len)
    len -= end
    base += end
  }
}

/**
 * SessionStore.grepSpans for JSONL transcripts: only the given runs of whole lines (LineSpan: a byte offset and length as
 * readSince gave them, or to the end of the file), each read at its offset into a block and searched as scanFd searches
 * a block, through the same hitLines, so a line is numbered, parsed and judged exactly as a whole-file grep would. A span
 * that runs to the end is read as scanFd reads a file's end (an unterminated last line is yielded as grepLines yields it).
 * Without a filter, every line of the spans.
 */
export async function* grepFileSpans(file: string, spans: readonly LineSpan[], filter?: RawLineFilter): AsyncGenerator<TranscriptLine> {
  if (spans.length === 0) return
  let fd: number
  try {
    fd = openRegularSync(file, TRANSCRIPT_FILE).fd
  } catch (error) {
    throw fileError(error, file, 'read the transcript')
  }
  const block = filter ? (spare.pop() ?? SimdBlock.create(BLOCK + 4096)) : undefined
  // One finder per call (its state is the block's): calls interleave when several transcripts are read at once.
  const simd = filter && block ? compileBlockGrep(filter) : undefined
  const plain = filter && !block ? compileGrep(filter) : undefined
  try {
    for (const span of spans) yield* scanSpan(fd, file, span, block, simd, plain, Boolean(filter?.unreadable))
  } finally {
    fs.closeSync(fd)
    if (block && spare.length < 8) spare.push(block)
  }
}

function* scanSpan(fd: number, file: string, span: LineSpan, block: SimdBlock | undefined, simd: BlockGrep | undefined, plain: LineGrep | undefined, unreadable: boolean): Generator<TranscriptLine> {
  const start = span.offset ?? 0
  const limit = span.bytes === undefined ? Number.POSITIVE_INFINITY : start + span.bytes
  let cap = Math.min(BLOCK, Number.isFinite(limit) ? Math.max(1, limit - start) : BLOCK)
  let buf = block ? block.bytes : Buffer.allocUnsafe(cap)
  const grow = (size: number) => {
    if (block) {
      block.grow(size + (simd?.slack ?? 0))
      buf = block.bytes
    } else if (buf.length < size) {
      const bigger = Buffer.allocUnsafe(size)
      buf.copy(bigger)
      buf = bigger
    }
  }
  grow(cap)
  let len = 0
  let base = start
  let pos = start
  const count = {lines: span.line - 1}
  for (;;) {
    if (len === cap) {
      cap *= 2
      grow(cap)
    }
    let bytesRead = 0
    const want = Math.min(cap - len, limit - pos)
    if (want > 0) {
      try {
        bytesRead = fs.readSync(fd, buf, len, want, pos)
      } catch (error) {
        throw fileError(error, file, 'read the transcript')
      }
    }
    pos += bytesRead
    const eof = bytesRead === 0
    if (eof && len === 0) break
    len += bytesRead
    const end = eof ? len : buf.lastIndexOf(10, len - 1) + 1
    if (end === 0) continue
    const view = buf.subarray(0, end)
    let next: (from: number) => number
    if (simd) {
      simd.begin()
      next = (from) => simd.next(block!, from, end)
    } else if (plain) {
      next = (from) => plain.next(view, from)
    } else {
      next = (from) => (from < end ? from : -1)
    }
    yield* hitLines(view, end, base, count, next, unreadable)
    if (eof) break
    buf.copy(buf, 0, end, len)
    len -= end
    base += end
  }
}
