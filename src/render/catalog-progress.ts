// The catalog's first build on a terminal: one line on stderr, redrawn in place (bytes and transcripts read, and an
// estimate of what is left), only once the build has taken a moment; nothing at all on a pipe or for a quick refresh.
import type {RefreshProgress} from '../catalog/index.js'
import {formatBytes} from '../text/bytes.js'

/** Quiet this long first: a refresh that reads a few appended turns never shows a line. */
const QUIET_MS = 700
const EVERY_MS = 200

export interface ProgressLine {
  onProgress(p: RefreshProgress): void
  /** Clears the line (the command's own output follows). */
  done(): void
}

export function catalogProgressLine(stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): ProgressLine | undefined {
  if (!stream.isTTY) return undefined
  const started = now()
  let last = 0
  let shown = false
  return {
    onProgress(p) {
      const t = now()
      if (t - started < QUIET_MS || t - last < EVERY_MS) return
      last = t
      shown = true
      const rate = p.bytes / Math.max(1, t - started)
      const left = rate > 0 && p.bytesTotal > p.bytes ? Math.ceil((p.bytesTotal - p.bytes) / rate / 1000) : undefined
      const of = p.bytesTotal > 0 ? ` of ${formatBytes(p.bytesTotal)}` : ''
      const line = `Building the catalog (agent ${p.agentId}): ${formatBytes(p.bytes)}${of}, ${p.files} of ${p.filesTotal} transcripts${left === undefined ? '' : `, about ${left} s left`}; Ctrl-C keeps what is done`
      const width = stream.columns && stream.columns > 10 ? stream.columns - 1 : 120
      stream.write(`\r\x1b[K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`)
    },
    done() {
      if (shown) stream.write('\r\x1b[K')
      shown = false
    },
  }
}
