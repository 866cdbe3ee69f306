// A state dir that OpenClaw 2026.9.6 keeps in SQLite: no clawkit writer creates or changes a JSON-era session file for
// such an agent (it would fork the conversation). Reading it is test/e2e/sqlite-read.sqlite.test.ts; here, on a
// Node without node:sqlite, a reader fails in one line naming the Node it needs.
import fs from 'node:fs'
import path from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, json, jsonError, runCli, tempDir} from '../support/cli.js'
import {type FakeChannels, startFakeChannels} from '../support/fake-channels.js'
import {type MockAnthropic, startMockAnthropic} from '../support/mock-anthropic.js'
import {diffSnapshots, isEmptyDiff, snapshot} from '../support/state-files.js'
import {SQLITE_OK, withoutReaderTraces} from '../support/sqlite.js'

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

/** Nothing changed under `root` but the -shm/-wal traces a SQLite reader leaves (the databases are byte-identical). */
function untouched(root: string, before: ReturnType<typeof snapshot>): boolean {
  return isEmptyDiff(withoutReaderTraces(diffSnapshots(before, snapshot(root)), (rel) => fs.statSync(path.join(root, rel)).size))
}

/** A copy of the fixture whose provider points at the mock, so a model call would be seen. */
function sqliteState(fixture: string): string {
  const state = copyFixture(fixture)
  const cfgPath = path.join(state, 'openclaw.json')
  const cfg = JSON.parse(fs.readFileSync(cfgPath, 'utf8'))
  cfg.models.providers.mockant.baseUrl = mock.url
  fs.writeFileSync(cfgPath, JSON.stringify(cfg, null, 2))
  return state
}

/** Every writer; on Node 20 each must stop before the model call, the send or any file (it would fork the conversation). */
const WRITERS: {name: string; args: string[]}[] = [
  {name: 'agent -m --to', args: ['agent', '-m', 'x', '--to', '+15550001234', '--json']},
  {name: 'agent -m --agent', args: ['agent', '-m', 'x', '--agent', 'main', '--json']},
  {name: 'agent -m --session-id', args: ['agent', '-m', 'x', '--session-id', 'fresh-id-1', '--json']},
  {name: 'sessions reset', args: ['sessions', 'reset', 'main', '--json']},
]

describe('SQLite-era state (OpenClaw 2026.9.6): nothing forks into JSON-era files', () => {
  // On Node 22.15+ the writers write the database itself: test/e2e/sqlite-write.sqlite.test.ts.
  for (const fixture of [NATIVE, IMPORTED]) {
    for (const w of WRITERS) {
      it.skipIf(SQLITE_OK)(`${fixture}: ${w.name} on Node 20 exits 1 with E_NODE_TOO_OLD, calls no model and writes no file`, async () => {
        const state = sqliteState(fixture)
        const before = snapshot(state)
        const calls = mock.messageRequests().length
        const r = await runCli([...w.args, '--state-dir', state], {env: baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key'})})
        expect(r.code, r.stdout + r.stderr).toBe(1)
        expect(jsonError(r)).toMatchObject({code: 'E_NODE_TOO_OLD', message: expect.stringMatching(/needs Node 22\.15 or later/)})
        expect(mock.messageRequests().length).toBe(calls)
        expect(untouched(state, before)).toBe(true)
      })
    }
  }

  it('sessions reset <sessionId> of a JSON-era agent works beside a SQLite-era agent searched before it', async () => {
    const state = copyFixture('openclaw-2026.4.27-two-agents')
    // main (searched first) is migrated; work stays in the JSON era.
    fs.mkdirSync(path.join(state, 'agents', 'main', 'agent'), {recursive: true})
    fs.copyFileSync(path.join(copyFixture(NATIVE), 'agents', 'main', 'agent', 'openclaw-agent.sqlite'), path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite'))
    const legacy = path.join(state, 'agents', 'main', 'sessions')
    const legacyBefore = snapshot(legacy)
    const r = await runCli(['sessions', 'reset', '704f285c-af26-493e-ab33-9383ab17a8c0', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    if (!SQLITE_OK) {
      // Searching main's database for the id needs node:sqlite.
      expect(jsonError(r).code).toBe('E_NODE_TOO_OLD')
      return
    }
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(json(r)).toMatchObject({key: 'agent:work:main', previousSessionId: '704f285c-af26-493e-ab33-9383ab17a8c0'})
    // An id of the SQLite-era agent is reset in its database; its legacy sessions.json and transcripts stay as they were.
    const other = await runCli(['sessions', 'reset', 'c0ffee00-0000-4000-8000-000000000096', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(other.code, other.stderr).toBe(0)
    expect(json(other).previousSessionId).toBe('c0ffee00-0000-4000-8000-000000000096')
    expect(isEmptyDiff(diffSnapshots(legacyBefore, snapshot(legacy)))).toBe(true)
  })

  it.skipIf(SQLITE_OK)('message send on Node 20: refused before anything is sent (mirror or not: the send policy is in the database)', async () => {
    const state = sqliteState(NATIVE)
    const before = snapshot(state)
    const env = baseEnv(tempDir())
    for (const extra of [[], ['--no-mirror']]) {
      const r = await runCli(['message', 'send', '--channel', 'webhook', '-t', fake.webhookUrl, '-m', 'hi', ...extra, '--json', '--state-dir', state], {env})
      expect(r.code).toBe(1)
      expect(jsonError(r)).toMatchObject({code: 'E_NODE_TOO_OLD', message: expect.stringMatching(/needs Node 22\.15/)})
    }
    expect(fake.of('webhook')).toHaveLength(0)
    expect(untouched(state, before)).toBe(true)
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
    // Legacy files get no JSON-era check (orphans, a moved sessionFile...): only the finding that they were never
    // imported, and nothing of the agent is fixable.
    const work = doc.findings.filter((f) => f.agentId === 'work')
    expect(work.map((f) => f.id).sort()).toEqual(['sqlite-import-protected', 'sqlite-legacy-not-imported', 'sqlite-store', ...(SQLITE_OK ? [] : ['sqlite-unchecked'])])
    for (const f of work) expect(f, f.id).toMatchObject({fixed: false, fixable: false})
    expect(doc.findings.find((f) => f.agentId === 'work' && f.id === 'sqlite-store')!.message).toMatch(/--fix changes none of them/)
  })
})

describe.skipIf(SQLITE_OK)('SQLite-era state on a Node without node:sqlite', () => {
  it('list, history and status: one line naming the Node needed (list and history exit 1, status reports it per agent); a JSON-era agent beside it still works, and --all-agents lists it and names the other', async () => {
    const state = sqliteState(IMPORTED)
    const before = snapshot(state)
    const env = baseEnv(tempDir())
    for (const args of [['sessions', 'list'], ['sessions', 'list', '--all-agents'], ['sessions', 'history', 'agent:work:main']]) {
      const r = await runCli([...args, '--state-dir', state], {env})
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stderr.split('\n')[0]).toMatch(/^Error: .*needs Node 22\.15 or later .*this is Node 20/)
      expect(r.stderr).not.toMatch(/\n\s+at /)
      const j = await runCli([...args, '--json', '--state-dir', state], {env})
      expect(jsonError(j).code).toBe('E_NODE_TOO_OLD')
    }
    const st = json(await runCli(['status', '--json', '--state-dir', state], {env}))
    expect(st.agents.agents.map((a) => [a.era, a.storeError])).toEqual([['sqlite', expect.stringMatching(/needs Node 22\.15/)], ['sqlite', expect.stringMatching(/needs Node 22\.15/)]])
    expect(untouched(state, before)).toBe(true)
    // A JSON-era agent is read as ever on the same Node.
    const mixed = copyFixture('openclaw-2026.4.27-two-agents')
    fs.mkdirSync(path.join(mixed, 'agents', 'work', 'agent'), {recursive: true})
    fs.copyFileSync(path.join(state, 'agents', 'work', 'agent', 'openclaw-agent.sqlite'), path.join(mixed, 'agents', 'work', 'agent', 'openclaw-agent.sqlite'))
    const main = await runCli(['sessions', 'list', '--agent', 'main', '--json', '--state-dir', mixed], {env})
    expect(main.code, main.stderr).toBe(0)
    expect(json(main).sessions.map((r) => r.key)).toEqual(['agent:main:main'])
    // --all-agents lists it and names the agent it could not read (exit 1: the list is partial), never silently.
    const all = await runCli(['sessions', 'list', '--all-agents', '--json', '--state-dir', mixed], {env})
    expect(all.code).toBe(1)
    expect(json(all).sessions.map((r) => r.key)).toEqual(['agent:main:main'])
    expect(json(all).unreadable).toMatchObject([{agentId: 'work', code: 'E_NODE_TOO_OLD'}])
    expect(all.stderr).toMatch(/^Warning: agent work was left out: .*needs Node 22\.15 or later/)
  })
})
