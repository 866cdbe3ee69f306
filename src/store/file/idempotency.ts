// The file backend's idempotency lookup: grep a transcript for the message that carries a delivery's key.
import fs from 'node:fs'

import {openRegularSync} from '../../os/safe-open.js'
import {idempotencyHitOf} from '../entries.js'
import {isEnoent} from '../fs-util.js'
import type {IdempotencyHit} from '../types.js'
import {grepFd} from './transcript-stream.js'
import {TRANSCRIPT_FILE} from './transcript.js'

/**
 * Scan a transcript for a message carrying this idempotency key (OpenClaw's transcriptFindIdempotencyKey), forward
 * through the line reader: transcripts reach gigabytes, so only a block of lines is in memory, and only the lines
 * whose bytes hold the key are decoded and parsed (the grep of `sessions search`).
 */
export async function findIdempotencyKey(file: string, key: string): Promise<IdempotencyHit | undefined> {
  let fd: number
  try {
    // A FIFO or device named like the transcript would stream forever.
    ;({fd} = openRegularSync(file, TRANSCRIPT_FILE))
  } catch (error) {
    if (isEnoent(error)) return undefined
    throw error
  }
  try {
    for (const line of grepFd(fd, file, {needles: [key], ignoreCase: false})) {
      const hit = line.value ? idempotencyHitOf(line.value, key) : undefined
      if (hit) return hit
    }
  } finally {
    fs.closeSync(fd)
  }
  return undefined
}
