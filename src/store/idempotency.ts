// The file backend's idempotency lookup: stream a transcript for the message that carries a delivery's key.
import type {FileHandle} from 'node:fs/promises'
import readline from 'node:readline'

import {isEnoent} from './fs-util.js'
import {openRegular} from './safe-open.js'
import {TRANSCRIPT_FILE} from './transcript.js'
import type {IdempotencyHit} from './types.js'

/** The hit when this transcript line is a message carrying the key (every backend's test for one line). */
export function idempotencyHitOf(line: unknown, key: string): IdempotencyHit | undefined {
  const v = line as {id?: unknown; message?: {idempotencyKey?: unknown; openclawMessageMeta?: Record<string, unknown>}} | null
  if (v?.message?.idempotencyKey === key && typeof v.id === 'string') return {entryId: v.id, meta: v.message.openclawMessageMeta}
  return undefined
}

/**
 * Scan a transcript for a message carrying this idempotency key (OpenClaw's transcriptFindIdempotencyKey). The file
 * is streamed line by line: transcripts reach gigabytes, and a whole-file string would cost that much memory (and
 * fails outright past V8's ~512 MB string limit). Only lines that contain the key are parsed.
 */
export async function findIdempotencyKey(file: string, key: string): Promise<IdempotencyHit | undefined> {
  let fh: FileHandle
  try {
    // A FIFO or device named like the transcript would stream forever.
    ;({fh} = await openRegular(file, TRANSCRIPT_FILE))
  } catch (error) {
    if (isEnoent(error)) return undefined
    throw error
  }
  const lines = readline.createInterface({input: fh.createReadStream({encoding: 'utf8'}), crlfDelay: Number.POSITIVE_INFINITY})
  try {
    for await (const line of lines) {
      if (!line.includes(key)) continue
      let hit: IdempotencyHit | undefined
      try {
        hit = idempotencyHitOf(JSON.parse(line), key)
      } catch {}
      if (hit) return hit
    }
  } catch (error) {
    if (isEnoent(error)) return undefined
    throw error
  } finally {
    lines.close()
    await fh.close().catch(() => {})
  }
  return undefined
}
