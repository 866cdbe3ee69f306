// SqliteSessionStore's deleteMany (a cleanup's removals, one transaction per chunk of keys) on a real 2026.9.6
// database given 150 generated sessions: the planned keys go as one by one delete takes them (archive rows, their
// published files, nodes and windows gone), a key whose session moved on or that is gone is left out, untouched.
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, expect, it} from 'vitest'

import {SqliteSessionStore} from '../../../src/store/sqlite/store.js'
import {copyFixture} from '../../support/cli.js'
import {mixedSqliteStore} from '../../support/cleanup-store.js'
import {dbPath, openDb} from '../../support/sqlite-expect.js'
import {describeSqlite, NATIVE_96} from '../../support/sqlite.js'

const stores: SqliteSessionStore[] = []
afterEach(() => {
  for (const s of stores.splice(0)) s.close()
})

describeSqlite('SqliteSessionStore.lifecycle.deleteMany', () => {
  it('removes 150 keys over three chunks as delete would, and leaves out a key that moved on and one that is gone', async () => {
    const state = copyFixture(NATIVE_96)
    const file = dbPath(state, 'main')
    const keys = await mixedSqliteStore(file, Date.now(), 150, (i) => `agent:main:cron:job:run:gen-${i}`)
    const generated = keys.filter((k) => k.includes(':gen-'))
    expect(generated).toHaveLength(150)
    const store = new SqliteSessionStore({agentId: 'main', path: file})
    stores.push(store)
    const planned = await Promise.all(generated.map(async (key) => ({key, sessionId: (await store.findEntry(key))!.entry.sessionId})))
    // Since the plan, one key moved on (deleted and made again: another session) and one never was.
    const movedKey = generated[70]
    await store.lifecycle.delete(movedKey, {})
    expect(await mixedSqliteStore(file, Date.now(), 71, (i) => `agent:main:cron:job:run:gen-${i}`)).toEqual([movedKey])
    expect((await store.findEntry(movedKey))!.entry.sessionId).not.toBe(planned[70].sessionId)
    const items = [...planned, {key: 'agent:main:never-there', sessionId: 'x'}]
    const out = await store.lifecycle.deleteMany!(items, {now: new Date('2026-12-01T10:00:00.000Z')})
    expect(out.map((o) => o.key)).toEqual(generated.filter((k) => k !== movedKey))
    const published = path.join(state, 'agents', 'main', 'sessions')
    for (const o of out) {
      expect(o.skipped).toBeUndefined()
      expect(o.archived).toHaveLength(1)
      expect(await store.findEntry(o.key)).toBeUndefined()
      expect(fs.existsSync(path.join(published, o.archived[0].split('#archive/')[1]))).toBe(true)
    }
    const check = openDb(file)
    const rows = check.prepare("SELECT session_key, published_at FROM session_transcript_archives WHERE reason = 'deleted' AND session_key LIKE '%:gen-%' AND session_key != ?").all(movedKey)
    check.close()
    expect(rows.map((r) => r.session_key).sort()).toEqual(out.map((o) => o.key).sort())
    expect(rows.every((r) => r.published_at !== null)).toBe(true)
    expect(await store.findEntry(movedKey)).toBeDefined()
  })
})
