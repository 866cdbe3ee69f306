// A JSONL transcript read front to back in fixed-size chunks (export, lineage totals, history across archives): only
// the line being parsed is in memory, whatever the size of the file.
import type {Hash} from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'

import {fileError} from '../errors.js'
import {sha256} from '../util/hash.js'
import {compileGrep} from './grep.js'
import {openRegular, openRegularSync} from './safe-open.js'
import {parseLine, TRANSCRIPT_FILE} from './transcript.js'
import type {RawLineFilter, TranscriptLine, TranscriptMark, TranscriptSince} from './types.js'

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

const empty = async function* (): AsyncGenerator<TranscriptLine> {}

/**
 * The lines of `file` after `mark` (SessionStore.readSince of the file layout). Unchanged size and mtime: nothing is
 * read. Otherwise the first `mark.bytes` are hashed again; a different hash (or a shorter file) means the file was
 * rewritten or replaced, and it is read again from its start. Only complete lines are read, and only up to the size
 * seen at open: a writer appending meanwhile is read next time, never half.
 */
export async function readTranscriptSince(file: string, mark?: TranscriptMark): Promise<TranscriptSince> {
  // The common case of a periodic sync, most transcripts untouched: one stat, not an open, fstat and close.
  if (mark && mark.bytes !== undefined && mark.size !== undefined) {
    const st = await fsp.stat(file).catch(() => undefined)
    if (st?.isFile() && st.size === mark.size && st.mtimeMs === mark.mtimeMs) return {rewritten: false, unchanged: true, lines: empty(), mark: () => ({...mark})}
  }
  let opened
  try {
    opened = await openRegular(file, TRANSCRIPT_FILE)
  } catch (error) {
    throw fileError(error, file, 'read the transcript')
  }
  const {fh, stat} = opened
  const size = stat.size
  const mtimeMs = stat.mtimeMs
  if (mark && mark.bytes !== undefined && mark.size === size && mark.mtimeMs === mtimeMs) {
    await fh.close()
    return {rewritten: false, unchanged: true, lines: empty(), mark: () => ({...mark})}
  }
  let hash: Hash = sha256()
  let bytes = 0
  let seq = 0
  let rewritten = false
  try {
    const want = mark?.bytes ?? 0
    if (want > 0 && want <= size && mark?.sha256) {
      const buf = Buffer.allocUnsafe(CHUNK)
      let at = 0
      while (at < want) {
        const {bytesRead} = await fh.read(buf, 0, Math.min(CHUNK, want - at), at)
        if (bytesRead === 0) break
        hash.update(buf.subarray(0, bytesRead))
        at += bytesRead
      }
      if (at === want && hash.copy().digest('hex') === mark.sha256) {
        bytes = want
        seq = mark.seq
      } else {
        rewritten = true
        hash = sha256()
      }
    } else if (mark && (want > 0 || mark.seq > 0)) {
      rewritten = true
    }
  } catch (error) {
    await fh.close()
    throw fileError(error, file, 'read the transcript')
  }
  let done = false
  async function* lines(): AsyncGenerator<TranscriptLine> {
    try {
      const buf = Buffer.allocUnsafe(CHUNK)
      let pending: Buffer[] = []
      let pos = bytes
      while (pos < size) {
        const {bytesRead} = await fh.read(buf, 0, Math.min(CHUNK, size - pos), pos)
        if (bytesRead === 0) break
        let from = 0
        for (;;) {
          const nl = buf.indexOf(10, from)
          if (nl < 0 || nl >= bytesRead) break
          pending.push(buf.subarray(from, nl + 1))
          const lineBuf = pending.length === 1 ? pending[0] : Buffer.concat(pending)
          pending = []
          const lineStart = bytes
          // The hash and the mark move before the yield: a caller that stops after this line resumes after it.
          hash.update(lineBuf)
          bytes += lineBuf.length
          seq++
          const raw = lineBuf.subarray(0, lineBuf.length - 1).toString('utf8')
          from = nl + 1
          yield raw.trim() === '' ? {line: seq, raw} : {line: seq, ...asLine(parseLine(raw, lineStart, seq, false))}
        }
        // Copied: the chunk buffer is reused by the next read.
        if (from < bytesRead) pending.push(Buffer.from(buf.subarray(from, bytesRead)))
        pos += bytesRead
      }
      done = true
    } finally {
      await fh.close()
    }
  }
  return {
    rewritten,
    unchanged: false,
    lines: lines(),
    mark: () => ({seq, bytes, sha256: hash.copy().digest('hex'), ...(done ? {size, mtimeMs} : {})}),
  }
}
