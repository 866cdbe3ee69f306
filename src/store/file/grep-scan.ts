// SessionStore.grepLines for JSONL transcripts: grepTranscriptLines' contract (the lines holding a needle, numbered and
// parsed as streamTranscriptLines would; the others only counted), with each block read straight into WebAssembly
// memory and searched there by the SIMD finder (grep-simd.ts). Without SIMD it is grepTranscriptLines itself.
import fs from 'node:fs'

import {fileError} from '../../errors.js'
import {openRegularSync} from '../../os/safe-open.js'
import {SimdBlock} from '../grep-simd.js'
import {compileBlockGrep} from '../grep.js'
import type {RawLineFilter, TranscriptLine} from '../types.js'
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
