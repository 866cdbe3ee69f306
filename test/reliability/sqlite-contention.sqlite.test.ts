// Issue 25 (1, 2): writers racing on a SQLite-era store (OpenClaw 2026.9.6) through the real CLI. Two agent turns on
// one session, a dozen mixed writers, and another process holding the database's write lock while a turn waits for
// its model: every reply that was printed (exit 0) is stored, in order, each user message once; a turn that cannot be
// stored says what was kept and saves the rest outside the state dir; the transcript projection is never left stale
// and no event is written whose parent is not stored (OpenClaw's reader and its next turn depend on both).
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, expect, it} from 'vitest'

import type {AgentRunResult} from '../../src/agent/output.js'
import {baseEnv, type CliOutput, cliWith, json, jsonError, ROOT, startCli, tempDir, waitUntil} from '../support/cli.js'
import {channelEnv} from '../support/fake-channels.js'
import {useServers} from '../support/servers.js'
import {describeSqlite, mockedStateCopy, NATIVE_96} from '../support/sqlite.js'
import {dbPath, openDb} from '../support/sqlite-expect.js'

const servers = useServers({mock: {delayMs: 2000}, channels: true})
const WORKER = path.join(ROOT, 'test', 'support', 'sqlite-write-worker.mjs')

const children: {kill(): void}[] = []
afterEach(() => {
  for (const c of children.splice(0)) c.kill()
})

/** Another process that holds BEGIN IMMEDIATE on the database for `ms`, as OpenClaw's maintenance does; resolves once it holds it. */
async function holdWriteLock(db: string, ms: number): Promise<{released: Promise<void>}> {
  const child = spawn(process.execPath, [WORKER, 'hold', db, String(ms)], {stdio: ['ignore', 'pipe', 'inherit']})
  children.push({kill: () => child.kill('SIGKILL')})
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d) => (out += d))
  const released = new Promise<void>((resolve) => child.on('close', () => resolve()))
  await waitUntil(() => out.includes('inside'), 'the lock holder to begin its transaction')
  return {released}
}

interface StoredEvent {
  seq: number
  id: string
  parentId: string | null
  type: string
  role?: string
  text: string
}

/** The session's events in seq order, with the text of each message. */
function storedEvents(state: string, sessionId: string): StoredEvent[] {
  const d = openDb(dbPath(state, 'main'))
  try {
    return d
      .prepare('SELECT seq, event_json FROM transcript_events WHERE session_id = ? ORDER BY seq')
      .all(sessionId)
      .map((r) => {
        const e = JSON.parse(r.event_json)
        const c = e.message?.content
        const text = typeof c === 'string' ? c : Array.isArray(c) ? c.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('') : ''
        return {seq: r.seq, id: e.id, parentId: e.parentId ?? null, type: e.type, role: e.message?.role, text}
      })
  } finally {
    d.close()
  }
}

/**
 * What OpenClaw's next turn needs: the projection indexed up to the last event and not marked for rebuild, its leaf the
 * last event, and every event after the header chained onto the one before it (so no parent names an unstored event).
 */
function expectIntact(state: string, key: string): {sessionId: string; events: StoredEvent[]} {
  const d = openDb(dbPath(state, 'main'))
  let sessionId: string
  try {
    sessionId = String(d.prepare('SELECT current_session_id AS s FROM session_nodes WHERE session_key = ?').get(key)?.s)
    const max = d.prepare('SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?').get(sessionId)?.m
    const st = d.prepare('SELECT indexed_seq, needs_rebuild, leaf_event_id FROM session_transcript_index_state WHERE session_id = ?').get(sessionId)
    expect(st, `projection of ${sessionId}`).toMatchObject({indexed_seq: max, needs_rebuild: 0})
    const last = d.prepare('SELECT event_id FROM transcript_event_identities WHERE session_id = ? AND seq = ?').get(sessionId, max)
    expect(st?.leaf_event_id).toBe(last?.event_id)
  } finally {
    d.close()
  }
  const events = storedEvents(state, sessionId)
  const ids = new Set(events.map((e) => e.id))
  for (const e of events.slice(1)) {
    expect(e.parentId === null || ids.has(e.parentId), `event ${e.seq} (${e.type}) has a parent that is not stored: ${e.parentId}`).toBe(true)
  }
  const chained = events.filter((e) => e.type !== 'session')
  for (let i = 1; i < chained.length; i++) expect(chained[i].parentId, `event ${chained[i].seq} chains onto the one before`).toBe(chained[i - 1].id)
  return {sessionId, events}
}

const replyOf = (r: CliOutput) => json<AgentRunResult>(r).payloads.map((p) => p.text).join('')
const messages = (events: StoredEvent[]) => events.filter((e) => e.type === 'message').map((e) => `${e.role}: ${e.text}`)

function world(extraEnv: Record<string, string> = {}) {
  const state = mockedStateCopy(NATIVE_96, servers.mock.url)
  const home = tempDir()
  const env = baseEnv(home, {ANTHROPIC_API_KEY: 'test-key', ...channelEnv(servers.fake), ...extraEnv})
  return {state, home, env, run: cliWith(['--json', '--state-dir', state], {env, timeoutMs: 120_000})}
}

describeSqlite('SQLite-era writers under contention', () => {
  it('two agent turns on one session, the second started while the first waits for its model: both stored in order, each user message once, the second sent the first exchange', async () => {
    const w = world()
    const before = servers.mock.messageRequests().length
    const a = startCli(['agent', '-m', 'turn A', '--json', '--state-dir', w.state], {env: w.env, timeoutMs: 120_000})
    children.push({kill: () => a.kill('SIGKILL')})
    await waitUntil(() => servers.mock.messageRequests().length > before, 'turn A to call the model')
    // B starts while A waits for its 2 s reply (no fixed sleep: a loaded machine would make one meaningless).
    const bStarted = Date.now()
    const b = await w.run(['agent', '-m', 'turn B'])
    const ra = await a.exited
    const aCall = servers.mock.messageRequests().slice(before).find((r) => JSON.stringify(r.body).includes('turn A'))
    expect(bStarted, 'B started before A had its reply: the two turns did race').toBeLessThan(aCall!.finishedAt!)
    expect(ra.code, ra.stdout + ra.stderr).toBe(0)
    expect(b.code, b.stdout + b.stderr).toBe(0)
    expect(replyOf(ra)).toBe('Echo: turn A')
    expect(replyOf(b)).toBe('Echo: turn B')
    const {events} = expectIntact(w.state, 'agent:main:main')
    const tail = messages(events).slice(-4)
    expect(tail).toEqual(['user: turn A', 'assistant: Echo: turn A', 'user: turn B', 'assistant: Echo: turn B'])
    expect(messages(events).filter((m) => m === 'user: turn A')).toHaveLength(1)
    // B's model request carried A's exchange: B waited for A instead of racing it.
    const sentB = servers.mock.messageRequests().slice(before).find((r) => JSON.stringify(r.body).includes('turn B'))
    expect(JSON.stringify(sentB?.body)).toContain('Echo: turn A')
  })

  it('12 processes on one store (4 turns on one session, 2 on new sessions, 4 resets, 2 message mirrors): every printed reply stored once, every chain intact', async () => {
    const w = world()
    const d = openDb(dbPath(w.state, 'main'))
    const keys = d.prepare('SELECT session_key AS k FROM session_nodes').all().map((r) => String(r.k))
    d.close()
    const resetKeys = keys.filter((k) => k !== 'agent:main:main').slice(0, 4)
    expect(resetKeys.length).toBeGreaterThan(0)
    const results = await Promise.all([
      ...Array.from({length: 4}, (_, i) => w.run(['agent', '-m', `same-session turn ${i}`])),
      ...Array.from({length: 2}, (_, i) => w.run(['agent', '--session-key', `agent:main:hook:mixed-${i}`, '-m', `own-session turn ${i}`])),
      ...resetKeys.map((k) => w.run(['sessions', 'reset', k])),
      ...Array.from({length: 2}, (_, i) => w.run(['message', 'send', '--channel', 'telegram', '-t', '-100555', '-m', `mirror ${i}`])),
    ])
    for (const r of results) expect(r.code, r.stdout + r.stderr).toBe(0)
    const {events} = expectIntact(w.state, 'agent:main:main')
    const texts = messages(events)
    for (let i = 0; i < 4; i++) {
      expect(texts.filter((t) => t === `user: same-session turn ${i}`), `turn ${i}'s message`).toHaveLength(1)
      const at = texts.indexOf(`user: same-session turn ${i}`)
      expect(texts[at + 1], `turn ${i}'s reply follows its message`).toBe(`assistant: Echo: same-session turn ${i}`)
    }
    for (let i = 0; i < 2; i++) {
      const own = expectIntact(w.state, `agent:main:hook:mixed-${i}`)
      expect(messages(own.events)).toEqual([`user: own-session turn ${i}`, `assistant: Echo: own-session turn ${i}`])
    }
  })

  it('a write lock held 9 s by another process while the turn waits for its model: the turn waits (saying so), stores its reply and exits 0; the projection stays current', async () => {
    const w = world()
    const before = servers.mock.messageRequests().length
    const turn = startCli(['agent', '-m', 'held lock', '--json', '--state-dir', w.state], {env: w.env, timeoutMs: 120_000})
    children.push({kill: () => turn.kill('SIGKILL')})
    await waitUntil(() => servers.mock.messageRequests().length > before, 'the turn to call the model')
    const holder = await holdWriteLock(dbPath(w.state, 'main'), 9000)
    const r = await turn.exited
    await holder.released
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(replyOf(r)).toBe('Echo: held lock')
    expect(r.stderr).toMatch(/waiting for another writer/i)
    const {events} = expectIntact(w.state, 'agent:main:main')
    expect(messages(events).slice(-2)).toEqual(['user: held lock', 'assistant: Echo: held lock'])
  })

  it('a turn killed (SIGKILL) while it holds the session: the next turn does not wait for the dead holder, and continues from the stored message', async () => {
    const w = world()
    const before = servers.mock.messageRequests().length
    const turn = startCli(['agent', '-m', 'killed turn', '--json', '--state-dir', w.state], {env: w.env, timeoutMs: 120_000})
    children.push({kill: () => turn.kill('SIGKILL')})
    await waitUntil(() => servers.mock.messageRequests().length > before, 'the turn to call the model')
    const locks = path.join(w.home, '.local', 'share', 'clawkit', 'locks')
    expect(fs.readdirSync(locks).filter((n) => n.startsWith('sqlite-session-') && n.endsWith('.lock'))).toHaveLength(1)
    turn.kill('SIGKILL')
    await turn.exited
    const next = await w.run(['agent', '-m', 'after the kill'])
    expect(next.code, next.stdout + next.stderr).toBe(0)
    expect(next.stderr).not.toMatch(/waiting/i)
    const {events} = expectIntact(w.state, 'agent:main:main')
    expect(messages(events).slice(-3)).toEqual(['user: killed turn', 'user: after the kill', 'assistant: Echo: killed turn\nafter the kill'])
  })

  it('a write lock held past the wait: exit 1, the error says it could not WRITE, what was kept (the message) and where the unstored reply was saved; nothing half-chained; the next turn continues', async () => {
    const w = world({CLAWKIT_SQLITE_WRITE_WAIT_MS: '1000'})
    const before = servers.mock.messageRequests().length
    const turn = startCli(['agent', '-m', 'lost lock', '--json', '--state-dir', w.state], {env: w.env, timeoutMs: 120_000})
    children.push({kill: () => turn.kill('SIGKILL')})
    await waitUntil(() => servers.mock.messageRequests().length > before, 'the turn to call the model')
    const holder = await holdWriteLock(dbPath(w.state, 'main'), 15_000)
    const r = await turn.exited
    expect(r.code, r.stdout + r.stderr).toBe(1)
    const error = jsonError(r)
    expect(error.code).toBe('E_SQLITE_BUSY')
    expect(error.message).toMatch(/cannot write/i)
    expect(error.message).not.toMatch(/cannot read/i)
    expect(error.message).toMatch(/your message is stored/i)
    expect(error.message).toMatch(/reply was not stored/i)
    const saved = /saved to (\S+\.ndjson)/.exec(error.message)?.[1]
    expect(saved, error.message).toBeTruthy()
    // clawkit's own data dir, never the state dir; the entries as they would have been stored.
    expect(saved!.startsWith(path.join(w.home, '.local', 'share', 'clawkit'))).toBe(true)
    expect((fs.statSync(saved!).mode & 0o777).toString(8)).toBe('600')
    const kept = fs.readFileSync(saved!, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(kept.some((e) => e.message?.role === 'assistant' && JSON.stringify(e.message.content).includes('Echo: lost lock'))).toBe(true)
    await holder.released
    const after = expectIntact(w.state, 'agent:main:main')
    expect(messages(after.events).at(-1)).toBe('user: lost lock')
    const next = await w.run(['agent', '-m', 'after the lock'])
    expect(next.code, next.stdout + next.stderr).toBe(0)
    const {events} = expectIntact(w.state, 'agent:main:main')
    // The model is sent both messages (the mock echoes the two user texts it got in a row).
    expect(messages(events).slice(-3)).toEqual(['user: lost lock', 'user: after the lock', 'assistant: Echo: lost lock\nafter the lock'])
  })
})
