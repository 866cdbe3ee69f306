// One stored transcript line as pi reads it: parsed as JSON, an object, or a bad line saying why. Every backend's
// readers decide what a line is this way (the file backend's line reader, the SQLite and replica events).
import type {BadLine} from './transcript-types.js'

export interface ParsedLine {
  /** The exact line as stored (without its newline). */
  raw: string
  offset: number
  value?: unknown
  bad?: BadLine
}

export function preview(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}\u2026` : s
}

/** One line as pi reads it: JSON, an object, else a bad line (torn when it is an unterminated last line). */
export function parseLine(raw: string, offset: number, lineNo: number, torn: boolean): ParsedLine {
  const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return {raw, offset, bad: {line: lineNo, offset, reason: torn ? 'torn' : 'invalid-json', preview: preview(text)}}
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {raw, offset, bad: {line: lineNo, offset, reason: 'not-an-object', preview: preview(text)}}
  }
  return {raw, offset, value}
}

/** A line pi skips: only whitespace (`raw.trim() === ''`). */
export function isBlankLine(raw: string): boolean {
  return raw.trim() === ''
}

/** The same test on bytes, without decoding them (the ASCII whitespace a JSONL writer can leave). */
export function isBlankBytes(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i]
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0b && c !== 0x0c) return false
  }
  return true
}
