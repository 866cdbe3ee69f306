// Side by side with a real OpenClaw (2026.4.27): OpenClaw lists what clawkit wrote, clawkit reads what OpenClaw wrote.
// Skipped unless scripts/interop.sh (npm run test:interop) provides the OpenClaw install; see RELIABILITY.md.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, COMPACTION, copyFixture, json, ROOT, type RunResult, runCli, runProcess, sessionsJsonPath, tempDir, TWO_AGENTS} from '../support/cli.js'
import {openclawEnv, shareCachedPluginRuntime, startMockProcess} from './support/interop.js'

const NODE = process.env.CLAWKIT_INTEROP_NODE
const OPENCLAW = process.env.CLAWKIT_INTEROP_OPENCLAW
const enabled = Boolean(NODE && OPENCLAW && fs.existsSync(OPENCLAW))

/** `openclaw <args>` on Node 24 with OPENCLAW_STATE_DIR, a scratch HOME and no network-facing extras. */
function openclaw(args: string[], stateDir: string, home: string): Promise<RunResult> {
  return runProcess(NODE!, [OPENCLAW!, ...args], {env: openclawEnv(home, stateDir), cwd: home, timeoutMs: 180_000})
}

/** OpenClaw prints a banner and logs around its JSON; take the one top-level document. */
function openclawJson(r: RunResult): any {
  const start = r.stdout.indexOf('{')
  if (r.code !== 0 || start < 0) throw new Error(`openclaw failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`)
  return JSON.parse(r.stdout.slice(start))
}

/** The fields both tools must agree on for every session (ageMs differs by the seconds between the two runs). */
const COMPARED = ['key', 'sessionId', 'updatedAt', 'inputTokens', 'outputTokens', 'totalTokens', 'totalTokensFresh', 'contextTokens', 'model', 'modelProvider', 'agentId', 'kind', 'abortedLastRun', 'thinkingLevel'] as const

function rows(doc: {sessions: object[]}): Record<string, unknown>[] {
  return doc.sessions.map((s) => Object.fromEntries(COMPARED.map((k) => [k, (s as Record<string, unknown>)[k]]))).sort((a, b) => String(a.key).localeCompare(String(b.key)))
}

async function expectSameListing(stateDir: string, home: string): Promise<{openclaw: any; clawkit: any}> {
  const oc = openclawJson(await openclaw(['sessions', '--all-agents', '--json'], stateDir, home))
  const ck = json(await runCli(['sessions', 'list', '--all-agents', '--json', '--state-dir', stateDir], {env: baseEnv(home)}))
  expect(ck.count).toBe(oc.count)
  expect(rows(ck)).toEqual(rows(oc))
  return {openclaw: oc, clawkit: ck}
}

/** examples/demo-state as the README ships it (its openclaw.json must pass OpenClaw's own config validation). */
function demoState(): string {
  const dest = path.join(tempDir(), 'state')
  fs.cpSync(path.join(ROOT, 'examples', 'demo-state'), dest, {recursive: true})
  return dest
}

/** openclaw.json for a fresh state dir: a custom anthropic-messages provider at the mock (OpenClaw requires `name`). */
function writeMockProviderConfig(state: string, port: number): void {
  fs.mkdirSync(state, {recursive: true})
  fs.writeFileSync(
    path.join(state, 'openclaw.json'),
    JSON.stringify({
      models: {providers: {mock: {baseUrl: `http://127.0.0.1:${port}`, apiKey: 'test-key', api: 'anthropic-messages', models: [{id: 'mock-1', name: 'Mock', contextWindow: 200_000, maxTokens: 4096, input: ['text'], cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0}}]}}},
      agents: {defaults: {model: {primary: 'mock/mock-1'}}},
    }, null, 2),
  )
}

/**
 * A fresh home and state dir whose openclaw.json points both CLIs at a mock Messages API process (requests logged to
 * `requests`), with OpenClaw's plugin runtime shared; the mock is stopped however `fn` ends.
 */
async function withMockWorld(fn: (w: {home: string; state: string; requests: string}) => Promise<void>): Promise<void> {
  const home = tempDir()
  const state = path.join(tempDir(), 'state')
  const requests = path.join(home, 'requests.jsonl')
  const {mock, port} = await startMockProcess(requests)
  try {
    writeMockProviderConfig(state, port)
    shareCachedPluginRuntime(state)
    await fn({home, state, requests})
  } finally {
    mock.kill()
  }
}

describe.skipIf(!enabled)(`interop with real OpenClaw ${process.env.CLAWKIT_INTEROP_VERSION ?? ''}`, () => {
  it('the demo state clawkit wrote (examples/demo-state): OpenClaw accepts the config and lists the same keys, ids and tokens', async () => {
    const home = tempDir()
    const {openclaw: oc} = await expectSameListing(demoState(), home)
    expect(oc.count).toBeGreaterThan(0)
  }, 300_000)

  it('fixtures written by OpenClaw itself: clawkit lists the same rows (two agents, compaction)', async () => {
    for (const fixture of [TWO_AGENTS, COMPACTION]) await expectSameListing(copyFixture(fixture), tempDir())
  }, 300_000)

  it('stale totals (totalTokensFresh: false): both print the stored totalTokens (700) in --json, not null', async () => {
    const state = copyFixture(TWO_AGENTS)
    const home = tempDir()
    const index = JSON.parse(fs.readFileSync(sessionsJsonPath(state), 'utf8'))
    Object.assign(index['agent:main:main'], {totalTokens: 700, totalTokensFresh: false})
    fs.writeFileSync(sessionsJsonPath(state), JSON.stringify(index, null, 2))
    const {openclaw: oc, clawkit: ck} = await expectSameListing(state, home)
    for (const doc of [oc, ck]) expect(doc.sessions.find((s: {key: string}) => s.key === 'agent:main:main')).toMatchObject({totalTokens: 700, totalTokensFresh: false})
  }, 300_000)

  it('a sessions.json led by a UTF-8 BOM: OpenClaw lists none of its rows, clawkit lists them all and doctor warns (store-bom)', async () => {
    // Pins the claim behind doctor's store-bom finding: OpenClaw reads such an index as empty (and its next save
    // would write that empty store back), so the BOM is worth removing before OpenClaw writes.
    const state = copyFixture(TWO_AGENTS)
    const home = tempDir()
    const file = sessionsJsonPath(state)
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), fs.readFileSync(file)]))
    const oc = await openclaw(['sessions', '--json'], state, home)
    expect(oc.code, oc.stderr).toBe(0)
    expect(JSON.parse(oc.stdout)).toMatchObject({count: 0, sessions: []})
    const ck = json(await runCli(['sessions', 'list', '--json', '--state-dir', state], {env: baseEnv(home)}))
    expect(ck.count).toBeGreaterThan(0)
    const doctor = json(await runCli(['doctor', '--json', '--state-dir', state], {env: baseEnv(home)}))
    expect(doctor.findings.find((f: {id: string}) => f.id === 'store-bom')).toMatchObject({severity: 'warn', fixable: true})
  }, 300_000)

  it('after clawkit sessions reset, OpenClaw sees the new sessionId and cleared counters, and its history is the new file', async () => {
    const state = copyFixture(TWO_AGENTS)
    const home = tempDir()
    const reset = json(await runCli(['sessions', 'reset', 'agent:work:main', '--json', '--state-dir', state], {env: baseEnv(home)}))
    const {openclaw: oc} = await expectSameListing(state, home)
    const row = oc.sessions.find((s: {key: string}) => s.key === 'agent:work:main')
    expect(row).toMatchObject({sessionId: reset.sessionId, inputTokens: 0, outputTokens: 0, totalTokens: 0, totalTokensFresh: true})
  }, 300_000)

  it('OpenClaw writes (sessions cleanup --enforce), clawkit reads the result; clawkit-reset sessions survive OpenClaw maintenance', async () => {
    const state = copyFixture(TWO_AGENTS)
    const home = tempDir()
    const reset = json(await runCli(['sessions', 'reset', 'agent:main:main', '--json', '--state-dir', state], {env: baseEnv(home)}))
    const before = fs.readFileSync(sessionsJsonPath(state), 'utf8')
    const cleanup = await openclaw(['sessions', 'cleanup', '--enforce', '--all-agents', '--json'], state, home)
    expect(cleanup.code, cleanup.stderr).toBe(0)
    const after = fs.readFileSync(sessionsJsonPath(state), 'utf8')
    // Whatever OpenClaw's maintenance rewrote, both tools still agree on every row, and the reset row is kept.
    const {clawkit: ck} = await expectSameListing(state, home)
    expect(ck.sessions.find((s: {key: string}) => s.key === 'agent:main:main')?.sessionId).toBe(reset.sessionId)
    process.stderr.write(`interop: openclaw sessions cleanup --enforce ${after === before ? 'left sessions.json byte-identical' : 'rewrote sessions.json'}\n`)
    // clawkit can keep writing after OpenClaw did.
    const again = await runCli(['sessions', 'reset', 'agent:main:main', '--json', '--state-dir', state], {env: baseEnv(home)})
    expect(again.code, again.stderr).toBe(0)
    await expectSameListing(state, home)
  }, 300_000)

  it('OpenClaw prunes a row with a missing transcript (it rewrites sessions.json) but keeps rows clawkit reset; clawkit reads and rewrites its file', async () => {
    const state = copyFixture(TWO_AGENTS)
    const home = tempDir()
    // Resetting both main sessions also points their sessionFile into this temp dir (the fixture's point elsewhere).
    const ids: string[] = []
    for (const key of ['agent:main:main', 'agent:work:main']) ids.push(json(await runCli(['sessions', 'reset', key, '--json', '--state-dir', state], {env: baseEnv(home)})).sessionId)
    // A row whose transcript is really missing, so OpenClaw has something to prune and rewrites sessions.json.
    const index = JSON.parse(fs.readFileSync(sessionsJsonPath(state), 'utf8'))
    index['agent:main:stale'] = {sessionId: '11111111-2222-4333-8444-555555555555', updatedAt: Date.now()}
    fs.writeFileSync(sessionsJsonPath(state), JSON.stringify(index, null, 2))
    const cleanup = await openclaw(['sessions', 'cleanup', '--enforce', '--fix-missing', '--all-agents', '--json'], state, home)
    expect(cleanup.code, cleanup.stderr).toBe(0)
    expect(JSON.parse(fs.readFileSync(sessionsJsonPath(state), 'utf8'))).not.toHaveProperty(['agent:main:stale'])
    // clawkit reads the file OpenClaw just wrote, agrees row for row, and can write it again.
    const {clawkit: ck} = await expectSameListing(state, home)
    expect(ck.sessions.map((s: {sessionId: string}) => s.sessionId).sort()).toEqual(ids.sort())
    const again = await runCli(['sessions', 'reset', 'agent:main:main', '--json', '--state-dir', state], {env: baseEnv(home)})
    expect(again.code, again.stderr).toBe(0)
    await expectSameListing(state, home)
  }, 300_000)

  it('transcript round trip: clawkit writes a session, OpenClaw agent --local continues it (the model gets clawkit\'s history), clawkit reads OpenClaw\'s turn back', async () => {
    await withMockWorld(async ({home, state, requests}) => {
      // 1. clawkit's store library writes the row and a two-message transcript, as `clawkit agent` will.
      const lib = await import(path.join(ROOT, 'dist', 'store', 'index.js'))
      const sessionsDir = path.join(state, 'agents', 'main', 'sessions')
      const sessionFile = path.join(sessionsDir, 'rt-1.jsonl')
      const usage = {input: 40, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 45, cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0}}
      const written = await lib.appendEntries(sessionFile, [
        {type: 'message', message: {role: 'user', content: [{type: 'text', text: 'alpha from clawkit'}], timestamp: Date.now()}},
        {type: 'message', message: {role: 'assistant', content: [{type: 'text', text: 'reply alpha from clawkit'}], api: 'anthropic-messages', provider: 'mock', model: 'mock-1', usage, stopReason: 'stop', timestamp: Date.now()}},
      ], {header: lib.makeHeader('rt-1', path.join(state, 'workspace'))})
      await new lib.FileSessionStore({agentId: 'main', path: path.join(sessionsDir, 'sessions.json')}).update((d: Record<string, unknown>) => {
        d['agent:main:explicit:rt-1'] = {sessionId: 'rt-1', updatedAt: Date.now(), sessionFile, modelProvider: 'mock', model: 'mock-1', inputTokens: 40, outputTokens: 5, totalTokens: 40, totalTokensFresh: true, contextTokens: 200_000}
      })
      // 2. OpenClaw continues the session: the model must be sent clawkit's two messages before the new one.
      const turn = await openclaw(['agent', '--local', '--session-id', 'rt-1', '-m', 'beta from openclaw', '--json'], state, home)
      expect(turn.code, turn.stderr.slice(-2000)).toBe(0)
      const sent = fs.readFileSync(requests, 'utf8').trim().split('\n').map((l) => JSON.parse(l).body)
      const history = JSON.stringify(sent.at(-1).messages)
      expect(history.indexOf('alpha from clawkit')).toBeGreaterThanOrEqual(0)
      expect(history.indexOf('reply alpha from clawkit')).toBeGreaterThan(history.indexOf('alpha from clawkit'))
      expect(history.indexOf('beta from openclaw')).toBeGreaterThan(history.indexOf('reply alpha from clawkit'))
      // 3. clawkit reads OpenClaw's turn: same rows as OpenClaw lists, and one unbroken parentId chain across writers.
      await expectSameListing(state, home)
      const hist = json(await runCli(['sessions', 'history', 'agent:main:explicit:rt-1', '--json', '--limit', '10', '--state-dir', state], {env: baseEnv(home)}))
      const texts = hist.entries.filter((e: {type: string}) => e.type === 'message').map((e: {text?: string}) => e.text ?? '')
      expect(texts.some((t: string) => t.includes('alpha from clawkit'))).toBe(true)
      expect(texts.some((t: string) => t.includes('beta from openclaw'))).toBe(true)
      expect(texts.at(-1)).toMatch(/^echo \d+: /)
      const lines = fs.readFileSync(sessionFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.type !== 'session')
      const ids = new Set(lines.map((e) => e.id))
      expect(lines.filter((e) => e.parentId !== null && !ids.has(e.parentId))).toEqual([])
      expect(lines.some((e) => e.parentId === written.entries[1].id)).toBe(true)
      // 4. clawkit resets the OpenClaw-continued session; OpenClaw agrees on the new row.
      const reset = json(await runCli(['sessions', 'reset', 'agent:main:explicit:rt-1', '--json', '--state-dir', state], {env: baseEnv(home)}))
      const {openclaw: oc} = await expectSameListing(state, home)
      expect(oc.sessions.find((r: {key: string}) => r.key === 'agent:main:explicit:rt-1').sessionId).toBe(reset.sessionId)
    })
  }, 900_000)

  it('agent round trip: clawkit agent -m -> openclaw agent --local -> clawkit agent -m; the mock gets the whole history (both writers\' turns, in order) each time, one parentId chain, same listing', async () => {
    await withMockWorld(async ({home, state, requests}) => {
      // No ANTHROPIC_* in the env: both CLIs must reach the mock through openclaw.json's provider alone.
      const env = baseEnv(home, {ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, ANTHROPIC_AUTH_TOKEN: undefined})
      const sent = (): any[] => fs.readFileSync(requests, 'utf8').trim().split('\n').map((l) => JSON.parse(l).body)
      /**
       * The texts of every message the model was sent, in order, as role: text. OpenClaw prefixes its own user turn with
       * a "[Bootstrap pending]" notice while the workspace's BOOTSTRAP.md is unfinished (its behaviour, not what either
       * tool stored); that block is cut so the comparison is about the history.
       */
      const unbootstrap = (text: string): string => text.replace(/^\[Bootstrap pending\]\n[\s\S]*?\n\n/, '')
      const transcriptOf = (body: any): string[] =>
        body.messages.map((m: any) => `${m.role}: ${unbootstrap(typeof m.content === 'string' ? m.content : m.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join(' '))}`)
      const sid = 'rt-agent-1'
      const key = 'agent:main:explicit:rt-agent-1'

      // 1. clawkit starts the session.
      const one = await runCli(['agent', '-m', 'one from clawkit', '--session-id', sid, '--json', '--state-dir', state], {env, timeoutMs: 60_000})
      expect(one.code, one.stderr).toBe(0)
      expect(transcriptOf(sent().at(-1))).toEqual(['user: one from clawkit'])
      const sessionFile = path.join(state, 'agents', 'main', 'sessions', `${sid}.jsonl`)
      expect(JSON.parse(fs.readFileSync(sessionsJsonPath(state), 'utf8'))[key]).toMatchObject({sessionId: sid})

      // 2. OpenClaw continues it: the model must see clawkit's turn before OpenClaw's message.
      const two = await openclaw(['agent', '--local', '--session-id', sid, '-m', 'two from openclaw', '--json'], state, home)
      expect(two.code, two.stderr.slice(-2000)).toBe(0)
      expect(transcriptOf(sent().at(-1))).toEqual(['user: one from clawkit', 'assistant: echo 1: one from clawkit', 'user: two from openclaw'])
      await expectSameListing(state, home)

      // 3. clawkit again: the whole history, OpenClaw's turn included, in order.
      const three = await runCli(['agent', '-m', 'three from clawkit', '--session-id', sid, '--json', '--state-dir', state], {env, timeoutMs: 60_000})
      expect(three.code, three.stderr).toBe(0)
      const last = sent()
      // The mock echoed the last 200 characters OpenClaw sent, bootstrap notice included: match the reply by its ends.
      const third = transcriptOf(last.at(-1))
      expect(third).toHaveLength(5)
      expect(third.slice(0, 3)).toEqual(['user: one from clawkit', 'assistant: echo 1: one from clawkit', 'user: two from openclaw'])
      expect(third[3]).toMatch(new RegExp(`^assistant: echo ${last.length - 1}: [\\s\\S]*two from openclaw$`))
      expect(third[4]).toBe('user: three from clawkit')

      // 4. One unbroken parentId chain across both writers, and both tools agree on ids and token figures.
      const lines = fs.readFileSync(sessionFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      expect(lines.filter((e) => e.type === 'session')).toHaveLength(1)
      const entries = lines.filter((e) => e.type !== 'session')
      for (let i = 1; i < entries.length; i++) expect(entries[i].parentId, `entry ${i} (${entries[i].type})`).toBe(entries[i - 1].id)
      const texts = entries.filter((e) => e.type === 'message').map((e) => `${e.message.role}: ${unbootstrap((e.message.content as any[]).filter((b) => b.type === 'text').map((b) => b.text).join(' '))}`)
      expect(texts.filter((t) => t.startsWith('user: '))).toEqual(['user: one from clawkit', 'user: two from openclaw', 'user: three from clawkit'])
      const {openclaw: oc, clawkit: ck} = await expectSameListing(state, home)
      const ocRow = oc.sessions.find((r: {key: string}) => r.key === key)
      expect(ocRow).toMatchObject({sessionId: sid})
      expect(ck.sessions.find((r: {key: string}) => r.key === key)).toMatchObject({sessionId: sid, inputTokens: ocRow.inputTokens, outputTokens: ocRow.outputTokens, totalTokens: ocRow.totalTokens})
      process.stderr.write(`interop: agent round trip: ${last.length} model requests, ${entries.length} entries in one chain, row ${JSON.stringify(Object.fromEntries(COMPARED.map((k) => [k, ocRow[k]])))}\n`)
    })
  }, 900_000)
})
