// `sessions usage` on the SQLite-era 2026.9.6 fixtures (native and imported) through the real CLI under Node 24. The
// expected totals come straight from the database (every transcript event, zstd included) via node:sqlite in the test.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import type {SessionsUsageResult} from '../../../src/commands/sessions/usage.js'
import {baseEnv, copyFixture, json, runCli, tempDir} from '../../support/cli.js'
import {dbPath, eventsOf, openDb} from '../../support/sqlite-expect.js'
import {describeSqlite, IMPORTED_96, NATIVE_96} from '../../support/sqlite.js'
import {addUsage, emptySums, poisonUsage} from '../../support/usage-sums.js'

/** Every assistant message's usage in every session of the agent's database. */
function dbTotals(state: string, agent: string) {
  const file = dbPath(state, agent)
  const db = openDb(file)
  const ids = db.prepare('SELECT DISTINCT session_id FROM transcript_events').all().map((r) => r.session_id as string)
  db.close()
  const t = {...emptySums(), sessions: new Set<string>()}
  for (const id of ids) if (addUsage(t, eventsOf(file, id).map((ev) => ev.text))) t.sessions.add(id)
  return t
}

describeSqlite('sessions usage on a SQLite-era store', () => {
  for (const fixture of [NATIVE_96, IMPORTED_96]) {
    it(`${fixture}: the totals of every session in the database; every --by sums to them`, async () => {
      const state = copyFixture(fixture)
      const agents = fs.readdirSync(path.join(state, 'agents')).filter((a) => fs.existsSync(dbPath(state, a)))
      expect(agents.length).toBeGreaterThan(0)
      const want = agents.map((a) => dbTotals(state, a))
      const calls = want.reduce((s, t) => s + t.calls, 0)
      expect(calls).toBeGreaterThan(0)
      for (const by of ['session', 'key', 'agent', 'model', 'day', 'month']) {
        const r = await runCli(['sessions', 'usage', '--all-agents', '--by', by, '--json', '--state-dir', state], {env: baseEnv(tempDir())})
        expect(r.code, r.stderr).toBe(0)
        const u = json<SessionsUsageResult>(r)
        expect(u.total.calls, by).toBe(calls)
        expect(u.total.input).toBe(want.reduce((s, t) => s + t.input, 0))
        expect(u.total.output).toBe(want.reduce((s, t) => s + t.output, 0))
        expect(u.total.cacheRead).toBe(want.reduce((s, t) => s + t.cacheRead, 0))
        expect(u.total.cacheWrite).toBe(want.reduce((s, t) => s + t.cacheWrite, 0))
        expect(u.total.costUsd).toBeCloseTo(want.reduce((s, t) => s + t.cost, 0), 9)
        expect(u.rows.reduce((s, x) => s + x.calls, 0)).toBe(calls)
        expect(u.rows.reduce((s, x) => s + x.costUsd, 0)).toBeCloseTo(u.total.costUsd, 9)
        if (by === 'session') expect(u.rows.map((x) => x.sessionId).sort()).toEqual(want.flatMap((t) => [...t.sessions]).sort())
      }
    }, 60_000)
  }

  it('figures that are not plausible numbers are skipped and counted in badValues as in the JSON era; totals stay finite', async () => {
    const state = copyFixture(NATIVE_96)
    const file = dbPath(state, 'main')
    const db = openDb(file, false)
    const rows = db.prepare("SELECT session_id, seq, event_json FROM transcript_events WHERE event_json LIKE '%\"usage\"%' ORDER BY session_id, seq").all() as {session_id: string; seq: number; event_json: string}[]
    const poisoned = poisonUsage(rows.map((r) => r.event_json).join('\n')).split('\n')
    const put = db.prepare('UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = ?')
    rows.forEach((r, i) => put.run(poisoned[i], r.session_id, r.seq))
    db.close()
    const want = dbTotals(state, 'main')
    expect(want.badValues).toBe(6)
    const r = await runCli(['sessions', 'usage', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code, r.stderr).toBe(0)
    const u = json<SessionsUsageResult>(r)
    expect(u.badValues).toBe(6)
    expect(u.total).toMatchObject({calls: want.calls, input: want.input, output: want.output, totalTokens: want.totalTokens})
    expect(u.total.costUsd).toBeCloseTo(want.cost, 9)
  })

  it('an event that is not JSON, or not an object, is counted in badLines whatever it holds, as in the JSON era', async () => {
    const state = copyFixture(NATIVE_96)
    const file = dbPath(state, 'main')
    const db = openDb(file, false)
    const call = db.prepare("SELECT session_id, seq FROM transcript_events WHERE event_json LIKE '%\"usage\"%' AND event_json LIKE '%\"role\":\"assistant\"%' ORDER BY seq LIMIT 1").get() as {session_id: string; seq: number}
    db.prepare("UPDATE transcript_events SET event_json = '{not json' WHERE session_id = ? AND seq = ?").run(call.session_id, call.seq)
    db.prepare("UPDATE transcript_events SET event_json = '[1,2]' WHERE session_id = ? AND seq = 2").run(call.session_id)
    db.close()
    const want = dbTotals(state, 'main')
    const r = await runCli(['sessions', 'usage', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code, r.stderr).toBe(0)
    const u = json<SessionsUsageResult>(r)
    expect(u.badLines).toBe(2)
    expect(u.total.calls).toBe(want.calls)
    expect(u.total.costUsd).toBeCloseTo(want.cost, 9)
    expect(r.stderr).toContain('Warning: 2 unreadable line(s) skipped')
  })
})
