// The writers on a SQLite-era store (OpenClaw 2026.9.6), through the real CLI: agent turns, sessions reset and the
// message-send mirror write OpenClaw's rows into the database (never a JSON-era file beside it), chain onto what is
// there, keep the transcript projection current, and refuse while an OpenClaw process owns the state dir.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import {sqliteStorePath} from '../../src/store/era.js'
import {baseEnv, copyFixture, json, jsonError, runCli, tempDir} from '../support/cli.js'
import {useServers} from '../support/servers.js'
import {describeSqlite, IMPORTED_96, mockedStateCopy, NATIVE_96} from '../support/sqlite.js'

const servers = useServers({mock: true, channels: true})

/** A fixture copy whose provider is the mock and whose workspace is inside the copy. */
const sqliteState = (fixture: string) => mockedStateCopy(fixture, servers.mock.url)

async function db(state: string, agent = 'main') {
  const {DatabaseSync} = (await import('node:sqlite' as string)) as any
  return new DatabaseSync(sqliteStorePath(state, agent), {readOnly: true})
}

async function events(state: string, sessionId: string, agent = 'main'): Promise<any[]> {
  const d = await db(state, agent)
  const {zstdDecompressSync} = (await import('node:zlib')) as any
  try {
    return d
      .prepare('SELECT event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? ORDER BY seq')
      .all(sessionId)
      .map((r: any) => JSON.parse(r.event_json ?? zstdDecompressSync(r.event_zstd, {maxOutputLength: r.event_utf8_bytes}).toString('utf8')))
  } finally {
    d.close()
  }
}

/** The invariants OpenClaw's readers and its next turn need (store-sqlite.md §3.1, §3.7). */
async function expectConsistent(state: string, key: string, agent = 'main'): Promise<{sessionId: string; entry: any}> {
  const d = await db(state, agent)
  try {
    const node = d.prepare('SELECT current_session_id, entry_json, entry_valid, updated_at FROM session_nodes WHERE session_key = ?').get(key)
    expect(node, key).toBeTruthy()
    const entry = JSON.parse(node.entry_json)
    expect(node.entry_valid).toBe(1)
    expect(entry.sessionId).toBe(node.current_session_id)
    expect(entry.updatedAt).toBe(node.updated_at)
    expect(entry.sessionFile).toBeUndefined()
    const sid = node.current_session_id
    expect(d.prepare('SELECT session_key FROM session_windows WHERE session_id = ?').get(sid)?.session_key).toBe(key)
    const max = d.prepare('SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?').get(sid).m
    const idx = d.prepare('SELECT indexed_seq, needs_rebuild, leaf_event_id FROM session_transcript_index_state WHERE session_id = ?').get(sid)
    expect(idx).toMatchObject({indexed_seq: max, needs_rebuild: 0})
    const last = d.prepare('SELECT event_id FROM transcript_event_identities WHERE session_id = ? AND seq = ?').get(sid, max)
    if (max > 0) expect(idx.leaf_event_id).toBe(last.event_id)
    return {sessionId: sid, entry}
  } finally {
    d.close()
  }
}

/** No JSON-era session file was created beside the database. */
function expectNoJsonEraFiles(state: string, agent = 'main'): void {
  const dir = path.join(state, 'agents', agent, 'sessions')
  const names = fs.existsSync(dir) ? fs.readdirSync(dir) : []
  expect(names.filter((n) => n === 'sessions.json' || n.endsWith('.jsonl') || n.endsWith('.lock'))).toEqual([])
}

const env = () => baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key'})

function userTexts(body: any): string[] {
  return body.messages.filter((m: any) => m.role === 'user').map((m: any) => (typeof m.content === 'string' ? m.content : m.content.map((b: any) => b.text ?? '').join('')))
}

describeSqlite('agent -m on a SQLite-era store', () => {
  it('continues an OpenClaw session by --session-id: the model gets the whole history, new events chain onto the leaf, the projection stays current', async () => {
    const state = sqliteState(NATIVE_96)
    const key = 'agent:main:explicit:c0ffee00-0000-4000-8000-000000000096'
    const {sessionId} = await expectConsistent(state, key)
    const before = await events(state, sessionId)
    const r = await runCli(['agent', '-m', 'second question', '--session-id', sessionId, '--json', '--state-dir', state], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    const req = servers.mock.messageRequests().at(-1)!
    const texts = userTexts(req.body)
    // OpenClaw's own earlier user message is in the request, then ours.
    const oldUser = before.find((e) => e.type === 'message' && e.message.role === 'user')
    const oldText = typeof oldUser.message.content === 'string' ? oldUser.message.content : oldUser.message.content[0].text
    expect(texts.some((t) => t.includes(oldText))).toBe(true)
    expect(texts.at(-1)).toContain('second question')
    const after = await events(state, sessionId)
    expect(after.slice(0, before.length)).toEqual(before)
    const added = after.slice(before.length)
    expect(added.map((e) => e.type === 'message' && e.message.role).filter(Boolean)).toEqual(['user', 'assistant'])
    expect(added[0].parentId).toBe(before.at(-1).id)
    for (let i = 1; i < added.length; i++) expect(added[i].parentId).toBe(added[i - 1].id)
    const {entry} = await expectConsistent(state, key)
    expect(entry.inputTokens).toBeGreaterThan(0)
    expectNoJsonEraFiles(state)
  })

  it('a new key (--session-key) gets a node, a window and a version-4 header at seq 0; a second turn sees the first', async () => {
    const state = sqliteState(NATIVE_96)
    const key = 'agent:main:clawkit:new-1'
    const first = await runCli(['agent', '-m', 'hello there', '--session-key', key, '--json', '--state-dir', state], {env: env()})
    expect(first.code, first.stderr).toBe(0)
    const list = json(await runCli(['sessions', 'list', '--json', '--state-dir', state], {env: env()}))
    expect(list.sessions.map((s) => s.key)).toContain(key)
    const {sessionId} = await expectConsistent(state, key)
    const evs = await events(state, sessionId)
    expect(evs[0]).toMatchObject({type: 'session', version: 4, id: sessionId})
    const second = await runCli(['agent', '-m', 'and again', '--session-key', key, '--json', '--state-dir', state], {env: env()})
    expect(second.code, second.stderr).toBe(0)
    const texts = userTexts(servers.mock.messageRequests().at(-1)!.body)
    expect(texts.some((t) => t.includes('hello there'))).toBe(true)
    await expectConsistent(state, key)
    expectNoJsonEraFiles(state)
  })

  it('continues an imported session of a second agent (version-3 header, 8-hex entry ids from the JSON era)', async () => {
    const state = sqliteState(IMPORTED_96)
    const {sessionId} = await expectConsistent(state, 'agent:work:main', 'work')
    const before = await events(state, sessionId, 'work')
    const r = await runCli(['agent', '-m', 'more work', '--agent', 'work', '--json', '--state-dir', state], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    const after = await events(state, sessionId, 'work')
    expect(after.length).toBeGreaterThan(before.length)
    expect(after[before.length].parentId).toBe(before.at(-1).id)
    // Every earlier user message reached the model.
    const texts = userTexts(servers.mock.messageRequests().at(-1)!.body)
    expect(texts.length).toBeGreaterThan(1)
    await expectConsistent(state, 'agent:work:main', 'work')
    expectNoJsonEraFiles(state, 'work')
  })
})

describeSqlite('sessions reset on a SQLite-era store', () => {
  it('starts a new sessionId whose window links the old one; the old events stay; the next turn starts fresh', async () => {
    const state = sqliteState(NATIVE_96)
    const {sessionId: old} = await expectConsistent(state, 'agent:main:main')
    const oldEvents = await events(state, old)
    const plan = json(await runCli(['sessions', 'reset', 'main', '--dry-run', '--json', '--state-dir', state], {env: env()}))
    expect(plan).toMatchObject({dryRun: true, previousSessionId: old})
    const r = await runCli(['sessions', 'reset', 'main', '--json', '--state-dir', state], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    const done = json(r)
    expect(done.previousSessionId).toBe(old)
    expect(done.sessionId).not.toBe(old)
    expect(done.archivedTranscript).toBe(`${sqliteStorePath(state, 'main')}#${old}`)
    const {sessionId, entry} = await expectConsistent(state, 'agent:main:main')
    expect(sessionId).toBe(done.sessionId)
    expect(entry).toMatchObject({previousSessionId: old, inputTokens: 0, totalTokens: 0})
    const d = await db(state)
    expect(d.prepare('SELECT previous_session_id FROM session_windows WHERE session_id = ?').get(sessionId).previous_session_id).toBe(old)
    expect(d.prepare('SELECT session_key FROM session_windows WHERE session_id = ?').get(old).session_key).toBe('agent:main:main')
    d.close()
    expect(await events(state, old)).toEqual(oldEvents)
    const turn = await runCli(['agent', '-m', 'fresh start', '--json', '--state-dir', state], {env: env()})
    expect(turn.code, turn.stderr).toBe(0)
    expect(userTexts(servers.mock.messageRequests().at(-1)!.body).length).toBe(1)
    await expectConsistent(state, 'agent:main:main')
    expectNoJsonEraFiles(state)
  })

  it('human output names the old transcript\'s locator once, as kept in the database, in the dry run and in the reset', async () => {
    const state = sqliteState(NATIVE_96)
    const {sessionId: old} = await expectConsistent(state, 'agent:main:main')
    const locator = `${sqliteStorePath(state, 'main')}#${old}`
    const plan = await runCli(['sessions', 'reset', 'main', '--dry-run', '--state-dir', state], {env: env()})
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.stdout).toContain(`Would keep the old transcript in the database, as an earlier window of the key: ${locator}\n`)
    expect(plan.stdout.split(locator)).toHaveLength(2)
    const done = await runCli(['sessions', 'reset', 'main', '--state-dir', state], {env: env()})
    expect(done.code, done.stderr).toBe(0)
    expect(done.stdout).toContain(`Old transcript kept in the database, as an earlier window of the key: ${locator}\n`)
    expect(done.stdout.split(locator)).toHaveLength(2)
  })

  it('an unknown session is E_SESSION_NOT_FOUND (exit 1) and the database is unchanged', async () => {
    const state = sqliteState(NATIVE_96)
    const file = sqliteStorePath(state, 'main')
    const hash = fs.readFileSync(file)
    const r = await runCli(['sessions', 'reset', 'agent:main:nope', '--json', '--state-dir', state], {env: env()})
    expect(r.code).toBe(1)
    expect(jsonError(r).code).toBe('E_SESSION_NOT_FOUND')
    expect(fs.readFileSync(file).equals(hash)).toBe(true)
  })
})

describeSqlite('message send mirror on a SQLite-era store', () => {
  it('records the delivered text in the session once; a repeated idempotency key adds nothing', async () => {
    const state = sqliteState(NATIVE_96)
    const {sessionId} = await expectConsistent(state, 'agent:main:main')
    const before = await events(state, sessionId)
    const args = ['message', 'send', '--channel', 'webhook', '-t', servers.fake.webhookUrl, '-m', 'posted update', '--session-key', 'agent:main:main', '--idempotency-key', 'k-sqlite-1', '--json', '--state-dir', state] as const
    const r = await runCli(args, {env: env()})
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(json(r).payload.mirrored).toMatchObject({sessionKey: 'agent:main:main', duplicate: false})
    const after = await events(state, sessionId)
    expect(after.length).toBe(before.length + 1)
    expect(after.at(-1)).toMatchObject({type: 'message', parentId: before.at(-1).id, message: {role: 'assistant', idempotencyKey: 'k-sqlite-1'}})
    const again = await runCli(args, {env: env()})
    expect(again.code, again.stderr).toBe(0)
    expect(json(again).payload.mirrored).toMatchObject({duplicate: true})
    expect((await events(state, sessionId)).length).toBe(after.length)
    await expectConsistent(state, 'agent:main:main')
    expectNoJsonEraFiles(state)
  })

  it('a mirrored copy stays in the transcript, and the next agent turn chains onto it without sending it to the model (OpenClaw replays no delivery-mirror)', async () => {
    const state = sqliteState(NATIVE_96)
    const key = 'agent:main:explicit:c0ffee00-0000-4000-8000-000000000096'
    const {sessionId} = await expectConsistent(state, key)
    const sent = await runCli(['message', 'send', '--channel', 'webhook', '-t', servers.fake.webhookUrl, '-m', 'mirrored status update', '--session-key', key, '--json', '--state-dir', state], {env: env()})
    expect(sent.code, sent.stdout + sent.stderr).toBe(0)
    const mirrorId = json(sent).payload.mirrored!.entryId
    const r = await runCli(['agent', '-m', 'did it go out?', '--session-key', key, '--json', '--state-dir', state], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    const body = servers.mock.messageRequests().at(-1)!.body
    expect(JSON.stringify(body.messages)).not.toContain('mirrored status update')
    // The history around it is all there: OpenClaw's turn before, then the new question.
    expect(userTexts(body).some((t) => t.includes('explicit session hello'))).toBe(true)
    expect(userTexts(body).at(-1)).toContain('did it go out?')
    const evs = await events(state, sessionId)
    const at = evs.findIndex((e) => e.id === mirrorId)
    expect(at).toBeGreaterThan(0)
    expect(evs[at + 1].parentId).toBe(mirrorId)
    await expectConsistent(state, key)
  })
})

describeSqlite('message send mirror into a key the store does not have yet', () => {
  it('creates the node, the window and a version-4 header, then the mirrored message chained from it', async () => {
    const state = sqliteState(NATIVE_96)
    const key = 'agent:main:clawkit:mirror-new'
    const r = await runCli(['message', 'send', '--channel', 'webhook', '-t', servers.fake.webhookUrl, '-m', 'first words', '--session-key', key, '--json', '--state-dir', state], {env: env()})
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(json(r).payload.mirrored).toMatchObject({sessionKey: key, created: true})
    const {sessionId} = await expectConsistent(state, key)
    const evs = await events(state, sessionId)
    expect(evs[0]).toMatchObject({type: 'session', version: 4, id: sessionId})
    expect(evs.slice(1)).toHaveLength(1)
    expect(evs[1]).toMatchObject({type: 'message', parentId: null, message: {role: 'assistant'}})
    expectNoJsonEraFiles(state)
  })
})

describeSqlite('writers while OpenClaw owns the state dir', () => {
  it('agent, reset and a mirrored send refuse with E_GATEWAY_OWNS_STATE before any model call or send, and the database is unchanged', async () => {
    const state = sqliteState(NATIVE_96)
    const uid = process.getuid?.() ?? 0
    const lock = path.join(state, 'tmp', `openclaw-${uid}`, 'gateway.state.lock.sqlite')
    fs.mkdirSync(path.dirname(lock), {recursive: true})
    if (!fs.existsSync(lock)) fs.writeFileSync(lock, '')
    // A stand-in owner: a live process holding the ownership lock open, as a gateway does for its whole life.
    const owner = spawn(process.execPath, ['-e', `require('fs').openSync(${JSON.stringify(lock)}, 'r'); process.stdout.write('ready'); setInterval(() => {}, 1000)`], {stdio: ['ignore', 'pipe', 'inherit']})
    await new Promise((resolve) => owner.stdout!.once('data', resolve))
    try {
      const file = sqliteStorePath(state, 'main')
      const hash = fs.readFileSync(file)
      const calls = servers.mock.messageRequests().length
      const sends = servers.fake.of('webhook').length
      for (const args of [
        ['agent', '-m', 'x', '--json'],
        ['sessions', 'reset', 'main', '--json'],
        ['message', 'send', '--channel', 'webhook', '-t', servers.fake.webhookUrl, '-m', 'x', '--session-key', 'agent:main:main', '--json'],
      ]) {
        const r = await runCli([...args, '--state-dir', state], {env: env()})
        expect(r.code, args.join(' ')).toBe(1)
        expect(jsonError(r).code).toBe('E_GATEWAY_OWNS_STATE')
        expect(jsonError(r).message).toMatch(new RegExp(`pid ${owner.pid}`))
      }
      expect(servers.mock.messageRequests().length).toBe(calls)
      expect(servers.fake.of('webhook').length).toBe(sends)
      expect(fs.readFileSync(file).equals(hash)).toBe(true)
    } finally {
      owner.kill()
    }
  })
})
