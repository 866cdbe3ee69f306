// A JSONL transcript read front to back (export, lineage totals, history across archives, search's grep) through the
// line reader's blocks of whole lines: only a block and the line being parsed are in memory, whatever the file's size.
import fs from 'node:fs'

import {fileError} from '../errors.js'
import {compileGrep} from './grep.js'
import {openRegular, openRegularSync} from './safe-open.js'
import {forwardBlocks, forwardLines, isBlankLine, parseLine} from './line-reader.js'
import {TRANSCRIPT_FILE} from './transcript.js'
import type {RawLineFilter, TranscriptLine} from './types.js'

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
  let lineNo = 0 // lines that end before the current block
  for (const {block, base} of forwardBlocks(fd, file)) {
    const end = block.length
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
      if (!isBlankLine(raw)) yield {line: lineNo, ...asLine(parseLine(raw, base + start, lineNo, !terminated))}
    }
    for (let i = block.indexOf(10, counted); i !== -1; i = block.indexOf(10, i + 1)) lineNo++
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
