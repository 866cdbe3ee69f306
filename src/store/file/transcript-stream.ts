// A JSONL transcript read front to back (export, lineage totals, history across archives, search's grep) through the
// line reader's blocks of whole lines: only a block and the line being parsed are in memory, whatever the file's size.
import type {Hash} from 'node:crypto'
import fs from 'node:fs'

import {fileError} from '../../errors.js'
import {openRegular, openRegularSync} from '../../os/safe-open.js'
import {sha256} from '../../util/hash.js'
import {compileGrep} from '../grep.js'
import {isBlankLine, parseLine} from '../lines.js'
import type {MarkCheck, RawLineFilter, TranscriptLine, TranscriptMark, TranscriptSince} from '../types.js'
import {forwardBlocks, forwardLines} from './line-reader.js'
import {TRANSCRIPT_FILE} from './transcript.js'

/** trajectoryKey reads this much of the sidecar: its first event. */
const CHUNK = 64 * 1024

/** Every line of `file` in order (empty lines skipped); an unterminated last line that does not parse is `torn`. */
export async function* streamTranscriptLines(file: string): AsyncGenerator<TranscriptLine> {
  const fd = openTranscript(file)
  try {
    for (const l of forwardLines(fd, file)) yield {line: l.line, ...asLine(parseLine(l.raw, l.offset, l.line, l.torn))}
  } finally {
    fs.closeSync(fd)
  }
}

function openTranscript(file: string): number {
  try {
    return openRegularSync(file, TRANSCRIPT_FILE).fd
  } catch (error) {
    throw fileError(error, file, 'read the transcript')
  }
}

/**
 * The lines of `file` that contain one of the filter's needles, numbered and parsed as streamTranscriptLines would; the
 * others are only counted (a newline search), never decoded. Each block of whole lines is searched at once.
 */
export async function* grepTranscriptLines(file: string, filter: RawLineFilter): AsyncGenerator<TranscriptLine> {
  const fd = openTranscript(file)
  try {
    yield* grepFd(fd, file, filter)
  } finally {
    fs.closeSync(fd)
  }
}

/** grepTranscriptLines over an open descriptor (the idempotency lookup opens its own, to treat ENOENT as no hit). */
export function* grepFd(fd: number, file: string, filter: RawLineFilter): Generator<TranscriptLine> {
  const grep = compileGrep(filter)
  const count = {lines: 0}
  for (const {block, base} of forwardBlocks(fd, file)) yield* hitLines(block, block.length, base, count, (from) => grep.next(block, from), filter.unreadable)
}

/**
 * The lines of one block of whole lines (`buf[0, end)`, at file offset `base`) that `next(from)` finds a needle in,
 * numbered and parsed as streamTranscriptLines would; `count.lines` is the number of lines before the block, and is
 * advanced past it. Every block reader of the grep shares it (the Buffer one above, the SIMD one in grep-scan.ts).
 */
export function* hitLines(buf: Buffer, end: number, base: number, count: {lines: number}, next: (from: number) => number, unreadable = false): Generator<TranscriptLine> {
  let counted = 0
  let from = 0
  // The whole lines in [counted, upTo) that hold no needle: counted, and with `unreadable` each parsed and yielded when
  // it cannot be read (RawLineFilter.unreadable).
  function* skip(upTo: number): Generator<TranscriptLine> {
    let lineStart = counted
    for (let i = buf.indexOf(10, counted); i !== -1 && i < upTo; i = buf.indexOf(10, i + 1)) {
      count.lines++
      if (unreadable && i > lineStart) {
        const raw = buf.toString('utf8', lineStart, i)
        if (!isBlankLine(raw)) {
          const p = parseLine(raw, base + lineStart, count.lines, false)
          if (p.bad) yield {line: count.lines, ...asLine(p)}
        }
      }
      lineStart = i + 1
    }
  }
  for (;;) {
    const at = from < end ? next(from) : -1
    if (at === -1) break
    // The line holding `at` starts after the newline before it (not at `at`: with no filter `at` is a line's start, and
    // an empty line's start is its own newline, which would be counted twice).
    const start = at > 0 ? buf.lastIndexOf(10, at - 1) + 1 : 0
    let stop = buf.indexOf(10, at)
    const terminated = stop !== -1 && stop < end
    if (!terminated) stop = end
    yield* skip(start)
    count.lines++
    const raw = buf.toString('utf8', start, stop)
    from = stop + 1
    counted = from
    if (!isBlankLine(raw)) yield {line: count.lines, ...asLine(parseLine(raw, base + start, count.lines, !terminated))}
  }
  yield* skip(end)
  // A block ends without a newline only at the end of the file: a torn last line is yielded whatever it holds, so a
  // reader that counts what it could not read (usage's badLines) sees it; finding it costs one parse of one line.
  const last = end > 0 ? buf.lastIndexOf(10, end - 1) + 1 : 0
  if (last < end && counted <= last) {
    const raw = buf.toString('utf8', last, end)
    const p = isBlankLine(raw) ? undefined : parseLine(raw, base + last, count.lines + 1, true)
    if (p?.bad) yield {line: count.lines + 1, ...asLine(p)}
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
 * Whether a finished read's mark still describes the file without reading it: size, mtime, inode and ctime all equal.
 * ctime is what a same-size rewrite with its mtime put back (cp -p, rsync -t) cannot hide; the inode, a file renamed
 * into place. A mark without them (an older one) does not qualify: its prefix is checked again once.
 */
export function sameSource(mark: TranscriptMark, st: {size: number; mtimeMs: number; ino: number; ctimeMs: number}): boolean {
  return mark.size === st.size && mark.mtimeMs === st.mtimeMs && mark.ino !== undefined && mark.ino === st.ino && mark.ctimeMs !== undefined && mark.ctimeMs === st.ctimeMs
}

/** readSince's reads. */
const SINCE_CHUNK = 1024 * 1024

/** How much of each end of the prefix read the `ends` check compares (MarkCheck). */
const ENDS = 4096

/** sha256 of the first and the last (up to) ENDS bytes of the file's first `bytes` (`head`: the file's first ENDS bytes or fewer). */
function endsHash(fd: number, head: Buffer, bytes: number): string {
  const tail = Buffer.allocUnsafe(Math.min(ENDS, bytes))
  let got = 0
  while (got < tail.length) {
    const n = fs.readSync(fd, tail, got, tail.length - got, bytes - tail.length + got)
    if (n === 0) break
    got += n
  }
  return sha256()
    .update(head.subarray(0, Math.min(ENDS, bytes)))
    .update(tail.subarray(0, got))
    .digest('hex')
}

/**
 * The lines of `file` after `mark` (SessionStore.readSince of the file layout). Unchanged size, mtime, inode and ctime:
 * nothing is read. Otherwise the mark's prefix is checked (`verify`, MarkCheck: by default the first `mark.bytes` are
 * hashed again; `ends`: only their first and last 4 KiB); a different hash (or a shorter file) means the file was
 * rewritten or replaced, and it is read again from its start. Only complete lines are read, and only up to the size seen
 * at open: a writer appending meanwhile is read next time, never half. Each line carries its byte offset.
 */
export async function readTranscriptSince(file: string, mark?: TranscriptMark, opts: {verify?: MarkCheck} = {}): Promise<TranscriptSince> {
  const ends = opts.verify === 'ends'
  // The common case, most transcripts untouched: one stat, not an open, fstat and close.
  if (mark && mark.bytes !== undefined && mark.size !== undefined) {
    let st: fs.Stats | undefined
    try {
      st = fs.statSync(file)
    } catch {}
    if (st?.isFile() && sameSource(mark, st)) return {rewritten: false, unchanged: true, lines: empty(), mark: () => ({...mark})}
  }
  let opened
  try {
    opened = await openRegular(file, TRANSCRIPT_FILE)
  } catch (error) {
    throw fileError(error, file, 'read the transcript')
  }
  const {fh, stat} = opened
  const {size, mtimeMs, ino, ctimeMs} = stat
  if (mark && mark.bytes !== undefined && sameSource(mark, stat)) {
    await fh.close()
    return {rewritten: false, unchanged: true, lines: empty(), mark: () => ({...mark})}
  }
  let hash: Hash | undefined = ends ? undefined : sha256()
  let head = Buffer.alloc(0)
  let bytes = 0
  let seq = 0
  let rewritten = false
  try {
    const want = mark?.bytes ?? 0
    if (ends) {
      head = Buffer.allocUnsafe(Math.min(ENDS, size))
      let got = 0
      while (got < head.length) {
        const {bytesRead} = await fh.read(head, got, head.length - got, got)
        if (bytesRead === 0) break
        got += bytesRead
      }
      head = head.subarray(0, got)
      if (want > 0 && want <= size && mark?.endsSha256 && endsHash(fh.fd, head, want) === mark.endsSha256) {
        bytes = want
        seq = mark.seq
      } else if (mark && (want > 0 || mark.seq > 0)) {
        rewritten = true
      }
    } else if (want > 0 && want <= size && mark?.sha256) {
      const prefix = hash!
      const buf = Buffer.allocUnsafe(CHUNK)
      let at = 0
      while (at < want) {
        const {bytesRead} = await fh.read(buf, 0, Math.min(CHUNK, want - at), at)
        if (bytesRead === 0) break
        prefix.update(buf.subarray(0, bytesRead))
        at += bytesRead
      }
      if (at === want && prefix.copy().digest('hex') === mark.sha256) {
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
  let closed = false
  // The `ends` fingerprint of the last mark position, taken before the file is closed (mark() may be asked after).
  let endsAtClose: {bytes: number; sha: string} | undefined
  const endsNow = (): string | undefined => {
    if (!ends) return undefined
    if (endsAtClose && endsAtClose.bytes === bytes) return endsAtClose.sha
    if (closed) return undefined
    return endsHash(fh.fd, head, bytes)
  }
  async function* lines(): AsyncGenerator<TranscriptLine> {
    try {
      // Read synchronously, a MiB at a time: a reader of many transcripts is bound by its own work, and each awaited read
      // costs a round trip through libuv's thread pool (a third of the time of a catalog's first build, idle).
      // No larger than what is left to read: an appended turn is a few hundred bytes, and a MiB allocated per transcript
      // (a refresh reads many such tails) is external memory V8 collects for with full collections (~4 ms a tail).
      const buf = Buffer.allocUnsafe(Math.max(1, Math.min(SINCE_CHUNK, size - bytes)))
      let pending: Buffer[] = []
      let pos = bytes
      while (pos < size) {
        const bytesRead = fs.readSync(fh.fd, buf, 0, Math.min(SINCE_CHUNK, size - pos), pos)
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
          hash?.update(lineBuf)
          bytes += lineBuf.length
          seq++
          const raw = lineBuf.subarray(0, lineBuf.length - 1).toString('utf8')
          from = nl + 1
          yield raw.trim() === '' ? {line: seq, raw, offset: lineStart} : {line: seq, ...asLine(parseLine(raw, lineStart, seq, false)), offset: lineStart}
        }
        // Copied: the chunk buffer is reused by the next read.
        if (from < bytesRead) pending.push(Buffer.from(buf.subarray(from, bytesRead)))
        pos += bytesRead
      }
      done = true
    } finally {
      if (ends) endsAtClose = {bytes, sha: endsHash(fh.fd, head, bytes)}
      closed = true
      await fh.close()
    }
  }
  return {
    rewritten,
    unchanged: false,
    lines: lines(),
    mark: () => {
      const fingerprint = endsNow()
      return {seq, bytes, ...(hash ? {sha256: hash.copy().digest('hex')} : {}), ...(fingerprint === undefined ? {} : {endsSha256: fingerprint}), ...(done ? {size, mtimeMs, ino, ctimeMs} : {})}
    },
  }
}
