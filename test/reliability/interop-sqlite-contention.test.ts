// Issue 25 (1, 2) against real OpenClaw 2026.9.6: after each race on a SQLite store (two clawkit turns on one session,
// a write lock held while a turn waits for its model, shorter and longer than clawkit's wait), `openclaw agent --local`
// continues the session: it runs (no "projection is rebuilding"), and its model request carries every stored turn.
// Skipped unless CLAWKIT_INTEROP_OPENCLAW96 and CLAWKIT_INTEROP_NODE are set, as scripts/interop.sh does.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {baseEnv, cliWith, ROOT, startCli, tempDir, waitUntil} from '../support/cli.js'
import {useServers} from '../support/servers.js'
import {NATIVE_96} from '../support/sqlite.js'
import {enabled96 as enabled, events, expectOneChain, NODE, openclaw, sentLines, shareCachedPluginRuntime, stateCopy} from './support/openclaw96.js'

let replies = 0
const servers = useServers({mock: {delayMs: 2000, fallback: () => ({kind: 'text', text: `reply ${++replies}`})}})
const WORKER = path.join(ROOT, 'test', 'support', 'sqlite-write-worker.mjs')
const KEY = 'agent:main:main'

const children: {kill(): void}[] = []
afterEach(() => {
  for (const c of children.splice(0)) c.kill()
})

function world(extraEnv: Record<string, string> = {}) {
  const state = stateCopy(NATIVE_96)
  const cfgPath = path.join(state, 'openclaw.json')
  const cfg = JSON.parse(fs.readFileSync(cfgPath, 'utf8'))
  cfg.models.providers.mockant.baseUrl = servers.mock.url
  fs.writeFileSync(cfgPath, JSON.stringify(cfg, null, 2))
  shareCachedPluginRuntime(state)
  const home = tempDir()
  const env = baseEnv(home, {ANTHROPIC_API_KEY: 'test-key', ...extraEnv})
  return {state, home, env, db: path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite'), run: cliWith(['--json', '--state-dir', state], {env, timeoutMs: 120_000})}
}

type World = ReturnType<typeof world>

/** A clawkit turn started in the background, resolved once it has called the model. */
async function turnInFlight(w: World, text: string, env = w.env) {
  const before = servers.mock.messageRequests().length
  const t = startCli(['agent', '-m', text, '--json', '--state-dir', w.state], {env, timeoutMs: 180_000})
  children.push({kill: () => t.kill('SIGKILL')})
  await waitUntil(() => servers.mock.messageRequests().length > before, `clawkit's turn "${text}" to call the model`, 60_000)
  return t
}

async function holdWriteLock(db: string, ms: number): Promise<Promise<void>> {
  const child = spawn(NODE!, [WORKER, 'hold', db, String(ms)], {stdio: ['ignore', 'pipe', 'inherit']})
  children.push({kill: () => child.kill('SIGKILL')})
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d) => (out += d))
  await waitUntil(() => out.includes('inside'), 'the lock holder')
  return new Promise<void>((resolve) => child.on('close', () => resolve()))
}

/** OpenClaw's next turn on the key: it must run, and is returned the lines its model request carried. */
async function openclawContinues(w: World, text: string): Promise<string[]> {
  const before = servers.mock.messageRequests().length
  const r = await openclaw(['agent', '--local', '--session-key', KEY, '-m', text, '--json'], w.state, w.home, 600_000)
  expect(r.code, `openclaw agent: ${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0)
  const sent = servers.mock.messageRequests().slice(before)
  expect(sent.length).toBe(1)
  return sentLines(sent[0].body)
}

async function currentSession(w: World): Promise<string> {
  const doc = JSON.parse((await w.run(['sessions', 'list'])).stdout)
  return doc.sessions.find((s: {key: string}) => s.key === KEY).sessionId
}

describe.skipIf(!enabled)('interop: OpenClaw 2026.9.6 continues a SQLite session after clawkit writers raced on it', () => {
  it('two clawkit turns, the second started while the first waits for its model: both stored in order; OpenClaw continues with both exchanges', async () => {
    const w = world()
    const a = await turnInFlight(w, 'race turn A')
    await new Promise((r) => setTimeout(r, 500))
    const b = await w.run(['agent', '-m', 'race turn B'])
    const ra = await a.exited
    expect(ra.code, ra.stderr).toBe(0)
    expect(b.code, b.stderr).toBe(0)
    const sent = await openclawContinues(w, 'openclaw after the race')
    const tail = sent.filter((l) => l.startsWith('user: race') || l.startsWith('assistant: reply') || l === 'user: openclaw after the race')
    const i = tail.indexOf('user: race turn A')
    expect(tail[i + 1]).toMatch(/^assistant: reply \d+$/)
    expect(tail[i + 2]).toBe('user: race turn B')
    expect(tail[i + 3]).toMatch(/^assistant: reply \d+$/)
    expect(tail.at(-1)).toBe('user: openclaw after the race')
    expectOneChain(await events(w.db, await currentSession(w)))
  }, 900_000)

  it('a write lock held 9 s while clawkit waits for its model: clawkit stores its reply; OpenClaw continues with it', async () => {
    const w = world()
    const t = await turnInFlight(w, 'held for nine seconds')
    const released = await holdWriteLock(w.db, 9000)
    const r = await t.exited
    await released
    expect(r.code, r.stderr).toBe(0)
    const sent = await openclawContinues(w, 'openclaw after the held lock')
    const at = sent.indexOf('user: held for nine seconds')
    expect(at).toBeGreaterThanOrEqual(0)
    expect(sent[at + 1]).toMatch(/^assistant: reply \d+$/)
    expectOneChain(await events(w.db, await currentSession(w)))
  }, 900_000)

  it('a write lock held past clawkit\'s wait: clawkit fails saying what it kept; the session is not left for a rebuild, and OpenClaw continues from the stored message', async () => {
    const w = world({CLAWKIT_SQLITE_WRITE_WAIT_MS: '1000'})
    const t = await turnInFlight(w, 'held past the wait')
    const released = await holdWriteLock(w.db, 12_000)
    const r = await t.exited
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).error.message).toMatch(/Your message is stored .*the reply was not stored: saved to /)
    await released
    const sent = await openclawContinues(w, 'openclaw after the failed store')
    // A session that ends with a user message is one OpenClaw knows: its orphan repair ("Merged and removed orphaned
    // user message to prevent consecutive user turns") merges the stored message into its prompt and branches from
    // the entry before it with a `leaf` control event. Both texts reach the model, in order.
    const all = sent.join('\n')
    expect(all.indexOf('held past the wait'), all).toBeGreaterThanOrEqual(0)
    expect(all.indexOf('openclaw after the failed store')).toBeGreaterThan(all.indexOf('held past the wait'))
    const evs = await events(w.db, await currentSession(w))
    expect(evs.some((e) => e.event.type === 'leaf')).toBe(true)
    // And clawkit continues after OpenClaw's repair (nothing left stale for either tool).
    const after = await w.run(['agent', '-m', 'clawkit after the repair'], {env: baseEnv(w.home, {ANTHROPIC_API_KEY: 'test-key'})})
    expect(after.code, after.stderr).toBe(0)
  }, 900_000)
})
