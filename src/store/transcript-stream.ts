// A JSONL transcript read front to back in fixed-size chunks (export, lineage totals, history across archives): only
// the line being parsed is in memory, whatever the size of the file.
import fs from 'node:fs'

import {fileError} from '../errors.js'
import {compileGrep} from './grep.js'
import {openRegular, openRegularSync} from './safe-open.js'
import {parseLine, TRANSCRIPT_FILE} from './transcript.js'
import type {RawLineFilter, TranscriptLine} from './types.js'

const CHUNK = 64 * 1024
/** grepTranscriptLines reads bigger blocks: its cost per byte is a memchr, so per-read overhead would show. */
const GREP_CHUNK = 1024 * 1024

/** Every line of `file` in order (empty lines skipped); an unterminated last line that does not parse is `torn`. */
export async function* streamTranscriptLines(file: string): AsyncGenerator<TranscriptLine> {
  let opened
  try {
    opened = await openRegular(file, TRANSCRIPT_FILE)
  } catch (error) {
    throw fileError(error, file, 'read the transcript')
  }
  const {fh} = opened
  try {
    const buf = Buffer.allocUnsafe(CHUNK)
    let pending: Buffer[] = []
    let lineNo = 0
    let offset = 0
    let lineStart = 0
    for (;;) {
      const {bytesRead} = await fh.read(buf, 0, CHUNK, null)
      if (bytesRead === 0) break
      let from = 0
      for (;;) {
        const nl = buf.indexOf(10, from)
        if (nl < 0 || nl >= bytesRead) break
        pending.push(Buffer.from(buf.subarray(from, nl)))
        const raw = Buffer.concat(pending).toString('utf8')
        pending = []
        lineNo++
        if (raw.trim() !== '') yield {line: lineNo, ...asLine(parseLine(raw, lineStart, lineNo, false))}
        lineStart = offset + nl + 1
        from = nl + 1
      }
      if (from < bytesRead) pending.push(Buffer.from(buf.subarray(from, bytesRead)))
      offset += bytesRead
    }
    if (pending.length > 0) {
      const raw = Buffer.concat(pending).toString('utf8')
      lineNo++
      if (raw.trim() !== '') yield {line: lineNo, ...asLine(parseLine(raw, lineStart, lineNo, true))}
    }
  } finally {
    await fh.close()
  }
}

/** Blocks of finished greps, reused: a fresh megabyte per transcript would be garbage a thousand times over. */
const spareBlocks: Buffer[] = []

/**
 * The lines of `file` that contain one of the filter's needles, numbered and parsed as streamTranscriptLines would; the
 * others are only counted (a newline search), never decoded. Whole lines are read into a block (grown for a line longer
 * than it) and each block of complete lines is searched at once. The reads are synchronous: a megabyte from the page
 * cache takes ~0.2 ms, less than the round trip through libuv's thread pool that an asynchronous read costs.
 */
export async function* grepTranscriptLines(file: string, filter: RawLineFilter): AsyncGenerator<TranscriptLine> {
  let fd: number
  try {
    fd = openRegularSync(file, TRANSCRIPT_FILE).fd
  } catch (error) {
    throw fileError(error, file, 'read the transcript')
  }
  const grep = compileGrep(filter)
  let buf = spareBlocks.pop() ?? Buffer.allocUnsafe(GREP_CHUNK)
  try {
    let len = 0 // bytes of buf in use: the unfinished line carried over, then what the last read added
    let base = 0 // file offset of buf[0]
    let lineNo = 0 // lines that end before buf[0]
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
      if (eof && len === 0) break
      len += bytesRead
      // Whole lines only: up to the last newline (at the end of the file, everything left is the last line).
      const end = eof ? len : buf.lastIndexOf(10, len - 1) + 1
      if (end === 0) continue
      const block = buf.subarray(0, end)
      let counted = 0
      let from = 0
      for (;;) {
        const at = from < end ? grep.next(block, from) : -1
        if (at === -1) break
        const start = block.lastIndexOf(10, at) + 1
        let stop = block.indexOf(10, at)
        const terminated = stop !== -1
        if (!terminated) stop = end
        for (let i = block.indexOf(10, counted); i !== -1 && i < start; i = block.indexOf(10, i + 1)) lineNo++
        lineNo++
        const raw = block.toString('utf8', start, stop)
        from = stop + 1
        counted = from
        if (raw.trim() !== '') yield {line: lineNo, ...asLine(parseLine(raw, base + start, lineNo, !terminated))}
      }
      for (let i = block.indexOf(10, counted); i !== -1; i = block.indexOf(10, i + 1)) lineNo++
      if (eof) {
        // A torn last line is yielded whatever it holds: a reader that counts what it could not read (usage's
        // badLines) must see it, and finding it costs one parse of one line.
        const last = block.lastIndexOf(10, end - 1) + 1
        if (last < end && counted <= last) {
          const raw = block.toString('utf8', last, end)
          const p = raw.trim() === '' ? undefined : parseLine(raw, base + last, lineNo + 1, true)
          if (p?.bad) yield {line: lineNo + 1, ...asLine(p)}
        }
        break
      }
      buf.copy(buf, 0, end, len)
      len -= end
      base += end
    }
  } finally {
    fs.closeSync(fd)
    if (buf.length === GREP_CHUNK && spareBlocks.length < 8) spareBlocks.push(buf)
  }
}

function asLine(p: ReturnType<typeof parseLine>): Omit<TranscriptLine, 'line'> {
  return {raw: p.raw, ...(p.bad ? {bad: p.bad} : {value: p.value as Record<string, unknown>})}
}

/** The sessionKey of OpenClaw's trajectory sidecar (its first event names it), read from the first 64 KiB only. */
export async function trajectoryKey(file: string): Promise<string | undefined> {
  let opened
  try {
    opened = await openRegular(file, TRANSCRIPT_FILE)
  } catch {
    return undefined
  }
  try {
    const buf = Buffer.alloc(CHUNK)
    const {bytesRead} = await opened.fh.read(buf, 0, CHUNK, 0)
    const first = buf.subarray(0, bytesRead).toString('utf8').split('\n')[0]
    try {
      const v = JSON.parse(first) as {sessionKey?: unknown}
      return typeof v.sessionKey === 'string' ? v.sessionKey : undefined
    } catch {
      const m = /"sessionKey":"((?:[^"\\]|\\.)*)"/.exec(first)
      return m ? (JSON.parse(`"${m[1]}"`) as string) : undefined
    }
  } finally {
    await opened.fh.close()
  }
}
