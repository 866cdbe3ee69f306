// The proof for clawkit's SQLite-era writes (issue 16): real OpenClaw 2026.9.6 lists what clawkit's write primitives
// wrote into its database, continues those sessions with `agent --local` (the model is sent the whole history), and
// chains its own events onto clawkit's; clawkit then appends again after OpenClaw's turn.
// Skipped unless CLAWKIT_INTEROP_OPENCLAW96 (2026.9.6's openclaw.mjs) and CLAWKIT_INTEROP_NODE (Node 24) are set, as
// scripts/interop.sh does; see RELIABILITY.md.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, ROOT, tempDir} from '../support/cli.js'
import {NATIVE_96} from '../support/sqlite.js'
import {docOf, enabled96 as enabled, events, expectOneChain, NODE, OPENCLAW, openclaw, run, sentLines, shareCachedPluginRuntime} from './support/openclaw96.js'
import {openclawEnv, startMockProcess} from './support/interop.js'

const openclawJson = (r: Parameters<typeof docOf>[0]) => docOf(r, 'openclaw')
/** What the model was sent in the last request the mock process logged. */
const lastSent = (requests: string): string[] => sentLines(JSON.parse(fs.readFileSync(requests, 'utf8').trim().split('\n').at(-1)!).body)

/** clawkit's write primitives, run by test/support/sqlite-write-worker.mjs on Node 24 (vitest may run on Node 20). */
async function act(db: string, a: Record<string, unknown>): Promise<any> {
  const r = await run(NODE!, [path.join(ROOT, 'test', 'support', 'sqlite-write-worker.mjs'), 'act', db, JSON.stringify(a)], baseEnv(tempDir()), ROOT, 60_000)
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? 'null')
  if (r.code !== 0 || out?.error) throw new Error(`clawkit ${String(a.op)} failed: ${JSON.stringify(out?.error)} ${r.stderr}`)
  return out
}

/** The native fixture's provider (mockant/claude-mock, the model its entries name), pointed at the mock. */
function writeConfig(state: string, port: number): void {
  fs.writeFileSync(
    path.join(state, 'openclaw.json'),
    JSON.stringify({
      models: {mode: 'merge', providers: {mockant: {baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk-ant-test', api: 'anthropic-messages', models: [{id: 'claude-mock', name: 'Mock Claude', reasoning: false, input: ['text'], cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0}, contextWindow: 200_000, maxTokens: 8192}]}}},
      agents: {defaults: {model: {primary: 'mockant/claude-mock'}, workspace: path.join(state, 'workspace')}},
    }, null, 2),
  )
  shareCachedPluginRuntime(state)
}

const usage = {input: 40, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 45, cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0}}
const userMsg = (t: string) => ({type: 'message', message: {role: 'user', content: t, timestamp: Date.now()}})
const assistantMsg = (t: string) => ({type: 'message', message: {role: 'assistant', content: [{type: 'text', text: t}], api: 'anthropic-messages', provider: 'mockant', model: 'claude-mock', usage, stopReason: 'stop', timestamp: Date.now()}})

describe.skipIf(!enabled)('interop: clawkit writes a SQLite store, real OpenClaw 2026.9.6 lists and continues it', () => {
  it('new session, appended pair, reset: openclaw sessions lists them, agent --local continues each with the whole history and chains onto clawkit\'s events, and clawkit appends after OpenClaw', async () => {
    const home = tempDir()
    const state = copyFixture(NATIVE_96)
    const db = path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite')
    const requests = path.join(home, 'requests.jsonl')
    const {mock, port} = await startMockProcess(requests)
    try {
      writeConfig(state, port)
      const cwd = path.join(state, 'workspace')

      // (a) A new session with a few chained messages, under a custom key.
      const created = await act(db, {op: 'new', key: 'agent:main:clawkit:new1', cwd, entry: {model: 'claude-mock', modelProvider: 'mockant', label: 'made by clawkit'}, items: [userMsg('alpha from clawkit'), assistantMsg('reply alpha from clawkit'), userMsg('second from clawkit'), assistantMsg('reply second from clawkit')]})
      const newId: string = created.sessionId
      // (b) A user+assistant pair appended to the session OpenClaw made with --session-id, and the turn's entry write.
      const explicitId = 'c0ffee00-0000-4000-8000-000000000096'
      const explicitKey = `agent:main:explicit:${explicitId}`
      const before = await events(db, explicitId)
      const pair = await act(db, {op: 'append', sessionId: explicitId, items: [userMsg('delta from clawkit'), assistantMsg('reply delta from clawkit')]})
      expect(pair.firstSeq).toBe(before.length)
      await act(db, {op: 'entry', key: explicitKey, patch: {updatedAt: Date.now(), lastInteractionAt: Date.now(), lastActivityAt: Date.now()}})
      // (c) A reset of the main session (the one OpenClaw reaches with --to +15550001234).
      const reset = await act(db, {op: 'reset', key: 'agent:main:main', cwd})

      // OpenClaw lists all three with clawkit's ids.
      const listed = openclawJson(await openclaw(['sessions', '--json', '--limit', 'all'], state, home))
      const byKey = new Map(listed.sessions.map((s: any) => [s.key, s]))
      expect(byKey.get('agent:main:clawkit:new1')).toMatchObject({sessionId: newId, label: 'made by clawkit'})
      expect(byKey.get(explicitKey)).toMatchObject({sessionId: explicitId})
      expect(byKey.get('agent:main:main')).toMatchObject({sessionId: reset.sessionId, inputTokens: 0, outputTokens: 0, totalTokens: 0, totalTokensFresh: true})
      expect(listed.count).toBe(3)

      // (a) continued by --session-id: the model sees clawkit's four messages first; OpenClaw chains onto them.
      const ranA = await openclaw(['agent', '--local', '--session-id', newId, '-m', 'beta from openclaw', '--json'], state, home)
      expect(ranA.code, ranA.stderr.slice(-3000)).toBe(0)
      expect(lastSent(requests).slice(0, 5)).toEqual(['user: alpha from clawkit', 'assistant: reply alpha from clawkit', 'user: second from clawkit', 'assistant: reply second from clawkit', 'user: beta from openclaw'])
      let evA = await events(db, newId)
      expect(evA[0].event).toMatchObject({type: 'session', version: 4, id: newId})
      expectOneChain(evA)
      expect(evA.length).toBeGreaterThan(5)
      expect(evA[5].event.parentId).toBe(created.events[4].id)
      // clawkit appends again after OpenClaw's turn, onto OpenClaw's leaf; OpenClaw then sees that too.
      const leafA = (await act(db, {op: 'leaf', sessionId: newId})).leaf
      expect(leafA).toBe(evA.at(-1)!.event.id)
      const again = await act(db, {op: 'append', sessionId: newId, items: [userMsg('gamma from clawkit'), assistantMsg('reply gamma from clawkit')]})
      expect(again.firstSeq).toBe(evA.length)
      expect(again.entries[0].parentId).toBe(leafA)
      const ranA2 = await openclaw(['agent', '--local', '--session-id', newId, '-m', 'epsilon from openclaw', '--json'], state, home)
      expect(ranA2.code, ranA2.stderr.slice(-3000)).toBe(0)
      const sentA2 = lastSent(requests)
      expect(sentA2.filter((l) => l.startsWith('user: '))).toEqual(['user: alpha from clawkit', 'user: second from clawkit', 'user: beta from openclaw', 'user: gamma from clawkit', 'user: epsilon from openclaw'])
      expect(sentA2).toContain('assistant: reply gamma from clawkit')
      evA = await events(db, newId)
      expectOneChain(evA)

      // (b) continued by --session-id: the model sees the session's old turn, then clawkit's pair, then the new message.
      const ranB = await openclaw(['agent', '--local', '--session-id', explicitId, '-m', 'zeta from openclaw', '--json'], state, home)
      expect(ranB.code, ranB.stderr.slice(-3000)).toBe(0)
      const sentB = lastSent(requests)
      expect(sentB[0]).toMatch(/^user: .*explicit session hello/s)
      expect(sentB.slice(-3)).toEqual(['user: delta from clawkit', 'assistant: reply delta from clawkit', 'user: zeta from openclaw'])
      const evB = await events(db, explicitId)
      expectOneChain(evB)
      expect(evB[pair.lastSeq + 1].event.parentId).toBe(pair.entries[1].id)

      // (c) continued by --to: OpenClaw writes into the NEW sessionId (seq 1 on, first parentId null), and the model
      // gets none of the history before the reset.
      const ranC = await openclaw(['agent', '--local', '--to', '+15550001234', '-m', 'eta after reset', '--json'], state, home)
      expect(ranC.code, ranC.stderr.slice(-3000)).toBe(0)
      expect(lastSent(requests)).toEqual(['user: eta after reset'])
      const evC = await events(db, reset.sessionId)
      expect(evC[0].event).toMatchObject({type: 'session', version: 4, id: reset.sessionId})
      expect(evC[1].event.parentId).toBeNull()
      expectOneChain(evC)
      expect((await events(db, reset.previousSessionId)).length).toBe(19)

      // OpenClaw still lists the same three sessions, on clawkit's ids.
      const after = openclawJson(await openclaw(['sessions', '--json', '--limit', 'all'], state, home))
      expect(Object.fromEntries(after.sessions.map((s: any) => [s.key, s.sessionId]))).toEqual({'agent:main:clawkit:new1': newId, [explicitKey]: explicitId, 'agent:main:main': reset.sessionId})
      process.stderr.write(`interop-sqlite: new ${evA.length} events, explicit ${evB.length}, reset ${evC.length}; ${fs.readFileSync(requests, 'utf8').trim().split('\n').length} model requests\n`)
    } finally {
      mock.kill()
    }
  }, 900_000)

  it('while openclaw agent --local owns the state dir, clawkit refuses to write (E_GATEWAY_OWNS_STATE, one line, what to do); before and after, the leftover lock files are not ownership', async () => {
    const home = tempDir()
    const state = copyFixture(NATIVE_96)
    const requests = path.join(home, 'requests.jsonl')
    const {mock, port} = await startMockProcess(requests)
    const probe = async () => {
      const r = await run(NODE!, [path.join(ROOT, 'test', 'support', 'sqlite-write-worker.mjs'), 'owner', state], baseEnv(tempDir()), ROOT, 30_000)
      return JSON.parse(r.stdout.trim().split('\n').at(-1)!)
    }
    try {
      writeConfig(state, port)
      expect(await probe()).toEqual({owner: null, refusal: null})
      const turn = run(NODE!, [OPENCLAW!, 'agent', '--local', '--session-id', 'c0ffee00-0000-4000-8000-000000000096', '-m', 'hold the lock', '--json'], openclawEnv(home, state), home)
      let done = false
      void turn.then(() => (done = true))
      let seen: any
      // OpenClaw opens its ownership lock a moment before it writes the JSON payload that names its role: until then the
      // refusal already holds but names the owner generically, so the probe keeps looking until the role is there.
      while (!done && !seen?.owner?.role) {
        const p = await probe()
        if (p.owner) seen = p
      }
      const result = await turn
      expect(result.code, result.stderr.slice(-3000)).toBe(0)
      expect(seen, 'the probe never saw the --local run holding the state dir').toBeDefined()
      expect(seen.owner).toMatchObject({role: 'agent-embedded'})
      expect(seen.owner.lock).toMatch(/gateway\.(state|[0-9a-f]{8})\.lock\.sqlite$/)
      expect(seen.refusal).toMatchObject({code: 'E_GATEWAY_OWNS_STATE', exitCode: 1})
      expect(seen.refusal.message).toMatch(/^an "openclaw agent --local" run \(pid \d+/)
      expect(seen.refusal.message.split('\n')).toHaveLength(1)
      process.stderr.write(`interop-sqlite: ${seen.refusal.message}\n`)
      expect(await probe()).toEqual({owner: null, refusal: null})
    } finally {
      mock.kill()
    }
  }, 300_000)
})
