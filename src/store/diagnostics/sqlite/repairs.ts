// --fix on an agent's SQLite database: refused while another process has it open, and preceded by SQLite's online
// backup into a 0600 file beside it. The repairs themselves (sqlite-checks.ts) never run DDL, VACUUM or a
// journal_mode change, and never rewrite or delete an event (spec store-sqlite.md §5.5). Journaled (clawkit undo):
// the backup's file is recorded before it is made, and each repair that changes rows records them before and after
// inside its own transaction (sqlite/journal.ts journalRowsInTx).
import fs from 'node:fs'
import path from 'node:path'

import {processesHoldingFile} from '../../../os/process.js'
import {ABSENT, type FilesStep, type JournalEntry} from '../../journal.js'
import {fileImage} from '../../journal-files.js'
import {loadSqlite, mapSqliteError, openAgentDb, type SqlDatabase} from '../../sqlite/driver.js'
import type {PlannedFinding, Repair} from '../types.js'

type SqliteRepair = Extract<Repair, {kind: 'sqlite'}>

function oneLine(error: unknown): string {
  return ((error as Error)?.message ?? String(error)).replace(/\s+/g, ' ').trim()
}

/**
 * Back the database up with SQLite's online backup API (a consistent copy, the WAL's committed frames included) into
 * `<db>.bak.<epoch-ms>`, created exclusively with mode 0600 before SQLite writes into it, so an existing backup is never
 * overwritten and the copy is never readable by others, even for a moment.
 */
export async function backupDatabase(conn: SqlDatabase, db: string, now = Date.now(), beforeCreate?: (dest: string) => Promise<void>): Promise<string> {
  const {backup} = loadSqlite()
  if (typeof backup !== 'function') throw new Error('this Node has no node:sqlite backup(); nothing was changed (doctor needs Node 22.16 or later to repair a SQLite store)')
  let dest = ''
  for (let t = now; ; t++) {
    dest = `${db}.bak.${t}`
    if (fs.existsSync(dest)) continue
    await beforeCreate?.(dest)
    try {
      fs.closeSync(fs.openSync(dest, 'wx', 0o600))
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
  try {
    await backup(conn, dest)
    fs.chmodSync(dest, 0o600)
  } catch (error) {
    fs.rmSync(dest, {force: true})
    throw error
  }
  return dest
}

/**
 * The backup, journaled: its name is recorded (an open step: undo takes away whatever is there) before the file is
 * made, and recorded again with its image once it is complete, so that `clawkit undo` takes it away with the repairs
 * it preceded (the state dir is then as it was, byte for byte) and a redo puts it back.
 */
async function journaledBackup(conn: SqlDatabase, db: string, agentId: string, entry: JournalEntry | undefined): Promise<string> {
  if (!entry) return backupDatabase(conn, db)
  let step: FilesStep | undefined
  const record = async (dest: string) => {
    const files = [{path: dest, before: ABSENT, after: ABSENT}]
    if (step) await entry.rerecord((step = {...step, files, targets: [dest]}))
    else step = (await entry.record({kind: 'files', agentId, store: db, label: `doctor --fix: backup of ${path.basename(db)} before its repairs`, files, open: true, targets: [dest]})) as FilesStep
  }
  const dest = await backupDatabase(conn, db, Date.now(), record)
  const done: FilesStep = {...step!, files: [{path: dest, before: ABSENT, after: await fileImage(dest)}]}
  delete done.open
  delete done.targets
  await entry.rerecord(done)
  return dest
}

/**
 * Run every planned SQLite repair, one database at a time: holders checked, one backup, then each repair. With a
 * journal entry, the backup and every row a repair changes are recorded in it (doctor --fix's entry).
 */
export async function applySqliteRepairs(batch: PlannedFinding[], entry?: JournalEntry): Promise<void> {
  const byDb = new Map<string, PlannedFinding[]>()
  for (const f of batch) {
    const db = (f.repair as SqliteRepair).db
    byDb.set(db, [...(byDb.get(db) ?? []), f])
  }
  for (const [db, list] of byDb) {
    const fail = (why: string) => {
      for (const f of list) if (!f.fixed) f.repairError = why
    }
    // A gateway or agent run keeps the database open: repairing under it would race its writes and its caches.
    const holders = processesHoldingFile(db)?.filter((pid) => pid !== process.pid) ?? []
    if (holders.length > 0) {
      fail(`not changed: pid ${holders.join(', ')} has the database open (an OpenClaw gateway or agent run); stop it ("openclaw gateway stop") and run "clawkit doctor --fix" again`)
      continue
    }
    let conn: SqlDatabase
    try {
      conn = openAgentDb(db, {write: true, agentId: (list[0].repair as SqliteRepair).agentId}).db
    } catch (error) {
      fail(`not changed: ${oneLine(error)}`)
      continue
    }
    try {
      let backup: string
      try {
        backup = await journaledBackup(conn, db, (list[0].repair as SqliteRepair).agentId, entry)
      } catch (error) {
        fail(`not changed: the backup of the database failed (${oneLine(mapSqliteError(db, error))}), so nothing was repaired`)
        continue
      }
      for (const f of list) {
        try {
          f.action = await (f.repair as SqliteRepair).run(conn, entry)
          f.fixed = true
          f.backup = backup
        } catch (error) {
          f.repairError = oneLine(error)
        }
      }
    } finally {
      // The last connection's close ends a checkpointed WAL (SQLite resets it); nothing else is written on close.
      conn.close()
    }
  }
}
