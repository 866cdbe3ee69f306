// `sessions cleanup --keep <n>` and `--sweep` on SQLite-era archives, through the real CLI: archives are
// session_transcript_archives rows tied to their key by session_key (published as sessions/<archive_name>). --keep
// plans and removes all but the n newest rows of each key, --sweep the rows no live session's key claims that were
// archived before the age line, each with its reason; a restored session's row is never touched; applied, the rows and
// their published files go, and `clawkit undo` gives back identical rows of every table OpenClaw reads and every file,
// even after a turn on a live key whose old archives went.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import type {SessionsCleanupResult} from '../../../src/sessions/cleanup.js'
import {openAgentDb} from '../../../src/store/sqlite/driver.js'
import {SqliteSessionStore} from '../../../src/store/sqlite/store.js'
import {appendChained} from '../../../src/store/sqlite/write.js'
import {baseEnv, cliWith, copyFixture, json, tempDir} from '../../support/cli.js'
import {sqliteArchiveHistory} from '../../support/cleanup-store.js'
import {DELETED_96, describeSqlite} from '../../support/sqlite.js'
import {query} from '../../support/sqlite-expect.js'
import {hashTree, stateRows} from '../../support/state-hash.js'

type Db = {prepare(sql: string): {all(...a: unknown[]): Record<string, unknown>[]; get(...a: unknown[]): Record<string, unknown> | undefined}; close(): void}

/** The openclaw-2026.9.6-deleted fixture (its real row: agent:main:scratch-1, live again) with sqliteArchiveHistory's rows. */
async function world() {
  const state = copyFixture(DELETED_96)
  const db = path.join(state, 'agents/main/agent/openclaw-agent.sqlite')
  const {busy} = await sqliteArchiveHistory(state, Date.now())
  const rows = query(db, (d) => d.prepare('SELECT session_key, archive_name, created_at FROM session_transcript_archives ORDER BY created_at').all())
  const byKey = (key: string) => rows.filter((r) => r.session_key === key).map((r) => String(r.archive_name))
  return {state, db, busy, byKey, cli: cliWith(['--state-dir', state], {env: baseEnv(tempDir())})}
}

const planOf = (r: SessionsCleanupResult) => r.stores[0]
const rowWhy = (s: SessionsCleanupResult['stores'][0]) => Object.fromEntries(s.archiveRows.map((r) => [r.name, r.why]))
const fileWhy = (s: SessionsCleanupResult['stores'][0]) => Object.fromEntries(s.files.map((f) => [path.basename(f.path), f.why]))

describeSqlite('sessions cleanup --keep / --sweep on SQLite archive rows', () => {
  it('--keep 1 plans every key\'s older rows (live key or not) with their published files; a restored session\'s row is not an archive', async () => {
    const w = await world()
    const before = hashTree(w.state)
    const r = await w.cli(['sessions', 'cleanup', '--keep', '1', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const s = planOf(json<SessionsCleanupResult>(r))
    const gone = w.byKey('agent:main:explicit:gone')
    const busy = w.byKey('agent:main:explicit:busy')
    expect(gone).toHaveLength(3)
    expect(busy).toHaveLength(3)
    // Oldest first in the database; the newest of each key stays.
    const want = Object.fromEntries([...gone.slice(0, 2), ...busy.slice(0, 2)].map((n) => [n, 'archive']))
    expect(rowWhy(s)).toEqual(want)
    expect(fileWhy(s)).toEqual(want)
    for (const a of s.archiveRows) expect(a.bytes).toBeGreaterThan(0)
    expect(s.archiveRows.find((a) => a.name === gone[0])?.key).toBe('agent:main:explicit:gone')
    expect(s.wouldMutate).toBe(true)
    // The table says what and why.
    const table = await w.cli(['sessions', 'cleanup', '--keep', '1'])
    expect(table.stdout).toContain('remove-archive-row')
    expect(table.stdout).toContain('beyond the newest archives kept per key (--keep)')
    // A plan changes nothing; --keep 0 still leaves the restored session's row.
    const all = planOf(json<SessionsCleanupResult>(await w.cli(['sessions', 'cleanup', '--keep', '0', '--json'])))
    expect(all.archiveRows.map((a) => a.name).sort()).toEqual([...gone, ...busy, ...w.byKey('agent:main:explicit:recent-gone'), ...w.byKey('agent:main:scratch-1')].sort())
    expect(w.byKey('agent:main:explicit:back')).toHaveLength(1)
    expect(hashTree(w.state)).toEqual(before)
  })

  it('--sweep plans the rows no live key claims, archived before the age line (--older-than moves it)', async () => {
    const w = await world()
    const s = planOf(json<SessionsCleanupResult>(await w.cli(['sessions', 'cleanup', '--sweep', '--json'])))
    const want = Object.fromEntries(w.byKey('agent:main:explicit:gone').map((n) => [n, 'orphaned-archive']))
    expect(rowWhy(s)).toEqual(want)
    expect(fileWhy(s)).toEqual(want)
    const table = await w.cli(['sessions', 'cleanup', '--sweep'])
    expect(table.stdout).toContain('no live session holds its key')
    // A day's age line takes the key deleted 2 days ago too, never a live key's rows nor the restored one.
    const wide = planOf(json<SessionsCleanupResult>(await w.cli(['sessions', 'cleanup', '--sweep', '--older-than', '1d', '--json'])))
    expect(Object.keys(rowWhy(wide)).sort()).toEqual([...w.byKey('agent:main:explicit:gone'), ...w.byKey('agent:main:explicit:recent-gone')].sort())
    // Both: an orphan is swept as an orphan, and --keep takes the live key's older rows.
    const both = planOf(json<SessionsCleanupResult>(await w.cli(['sessions', 'cleanup', '--sweep', '--keep', '1', '--json'])))
    expect(rowWhy(both)).toEqual({...want, ...Object.fromEntries(w.byKey('agent:main:explicit:busy').slice(0, 2).map((n) => [n, 'archive']))})
  })

  it('applied, the rows and their files go in one journal entry; undo gives back every row OpenClaw reads and every file, after a turn on the live key too', async () => {
    const w = await world()
    const rows = stateRows(w.state)
    const files = hashTree(w.state, {dbs: false})
    const archivesBefore = rows['agents/main/agent/openclaw-agent.sqlite'].session_transcript_archives
    const r = await w.cli(['sessions', 'cleanup', '--sweep', '--keep', '1', '--yes', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const done = json<SessionsCleanupResult>(r)
    expect(done.journal).toMatch(/^\d{8}-/)
    expect(done.journalBytes).toBeGreaterThan(0)
    const removed = [...w.byKey('agent:main:explicit:gone'), ...w.byKey('agent:main:explicit:busy').slice(0, 2)]
    expect(done.stores[0].archiveRows.map((a) => a.name).sort()).toEqual([...removed].sort())
    const left = query(w.db, (d) => d.prepare('SELECT archive_name FROM session_transcript_archives').all().map((x) => String(x.archive_name)))
    expect(left.sort()).toEqual([...w.byKey('agent:main:explicit:busy').slice(2), ...w.byKey('agent:main:explicit:recent-gone'), ...w.byKey('agent:main:explicit:back'), ...w.byKey('agent:main:scratch-1')].sort())
    for (const n of removed) expect(fs.existsSync(path.join(w.state, 'agents/main/sessions', n)), n).toBe(false)
    expect(query(w.db, (d) => d.prepare('PRAGMA integrity_check').get())).toEqual({integrity_check: 'ok'})
    // Nothing else changed: every other table's rows are as they were.
    const after = stateRows(w.state)['agents/main/agent/openclaw-agent.sqlite']
    for (const [t, list] of Object.entries(rows['agents/main/agent/openclaw-agent.sqlite'])) if (t !== 'session_transcript_archives') expect(after[t], t).toEqual(list)
    // A second plan finds nothing more.
    expect(planOf(json<SessionsCleanupResult>(await w.cli(['sessions', 'cleanup', '--sweep', '--keep', '1', '--json']))).archiveRows).toEqual([])

    const u = await w.cli(['undo', '--json'])
    expect(u.code, u.stderr).toBe(0)
    expect(stateRows(w.state)).toEqual(rows)
    expect(hashTree(w.state, {dbs: false})).toEqual(files)

    // Again, then a turn on the live key whose old archives went: undo still gives the rows back and keeps the turn.
    expect((await w.cli(['sessions', 'cleanup', '--sweep', '--keep', '1', '--yes', '--json'])).code).toBe(0)
    const h = openAgentDb(w.db, {write: true, agentId: 'main'})
    try {
      appendChained(h, w.busy, [{type: 'message', message: {role: 'user', content: [{type: 'text', text: 'a newer turn'}], timestamp: Date.now()}}], {strict: true})
    } finally {
      h.db.close()
    }
    const u2 = await w.cli(['undo', '--json'])
    expect(u2.code, u2.stderr).toBe(0)
    const back = stateRows(w.state)['agents/main/agent/openclaw-agent.sqlite']
    expect(back.session_transcript_archives).toEqual(archivesBefore)
    expect(query(w.db, (d) => Number(d.prepare('SELECT count(*) AS n FROM transcript_events WHERE session_id = ?').get(w.busy)!.n))).toBe(3)
    expect(hashTree(w.state, {dbs: false})).toEqual(files)
  })

  it('with a disk budget too: the rows --keep removes are counted once, under their own reason, the budget takes others; applied and undone, every row and file is back', async () => {
    const w = await world()
    const rows = stateRows(w.state)
    const files = hashTree(w.state, {dbs: false})
    // A budget nothing fits: every published row goes, --keep's as --keep's.
    const s = planOf(json<SessionsCleanupResult>(await w.cli(['sessions', 'cleanup', '--keep', '1', '--max-disk', '1kb', '--json'])))
    const names = s.archiveRows.map((r) => r.name)
    expect(new Set(names).size).toBe(names.length)
    const keep = [...w.byKey('agent:main:explicit:gone').slice(0, 2), ...w.byKey('agent:main:explicit:busy').slice(0, 2)]
    for (const n of keep) expect(rowWhy(s)[n], n).toBe('archive')
    expect(s.archiveRows.some((r) => r.why === 'budget')).toBe(true)
    expect(s.diskBudget?.overBudget).toBe(true)
    const r = await w.cli(['sessions', 'cleanup', '--keep', '1', '--max-disk', '1kb', '--yes', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const done = planOf(json<SessionsCleanupResult>(r))
    for (const n of keep) expect(done.archiveRows.find((a) => a.name === n)?.why, n).toBe('archive')
    expect(query(w.db, (d) => d.prepare('PRAGMA integrity_check').get())).toEqual({integrity_check: 'ok'})
    const u = await w.cli(['undo', '--json'])
    expect(u.code, u.stderr).toBe(0)
    expect(stateRows(w.state)).toEqual(rows)
    expect(hashTree(w.state, {dbs: false})).toEqual(files)
  })

  it('inside its transaction the removal re-checks each row: an orphan whose key is live again, or a row whose session was restored, stays', async () => {
    const w = await world()
    const gone = w.byKey('agent:main:explicit:gone')
    const recent = w.byKey('agent:main:explicit:recent-gone')
    const store = new SqliteSessionStore({agentId: 'main', path: w.db}, {stateDir: w.state, lockDir: tempDir()})
    try {
      // Since "the plan": agent:main:explicit:gone is live again (a restore of its newest row) and recent-gone's row is restored under another key.
      await store.lifecycle.restore({key: 'agent:main:explicit:gone', cwd: '/work'}, {})
      await store.lifecycle.restore({sessionId: query(w.db, (d) => String(d.prepare('SELECT session_id FROM session_transcript_archives WHERE archive_name = ?').get(recent[0])!.session_id)), asKey: 'agent:main:explicit:elsewhere', cwd: '/work'}, {})
      const names = [...gone.slice(0, 2), ...recent]
      const dropped = await store.lifecycle.dropArchives!(names, {}, {archivedOnly: names, unclaimedOnly: gone.slice(0, 2)})
      expect(dropped).toEqual([])
      // Without the guards the same call removes them (the budget's eviction has none).
      expect((await store.lifecycle.dropArchives!(gone.slice(0, 1), {})).length).toBe(1)
    } finally {
      store.close()
    }
  })
})
