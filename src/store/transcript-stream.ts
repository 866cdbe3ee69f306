// A JSONL transcript read front to back in fixed-size chunks (export, lineage totals, history across archives): only
// the line being parsed is in memory, whatever the size of the file.
import {fileError} from '../errors.js'
import {openRegular} from './safe-open.js'
import {parseLine, TRANSCRIPT_FILE} from './transcript.js'
import type {TranscriptLine} from './types.js'

const CHUNK = 64 * 1024

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
