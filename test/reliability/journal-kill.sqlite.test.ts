// Kill -9 trials of the journal's promise (issue 29), SQLite era: archive, delete (three steps: rows, published file,
// published mark), restore, reset, cleanup and doctor --fix (a chmod, the database's backup, a row repaired, a WAL
// checkpointed) on OpenClaw 2026.9.6's own store, each SIGKILLed after every durable record of its journal (a rows
// step is recorded inside its transaction, before COMMIT) and before it is marked done, and each undo after every
// step it replays; `clawkit undo` then leaves every row of every table OpenClaw reads as it was, every file, and the
// database's mode.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import {baseEnv, copyFixture, runCli, tempDir} from '../support/cli.js'
import {mixedSqliteStore} from '../support/cleanup-store.js'
import {deepOr} from '../support/deep.js'
import {DELETED_96, describeSqlite} from '../support/sqlite.js'
import {hashTree, stateRows} from '../support/state-hash.js'

interface Case {
  name: string
  prepare?: string[][]
  change: string[]
  generated?: boolean
  /** Problems made in the store before the change (what doctor --fix repairs). */
  damage?: (db: string) => Promise<void>
  /** The steps its journal entry must have (every repair recorded). */
  steps?: number
}

/**
 * entry_valid 0 on a session, committed by a process killed before its checkpoint (a stale WAL nobody holds), and a
 * read-only database: the three SQLite-era problems doctor --fix repairs.
 */
async function doctorDamage(db: string): Promise<void> {
  const sql = "UPDATE session_nodes SET entry_valid = 0 WHERE session_key = 'agent:main:keep'"
  const child = spawn(process.execPath, ['-e', `const {DatabaseSync} = require('node:sqlite'); const db = new DatabaseSync(${JSON.stringify(db)}); db.exec('PRAGMA wal_autocheckpoint = 0'); db.exec(${JSON.stringify(sql)}); process.kill(process.pid, 'SIGKILL')`], {stdio: 'ignore'})
  await new Promise((resolve) => child.on('exit', resolve))
  fs.chmodSync(db, 0o400)
}

const CASES: Case[] = [
  {name: 'sessions archive', change: ['sessions', 'archive', 'agent:main:keep']},
  {name: 'sessions delete', change: ['sessions', 'delete', 'agent:main:scratch-2']},
  {name: 'sessions restore', change: ['sessions', 'restore', 'ddfebd8b-b803-4493-b99d-22be141b040c', '--as', 'agent:main:old']},
  {name: 'sessions reset', change: ['sessions', 'reset', 'agent:main:keep']},
  {name: 'sessions cleanup', change: ['sessions', 'cleanup', '--yes'], generated: true},
  {name: 'doctor --fix', change: ['doctor', '--fix', '--yes'], damage: doctorDamage, steps: 3},
]

const DB = 'agents/main/agent/openclaw-agent.sqlite'

function snapshot(state: string) {
  return {rows: stateRows(state), files: hashTree(state, {dbs: false}), mode: (fs.statSync(path.join(state, DB)).mode & 0o777).toString(8)}
}

async function trial(c: Case, killAt?: string) {
  const state = copyFixture(DELETED_96)
  if (c.generated) await mixedSqliteStore(path.join(state, DB), Date.now())
  await c.damage?.(path.join(state, DB))
  const env = baseEnv(tempDir())
  const cli = (args: string[], kill?: string) => runCli([...args, '--state-dir', state], {env: kill ? {...env, CLAWKIT_TEST_KILL_AT: kill} : env})
  const before = snapshot(state)
  const r = await cli(c.change, killAt)
  const root = path.join(env.CLAWKIT_DATA_DIR, 'journal')
  const ids = fs.existsSync(root) ? fs.readdirSync(root).filter((n) => /^\d{8}-/.test(n)).sort() : []
  const steps = ids.length ? fs.readdirSync(path.join(root, ids[0], 'steps')).length : 0
  return {state, cli, before, r, steps}
}

describeSqlite('kill -9 in the middle of a journaled change, and of its undo (SQLite era)', () => {
  // npm test: archive, and doctor --fix with its own kill points; npm run test:deep every change.
  for (const c of deepOr(CASES, ['sessions archive', 'doctor --fix'])) {
    it(`${c.name}: killed after each step and before it is marked done, undo gives every row and file back`, async () => {
      const {steps} = await trial(c)
      expect(steps).toBeGreaterThan(0)
      // doctor --fix: the chmod's snapshot, the backup, the row repaired (the checkpoint changes no row).
      if (c.steps) expect(steps).toBe(c.steps)
      for (const point of [...Array.from({length: steps}, (_, i) => `record:${i + 1}`), `finish:${c.change[0] === 'doctor' ? 'doctor-fix' : c.change[1]}`]) {
        const t = await trial(c, point)
        expect(t.r.code, point).not.toBe(0)
        const u = await t.cli(['undo', '--json'])
        expect(u.code, `${point}: ${u.stderr}`).toBe(0)
        expect(snapshot(t.state), point).toEqual(t.before)
      }
    })

    it(`${c.name}: undo killed after each step it replays, undo run again gives every row and file back`, async () => {
      const {steps} = await trial(c)
      for (let k = 1; k <= steps; k++) {
        const t = await trial(c)
        expect(t.r.code, t.r.stderr).toBe(0)
        expect((await t.cli(['undo'], `replay:${k}`)).code, `replay:${k}`).not.toBe(0)
        const u = await t.cli(['undo', '--json'])
        expect(u.code, `replay:${k}: ${u.stderr}`).toBe(0)
        expect(snapshot(t.state), `replay:${k}`).toEqual(t.before)
      }
    })
  }
})
