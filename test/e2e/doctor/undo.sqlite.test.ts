// `doctor --fix` journaled in the SQLite era, through the real CLI: every repair doctor makes to an agent database (an
// entry_valid 0 set to 1, a stale WAL checkpointed, a read-only database made writable) and the online backup it
// writes before them are in its journal entry, so `clawkit undo` leaves every row of every table OpenClaw reads as it
// was, every other file byte for byte, and the database's mode; undoing the undo repairs again.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import type {DoctorResult} from '../../../src/doctor/types.js'
import type {UndoResult} from '../../../src/commands/undo.js'
import {baseEnv, copyFixture, json, jsonError, runCli, tempDir} from '../../support/cli.js'
import {describeSqlite, NATIVE_96} from '../../support/sqlite.js'
import {hashTree, stateRows} from '../../support/state-hash.js'

const MAIN = 'agent:main:main'
const dbOf = (state: string) => path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite')

/** A change committed by a process killed before any checkpoint: a stale WAL nobody holds (sqlite-wal-stale). */
async function crashAfterCommit(db: string, sql: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', `const {DatabaseSync} = require('node:sqlite'); const db = new DatabaseSync(${JSON.stringify(db)}); db.exec('PRAGMA wal_autocheckpoint = 0'); db.exec(${JSON.stringify(sql)}); process.kill(process.pid, 'SIGKILL')`], {stdio: 'ignore'})
  await new Promise((resolve) => child.on('exit', resolve))
}

/** Every repairable SQLite-era problem doctor knows, on one copy of OpenClaw 2026.9.6's native store. */
async function damaged(): Promise<string> {
  const state = copyFixture(NATIVE_96)
  const db = dbOf(state)
  // entry_valid 0 and the stale WAL in one crashed process: a clean close would checkpoint the WAL away.
  await crashAfterCommit(db, `UPDATE session_nodes SET entry_valid = 0 WHERE session_key = '${MAIN}'; UPDATE session_nodes SET label = 'from-the-wal' WHERE session_key = '${MAIN}'`)
  fs.chmodSync(db, 0o400)
  return state
}

function snapshot(state: string) {
  return {rows: stateRows(state), files: hashTree(state, {dbs: false}), mode: (fs.statSync(dbOf(state)).mode & 0o777).toString(8)}
}

describeSqlite('doctor --fix and undo (SQLite era)', () => {
  it('undo after doctor --fix gives back every row, file and the database mode; the undo of the undo repairs again', async () => {
    const state = await damaged()
    const env = baseEnv(tempDir())
    const cli = (args: string[]) => runCli([...args, '--state-dir', state], {env})
    expect(fs.statSync(`${dbOf(state)}-wal`).size).toBeGreaterThan(0)
    const before = snapshot(state)
    expect(before.mode).toBe('400')

    const fixed = await cli(['doctor', '--fix', '--yes', '--json'])
    const doc = json<DoctorResult>(fixed)
    expect(doc.findings.filter((f) => f.fixed).map((f) => f.id).sort(), JSON.stringify(doc.findings)).toEqual(['sqlite-entry-unvalidated', 'sqlite-read-only', 'sqlite-wal-stale'])
    expect(fixed.code, JSON.stringify(doc.findings)).toBe(0)
    expect(doc.journal).toMatch(/^\d{8}-/)
    const backup = doc.findings.find((f) => f.id === 'sqlite-entry-unvalidated')!.backup!
    expect(fs.existsSync(backup)).toBe(true)
    const afterFix = snapshot(state)
    expect(afterFix.rows).not.toEqual(before.rows)
    expect(afterFix.mode).toBe('600')

    const list = await cli(['undo', '--list', '--json'])
    expect(json<{entries: {id: string; action: string}[]}>(list).entries[0]).toMatchObject({id: doc.journal, action: 'doctor-fix'})
    const u = await cli(['undo', '--json'])
    expect(u.code, u.stderr).toBe(0)
    expect(json<UndoResult>(u).undone.id).toBe(doc.journal)
    expect(snapshot(state)).toEqual(before)
    expect(fs.existsSync(backup)).toBe(false)

    const redo = await cli(['undo', json<UndoResult>(u).journal!, '--json'])
    expect(redo.code, redo.stderr).toBe(0)
    expect(snapshot(state)).toEqual(afterFix)
    expect(fs.existsSync(backup)).toBe(true)
  })

  it('undo refuses, changing nothing, once a newer write changed the rows doctor repaired', async () => {
    const state = await damaged()
    const env = baseEnv(tempDir())
    const cli = (args: string[]) => runCli([...args, '--state-dir', state], {env})
    expect((await cli(['doctor', '--fix', '--yes', '--json'])).code).toBe(0)
    const {DatabaseSync} = (process as unknown as {getBuiltinModule(id: string): {DatabaseSync: new (p: string) => {exec(s: string): void; close(): void}}}).getBuiltinModule('node:sqlite')
    const db = new DatabaseSync(dbOf(state))
    db.exec(`UPDATE session_nodes SET label = 'renamed since' WHERE session_key = '${MAIN}'`)
    db.close()
    const moved = snapshot(state)
    const u = await cli(['undo', '--json'])
    expect(u.code).toBe(1)
    expect(jsonError(u)).toMatchObject({code: 'E_UNDO_CONFLICT'})
    expect(jsonError(u).message).toMatch(/entry_valid = 1 for agent:main:main.*changed since \(session_nodes: 1 row/)
    expect(snapshot(state)).toEqual(moved)
  })
})
