// Issue 29's concurrency acceptance, JSON era: `sessions cleanup --yes` beside writers that follow OpenClaw's lock
// protocol (4 processes adding live sessions and bumping a counter on the main session, test/support/foreign-writer.mjs),
// clawkit resets of a live key and `clawkit agent -m` turns (the mock model): no live session, no update and no turn is
// lost, and the cleanup still does what it planned, or says which keys a turn made live meanwhile and leaves them.
// The SQLite era's trials are cleanup-concurrency.sqlite.test.ts.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {AgentRunResult} from '../../src/agent/output.js'
import type {SessionsCleanupResult} from '../../src/sessions/cleanup.js'
import {baseEnv, type CliOutput, cliWith, json, readIndexFile, ROOT, sessionsJsonPath, startCli, tempDir, waitUntil} from '../support/cli.js'
import {MIXED, mixedJsonStore} from '../support/cleanup-store.js'
import {type MockAnthropic, startMockAnthropic} from '../support/mock-anthropic.js'

function foreign(store: string, worker: number, iterations: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [path.join(ROOT, 'test/support/foreign-writer.mjs'), store, String(worker), String(iterations)], {stdio: ['ignore', 'ignore', 'inherit']})
    c.on('error', reject)
    c.on('close', resolve)
  })
}

describe('sessions cleanup beside other writers', () => {
  it('loses no live session, no counter update and no reset, and applies its plan', {timeout: 300_000}, async () => {
    const state = tempDir()
    fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify({agents: {defaults: {workspace: path.join(state, 'workspace')}}}))
    mixedJsonStore(state, Date.now(), 40)
    const store = sessionsJsonPath(state)
    const cli = cliWith(['--state-dir', state], {env: baseEnv(tempDir()), timeoutMs: 240_000})
    const plan = json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--json'])).stores[0]
    const ITER = 150
    const resets = (async () => {
      const out: number[] = []
      for (let i = 0; i < 3; i++) out.push((await cli(['sessions', 'reset', 'agent:main:explicit:new'])).code ?? -1)
      return out
    })()
    const [cleanup, ...rest] = await Promise.all([cli(['sessions', 'cleanup', '--rules', '2026.9', '--yes', '--json']), ...Array.from({length: 4}, (_, w) => foreign(store, w, ITER))])
    expect(cleanup.code, cleanup.stderr).toBe(0)
    expect(rest).toEqual([0, 0, 0, 0])
    expect(await resets).toEqual([0, 0, 0])

    const data = readIndexFile(store) as Record<string, Record<string, unknown>>
    // Every update of the other writers is there: their 600 sessions and 600 counter bumps on the main session.
    expect(Object.keys(data).filter((k) => k.includes(':foreign-'))).toHaveLength(4 * ITER)
    expect(data['agent:main:main'].hits).toBe(4 * ITER)
    // The plan was applied: removals gone, archives marked; keys it did not plan are live and unarchived.
    for (const c of plan.changes) {
      if (c.archiveReason) expect(data[c.key], c.key).toMatchObject({archiveReason: c.archiveReason})
      else expect(data[c.key], c.key).toBeUndefined()
    }
    const planned = new Set(plan.changes.map((c) => c.key))
    for (const k of MIXED.map((m) => m.key).filter((k) => !planned.has(k))) expect(data[k]?.archivedAt, k).toBeUndefined()
    // The resets all landed: three archives of the key's earlier transcripts, and its live transcript exists.
    const live = data['agent:main:explicit:new']
    expect(fs.existsSync(String(live.sessionFile))).toBe(true)
    const dir = path.dirname(store)
    expect(fs.readdirSync(dir).filter((n) => n.includes('.jsonl.reset.'))).toHaveLength(3)
  })

  // Turns take 1.5 s at the model, so they are in their model call (message stored, reply not yet) when cleanup runs.
  let mock: MockAnthropic
  beforeAll(async () => {
    mock = await startMockAnthropic({delayMs: 1500})
  })
  afterAll(async () => {
    await mock.close()
  })

  /** Keys of four kinds, 1..40 days old: explicit ones archived by age, cron runs, subagents and hooks removed. */
  const genKey = (i: number) => (i % 4 === 1 ? `agent:main:cron:job${i}:run:r${i}` : `agent:main:${['explicit', '', 'subagent', 'hook'][i % 4]}:gen-${i}`)
  const OLDER_THAN = ['--rules', '2026.9', '--older-than', '10d']

  function turnWorld() {
    const state = tempDir()
    fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify({agents: {defaults: {workspace: path.join(state, 'workspace')}}}))
    mixedJsonStore(state, Date.now(), 40, genKey)
    const store = sessionsJsonPath(state)
    const env = baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url})
    const cli = cliWith(['--state-dir', state], {env, timeoutMs: 240_000})
    const turn = (key: string, text: string) => startCli(['agent', '--session-key', key, '-m', text, '--json', '--state-dir', state], {env, timeoutMs: 240_000})
    return {state, store, cli, turn}
  }

  /** The turn's message is in the key's live transcript once, its reply right after it. */
  function expectTurnStored(store: string, key: string, text: string): void {
    const e = (readIndexFile(store) as Record<string, {sessionFile?: string; sessionId: string}>)[key]
    expect(e, `${key} is in the index`).toBeDefined()
    const file = e.sessionFile ?? path.join(path.dirname(store), `${e.sessionId}.jsonl`)
    const texts = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((x) => x.type === 'message')
      .map((x) => {
        const c = x.message?.content
        return `${x.message?.role}: ${typeof c === 'string' ? c : Array.isArray(c) ? c.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('') : ''}`
      })
    expect(texts.filter((t) => t === `user: ${text}`), `${key}: its message, once`).toHaveLength(1)
    expect(texts[texts.indexOf(`user: ${text}`) + 1], `${key}: the reply follows its message`).toBe(`assistant: Echo: ${text}`)
  }

  const replyOf = (r: CliOutput) => json<AgentRunResult>(r).payloads.map((p) => p.text).join('')

  it('agent -m turns on live keys beside cleanup and 4 OpenClaw-protocol writers: every reply stored once, no recent session touched, the plan applied', {timeout: 300_000}, async () => {
    const w = turnWorld()
    const plan = json<SessionsCleanupResult>(await w.cli(['sessions', 'cleanup', ...OLDER_THAN, '--json'])).stores[0]
    expect(plan.changes.filter((c) => c.archiveReason).length).toBeGreaterThanOrEqual(8)
    expect(plan.changes.filter((c) => !c.archiveReason).length).toBeGreaterThanOrEqual(20)
    const recent = [...MIXED.filter((m) => m.ageDays < 10).map((m) => m.key), ...Array.from({length: 40}, (_, i) => i).filter((i) => 1 + i < 10).map(genKey)]
    for (const k of recent) expect(plan.changes.map((c) => c.key), k).not.toContain(k)
    const turns = [
      {key: 'agent:main:main', text: 'turn on main'},
      {key: 'agent:main:explicit:new', text: 'turn on a 2-day-old key'},
      {key: genKey(4), text: 'turn on a 5-day-old key'},
      {key: 'agent:main:explicit:live-new-0', text: 'turn on a new key 0'},
      {key: 'agent:main:explicit:live-new-1', text: 'turn on a new key 1'},
    ]
    const sent = mock.messageRequests().length
    const running = turns.map((t) => w.turn(t.key, t.text))
    await waitUntil(() => mock.messageRequests().length > sent, 'a turn to call the model', 60_000)
    const ITER = 50
    const [cleanup, ...rest] = await Promise.all([w.cli(['sessions', 'cleanup', ...OLDER_THAN, '--yes', '--json']), ...Array.from({length: 4}, (_, i) => foreign(w.store, i, ITER))])
    const results = await Promise.all(running.map((r) => r.exited))
    expect(cleanup.code, cleanup.stdout + cleanup.stderr).toBe(0)
    expect(rest).toEqual([0, 0, 0, 0])
    turns.forEach((t, i) => {
      expect(results[i].code, `${t.key}: ${results[i].stdout}${results[i].stderr}`).toBe(0)
      expect(replyOf(results[i])).toBe(`Echo: ${t.text}`)
      expectTurnStored(w.store, t.key, t.text)
    })
    const data = readIndexFile(w.store) as Record<string, Record<string, unknown>>
    expect(Object.keys(data).filter((k) => k.includes(':foreign-'))).toHaveLength(4 * ITER)
    // The counter bumps of the other writers all landed on main, beside main's turn.
    expect(data['agent:main:main'].hits).toBe(4 * ITER)
    for (const k of [...recent, ...turns.map((t) => t.key)]) {
      expect(data[k], `${k} is live`).toBeDefined()
      expect(data[k].archivedAt, k).toBeUndefined()
    }
    const applied = json<SessionsCleanupResult>(cleanup).stores[0]
    expect(applied.skipped).toEqual([])
    for (const c of plan.changes) {
      if (c.archiveReason) expect(data[c.key], c.key).toMatchObject({archiveReason: c.archiveReason})
      else expect(data[c.key], c.key).toBeUndefined()
    }
  })

  it('turns in their model call on keys the plan archives or removes: both stored, both keys live, the cleanup says it left them', {timeout: 120_000}, async () => {
    const w = turnWorld()
    const plan = json<SessionsCleanupResult>(await w.cli(['sessions', 'cleanup', ...OLDER_THAN, '--json'])).stores[0]
    const toArchive = genKey(36)
    const toRemove = genKey(39)
    expect(plan.changes.find((c) => c.key === toArchive)?.archiveReason).toBeTruthy()
    expect(plan.changes.find((c) => c.key === toRemove)?.archiveReason).toBeNull()
    const sent = mock.messageRequests().length
    const a = w.turn(toArchive, 'revives an old key')
    const b = w.turn(toRemove, 'revives an old hook')
    await waitUntil(() => mock.messageRequests().length >= sent + 2, 'both turns to call the model', 60_000)
    const cleanup = await w.cli(['sessions', 'cleanup', ...OLDER_THAN, '--yes', '--json'])
    const [ra, rb] = await Promise.all([a.exited, b.exited])
    expect(cleanup.code, cleanup.stdout + cleanup.stderr).toBe(0)
    expect(ra.code, ra.stdout + ra.stderr).toBe(0)
    expect(rb.code, rb.stdout + rb.stderr).toBe(0)
    expectTurnStored(w.store, toArchive, 'revives an old key')
    expectTurnStored(w.store, toRemove, 'revives an old hook')
    const data = readIndexFile(w.store) as Record<string, Record<string, unknown>>
    for (const k of [toArchive, toRemove]) expect(data[k]?.archivedAt, k).toBeUndefined()
    expect(json<SessionsCleanupResult>(cleanup).stores[0].skipped).toEqual([
      {key: toArchive, action: 'archive-age', why: 'active'},
      {key: toRemove, action: 'prune-stale', why: 'active'},
    ])
  })
})
