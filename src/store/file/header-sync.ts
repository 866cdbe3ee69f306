// A transcript's header (its first line) read synchronously from a small first read: an agent-wide lineage walk
// (allSessions) reads one per key, and through FileHandle each took an open, fstat, 64 KiB read and close on libuv's
// thread pool, ~0.2 ms apiece and ~120 MB copied for 1863 keys. Same result as readTranscriptHeader.
import fs from 'node:fs'

import {openRegularSync} from '../../os/safe-open.js'
import {isHeader} from '../entries.js'
import {parseLine} from '../lines.js'
import type {TranscriptHeader} from '../transcript-types.js'
import {TRANSCRIPT_FILE} from './transcript.js'

/** readTranscriptHeader reads no further than this for the first line (then parses what it has, as a torn line). */
const MAX_HEADER_BYTES = 1024 * 1024
/** A header is a few hundred bytes: this first read almost always holds it whole. */
const FIRST_READ = 4096

export function readTranscriptHeaderSync(file: string): TranscriptHeader | undefined {
  const {fd, stat} = openRegularSync(file, TRANSCRIPT_FILE)
  try {
    const max = Math.min(stat.size, MAX_HEADER_BYTES)
    let buf = Buffer.allocUnsafe(Math.min(max, FIRST_READ))
    let got = 0
    for (;;) {
      let eof = false
      while (got < buf.length) {
        const n = fs.readSync(fd, buf, got, buf.length - got, got)
        if (n <= 0) {
          eof = true
          break
        }
        got += n
      }
      const nl = buf.subarray(0, got).indexOf(10)
      if (nl >= 0 || eof || buf.length === max) {
        const parsed = parseLine(buf.toString('utf8', 0, nl >= 0 ? nl : got), 0, 1, nl < 0)
        return isHeader(parsed.value) ? parsed.value : undefined
      }
      const bigger = Buffer.allocUnsafe(Math.min(max, buf.length * 16))
      buf.copy(bigger, 0, 0, got)
      buf = bigger
    }
  } finally {
    fs.closeSync(fd)
  }
}
