// Keeps a turn's entries that could not be stored in its session (a locked database, a session another writer moved
// on, a full disk) in clawkit's own data dir, so a reply the user has already seen is never simply lost.
import fs from 'node:fs'
import path from 'node:path'

import {clawkitDirs} from '../settings.js'

/** The first line of a saved turn: where its entries belonged and why they are here. */
export interface UnstoredTurnHeader {
  type: 'clawkit-unstored-turn'
  version: 1
  savedAt: string
  agentId: string
  sessionKey: string
  sessionId: string
  /** The session's transcript as `sessions history` names it. */
  transcript: string
  /** The id of the last stored entry the first saved entry chains onto (null: the transcript did not exist yet). */
  parentId: string | null
  reason: string
}

/**
 * Write `<data>/unstored/<time>-<sessionId>.ndjson` (dir 0700, file 0600, temp file then rename): the header line, then
 * the entries exactly as they would have been appended. Returns its path. Never in the state dir: OpenClaw would take
 * a stray file there for part of its store.
 */
export function saveUnstoredTurn(header: Omit<UnstoredTurnHeader, 'type' | 'version' | 'savedAt'>, entries: readonly object[], env: Record<string, string | undefined> = process.env): string {
  const dir = path.join(clawkitDirs(env).data, 'unstored')
  fs.mkdirSync(dir, {recursive: true, mode: 0o700})
  const now = new Date()
  const stamp = now.toISOString().replace(/[-:]/g, '')
  // The session id is validated by the store (no separators); anything else is replaced so the name stays one file.
  const safeId = header.sessionId.replace(/[^\w.-]/g, '_')
  const file = path.join(dir, `${stamp}-${safeId}.ndjson`)
  const first: UnstoredTurnHeader = {type: 'clawkit-unstored-turn', version: 1, savedAt: now.toISOString(), ...header}
  const text = [first, ...entries].map((e) => `${JSON.stringify(e)}\n`).join('')
  const tmp = `${file}.${process.pid}.tmp`
  const fd = fs.openSync(tmp, 'wx', 0o600)
  try {
    fs.writeFileSync(fd, text)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  fs.renameSync(tmp, file)
  return file
}
