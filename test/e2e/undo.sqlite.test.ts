// `clawkit undo` in the SQLite era, through the real CLI: a journaled change reversed row for row (every table
// OpenClaw reads), refused when a newer turn landed on the session it would replace.
import {expect, it} from 'vitest'

import type {UndoResult} from '../../src/commands/undo.js'
import {openAgentDb} from '../../src/store/sqlite/driver.js'
import {appendChained} from '../../src/store/sqlite/write.js'
import {sqliteStorePath} from '../../src/store/era.js'
import {baseEnv, cliWith, copyFixture, json, jsonError, tempDir} from '../support/cli.js'
import {DELETED_96, describeSqlite, IMPORTED_96, NATIVE_96} from '../support/sqlite.js'
import {hashTree, stateRows} from '../support/state-hash.js'

function setup(fixture: string) {
  const state = copyFixture(fixture)
  const env = baseEnv(tempDir())
  return {state, env, cli: cliWith(['--state-dir', state], {env})}
}

describeSqlite('undo (SQLite era)', () => {
  for (const [fixture, key] of [[NATIVE_96, 'agent:main:main'], [IMPORTED_96, 'agent:work:main'], [DELETED_96, 'agent:main:keep']] as const) {
    it(`undo after sessions reset leaves every row as it was (${fixture}, ${key})`, async () => {
      const {state, cli} = setup(fixture)
      const rows = stateRows(state)
      const files = hashTree(state, {dbs: false})
      const reset = await cli(['sessions', 'reset', key, '--json'])
      expect(reset.code, reset.stderr).toBe(0)
      expect(stateRows(state)).not.toEqual(rows)
      const u = await cli(['undo', '--json'])
      expect(u.code, u.stderr).toBe(0)
      expect(json<UndoResult>(u).undone.id).toBe(json(reset).journal)
      expect(stateRows(state)).toEqual(rows)
      expect(hashTree(state, {dbs: false})).toEqual(files)
    })
  }

  it('refuses while the new session has a newer turn, changing nothing', async () => {
    const {state, cli} = setup(DELETED_96)
    const reset = json(await cli(['sessions', 'reset', 'agent:main:keep', '--json']))
    const h = openAgentDb(sqliteStorePath(state, 'main'), {write: true, agentId: 'main'})
    try {
      appendChained(h, reset.sessionId, [{type: 'message', message: {role: 'user', content: [{type: 'text', text: 'a newer turn'}], timestamp: Date.now()}}], {strict: true})
    } finally {
      h.db.close()
    }
    const moved = stateRows(state)
    const r = await cli(['undo', '--json'])
    expect(r.code).toBe(1)
    expect(jsonError(r)).toMatchObject({code: 'E_UNDO_CONFLICT'})
    expect(jsonError(r).message).toMatch(/agent:main:keep.*changed since \(.*transcript_events: 1 row\(s\) not in the journal's image/)
    expect(stateRows(state)).toEqual(moved)
  })
})
