// The SQLite era in the fleet: readSince of OpenClaw's database (seq marks, the header's hash) and `clawkit sync` of real
// OpenClaw 2026.9.6 state dirs (native and imported) into a real PostgreSQL: consistent, equal to the host, idempotent.
import {spawnSync} from 'node:child_process'
import path from 'node:path'

import {afterEach, expect, it} from 'vitest'

import {checkReplica, diffReplica} from '../../../src/fleet/check.js'
import {connectPg, type PgClient} from '../../../src/fleet/pg.js'
import {loadSqlite} from '../../../src/store/sqlite/driver.js'
import {SqliteSessionStore} from '../../../src/store/sqlite/store.js'
import {OpenClawState} from '../../../src/store/state.js'
import type {TranscriptMark} from '../../../src/store/types.js'
import {baseEnv, BIN, copyFixture, json, ROOT, runCli, runProcess, tempDir} from '../../support/cli.js'
import {describePg, usePg} from '../../support/postgres.js'
import {useServers} from '../../support/servers.js'
import {DELETED_96, describeSqlite, IMPORTED_96, mixedEraState, mockedStateCopy, NATIVE_96} from '../../support/sqlite.js'
import type {SyncResult} from '../../../src/fleet/sync.js'
import {appendTo} from '../../../src/store/append.js'

const clients: PgClient[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.end()))
})

const servers = useServers({mock: true})

/** A fixture copy whose provider is the mock and whose workspace is inside the copy. */
const sqliteState = (fixture: string) => mockedStateCopy(fixture, servers.mock.url)

/** A `node` on PATH older than 22.15 (the suite's own Node 20 when npm test runs this file on Node 24), if any. */
function nodeWithoutSqlite(): string | undefined {
  const r = spawnSync('node', ['-p', 'process.execPath + " " + process.versions.node'], {encoding: 'utf8'})
  if (r.status !== 0) return undefined
  const [bin, version] = r.stdout.trim().split(' ')
  const [a, b] = version.split('.').map(Number)
  return a < 22 || (a === 22 && b < 15) ? bin : undefined
}

const dbOf = (state: string) => path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite')

describeSqlite('SqliteSessionStore.readSince (seq marks)', () => {
  it('all events from seq 0, then none; an appended event alone; a window whose header changed is read again whole', async () => {
    const state = copyFixture(NATIVE_96)
    const store = new SqliteSessionStore({agentId: 'main', path: dbOf(state)}, {checkAgent: false})
    try {
      const s = (await store.allSessions()).find((x) => x.ended === 'current' && x.transcript.exists)!
      const read = async (mark?: TranscriptMark) => {
        const since = await store.readSince(s.transcript, mark)
        const lines: number[] = []
        for await (const l of since.lines) lines.push(l.line)
        return {since, lines, mark: since.mark()}
      }
      const all = await read()
      const readLines: number[] = []
      for await (const l of store.readLines(s.transcript)) readLines.push(l.line)
      expect(all.lines).toEqual(readLines)
      expect(all.lines[0]).toBe(0)
      expect(all.mark.seq).toBe(all.lines.at(-1)! + 1)
      const none = await read(all.mark)
      expect(none.lines).toEqual([])
      expect(none.since.unchanged).toBe(true)

      await appendTo(store, s.transcript, [{type: 'message', message: {role: 'user', content: 'one more', timestamp: 1}}])
      const one = await read(none.mark)
      expect(one.since.rewritten).toBe(false)
      expect(one.lines).toEqual([all.mark.seq])

      // A window recreated under the same id: its header event differs.
      const {DatabaseSync} = loadSqlite('test') as unknown as {DatabaseSync: new (p: string) => {prepare(s: string): {run(...a: unknown[]): unknown; get(...a: unknown[]): Record<string, unknown>}; close(): void}}
      store.close()
      const db = new DatabaseSync(dbOf(state))
      const head = db.prepare('SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = 0').get(s.sessionId)
      db.prepare('UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = 0').run(String(head.event_json).replace('"type":"session"', '"type":"session","recreated":true'), s.sessionId)
      db.close()
      const re = await read(one.mark)
      expect(re.since.rewritten).toBe(true)
      expect(re.lines[0]).toBe(0)
      expect(re.lines.length).toBe(all.lines.length + 1)
    } finally {
      store.close()
    }
  })
})

describeSqlite('clawkit sync of SQLite-era stores', () => {
  describePg('into a real PostgreSQL', () => {
    const pg = usePg()

    it('native, imported and deleted (an archive row of a deleted session) 2026.9.6 state dirs as three hosts: consistent, equal to each host, and a second sync uploads 0 rows', async () => {
      const url = pg.db()
      const c = await connectPg(url)
      clients.push(c)
      for (const [fixture, host] of [
        [NATIVE_96, 'native'],
        [IMPORTED_96, 'imported'],
        [DELETED_96, 'deleted'],
      ]) {
        const state = copyFixture(fixture)
        const env = baseEnv(tempDir())
        const r = await runCli(['sync', '--to', url, '--state-dir', state, '--host', host, '--json'], {env, timeoutMs: 60_000})
        expect(r.code, r.stderr).toBe(0)
        const doc = json(r)
        expect(doc.agents[0]).toMatchObject({era: 'sqlite'})
        expect(doc.total.events).toBeGreaterThan(0)
        expect((await checkReplica(c, host)).problems).toEqual([])
        const s = OpenClawState.open({stateDir: state, ignoreSettings: true, env: {HOME: tempDir()}})
        try {
          expect((await diffReplica(s, c, host)).differences).toEqual([])
        } finally {
          s.close()
        }
        const formats = (await c.query<{f: string; lo: number}>('SELECT DISTINCT t.format AS f, (SELECT min(seq) FROM clawkit_events e WHERE e.host = t.host) AS lo FROM clawkit_transcripts t WHERE host = $1', [host])).rows
        // A deleted session's archive row is a JSONL blob: lines from 1, marked as a file is.
        expect(formats.map((f) => f.f).sort()).toEqual(host === 'deleted' ? ['jsonl', 'sqlite'] : ['sqlite'])
        expect(formats.every((f) => Number(f.lo) === 0)).toBe(true)
        const again = await runCli(['sync', '--to', url, '--state-dir', state, '--host', host, '--json'], {env, timeoutMs: 60_000})
        expect(json(again).total).toMatchObject({events: 0, entriesUpserted: 0, transcripts: {new: 0, updated: 0, rewritten: 0}})
      }
    })

    it('a destructive rewrite of a SQLite transcript that keeps its header and last seq (only the watermark rotated) is re-synced, not skipped', async () => {
      const url = pg.db()
      const c = await connectPg(url)
      clients.push(c)
      const state = copyFixture(NATIVE_96)
      const env = baseEnv(tempDir())
      const sync = () => runCli(['sync', '--to', url, '--state-dir', state, '--host', 'wm', '--json'], {env, timeoutMs: 60_000})
      expect((await sync()).code).toBe(0)
      const sessionId = 'c0ffee00-0000-4000-8000-000000000096'
      const {DatabaseSync} = loadSqlite('test') as unknown as {DatabaseSync: new (p: string) => {prepare(s: string): {run(...a: unknown[]): unknown; get(...a: unknown[]): Record<string, unknown>}; close(): void}}
      const db = new DatabaseSync(dbOf(state))
      // As OpenClaw's rewrite leaves it: an event's text changed under the same seq, the header and max(seq) kept, and
      // the watermark rotated.
      const ev = db.prepare("SELECT seq, event_json FROM transcript_events WHERE session_id = ? AND seq > 0 AND event_json LIKE '%\"type\":\"message\"%' ORDER BY seq LIMIT 1").get(sessionId)
      const edited = String(ev.event_json).replace('"type":"message"', '"rewritten":true,"type":"message"')
      db.prepare('UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = ?').run(edited, sessionId, ev.seq)
      db.prepare("UPDATE transcript_rewrite_watermarks SET generation = '0123456789abcdef0123456789abcdef' WHERE session_id = ?").run(sessionId)
      db.close()
      const r = await sync()
      expect(r.code, r.stderr).toBe(0)
      expect(json(r).total.transcripts).toMatchObject({rewritten: 1})
      const raw = (await c.query<{raw: string}>("SELECT raw FROM clawkit_events WHERE host = 'wm' AND session_id = $1 AND seq = $2", [sessionId, Number(ev.seq)])).rows[0].raw
      expect(raw).toBe(edited)
      expect((await checkReplica(c, 'wm')).problems).toEqual([])
      expect(json(await sync()).total.transcripts).toMatchObject({rewritten: 0, updated: 0})
    })

    it('a mixed host first synced on Node 20 (SQLite agent skipped, exit 6) then on Node 24: the skipped agent is uploaded whole, the other one untouched', async () => {
      const url = pg.db()
      const c = await connectPg(url)
      clients.push(c)
      const state = mixedEraState()
      const env = baseEnv(tempDir())
      const old = nodeWithoutSqlite()
      // Without an old Node here, `--agent work` leaves the replica exactly as the partial sync does (work only).
      const first = old
        ? await runProcess<SyncResult>(old, [BIN, 'sync', '--to', url, '--state-dir', state, '--host', 'mx', '--json'], {env, timeoutMs: 60_000})
        : await runCli(['sync', '--to', url, '--state-dir', state, '--host', 'mx', '--agent', 'work', '--json'], {env, timeoutMs: 60_000})
      expect(first.code, first.stderr).toBe(old ? 6 : 0)
      if (old) expect(json<SyncResult>(first).skipped.map((s) => s.agentId)).toEqual(['main'])
      expect((await c.query<{a: string}>("SELECT agent_id AS a FROM clawkit_agents WHERE host = 'mx'")).rows.map((x) => x.a)).toEqual(['work'])
      const r = await runCli(['sync', '--to', url, '--state-dir', state, '--host', 'mx', '--json'], {env, timeoutMs: 60_000})
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toBe('')
      const doc = json(r)
      expect(doc.skipped).toEqual([])
      expect(doc.agents.find((a) => a.agentId === 'main')).toMatchObject({era: 'sqlite', transcripts: {updated: 0, rewritten: 0, unchanged: 0}})
      expect(doc.agents.find((a) => a.agentId === 'main')!.transcripts.new).toBeGreaterThan(0)
      expect(doc.agents.find((a) => a.agentId === 'work')).toMatchObject({era: 'json', events: 0, entriesUpserted: 0})
      expect((await checkReplica(c, 'mx')).problems).toEqual([])
      const st = OpenClawState.open({stateDir: state, ignoreSettings: true, env: {HOME: tempDir()}})
      try {
        expect((await diffReplica(st, c, 'mx')).differences).toEqual([])
      } finally {
        st.close()
      }
    })

    it('a SQLite index larger than one page of entries (600 keys, pages of 256) is uploaded in small batches: every entry once, equal to the host', async () => {
      const url = pg.db()
      const c = await connectPg(url)
      clients.push(c)
      const state = path.join(tempDir(), 'sq')
      const gen = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'gen-sqlite-store.js'), '--out', state, '--sessions', '600', '--big-events', '19'], {encoding: 'utf8'})
      expect(gen.status, gen.stderr).toBe(0)
      const env = baseEnv(tempDir(), {CLAWKIT_SYNC_BATCH_ROWS: '7'})
      const r = await runCli(['sync', '--to', url, '--state-dir', state, '--host', 'pages', '--json'], {env, timeoutMs: 120_000})
      expect(r.code, r.stderr).toBe(0)
      expect(json(r).agents[0]).toMatchObject({era: 'sqlite', entriesUpserted: 600, entriesUnchanged: 0})
      expect(Number((await c.query<{n: number}>("SELECT count(*)::int AS n FROM clawkit_entries WHERE host = 'pages'")).rows[0].n)).toBe(600)
      const st = OpenClawState.open({stateDir: state, ignoreSettings: true, env: {HOME: tempDir()}})
      try {
        expect((await diffReplica(st, c, 'pages')).differences).toEqual([])
      } finally {
        st.close()
      }
      const again = await runCli(['sync', '--to', url, '--state-dir', state, '--host', 'pages', '--json'], {env, timeoutMs: 120_000})
      expect(json(again).agents[0]).toMatchObject({entriesUpserted: 0, entriesUnchanged: 600, events: 0})
    })

    it('after a real `agent -m` turn on the SQLite store, the next sync uploads exactly the new events (seq order, no rewrite)', async () => {
      const url = pg.db()
      const c = await connectPg(url)
      clients.push(c)
      const state = sqliteState(NATIVE_96)
      const env = baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key'})
      const run = (args: string[]) => runCli([...args, '--state-dir', state], {env, timeoutMs: 60_000})
      expect((await run(['sync', '--to', url, '--host', 'sq', '--json'])).code).toBe(0)
      const key = 'agent:main:explicit:c0ffee00-0000-4000-8000-000000000096'
      const sessionId = (await c.query<{s: string}>("SELECT session_id AS s FROM clawkit_entries WHERE host = 'sq' AND session_key = $1", [key])).rows[0].s
      const before = Number((await c.query<{m: number}>("SELECT synced_seq AS m FROM clawkit_transcripts WHERE host = 'sq' AND session_id = $1", [sessionId])).rows[0].m)
      const turn = await run(['agent', '-m', 'one more', '--session-id', sessionId, '--json'])
      expect(turn.code, turn.stderr).toBe(0)
      const store = new SqliteSessionStore({agentId: 'main', path: dbOf(state)}, {checkAgent: false})
      let after: number
      try {
        const s = (await store.allSessions()).find((x) => x.sessionId === sessionId)!
        const since = await store.readSince(s.transcript)
        for await (const _ of since.lines) void _
        after = since.mark().seq
      } finally {
        store.close()
      }
      expect(after).toBeGreaterThan(before)
      const r = await run(['sync', '--to', url, '--host', 'sq', '--json'])
      expect(r.code, r.stderr).toBe(0)
      expect(json<SyncResult>(r).total).toMatchObject({events: after - before, transcripts: {rewritten: 0, updated: 1}})
      expect((await checkReplica(c, 'sq')).problems).toEqual([])
      const st = OpenClawState.open({stateDir: state, ignoreSettings: true, env: {HOME: tempDir()}})
      try {
        expect((await diffReplica(st, c, 'sq')).differences).toEqual([])
      } finally {
        st.close()
      }
    })
  })
})
