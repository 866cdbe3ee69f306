// Which era an agent's session store is in. From about 2026.7 OpenClaw keeps an agent's sessions in
// `agents/<id>/agent/openclaw-agent.sqlite` and reads sessions.json only as one-time import input (store-sqlite.md section 1,
// section 8). clawkit reads and writes that database (src/store/sqlite/) and, for such an agent, never writes a JSON-era
// session file: OpenClaw would not see the turn, and its next import would merge the stray file into the user's store.
import fs from 'node:fs'
import path from 'node:path'

import {ClawkitError, ExitCode} from '../errors.js'
import {SqliteStoreOpenError} from './sqlite/driver.js'

export const SQLITE_STORE_FILE = 'openclaw-agent.sqlite'

export function sqliteStorePath(stateDir: string, agentId: string): string {
  return path.join(stateDir, 'agents', agentId, 'agent', SQLITE_STORE_FILE)
}

/**
 * The agent's SQLite store, if one exists. Only its existence is checked (no node:sqlite): any entry of that name
 * counts, a dangling link included, since OpenClaw would create or open the database there. When it exists next to a
 * sessions.json, the database is the truth and the JSON file is legacy input.
 */
export function findSqliteStore(stateDir: string, agentId: string): string | undefined {
  const db = sqliteStorePath(stateDir, agentId)
  try {
    fs.lstatSync(db)
    return db
  } catch {
    return undefined
  }
}

/**
 * A write-ahead log without its database: the sessions committed since the last checkpoint are only in that log, and
 * opening a database there would start an empty one (and could replay or lose the log). Reads fail in one line instead
 * of reading the agent as empty or as its stale legacy sessions.json.
 */
export function assertNoOrphanWal(stateDir: string, agentId: string): void {
  const db = sqliteStorePath(stateDir, agentId)
  for (const side of ['-wal', '-journal']) {
    let size: number
    try {
      size = fs.lstatSync(db + side).size
    } catch {
      continue
    }
    if (size > 0) {
      throw new SqliteStoreOpenError(db, `the database file is missing but its ${side.slice(1)} file (${db}${side}, ${size} bytes) is there, so the latest sessions may be only in that file.`, 'E_SQLITE_ORPHAN_WAL', [
        'Restore the database file from a backup next to it (or move the stray file away if it is not needed); nothing was changed.',
      ])
    }
  }
}

/**
 * Raised by a JSON-era writer that finds the agent's SQLite database (created after the command chose its store, or a
 * sessions.json named by path): exit 1, code E_SQLITE_STORE.
 */
export class SqliteStoreError extends ClawkitError {
  readonly agentId: string
  readonly db: string

  constructor(agentId: string, db: string) {
    super(
      `Agent "${agentId}" keeps its sessions in SQLite (${db}), the store of OpenClaw 2026.7 and later. Nothing was written: a sessions.json or transcript beside the database would fork the conversation (OpenClaw would not see it and would later import it as a duplicate).`,
      {code: 'E_SQLITE_STORE', exitCode: ExitCode.failure, suggestions: ['Run the command again: clawkit then writes to the agent\'s database.']},
    )
    this.agentId = agentId
    this.db = db
  }
}
