// The SQLite listing reads session_nodes as arrays where node:sqlite can (Node 22.16+/24) and as row objects where it
// cannot (22.15): both paths must give the same entries, in the same order, on real OpenClaw 2026.9.6 databases.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import {loadSqlite, type SqlDatabase} from '../../../src/store/sqlite/driver.js'
import {iterateEntries} from '../../../src/store/sqlite/read.js'
import {copyFixture} from '../../support/cli.js'
import {DELETED_96, describeSqlite, IMPORTED_96, NATIVE_96} from '../../support/sqlite.js'

/** The same connection, as a Node without setReturnArrays shows it. */
function withoutArrays(db: SqlDatabase): SqlDatabase {
  return new Proxy(db, {
    get(target, prop) {
      if (prop !== 'prepare') return Reflect.get(target, prop)
      return (sql: string) => {
        const stmt = target.prepare(sql)
        return {all: stmt.all.bind(stmt), get: stmt.get.bind(stmt), run: stmt.run.bind(stmt), iterate: stmt.iterate.bind(stmt), setReadBigInts: stmt.setReadBigInts.bind(stmt)}
      }
    },
  })
}

describeSqlite('iterateEntries with and without setReturnArrays', () => {
  it('lists the same entries, byte for byte as JSON, on every 2026.9.6 fixture', () => {
    let databases = 0
    for (const fixture of [NATIVE_96, IMPORTED_96, DELETED_96]) {
      const state = copyFixture(fixture)
      for (const agent of fs.readdirSync(path.join(state, 'agents'))) {
        const file = path.join(state, 'agents', agent, 'agent', 'openclaw-agent.sqlite')
        if (!fs.existsSync(file)) continue
        const db = new (loadSqlite().DatabaseSync)(file, {readOnly: true})
        try {
          expect(typeof (db.prepare('SELECT 1').setReturnArrays)).toBe('function')
          for (const omit of [[], ['skillsSnapshot', 'systemPromptReport', 'contextBudgetStatus']]) {
            const arrays = [...iterateEntries(db, file, omit)]
            const objects = [...iterateEntries(withoutArrays(db), file, omit)]
            expect(arrays.length).toBeGreaterThan(0)
            expect(JSON.stringify(arrays)).toBe(JSON.stringify(objects))
          }
          databases++
        } finally {
          db.close()
        }
      }
    }
    expect(databases).toBeGreaterThanOrEqual(4)
  })
})
