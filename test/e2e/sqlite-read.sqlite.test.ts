// Reading a SQLite-era store (OpenClaw 2026.9.6) through the CLI: sessions list rows as `openclaw sessions --json`
// prints them (expected values computed straight from the databases), history from transcript_events (zstd events
// included), status per agent, and the database never changed by any of it.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import {baseEnv, copyFixture, FIXTURES, json, runCli, tempDir, TWO_AGENTS} from '../support/cli.js'
import {describeSqlite, IMPORTED_96, NATIVE_96} from '../support/sqlite.js'
import {addVarietyRows, dbPath, eventsOf, expectedAgentRows, mergeRows, openDb, ROW_FIELDS, sha, withoutAge} from '../support/sqlite-expect.js'

const env = () => baseEnv(tempDir())

async function list(state: string, args: string[]): Promise<any> {
  const r = await runCli(['sessions', 'list', '--json', ...args, '--state-dir', state], {env: env()})
  expect(r.code, r.stderr).toBe(0)
  expect(r.stderr).toBe('')
  return json(r)
}

/** Rows equal field by field (ageMs aside), with the fields in OpenClaw's order. */
function expectRows(actual: any[], expected: Record<string, unknown>[]): void {
  expect(withoutAge(actual)).toEqual(expected)
  for (const [i, row] of actual.entries()) {
    expect(Object.keys(row).filter((k) => k !== 'ageMs'), row.key).toEqual(Object.keys(expected[i]))
    const order = Object.keys(row).map((k) => ROW_FIELDS.indexOf(k))
    expect(order.every((n, j) => n >= 0 && (j === 0 || n > order[j - 1])), `${row.key}: ${Object.keys(row).join(',')}`).toBe(true)
    expect(typeof row.ageMs).toBe('number')
  }
}

describeSqlite('sessions list on a SQLite-era store: the rows openclaw 2026.9.6 prints', () => {
  it('native fixture, one agent: path is the .sqlite file, rows and counts from the database, file unchanged', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbPath(state, 'main')
    const before = sha(db)
    const doc = await list(state, [])
    const expected = mergeRows(expectedAgentRows(state, 'main'))
    expect(expected.length).toBe(2)
    expect(doc).toMatchObject({path: db, count: 2, totalCount: 2, limitApplied: null, hasMore: false, activeMinutes: null})
    expect(Object.keys(doc)).toEqual(['path', 'count', 'totalCount', 'limitApplied', 'hasMore', 'activeMinutes', 'sessions'])
    expectRows(doc.sessions, expected)
    expect(sha(db)).toBe(before)
  })

  it('sessions created through a gateway carry participants and participantCount from session_participants (the deleted fixture)', async () => {
    const state = copyFixture('openclaw-2026.9.6-deleted')
    const doc = await list(state, [])
    const expected = mergeRows(expectedAgentRows(state, 'main'))
    expect(expected.length).toBeGreaterThan(0)
    expect(expected.every((r) => r.participantCount === 1)).toBe(true)
    expectRows(doc.sessions, expected)
    expect(doc.sessions[0].participants).toEqual([{identity: {type: 'observation', pluginId: null, accountId: null, senderKind: 'unknown', id: 'cli'}}])
  })

  it('imported fixture, two agents: --all-agents, --agent work, --active and --limit', async () => {
    const state = copyFixture(IMPORTED_96)
    const main = expectedAgentRows(state, 'main')
    const work = expectedAgentRows(state, 'work')
    const all = await list(state, ['--all-agents'])
    expect(all).toMatchObject({path: null, allAgents: true, count: 2, totalCount: 2, hasMore: false, stores: [{agentId: 'main', path: dbPath(state, 'main')}, {agentId: 'work', path: dbPath(state, 'work')}]})
    expectRows(all.sessions, mergeRows(main, work))
    // The imported `work` row: stale total printed raw, not fresh (no totalTokensVersion), runtime from harness "pi".
    expect(all.sessions.find((r: any) => r.key === 'agent:work:main')).toMatchObject({totalTokens: 7030, totalTokensFresh: false, agentRuntime: {id: 'openclaw', source: 'session'}})

    const one = await list(state, ['--agent', 'work'])
    expect(one).toMatchObject({path: dbPath(state, 'work'), count: 1, totalCount: 1})
    expectRows(one.sessions, work)

    // --active: a window that keeps main's session (newer) and drops work's, chosen from the stored times.
    const now = Date.now()
    const mainAge = now - (main[0].updatedAt as number)
    const workAge = now - (work[0].updatedAt as number)
    expect(workAge - mainAge).toBeGreaterThan(10 * 60_000)
    const minutes = Math.ceil((mainAge + 5 * 60_000) / 60_000)
    const active = await list(state, ['--all-agents', '--active', String(minutes)])
    expect(active).toMatchObject({count: 1, totalCount: 1, activeMinutes: minutes})
    expectRows(active.sessions, main)

    const limited = await list(state, ['--all-agents', '--limit', '1'])
    expect(limited).toMatchObject({count: 1, totalCount: 2, limitApplied: 1, hasMore: true})
    expectRows(limited.sessions, mergeRows(main, work).slice(0, 1))
  })

  it('--store naming an agent database (another agent\'s than the default) lists its rows', async () => {
    const state = copyFixture(IMPORTED_96)
    const db = dbPath(state, 'work')
    const before = sha(db)
    const doc = await list(state, ['--store', db])
    expect(doc).toMatchObject({path: db, count: 1, totalCount: 1})
    expectRows(doc.sessions, expectedAgentRows(state, 'work'))
    expect(sha(db)).toBe(before)
  })

  it('every listing rule: cron, spawn-child, group, owner columns, visibility, runtime override, fork; placeholders, internal keys and skewed updated_at skipped', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbPath(state, 'main')
    addVarietyRows(db, 'main', Date.now() - 60_000)
    const expected = mergeRows(expectedAgentRows(state, 'main'))
    const doc = await list(state, [])
    expectRows(doc.sessions, expected)
    const byKey = Object.fromEntries(doc.sessions.map((r: any) => [r.key, r]))
    expect(Object.keys(byKey).sort()).toEqual(['agent:main:cron:nightly', 'agent:main:explicit:c0ffee00-0000-4000-8000-000000000096', 'agent:main:explicit:fork', 'agent:main:main', 'agent:main:subagent:helper', 'agent:main:telegram:group:-100123'])
    expect(byKey['agent:main:cron:nightly'].kind).toBe('cron')
    expect(byKey['agent:main:subagent:helper']).toMatchObject({kind: 'spawn-child', spawnedBy: 'agent:main:main', label: 'helper run', totalTokensFresh: false})
    expect(byKey['agent:main:telegram:group:-100123']).toMatchObject({kind: 'group', visibility: 'private', owner: {actor: {type: 'human', id: 'ops-1'}}, agentRuntime: {id: 'codex', source: 'session'}})
    expect(byKey['agent:main:explicit:fork']).toMatchObject({forkedFromParent: true, totalTokens: null, contextTokens: 200000, status: 'done', agentRuntime: {id: 'auto', source: 'implicit'}})
  })

  it('the human table lists the database sessions (no "No sessions found"), and a legacy sessions.json beside the database is ignored', async () => {
    const state = copyFixture(NATIVE_96)
    const sessions = path.join(state, 'agents', 'main', 'sessions')
    fs.mkdirSync(sessions, {recursive: true})
    fs.writeFileSync(path.join(sessions, 'sessions.json'), JSON.stringify({'agent:main:stale': {sessionId: 'stale', updatedAt: Date.now()}}))
    const r = await runCli(['sessions', 'list', '--state-dir', state], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.split('\n')[0]).toBe(`Session store: ${dbPath(state, 'main')}`)
    expect(r.stdout).toMatch(/^Sessions listed: 2$/m)
    expect(r.stdout).toMatch(/agent:main:main/)
    expect(r.stdout).not.toMatch(/stale|No sessions found/)
    const doc = await list(state, [])
    expect(doc.sessions.map((s: any) => s.key)).not.toContain('agent:main:stale')
  })

  it('a mixed state dir (main JSON-era, work SQLite-era): both are listed, each with its era\'s row shape', async () => {
    const state = copyFixture(TWO_AGENTS)
    fs.mkdirSync(path.join(state, 'agents', 'work', 'agent'), {recursive: true})
    fs.copyFileSync(dbPath(copyFixture(IMPORTED_96), 'work'), dbPath(state, 'work'))
    const doc = await list(state, ['--all-agents'])
    expect(doc.stores).toEqual([{agentId: 'main', path: path.join(state, 'agents', 'main', 'sessions', 'sessions.json')}, {agentId: 'work', path: dbPath(state, 'work')}])
    const work = doc.sessions.find((r: any) => r.agentId === 'work')
    const main = doc.sessions.find((r: any) => r.agentId === 'main')
    expectRows([work], expectedAgentRows(state, 'work'))
    expect(main).not.toHaveProperty('visibility')
    expect(doc.sessions.map((r: any) => r.updatedAt)).toEqual([...doc.sessions.map((r: any) => r.updatedAt)].sort((a, b) => b - a))
  })
})

describeSqlite('sessions history on a SQLite-era store', () => {
  it('entries come from the events (the zstd one included), in the JSON-era --json shape; --raw prints the stored event JSON lines', async () => {
    const state = copyFixture(IMPORTED_96)
    const db = dbPath(state, 'main')
    const before = sha(db)
    const sid = '0caed29d-8df6-4457-a9cd-00bb9d2b22e3'
    const events = eventsOf(db, sid)
    expect(events.some((e) => e.compressed)).toBe(true)
    const all = json(await runCli(['sessions', 'history', 'main', '--limit', '1000', '--json', '--state-dir', state], {env: env()}))
    expect(all).toMatchObject({key: 'agent:main:main', agentId: 'main', sessionId: sid, sessionFile: `${db}#${sid}`, sessionFileLocation: 'sqlite', transcriptExists: true, truncated: false, badLines: []})
    // As in the JSON era, the window starts at the oldest message it shows (the model_change etc. before it are left out).
    const firstMessage = events.findIndex((e) => JSON.parse(e.text).type === 'message')
    const shown = events.slice(firstMessage)
    const bodies = shown.map((e) => JSON.parse(e.text))
    expect(all.entries.map((e: any) => e.id)).toEqual(bodies.map((b) => b.id))
    // The compressed event decoded into its entry.
    const z = JSON.parse(events.find((e) => e.compressed)!.text)
    expect(all.entries.find((e: any) => e.id === z.id)).toMatchObject({type: z.type})
    // The same document keys as a JSON-era history.
    const jsonEra = json(await runCli(['sessions', 'history', 'main', '--json', '--state-dir', copyFixture(TWO_AGENTS)], {env: env()}))
    expect(Object.keys(all)).toEqual(Object.keys(jsonEra))
    expect(Object.keys(all.entries[all.entries.length - 1]).every((k) => k in jsonEra.entries[jsonEra.entries.length - 1] || ['usage', 'provider', 'model', 'stopReason', 'errorMessage', 'thinking', 'toolCalls', 'text'].includes(k))).toBe(true)

    const raw = await runCli(['sessions', 'history', 'main', '--raw', '--limit', '1000', '--state-dir', state], {env: env()})
    expect(raw.code, raw.stderr).toBe(0)
    const lines = raw.stdout.trimEnd().split('\n')
    expect(lines).toEqual(shown.map((e) => e.text))
    for (const l of lines) JSON.parse(l)
    expect(sha(db)).toBe(before)
  })

  it('--limit N returns the last N messages and never reads the events before them (an undecodable early event is not met)', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbPath(state, 'main')
    const sid = '43eeabd1-7609-4067-b31f-fda50759fe26'
    const events = eventsOf(db, sid)
    const messages = events.filter((e) => JSON.parse(e.text).type === 'message')
    // Break seq 1 (an early event) so that any read of it would report a bad line.
    const w = openDb(db, false)
    w.prepare('UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = 1').run('{broken', sid)
    w.close()
    const r = json(await runCli(['sessions', 'history', 'main', '--limit', '2', '--json', '--state-dir', state], {env: env()}))
    expect(r.badLines).toEqual([])
    expect(r.truncated).toBe(true)
    const ids = r.entries.filter((e: any) => e.type === 'message').map((e: any) => e.id)
    expect(ids).toEqual(messages.slice(-2).map((m) => JSON.parse(m.text).id))
    // The whole history does meet it, and reports it instead of failing.
    const whole = json(await runCli(['sessions', 'history', 'main', '--limit', '1000', '--json', '--state-dir', state], {env: env()}))
    expect(whole.badLines).toEqual([expect.objectContaining({line: 1, reason: 'invalid-json'})])
  })

  it('by session id and by a key prefix, across agents', async () => {
    const state = copyFixture(IMPORTED_96)
    const byId = json(await runCli(['sessions', 'history', '704f285c-af26-493e-ab33-9383ab17a8c0', '--json', '--state-dir', state], {env: env()}))
    expect(byId).toMatchObject({key: 'agent:work:main', agentId: 'work'})
    const byPrefix = json(await runCli(['sessions', 'history', 'agent:work:ma', '--json', '--state-dir', state], {env: env()}))
    expect(byPrefix.key).toBe('agent:work:main')
    const missing = await runCli(['sessions', 'history', 'agent:work:nope', '--state-dir', state], {env: env()})
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^Error: Session not found: agent:work:nope/)
  })
})

describeSqlite('status on a SQLite-era store', () => {
  it('per agent: era, schema version, database and WAL size, sessions and events counted by SQL; recent rows from the databases', async () => {
    const state = copyFixture(IMPORTED_96)
    const r = await runCli(['status', '--json', '--state-dir', state], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    for (const a of doc.agents.agents) {
      const db = dbPath(state, a.id)
      const h = openDb(db)
      const sessions = h.prepare('SELECT count(*) AS n FROM session_nodes WHERE entry_valid = 1').get()!.n
      const events = h.prepare('SELECT count(*) AS n FROM transcript_events').get()!.n
      h.close()
      expect(a).toMatchObject({era: 'sqlite', sessionsCount: sessions, storeError: null, sqlite: {path: db, schemaVersion: 23, databaseBytes: fs.statSync(db).size, sessions, events}})
      expect(typeof a.sqlite!.walBytes).toBe('number')
    }
    expect(doc.sessions.count).toBe(2)
    expect(doc.sessions.recent.map((s: any) => s.key)).toEqual(['agent:main:main', 'agent:work:main'])
    const human = await runCli(['status', '--state-dir', state], {env: env()})
    expect(human.stdout).toMatch(/main: SQLite schema 23, 1 session\(s\), 21 event\(s\), database \d+ KiB \+ WAL \d+ B/)
    // --all's Store column names the database the sessions were read from.
    const all = await runCli(['status', '--all', '--wide', '--state-dir', state], {env: env()})
    expect(all.stdout).toMatch(new RegExp(`^work +\\S+ +1 +.*${dbPath(state, 'work').replace(/[.]/g, '\\.')}$`, 'm'))
    // A JSON-era state dir says so too.
    const j = json(await runCli(['status', '--json', '--state-dir', copyFixture(TWO_AGENTS)], {env: env()}))
    expect(j.agents.agents.map((a: any) => a.era)).toEqual(['json', 'json'])
  })

  it('a legacy sessions.json left beside the database (never imported) is reported by status\'s cheap checks', async () => {
    const state = copyFixture(NATIVE_96)
    const clean = json(await runCli(['status', '--json', '--state-dir', state], {env: env()}))
    expect(clean.doctor.ids).not.toContain('sqlite-legacy-not-imported')
    fs.mkdirSync(path.join(state, 'agents', 'main', 'sessions'), {recursive: true, mode: 0o700})
    fs.copyFileSync(path.join(FIXTURES, TWO_AGENTS, 'agents', 'main', 'sessions', 'sessions.json'), path.join(state, 'agents', 'main', 'sessions', 'sessions.json'))
    const mixed = json(await runCli(['status', '--json', '--state-dir', state], {env: env()}))
    expect(mixed.doctor.ids).toContain('sqlite-legacy-not-imported')
    expect(mixed.doctor.errors).toBeGreaterThan(0)
  })
})

describeSqlite('a 0-byte agent database', () => {
  it('every command that opens it says what the file is (an empty file, no sessions, restore it or let OpenClaw create one), never "schema version 0, migrate it"; nothing is written', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbPath(state, 'main')
    for (const side of ['-wal', '-shm']) fs.rmSync(`${db}${side}`, {force: true})
    fs.truncateSync(db, 0)
    const runs = [
      ['sessions', 'list'],
      ['sessions', 'history', 'agent:main:main'],
      ['sessions', 'usage'],
      ['sessions', 'search', 'hello'],
      ['sessions', 'reset', 'agent:main:main'],
      ['agent', '-m', 'hi'],
    ]
    for (const args of runs) {
      const r = await runCli([...args, '--json', '--state-dir', state], {env: env()})
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(1)
      const e = json<any>(r).error
      expect(e.code, args.join(' ')).toBe('E_SQLITE_EMPTY')
      expect(e.message).toContain(`${db} is an empty file (0 bytes), not an OpenClaw database: no sessions are stored in it`)
      expect(e.message).not.toMatch(/schema version 0|migrate/)
      expect(e.suggestions.join(' ')).toMatch(/restore it from a backup.*OpenClaw 2026\.9\.6 lists no sessions for it and creates a new database there on its next turn/)
    }
    const human = await runCli(['sessions', 'list', '--state-dir', state], {env: env()})
    expect(human.stderr.split('\n')[0]).toBe(`Error: ${db} is an empty file (0 bytes), not an OpenClaw database: no sessions are stored in it.`)
    const status = await runCli(['status', '--json', '--state-dir', state], {env: env()})
    expect(status.code, status.stderr).toBe(0)
    expect(json<any>(status).agents.agents[0].storeError).toContain('is an empty file (0 bytes)')
    expect(fs.statSync(db).size).toBe(0)
    expect(fs.existsSync(`${db}-wal`)).toBe(false)
  })
})
