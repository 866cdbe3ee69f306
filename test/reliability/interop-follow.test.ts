// Issue 31's acceptance for `sessions history --follow` with real OpenClaw writers: turns by `openclaw agent --local`
// (2026.4.27 on JSON files, 2026.9.6 on its SQLite database) and by `clawkit agent` on one key, a clawkit reset between
// them, while clawkit follows the key: every entry each writer stored appears, in the order stored, none twice, the
// reset as its own line, every --json line valid. How long after each writer ended its last line was printed goes to
// stderr (the assertion is only that it appears: timing is BENCHMARKS.md's, "Following live").
// Skipped unless scripts/interop.sh (npm run test:interop) provides the OpenClaw installs; see RELIABILITY.md.
import {type ChildProcess, spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import type {SessionsFollowLine, SessionsHistoryResult} from '../../src/commands/sessions/history.js'
import {baseEnv, json, ROOT, runCli, runProcess, sessionsJsonPath, tempDir} from '../support/cli.js'
import {expectValidFollowLines, type Follower, startFollow} from '../support/follow.js'
import {useServers} from '../support/servers.js'
import {NATIVE_96} from '../support/sqlite.js'
import {enabled96, events, NODE, openclaw as openclaw96, openclawEnv, shareCachedPluginRuntime, stateCopy} from './support/openclaw96.js'

const OPENCLAW = process.env.CLAWKIT_INTEROP_OPENCLAW
const VERSION = process.env.CLAWKIT_INTEROP_VERSION ?? ''
const enabled427 = Boolean(NODE && OPENCLAW && fs.existsSync(OPENCLAW) && (VERSION === '' || VERSION.startsWith('2026.4.')))

// Only when a SQLite-era OpenClaw runs here: the in-process mock is its provider (and the 2026.4.27 world's has its own).
const servers = useServers({mock: enabled96 ? true : undefined})

let followers: Follower[] = []
afterEach(async () => {
  await Promise.all(followers.map((f) => f.stop('SIGKILL')))
  followers = []
})

const isJson = (pred: (d: SessionsFollowLine) => boolean) => (text: string) => pred(JSON.parse(text) as SessionsFollowLine)
const entries = (docs: SessionsFollowLine[]) => docs.filter((d): d is Extract<SessionsFollowLine, {kind: 'entry'}> => d.kind === 'entry')

/** What each turn said; OpenClaw may store its own notices around a user's text (the bootstrap note, a time). */
const MARKS = ['one from openclaw', 'two from clawkit', 'four from openclaw']
const saidInOrder = (docs: SessionsFollowLine[]) => entries(docs).filter((d) => d.entry.role === 'user').flatMap((d) => MARKS.filter((m) => (d.entry.text ?? '').includes(m)))

/**
 * Waits for the entry `id` on the follower; returns how long after `writerEnded` (ms, Date.now()) it was printed:
 * negative when it was printed while the writer was still running (its process still winding down).
 */
async function arrival(f: Follower, id: string, writerEnded: number): Promise<number> {
  const at = await f.waitFor(isJson((d) => d.kind === 'entry' && d.entry.id === id), {timeoutMs: 60_000})
  // The follower's lines carry performance.now(); turned into wall time through this process's own clock.
  const wall = Date.now() - (performance.now() - f.lines[at].at)
  return Math.round(wall - writerEnded)
}

/** support/mock-anthropic.mjs as a child (2026.4.27 talks to a provider in openclaw.json): its port. */
async function startMockProcess(requests: string): Promise<{mock: ChildProcess; port: number}> {
  const mock = spawn(process.execPath, [path.join(ROOT, 'test', 'reliability', 'support', 'mock-anthropic.mjs'), requests], {stdio: ['ignore', 'pipe', 'inherit']})
  const port = await new Promise<number>((resolve) => mock.stdout!.once('data', (d) => resolve(Number(String(d).trim()))))
  return {mock, port}
}

describe.skipIf(!enabled427)(`interop: --follow while real OpenClaw ${VERSION} (JSON files) and clawkit write`, () => {
  it('a key followed before it exists: OpenClaw\'s turn, clawkit\'s turn, clawkit\'s reset, OpenClaw\'s turn in the new session; every entry once, in order', async () => {
    const home = tempDir()
    const state = path.join(tempDir(), 'state')
    const {mock, port} = await startMockProcess(path.join(home, 'requests.jsonl'))
    try {
      fs.mkdirSync(state, {recursive: true})
      fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify({
        models: {providers: {mock: {baseUrl: `http://127.0.0.1:${port}`, apiKey: 'test-key', api: 'anthropic-messages', models: [{id: 'mock-1', name: 'Mock', contextWindow: 200_000, maxTokens: 4096, input: ['text'], cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0}}]}}},
        agents: {defaults: {model: {primary: 'mock/mock-1'}}},
      }, null, 2))
      shareCachedPluginRuntime(state)
      const noAnthropic = {ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, ANTHROPIC_AUTH_TOKEN: undefined}
      const env = baseEnv(home, noAnthropic)
      const openclaw = async (text: string) => {
        const r = await runProcess(NODE!, [OPENCLAW!, 'agent', '--local', '--agent', 'main', '-m', text, '--json'], {env: openclawEnv(home, state, noAnthropic), cwd: home, timeoutMs: 300_000})
        expect(r.code, r.stderr.slice(-2000)).toBe(0)
        return Date.now()
      }
      const clawkit = async (args: string[]) => {
        const r = await runCli([...args, '--state-dir', state], {env, timeoutMs: 120_000})
        expect(r.code, r.stderr).toBe(0)
        return {r, ended: Date.now()}
      }
      const transcript = () => JSON.parse(fs.readFileSync(sessionsJsonPath(state), 'utf8'))['agent:main:main'] as {sessionId: string; sessionFile: string}
      const ids = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.type !== 'session').map((e) => e.id as string)

      const f = startFollow(['sessions', 'history', 'main', '--follow', '--json', '--state-dir', state], env)
      followers.push(f)
      await expect.poll(() => f.stderr(), {timeout: 30_000}).toContain('Waiting for agent:main:main')
      const latency: Record<string, number> = {}
      const oneEnded = await openclaw('one from openclaw')
      const first = transcript()
      latency.openclaw1 = await arrival(f, ids(first.sessionFile).at(-1)!, oneEnded)
      const two = await clawkit(['agent', '-m', 'two from clawkit'])
      latency.clawkit2 = await arrival(f, ids(first.sessionFile).at(-1)!, two.ended)
      const firstIds = ids(first.sessionFile)
      const reset = json<{sessionId: string}>((await clawkit(['sessions', 'reset', 'main', '--json'])).r)
      await f.waitFor(isJson((d) => d.kind === 'session' && d.event === 'reset'))
      const ended = await openclaw('four from openclaw')
      const second = transcript()
      expect(second.sessionId).toBe(reset.sessionId)
      latency.openclaw4 = await arrival(f, ids(second.sessionFile).at(-1)!, ended)
      expect(await f.stop('SIGINT')).toEqual({code: 130, signal: null})

      const docs = expectValidFollowLines(f)
      const boundary = docs.findIndex((d) => d.kind === 'session' && d.event === 'reset')
      expect(docs[0]).toMatchObject({kind: 'session', event: 'new', sessionId: first.sessionId})
      expect(docs[boundary]).toMatchObject({previousSessionId: first.sessionId, sessionId: second.sessionId})
      expect(entries(docs.slice(0, boundary)).map((d) => d.entry.id)).toEqual(firstIds)
      expect(entries(docs.slice(boundary)).map((d) => d.entry.id)).toEqual(ids(second.sessionFile))
      expect(saidInOrder(docs)).toEqual(MARKS)
      process.stderr.write(`interop-follow (${VERSION}): ${entries(docs).length} entries followed; each writer's last entry printed this long after the writer exited (negative: before): ${JSON.stringify(latency)} ms\n`)
    } finally {
      mock.kill()
    }
  }, 1_200_000)
})

describe.skipIf(!enabled96)('interop: --follow while real OpenClaw 2026.9.6 (SQLite) and clawkit write', () => {
  it('agent:main:main of a real database: OpenClaw\'s turn, clawkit\'s turn, clawkit\'s reset (a new window), OpenClaw\'s turn; every event once, in seq order', async () => {
    const state = stateCopy(NATIVE_96)
    const cfgPath = path.join(state, 'openclaw.json')
    const cfg = JSON.parse(fs.readFileSync(cfgPath, 'utf8'))
    cfg.models.providers.mockant.baseUrl = servers.mock.url
    fs.writeFileSync(cfgPath, JSON.stringify(cfg, null, 2))
    shareCachedPluginRuntime(state)
    const home = tempDir()
    const env = baseEnv(home, {ANTHROPIC_API_KEY: 'test-key'})
    const db = path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite')
    const openclaw = async (text: string) => {
      const r = await openclaw96(['agent', '--local', '--session-key', 'agent:main:main', '-m', text, '--json'], state, home, 600_000)
      expect(r.code, `${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0)
      return Date.now()
    }
    const clawkit = async (args: string[]) => {
      const r = await runCli([...args, '--state-dir', state], {env, timeoutMs: 120_000})
      expect(r.code, r.stderr).toBe(0)
      return {r, ended: Date.now()}
    }
    const eventIds = async (sessionId: string) => (await events(db, sessionId)).filter((e) => e.event.type !== 'session').map((e) => e.event.id as string)

    const history = json<SessionsHistoryResult>((await clawkit(['sessions', 'history', 'main', '--limit', '1', '--json'])).r)
    const f = startFollow(['sessions', 'history', 'main', '--follow', '--json', '--limit', '1', '--state-dir', state], env)
    followers.push(f)
    await f.waitFor(isJson((d) => d.kind === 'session'), {timeoutMs: 30_000})
    const latency: Record<string, number> = {}
    latency.openclaw1 = await arrival(f, (await eventIds(history.sessionId)).at(-1)!, await openclaw('one from openclaw'))
    const two = await clawkit(['agent', '-m', 'two from clawkit', '--session-key', 'agent:main:main'])
    const before = await eventIds(history.sessionId)
    latency.clawkit2 = await arrival(f, before.at(-1)!, two.ended)
    const reset = json<{sessionId: string}>((await clawkit(['sessions', 'reset', 'main', '--json'])).r)
    await f.waitFor(isJson((d) => d.kind === 'session' && d.event === 'reset'))
    const ended = await openclaw('four from openclaw')
    const after = await eventIds(reset.sessionId)
    latency.openclaw4 = await arrival(f, after.at(-1)!, ended)
    expect(await f.stop('SIGINT')).toEqual({code: 130, signal: null})

    const docs = expectValidFollowLines(f)
    const boundary = docs.findIndex((d) => d.kind === 'session' && d.event === 'reset')
    expect(docs[boundary]).toMatchObject({previousSessionId: history.sessionId, sessionId: reset.sessionId})
    expect(entries(docs.slice(0, boundary)).map((d) => d.entry.id)).toEqual(before.slice(before.indexOf(history.entries[0].id)))
    expect(entries(docs.slice(boundary)).map((d) => d.entry.id)).toEqual(after)
    expect(saidInOrder(docs)).toEqual(MARKS)
    process.stderr.write(`interop-follow (2026.9.6): ${entries(docs).length} entries followed; each writer's last entry printed this long after the writer exited (negative: before): ${JSON.stringify(latency)} ms\n`)
  }, 1_800_000)
})
