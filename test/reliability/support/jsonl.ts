// Byte-level transcript checks used after crashes: complete lines must parse, only an unterminated tail may not.
import fs from 'node:fs'

export interface JsonlScan {
  /** Parsed objects of the complete (newline-terminated) lines, in order. */
  lines: Record<string, unknown>[]
  /** Complete lines that do not parse: must be empty after a crash, except fenced torn lines from earlier crashes. */
  badComplete: number[]
  /** Bytes after the last newline (a torn last line), or '' when the file ends with a newline. */
  tail: string
  bytes: Buffer
}

export function scanJsonl(file: string): JsonlScan {
  const bytes = fs.readFileSync(file)
  const text = bytes.toString('utf8')
  const end = text.lastIndexOf('\n')
  const complete = end < 0 ? [] : text.slice(0, end).split('\n')
  const lines: Record<string, unknown>[] = []
  const badComplete: number[] = []
  complete.forEach((l, i) => {
    if (l.trim() === '') return
    try {
      const v = JSON.parse(l)
      if (v && typeof v === 'object' && !Array.isArray(v)) lines.push(v)
      else badComplete.push(i + 1)
    } catch {
      badComplete.push(i + 1)
    }
  })
  return {lines, badComplete, tail: text.slice(end + 1), bytes}
}
