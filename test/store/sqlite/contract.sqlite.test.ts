// The store contract (test/support/store-contract.ts) on OpenClaw's SQLite database: a copy of the database OpenClaw
// 2026.9.6 wrote itself (agent:main:main after five turns, and an explicit session), read and written by
// SqliteSessionStore. What it stores is checked from the database's own rows (transcript_events), not through the store.
import fs from 'node:fs'
import path from 'node:path'

import {afterEach} from 'vitest'

import {SqliteSessionStore} from '../../../src/store/sqlite/store.js'
import {copyFixture, tempDir} from '../../support/cli.js'
import {describeSqlite, NATIVE_96} from '../../support/sqlite.js'
import {dbPath, eventsOf} from '../../support/sqlite-expect.js'
import {describeContract} from '../../support/store-contract.js'

const opened: SqliteSessionStore[] = []
afterEach(() => {
  for (const s of opened.splice(0)) s.close()
})

describeSqlite('the store contract on SQLite (OpenClaw 2026.9.6)', () => {
  describeContract('SQLite (OpenClaw 2026.9.6 database)', () => {
    const state = copyFixture(NATIVE_96)
    const db = dbPath(state, 'main')
    // clawkit's per-session write locks live in its own data dir, never in the state dir.
    const lockDir = path.join(tempDir(), 'locks')
    fs.mkdirSync(lockDir)
    const store = new SqliteSessionStore({agentId: 'main', path: db}, {stateDir: state, lockDir})
    opened.push(store)
    const linesOf = (t: {locator: string}) => {
      const rows = eventsOf(db, t.locator.slice(t.locator.lastIndexOf('#') + 1))
      return rows.length === 0 ? undefined : rows.map((r) => JSON.parse(r.text) as object)
    }
    return {
      store,
      main: {key: 'agent:main:main', sessionId: '43eeabd1-7609-4067-b31f-fda50759fe26'},
      other: {key: 'agent:main:explicit:c0ffee00-0000-4000-8000-000000000096', sessionId: 'c0ffee00-0000-4000-8000-000000000096'},
      linesOf,
      word: 'hello',
      missingReads: 'empty',
    }
  })
})
