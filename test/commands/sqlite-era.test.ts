// A state dir that OpenClaw 2026.9.6 keeps in SQLite: no clawkit writer creates or changes a JSON-era session file for
// such an agent (it would fork the conversation), and the readers say where the sessions are instead of "none".
import fs from 'node:fs'
import path from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, json, runCli, tempDir} from '../support/cli.js'
import {type FakeChannels, startFakeChannels} from '../support/fake-channels.js'
import {type MockAnthropic, startMockAnthropic} from '../support/mock-anthropic.js'
import {diffSnapshots, isEmptyDiff, snapshot} from '../reliability/support/tree.js'

const NATIVE = 'openclaw-2026.9.6-native'
const IMPORTED = 'openclaw-2026.9.6-imported'

let mock: MockAnthropic
let fake: FakeChannels
beforeAll(async () => {
  mock = await startMockAnthropic()
  fake = await startFakeChannels()
})
afterAll(async () => {
  await mock?.close()
  await fake?.close()
})

/** A copy of the fixture whose provider points at the mock, so a model call would be seen. */
function sqliteState(fixture: string): string {
  const state = copyFixture(fixture)
  const cfgPath = path.join(state, 'openclaw.json')
  const cfg = JSON.parse(fs.readFileSync(cfgPath, 'utf8'))
  cfg.models.providers.mockant.baseUrl = mock.url
  fs.writeFileSync(cfgPath, JSON.stringify(cfg, null, 2))
  return state
}

/** Every writer, each of which used to create agents/main/sessions/{sessions.json,<id>.jsonl} beside the database. */
const WRITERS: {name: string; args: string[]}[] = [
  {name: 'agent -m --to', args: ['agent', '-m', 'x', '--to', '+15550001234']},
  {name: 'agent -m --agent', args: ['agent', '-m', 'x', '--agent', 'main', '--json']},
  {name: 'agent -m --session-id', args: ['agent', '-m', 'x', '--session-id', 'fresh-id-1']},
  {name: 'sessions reset', args: ['sessions', 'reset', 'main']},
  {name: 'sessions reset --json', args: ['sessions', 'reset', 'agent:main:main', '--json']},
]

describe('SQLite-era state (OpenClaw 2026.9.6): writers refuse, nothing forks', () => {
  for (const fixture of [NATIVE, IMPORTED]) {
    for (const w of WRITERS) {
      it(`${fixture}: ${w.name} exits 1 with E_SQLITE_STORE, calls no model and writes no file`, async () => {
        const state = sqliteState(fixture)
        const before = snapshot(state)
        const calls = mock.messageRequests().length
        const r = await runCli([...w.args, '--state-dir', state], {env: baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key'})})
        expect(r.code, r.stdout + r.stderr).toBe(1)
        const text = w.args.includes('--json') ? json(r).error.message : r.stderr
        if (w.args.includes('--json')) expect(json(r).error.code).toBe('E_SQLITE_STORE')
        expect(text).toMatch(/keeps its sessions in SQLite .*openclaw-agent\.sqlite.*support is coming/)
        expect(mock.messageRequests().length).toBe(calls)
        expect(isEmptyDiff(diffSnapshots(before, snapshot(state)))).toBe(true)
      })
    }
  }

  it('message send: refused before anything is sent while mirroring is on; --no-mirror sends and writes nothing', async () => {
    const state = sqliteState(NATIVE)
    const before = snapshot(state)
    const env = baseEnv(tempDir())
    const refused = await runCli(['message', 'send', '--channel', 'webhook', '-t', fake.webhookUrl, '-m', 'hi', '--json', '--state-dir', state], {env})
    expect(refused.code).toBe(1)
    expect(json(refused).error).toMatchObject({code: 'E_SQLITE_STORE', message: expect.stringMatching(/Nothing was sent.*--no-mirror/)})
    expect(fake.of('webhook')).toHaveLength(0)
    const sent = await runCli(['message', 'send', '--channel', 'webhook', '-t', fake.webhookUrl, '-m', 'hi', '--no-mirror', '--json', '--state-dir', state], {env})
    expect(sent.code, sent.stderr).toBe(0)
    expect(json(sent).payload.mirrored).toBeNull()
    expect(fake.of('webhook')).toHaveLength(1)
    expect(isEmptyDiff(diffSnapshots(before, snapshot(state)))).toBe(true)
  })

  it('doctor --fix changes no session file of a SQLite-era agent (a stray legacy index is not re-indexed or rewritten)', async () => {
    const state = sqliteState(IMPORTED)
    const sessions = path.join(state, 'agents', 'work', 'sessions')
    fs.mkdirSync(sessions, {recursive: true, mode: 0o700})
    // A stray legacy index beside the database, with a row doctor would normally repair, and an orphan transcript.
    fs.writeFileSync(path.join(sessions, 'sessions.json'), JSON.stringify({'agent:work:main': {sessionId: 'stray-1', sessionFile: '/elsewhere/stray-1.jsonl'}}, null, 2), {mode: 0o600})
    fs.writeFileSync(path.join(sessions, 'orphan-1.jsonl'), `${JSON.stringify({type: 'session', version: 3, id: 'orphan-1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/'})}\n${JSON.stringify({type: 'message', id: 'aaaaaaaa', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: {role: 'user', content: 'hi'}})}\n`, {mode: 0o600})
    // An empty orphan too: its archive is a repair of its own kind (decided under the transcript and store locks).
    fs.writeFileSync(path.join(sessions, 'orphan-2.jsonl'), '', {mode: 0o600})
    const before = snapshot(sessions)
    const r = await runCli(['doctor', '--fix', '--yes', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    const doc = json(r)
    expect(isEmptyDiff(diffSnapshots(before, snapshot(sessions)))).toBe(true)
    const work = doc.findings.filter((f: any) => f.agentId === 'work' && f.id !== 'sqlite-store')
    expect(work.map((f: any) => f.id)).toContain('orphan-transcript-empty')
    for (const f of work) if (['orphan-transcript', 'orphan-transcript-empty', 'entry-missing-updated-at', 'transcript-missing'].includes(f.id)) expect(f, f.id).toMatchObject({fixed: false, fixable: false})
    expect(doc.findings.find((f: any) => f.agentId === 'work' && f.id === 'sqlite-store').message).toMatch(/refuse/)
  })
})

describe('SQLite-era state: readers say where the sessions are', () => {
  it('sessions list (human and --json) names the SQLite store instead of "No sessions found"', async () => {
    const state = sqliteState(NATIVE)
    const env = baseEnv(tempDir())
    const human = await runCli(['sessions', 'list', '--state-dir', state], {env})
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).not.toMatch(/No sessions found/)
    expect(human.stdout).toMatch(/keeps its sessions in SQLite/)
    // No store was read: none is named, and no empty "()" is printed.
    const allHuman = await runCli(['sessions', 'list', '--all-agents', '--state-dir', state], {env})
    expect(allHuman.stdout.split('\n')[0]).toBe('Session stores: 0')
    const r = await runCli(['sessions', 'list', '--all-agents', '--json', '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    // OpenClaw's document shape, plus one additive field.
    expect(doc).toMatchObject({path: null, stores: [], count: 0, sessions: [], sqliteStores: [{agentId: 'main', path: path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite')}]})
    expect(r.stderr).toMatch(/^Warning: Agent "main" keeps its sessions in SQLite/)
  })

  it('a legacy sessions.json left beside the database is not listed as the agent\'s sessions (the database is the truth)', async () => {
    const state = sqliteState(NATIVE)
    const sessions = path.join(state, 'agents', 'main', 'sessions')
    fs.mkdirSync(sessions, {recursive: true})
    fs.writeFileSync(path.join(sessions, 'sessions.json'), JSON.stringify({'agent:main:main': {sessionId: 'stale', updatedAt: 1}}))
    const env = baseEnv(tempDir())
    const doc = json(await runCli(['sessions', 'list', '--json', '--state-dir', state], {env}))
    expect(doc.count).toBe(0)
    expect(doc.sqliteStores).toHaveLength(1)
    const hist = await runCli(['sessions', 'history', 'main', '--state-dir', state], {env})
    expect(hist.code).toBe(1)
    expect(hist.stderr).toMatch(/keeps its sessions in SQLite/)
    // Writers refuse here too, by key and by the stale row's session id.
    const before = snapshot(state)
    for (const args of [['sessions', 'reset', 'main'], ['sessions', 'reset', 'stale'], ['agent', '--session-id', 'stale', '-m', 'x'], ['agent', '--agent', 'main', '-m', 'x']]) {
      const r = await runCli([...args, '--state-dir', state], {env: {...env, ANTHROPIC_API_KEY: 'test-key'}})
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stderr, args.join(' ')).toMatch(/keeps its sessions in SQLite.*Nothing was written/)
    }
    expect(isEmptyDiff(diffSnapshots(before, snapshot(state)))).toBe(true)
  })

  it('sessions history and status say the store is SQLite-era', async () => {
    const state = sqliteState(IMPORTED)
    const env = baseEnv(tempDir())
    const hist = await runCli(['sessions', 'history', 'agent:work:main', '--json', '--state-dir', state], {env})
    expect(hist.code).toBe(1)
    expect(json(hist).error).toMatchObject({code: 'E_SQLITE_STORE', message: expect.stringMatching(/Agent "work" keeps its sessions in SQLite/)})
    const status = await runCli(['status', '--state-dir', state], {env})
    expect(status.stdout).toMatch(/main: sessions in SQLite/)
    expect(status.stdout).toMatch(/work: sessions in SQLite/)
    expect(status.stdout).not.toMatch(/no sessions yet/)
    const sj = json(await runCli(['status', '--json', '--state-dir', state], {env}))
    expect(sj.agents.agents.map((a: any) => a.sqliteStore)).toEqual(sj.agents.agents.map((a: any) => path.join(state, 'agents', a.id, 'agent', 'openclaw-agent.sqlite')))
  })
  it('a mixed state dir (main JSON-era, work SQLite-era): list --json `stores` and status `sessions.paths` name only stores that were read', async () => {
    const state = copyFixture('openclaw-2026.4.27-two-agents')
    // work's real database from OpenClaw 2026.9.6, in the place OpenClaw keeps it; its legacy sessions.json stays beside.
    const db = path.join(state, 'agents', 'work', 'agent', 'openclaw-agent.sqlite')
    fs.mkdirSync(path.dirname(db), {recursive: true, mode: 0o700})
    fs.copyFileSync(path.join(copyFixture(IMPORTED), 'agents', 'work', 'agent', 'openclaw-agent.sqlite'), db)
    const env = baseEnv(tempDir())
    const main = path.join(state, 'agents', 'main', 'sessions', 'sessions.json')
    const legacy = path.join(state, 'agents', 'work', 'sessions', 'sessions.json')
    const all = json(await runCli(['sessions', 'list', '--all-agents', '--json', '--state-dir', state], {env}))
    expect(all.stores).toEqual([{agentId: 'main', path: main}])
    expect(all.sqliteStores).toEqual([expect.objectContaining({agentId: 'work', path: db})])
    expect(all.sessions.every((r: any) => r.agentId === 'main')).toBe(true)
    const human = await runCli(['sessions', 'list', '--all-agents', '--state-dir', state], {env})
    expect(human.stdout).toMatch(/^Session stores: 1 \(main\)$/m)
    // One agent: `path` keeps OpenClaw's shape (the legacy location), `sqliteStores` says why nothing was read there.
    const one = json(await runCli(['sessions', 'list', '--agent', 'work', '--json', '--state-dir', state], {env}))
    expect(one).toMatchObject({path: legacy, count: 0, sessions: [], sqliteStores: [{agentId: 'work', path: db}]})
    const st = json(await runCli(['status', '--json', '--state-dir', state], {env}))
    expect(st.sessions.paths).toEqual([main])
    expect(st.agents.agents.find((a: any) => a.id === 'work')).toMatchObject({sessionsPath: legacy, sqliteStore: db, sessionsCount: 0})
  })
})
