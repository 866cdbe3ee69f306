// `sessions lineage` and `history --include-archived` on a SQLite-era store (a copy of the native 2026.9.6 fixture),
// through the real CLI under Node 24: main reset twice by clawkit's `sessions reset` (a new sessionId and window each
// time, docs/sqlite-writes.md) with an `agent -m` turn against the mock API in between. OpenClaw's gateway reset (a
// `reset` event inside one session) was never captured in a real store (store-sqlite.md §6), so it is not made here.
import fs from 'node:fs'
import path from 'node:path'

import {beforeAll, expect, it} from 'vitest'

import type {SessionsHistoryResult} from '../../../src/commands/sessions/history.js'
import type {SessionsLineageResult} from '../../../src/commands/sessions/lineage.js'
import {sqliteStorePath} from '../../../src/store/era.js'
import {baseEnv, cliWith, copyFixture, json, runCli, tempDir} from '../../support/cli.js'
import {useServers} from '../../support/servers.js'
import {describeSqlite, mockedStateCopy, NATIVE_96} from '../../support/sqlite.js'
import {escapeHtml} from '../../../src/sessions/export-formats.js'

const servers = useServers({mock: true})
const env = () => baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key'})

let state: string
let ids: string[]
let before: SessionsHistoryResult

function run<const A extends readonly string[]>(args: A) {
  return cliWith(['--state-dir', state], () => ({env: env()}))(args)
}

describeSqlite('sessions lineage on a SQLite-era store reset twice', () => {
  beforeAll(async () => {
    state = mockedStateCopy(NATIVE_96, servers.mock.url)
    before = json(await run(['sessions', 'history', 'main', '--limit', '1000', '--json']))
    ids = [before.sessionId]
    for (const words of ['second session words', 'third session words']) {
      const r = await run(['sessions', 'reset', 'main', '--json'])
      expect(r.code, r.stderr).toBe(0)
      ids.push(json(r).sessionId)
      const turn = await run(['agent', '-m', words, '--json'])
      expect(turn.code, turn.stderr).toBe(0)
    }
  }, 90_000)

  it('lineage shows three database windows oldest first, the last one current, with counts and usage', async () => {
    const r = await run(['sessions', 'lineage', 'main', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const l = json<SessionsLineageResult>(r)
    const db = sqliteStorePath(state, 'main')
    expect(l.sessions.map((s) => [s.sessionId, s.where, s.ended, s.transcript])).toEqual([
      [ids[0], 'window', 'reset', `${db}#${ids[0]}`],
      [ids[1], 'window', 'reset', `${db}#${ids[1]}`],
      [ids[2], 'window', 'current', `${db}#${ids[2]}`],
    ])
    expect(l.sessions[0].messages).toBe(before.entries.filter((e) => ['message', 'compaction', 'branch_summary', 'custom_message'].includes(e.type)).length)
    expect(l.sessions.slice(1).map((s) => s.messages)).toEqual([2, 2])
    for (const s of l.sessions) expect(s.usage.costUsd).toBeGreaterThan(0)
  })

  it('history --include-archived shows every message of the three windows with two boundaries; --limit reads from the end', async () => {
    const h = json<SessionsHistoryResult>(await run(['sessions', 'history', 'main', '--include-archived', '--limit', '1000', '--json']))
    expect(h.sessions!.map((s) => s.sessionId)).toEqual(ids)
    const texts = h.entries.filter((e) => e.type === 'message' && e.text).map((e) => e.text)
    expect(texts.slice(0, -4)).toEqual(before.entries.filter((e) => e.type === 'message' && e.text).map((e) => e.text))
    expect(texts.slice(-4)).toEqual(['second session words', 'Echo: second session words', 'third session words', 'Echo: third session words'])
    const text = await run(['sessions', 'history', 'main', '--include-archived', '--limit', '1000'])
    expect(text.stdout.match(/^\u2550{4} reset .*: session .*\(database window\) \u2550{4}$/gm)).toHaveLength(2)
    const last = json<SessionsHistoryResult>(await run(['sessions', 'history', 'main', '--include-archived', '--limit', '3', '--json']))
    expect(last.sessions!.map((s) => s.sessionId)).toEqual([ids[1], ids[2]])
    expect(last.truncated).toBe(true)
  })

  it('export --include-archived: every message of the three windows in md and html, and jsonl as the events are stored', async () => {
    const h = json<SessionsHistoryResult>(await run(['sessions', 'history', 'main', '--include-archived', '--limit', '1000', '--raw', '--json']))
    const texts = h.entries.filter((e) => e.type === 'message' && e.text && (e.role === 'user' || e.role === 'assistant')).map((e) => e.text!)
    expect(texts.length).toBeGreaterThan(4)
    const md = await run(['sessions', 'export', 'main', '--include-archived'])
    expect(md.code, md.stderr).toBe(0)
    for (const t of texts) expect(md.stdout).toContain(t)
    expect(md.stdout.match(/^## Session `.*` \(database window\)$/gm)).toHaveLength(3)
    const out = path.join(tempDir(), 'chat.html')
    const html = await run(['sessions', 'export', 'main', '--include-archived', '--format', 'html', '--out', out])
    expect(html.code, html.stderr).toBe(0)
    const page = fs.readFileSync(out, 'utf8')
    for (const t of texts) for (const line of t.split('\n')) expect(page).toContain(escapeHtml(line))
    const jsonl = await run(['sessions', 'export', 'main', '--include-archived', '--format', 'jsonl'])
    expect(jsonl.code, jsonl.stderr).toBe(0)
    const lines = jsonl.stdout.split('\n').filter(Boolean)
    // Each window's header event first, then every event in seq order: the same stored text history --raw shows.
    expect(lines.filter((l) => JSON.parse(l).type === 'session').map((l) => JSON.parse(l).id)).toEqual(ids)
    const {DatabaseSync} = (await import('node:sqlite' as string)) as any
    const db = new DatabaseSync(sqliteStorePath(state, 'main'), {readOnly: true})
    const events = ids.reduce((n, id) => n + Number(db.prepare('SELECT count(*) AS n FROM transcript_events WHERE session_id = ?').get(id).n), 0)
    db.close()
    expect(lines).toHaveLength(events)
    let at = 0
    for (const raw of h.raw!) {
      at = lines.indexOf(raw, at)
      expect(at, raw).toBeGreaterThanOrEqual(0)
    }
  })

  it('allSessions (the agent-wide walk usage and sync use) lists each key\'s windows as sessionsOf does, each window once', async () => {
    const {OpenClawState} = await import('../../../src/store/state.js')
    const st = OpenClawState.open({stateDir: state})
    const store = st.store('main')
    const all = await store.allSessions()
    const expected = []
    for (const key of (await store.readRows(() => 0)).keys()) for (const s of await store.sessionsOf(key)) expected.push({...s, key})
    expect(all).toEqual(expected)
    expect(all.filter((s) => s.key === 'agent:main:main').map((s) => s.sessionId)).toEqual(ids)
    expect(new Set(all.map((s) => s.sessionId)).size).toBe(all.length)
  })
})
