// `sessions history --follow` on a SQLite-era store (OpenClaw 2026.9.6's database): the events clawkit's turns commit
// appear in seq order, once, woken by the database's own files; a reset is a new window for the key; a key that does
// not exist yet is waited for; --all. The JSON era: follow.test.ts; real OpenClaw writers: interop-follow.test.ts.
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, expect, it} from 'vitest'

import type {SessionsFollowLine} from '../../../src/commands/sessions/history.js'
import {sqliteStorePath} from '../../../src/store/era.js'
import {baseEnv, cliWith, copyFixture, FIXTURES, json, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {expectValidFollowLines, type Follower, startFollow} from '../../support/follow.js'
import {useServers} from '../../support/servers.js'
import {describeSqlite, IMPORTED_96, mockedStateCopy, NATIVE_96} from '../../support/sqlite.js'

const servers = useServers({mock: true})

let followers: Follower[] = []
afterEach(async () => {
  await Promise.all(followers.map((f) => f.stop('SIGKILL')))
  followers = []
})

function world() {
  const state = mockedStateCopy(NATIVE_96, servers.mock.url)
  const env = baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key'})
  const run = cliWith(['--state-dir', state], {env, timeoutMs: 60_000})
  const follow = (args: string[]) => {
    const f = startFollow([...args, '--state-dir', state], env)
    followers.push(f)
    return f
  }
  return {state, env, run, follow}
}

const isJson = (pred: (d: SessionsFollowLine) => boolean) => (text: string) => pred(JSON.parse(text) as SessionsFollowLine)
const entries = (docs: SessionsFollowLine[]) => docs.filter((d): d is Extract<SessionsFollowLine, {kind: 'entry'}> => d.kind === 'entry')

/** Every event id of a session after its header, in seq order (a compressed event decoded). */
async function eventIds(state: string, sessionId: string): Promise<string[]> {
  const {DatabaseSync} = (await import('node:sqlite' as string)) as any
  const {zstdDecompressSync} = (await import('node:zlib')) as any
  const db = new DatabaseSync(sqliteStorePath(state, 'main'), {readOnly: true})
  try {
    return db
      .prepare('SELECT event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? AND seq > 0 ORDER BY seq')
      .all(sessionId)
      .map((r: any) => JSON.parse(r.event_json ?? zstdDecompressSync(r.event_zstd, {maxOutputLength: r.event_utf8_bytes}).toString('utf8')).id)
  } finally {
    db.close()
  }
}

describeSqlite('sessions history --follow (SQLite era)', () => {
  it('an agent whose database appears while it is followed (OpenClaw 2026.9.6 imported its files): said on stderr, then followed in the database from where it was, nothing printed twice', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key'})
    const f = startFollow(['sessions', 'history', 'main', '--follow', '--json', '--limit', '2', '--state-dir', state], env)
    followers.push(f)
    await f.waitFor(isJson((d) => d.kind === 'session'))
    // The database OpenClaw 2026.9.6 made of this very store (the imported fixture), moved into place in one rename.
    const db = sqliteStorePath(state, 'main')
    fs.mkdirSync(path.dirname(db), {recursive: true})
    fs.copyFileSync(sqliteStorePath(path.join(FIXTURES, IMPORTED_96), 'main'), `${db}.tmp`)
    fs.renameSync(`${db}.tmp`, db)
    await expect.poll(() => f.stderr(), {timeout: 20_000}).toContain(`main's sessions are in its database now (${db}): following them there.`)
    const lib = await import('../../../src/store/index.js')
    const st = lib.OpenClawState.open({stateDir: state})
    const store = st.store('main')
    const hit = (await store.findEntry('agent:main:main'))!
    await lib.appendTo(store, store.transcriptOf(hit.entry, 'agent:main:main'), [{type: 'message', message: {role: 'user', content: [{type: 'text', text: 'written to the database'}], timestamp: Date.now()}}])
    st.close()
    await f.waitFor(isJson((d) => d.kind === 'entry' && d.entry.text === 'written to the database'))
    const docs = expectValidFollowLines(f)
    // The tail from the files, then every event the database holds after it (OpenClaw's turn after its import, ours).
    const shown = entries(docs).map((d) => d.entry.id)
    const ids = await eventIds(state, '0caed29d-8df6-4457-a9cd-00bb9d2b22e3')
    expect(shown.slice(0, 3)).toEqual(['f36cf477', '6cc609cc', '327d8c1f'])
    expect(shown.slice(3)).toEqual(ids.slice(ids.indexOf('327d8c1f') + 1))
    expect(entries(docs).at(-1)!.entry.text).toBe('written to the database')
    expect(docs.filter((d) => d.kind === 'session').map((d) => d.kind === 'session' && d.event)).toEqual(['start'])
  })

  it('the tail as history has it, then each event of two clawkit turns in seq order, none twice; a reset is a new window, followed from its header on', async () => {
    const w = world()
    const history = json(await w.run(['sessions', 'history', 'main', '--limit', '2', '--json']))
    const f = w.follow(['sessions', 'history', 'main', '--follow', '--json', '--limit', '2'])
    await f.waitFor(isJson((d) => d.kind === 'entry' && d.entry.id === history.entries.at(-1)!.id))
    for (const text of ['first turn on the database', 'second turn on the database']) {
      const r = await w.run(['agent', '-m', text, '--session-key', 'agent:main:main', '--json'])
      expect(r.code, r.stderr).toBe(0)
    }
    const before = await eventIds(w.state, history.sessionId)
    await f.waitFor(isJson((d) => d.kind === 'entry' && d.entry.id === before.at(-1)))
    const reset = json(await w.run(['sessions', 'reset', 'main', '--json']))
    const r = await w.run(['agent', '-m', 'first turn after the reset', '--session-key', 'agent:main:main', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const after = await eventIds(w.state, reset.sessionId)
    await f.waitFor(isJson((d) => d.kind === 'entry' && d.entry.id === after.at(-1)))
    expect(await f.stop('SIGINT')).toEqual({code: 130, signal: null})
    const docs = expectValidFollowLines(f)
    expect(docs[0]).toMatchObject({kind: 'session', event: 'start', sessionId: history.sessionId, sessionFile: `${sqliteStorePath(w.state, 'main')}#${history.sessionId}`})
    const boundary = docs.findIndex((d) => d.kind === 'session' && d.event === 'reset')
    expect(docs[boundary]).toMatchObject({previousSessionId: history.sessionId, sessionId: reset.sessionId})
    // Before the reset: history's tail, then every event written after it; after: the new window's every event.
    expect(entries(docs.slice(0, boundary)).map((d) => d.entry.id)).toEqual(before.slice(before.indexOf(history.entries[0].id)))
    expect(entries(docs.slice(boundary)).map((d) => d.entry.id)).toEqual(after)
    expect(entries(docs.slice(boundary)).find((d) => d.entry.role === 'user')?.entry.text).toBe('first turn after the reset')
  })

  it('a key that does not exist yet is waited for; --all labels each line with its key and follows a key that appears', async () => {
    const w = world()
    const one = w.follow(['sessions', 'history', 'agent:main:later', '--follow', '--json'])
    const all = w.follow(['sessions', 'history', '--follow', '--all', '--json'])
    await expect.poll(() => one.stderr(), {timeout: 20_000}).toContain('Waiting for agent:main:later')
    await expect.poll(() => all.stderr(), {timeout: 20_000}).toMatch(/^Following \d+ sessions in 1 store/)
    for (const [key, text] of [['agent:main:main', 'to main'], ['agent:main:later', 'to later']]) {
      const r = await w.run(['agent', '-m', text, '--session-key', key, '--json'])
      expect(r.code, r.stderr).toBe(0)
    }
    const later = json(await w.run(['sessions', 'list', '--json'])).sessions.find((s) => s.key === 'agent:main:later')!.sessionId!
    const ids = await eventIds(w.state, later)
    await one.waitFor(isJson((d) => d.kind === 'entry' && d.entry.id === ids.at(-1)))
    await all.waitFor(isJson((d) => d.kind === 'entry' && d.entry.id === ids.at(-1)))
    const oneDocs = expectValidFollowLines(one)
    expect(oneDocs[0]).toMatchObject({kind: 'session', event: 'new', key: 'agent:main:later', sessionId: later})
    expect(entries(oneDocs).map((d) => d.entry.id)).toEqual(ids)
    const allDocs = expectValidFollowLines(all)
    expect(entries(allDocs).filter((d) => d.entry.role === 'user').map((d) => [d.key, d.entry.text])).toEqual([['agent:main:main', 'to main'], ['agent:main:later', 'to later']])
    expect(entries(allDocs).filter((d) => d.key === 'agent:main:later').map((d) => d.entry.id)).toEqual(ids)
  })
})
