// Budgets and the runaway detector on a SQLite-era store (2026.9.6 native fixture) under Node 24: calls written into the
// database as OpenClaw stores them (transcript events of agent:main:main's session, its node's updatedAt moved on), at
// the test's own clock. --max-cost passes (exit 7) from the catalog's figures, and the runaway is named by the check
// and by status, its transcript read from the database's end.
import {expect, it} from 'vitest'

import {baseEnv, copyFixture, json, runCli, tempDir} from '../../support/cli.js'
import {dbPath, eventsOf, openDb} from '../../support/sqlite-expect.js'
import {describeSqlite, NATIVE_96} from '../../support/sqlite.js'
import {middayZone} from '../../support/usage-store.js'

/** Appends assistant calls to agent:main:main's current session in the database and moves its updatedAt to now. */
function addDbCalls(file: string, calls: {t: number; cost: number}[]): string {
  const db = openDb(file, false)
  try {
    const node = db.prepare("SELECT current_session_id AS id, entry_json FROM session_nodes WHERE session_key = 'agent:main:main'").get()!
    const id = node.id as string
    let seq = Number(db.prepare('SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?').get(id)!.m)
    const put = db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)')
    for (const [i, {t, cost}] of calls.entries()) {
      put.run(id, ++seq, JSON.stringify({type: 'message', id: `r${t.toString(36)}${i}`, parentId: null, timestamp: new Date(t).toISOString(), message: {role: 'assistant', content: [], provider: 'anthropic', model: 'claude-opus-4', usage: {input: 100, output: 10, totalTokens: 110, cost: {total: cost}}, timestamp: t}}), t)
    }
    const now = Date.now()
    const entry = {...JSON.parse(node.entry_json as string), updatedAt: now}
    db.prepare("UPDATE session_nodes SET entry_json = ?, updated_at = ? WHERE session_key = 'agent:main:main'").run(JSON.stringify(entry), now)
    // A trigger marks a changed entry unvalidated; OpenClaw validates it again after its own writes (as putNode does).
    db.prepare("UPDATE session_nodes SET entry_valid = 1 WHERE session_key = 'agent:main:main'").run()
    return id
  } finally {
    db.close()
  }
}

describeSqlite('budgets on a SQLite-era store', () => {
  it('--max-cost passes (exit 7) and the runaway in the database is named by the check and by status', async () => {
    const state = copyFixture(NATIVE_96)
    const now = Date.now()
    const h = 3_600_000
    const id = addDbCalls(dbPath(state, 'main'), [...[0, 1, 2, 3].map((i) => ({t: now - 30 * h + i * h, cost: 0.2})), {t: now - 120_000, cost: 4}, {t: now - 60_000, cost: 4}])
    // The usual rate as the rule defines it, from every event of the session (the fixture's own calls count while they
    // are less than a week old): spend per active hour over the 7 days before the last hour.
    const history = eventsOf(dbPath(state, 'main'), id).map((e) => JSON.parse(e.text)).filter((e) => e.type === 'message' && e.message?.role === 'assistant' && e.message.usage && Date.parse(e.timestamp) < now - h && Date.parse(e.timestamp) >= now - h - 7 * 24 * h)
    const hours = new Set(history.map((e) => Math.floor(Date.parse(e.timestamp) / h)))
    const usual = Math.round((history.reduce((sum, e) => sum + e.message.usage.cost.total, 0) / hours.size) * 1e9) / 1e9
    expect(hours.size).toBeGreaterThanOrEqual(4)
    const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state, TZ: middayZone()})
    const r = await runCli(['sessions', 'usage', '--max-cost', '5', '--per', 'week', '--json'], {env})
    expect(r.code, r.stderr).toBe(7)
    const doc = json(r)
    expect(doc.source).toBe('catalog')
    expect(doc.budget!.budgets[0].over).toBe(true)
    expect(doc.budget!.budgets[0].spentUsd).toBeGreaterThanOrEqual(8)
    expect(doc.budget!.runaways).toEqual([{agentId: 'main', key: 'agent:main:main', sessionId: id, lastHourUsd: 8, usualHourUsd: usual, lastHourCalls: 2}])
    const st = await runCli(['status', '--json'], {env})
    expect(st.code, st.stderr).toBe(0)
    expect(json(st).runaways).toEqual(doc.budget!.runaways)
    const within = await runCli(['sessions', 'usage', '--max-cost', '1000', '--per', 'week', '--json'], {env})
    // Within the limit, but the runaway alone makes it 7.
    expect(within.code).toBe(7)
    expect(json(within).budget!.over).toBe(0)
  }, 60_000)
})
