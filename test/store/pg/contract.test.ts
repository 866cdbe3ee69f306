// The SessionStore contract's read cases on the fleet replica (PgSessionStore), against a real PostgreSQL seeded from
// the same fixture the file backend reads: every read answers what the host's own store answers (locators aside:
// `pg:<host>/<agent>#<sessionId>` instead of a path), and every write refuses with E_REPLICA_READ_ONLY.
import fs from 'node:fs'
import path from 'node:path'

import {afterAll, beforeAll, expect, it} from 'vitest'

import {FleetState} from '../../../src/fleet/state.js'
import {FileSessionStore} from '../../../src/store/file/store.js'
import {pgLocator, PgSessionStore} from '../../../src/store/pg/store.js'
import type {TranscriptEntry} from '../../../src/store/transcript-types.js'
import type {KeySession, SessionReader, SessionStore, TranscriptLine} from '../../../src/store/types.js'
import {COMPACTION, copyFixture, sessionsJsonPath} from '../../support/cli.js'
import {seedHost} from '../../support/fleet-seed.js'
import {describePg, usePg} from '../../support/postgres.js'
import {transcriptLines} from '../../support/state-files.js'
import {describeReadContract} from '../../support/store-contract.js'
import {appendTo} from '../../../src/store/append.js'
import {SEARCH_TEXT_VERSION} from '../../../src/sessions/search-text.js'

const MAIN = 'agent:main:main'
const EXPLICIT = 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001'
const MAIN_ID = 'f1ea83b9-e3d9-43c8-b4e4-5d101bf3ee2f'
const isMessage = (e: TranscriptEntry) => e.type === 'message'

async function lines(store: SessionReader, t: KeySession['transcript']): Promise<Omit<TranscriptLine, never>[]> {
  const out: TranscriptLine[] = []
  for await (const l of store.readLines(t)) out.push(l)
  return out
}

/** A session as both backends must agree on it: everything but the transcript's locator and how it was resolved. */
const comparable = (s: Omit<KeySession, 'foundBy'> & {foundBy: string; key?: string | null}) => ({sessionId: s.sessionId, where: s.where, ended: s.ended, endedAt: s.endedAt, foundBy: s.foundBy, exists: s.transcript.exists, ...('key' in s ? {key: s.key} : {})})

describePg('SessionStore contract, read side: the fleet replica (PostgreSQL)', () => {
  const pg = usePg()
  let file: FileSessionStore
  let fleet: FleetState
  let store: PgSessionStore
  /** Host h2's transcripts as its own files hold them, by session id. */
  const plainLines = new Map<string, object[]>()

  describeReadContract('the fleet replica (PostgreSQL), a host synced as the fixture left it', () => ({
    store: fleet.store('main', 'h2'),
    main: {key: MAIN, sessionId: MAIN_ID},
    other: {key: EXPLICIT, sessionId: '0a1b2c3d-0000-4000-8000-000000000001'},
    linesOf: (t) => plainLines.get(t.locator.slice(t.locator.lastIndexOf('#') + 1)),
    word: 'bootstrap',
    missingReads: 'fail',
  }))

  beforeAll(async () => {
    // The host's store after what the write cases of contract.test.ts do: two resets (archives), a delivered message
    // with an idempotency key, and a deleted key's archive with its sidecar.
    const state = copyFixture(COMPACTION)
    const json = sessionsJsonPath(state)
    file = new FileSessionStore({agentId: 'main', path: json})
    await file.reset(MAIN, {now: new Date('2026-12-01T10:00:00.000Z'), cwd: '/w'})
    const mid = file.transcriptOf((await file.findEntry(MAIN))!.entry, MAIN)
    await appendTo(file, mid, [{type: 'message', message: {role: 'user', content: 'between the resets', timestamp: 1}}])
    await file.reset(MAIN, {now: new Date('2026-12-02T10:00:00.000Z'), cwd: '/w'})
    const explicit = file.transcriptOf((await file.findEntry(EXPLICIT))!.entry, EXPLICIT)
    await appendTo(file, explicit, [{type: 'message', message: {role: 'assistant', content: [{type: 'text', text: 'sent'}], idempotencyKey: 'k-1', openclawMessageMeta: {channel: 'slack'}}}])
    // A key deleted by OpenClaw (its `.deleted.` archive and trajectory sidecar), and one deleted without a sidecar.
    const dir = path.dirname(json)
    const header = (id: string) => ({type: 'session', version: 3, id, timestamp: '2026-11-01T09:00:00.000Z', cwd: '/w'})
    const call = {type: 'message', id: 'm1', parentId: null, timestamp: '2026-11-01T09:00:01.000Z', message: {role: 'assistant', content: [{type: 'text', text: 'x'}]}}
    const put = (name: string, rows: object[]) => fs.writeFileSync(path.join(dir, name), rows.map((l) => `${JSON.stringify(l)}\n`).join(''), {mode: 0o600})
    put('gone-1.jsonl.deleted.2026-11-02T10-00-00.000Z', [header('gone-1'), call])
    put('gone-1.trajectory.jsonl', [{type: 'trajectory', sessionKey: 'agent:main:telegram:direct:42', sessionId: 'gone-1'}])
    put('lost-1.jsonl.deleted.2026-11-03T10-00-00.000Z', [header('lost-1'), call])
    // Blank lines between entries (a hand edit, an old writer): stored on the replica, read past as the host does.
    fs.writeFileSync(path.join(dir, 'blank-1.jsonl.deleted.2026-11-04T10-00-00.000Z'), `${JSON.stringify({...header('blank-1'), timestamp: '2026-11-04T09:00:00.000Z'})}\n\n  \n${JSON.stringify(call)}\n`, {mode: 0o600})
    // A usage figure past 2^53: counted as 0 tokens, never a failed sync.
    put('huge-1.jsonl.deleted.2026-11-05T10-00-00.000Z', [{...header('huge-1'), timestamp: '2026-11-05T09:00:00.000Z'}, {...call, message: {...call.message, usage: {input: 1e20, output: 5, totalTokens: 1e25}}}])
    const url = pg.db()
    await seedHost(url, {host: 'h1', stateDir: state})
    // A second host as the fixture left it, for the shared read cases (test/support/store-contract.ts).
    const plain = copyFixture(COMPACTION)
    await seedHost(url, {host: 'h2', stateDir: plain})
    const plainFile = new FileSessionStore({agentId: 'main', path: sessionsJsonPath(plain)})
    for (const s of await plainFile.allSessions()) plainLines.set(s.sessionId, transcriptLines(s.transcript.locator))
    fleet = await FleetState.open(url)
    store = fleet.store('main', 'h1')
    expect([fleet.hosts.map((h) => h.host), fleet.allAgentIds(), fleet.allAgentIds('h1')]).toEqual([['h1', 'h2'], ['main'], ['main']])
  }, 120_000)
  afterAll(async () => fleet?.close())

  it('reads the index and one entry as the host does, a key spelled in mixed case included; index order is by key', async () => {
    const data = await store.read()
    expect({...data}).toEqual({...(await file.read())})
    expect(Object.keys(data)).toEqual([EXPLICIT, MAIN])
    expect(await store.findEntry('AGENT:Main:MAIN')).toEqual(await file.findEntry('AGENT:Main:MAIN'))
    expect(await store.findEntry('agent:main:nope')).toBeUndefined()
    const rows = await store.readRows((key, e) => `${key}=${e.sessionId}`, {omit: ['skillsSnapshot']})
    expect(new Map([...rows].sort())).toEqual(new Map([...(await file.readRows((key, e) => `${key}=${e.sessionId}`))].sort()))
    expect([...(await store.readRows((_k, e) => 'skillsSnapshot' in e, {omit: ['skillsSnapshot']})).values()]).not.toContain(true)
  })

  it('resolves a transcript to its replica locator; exists only when synced; a bad id is refused', async () => {
    const entry = (await store.findEntry(MAIN))!.entry
    expect(store.transcriptOf(entry, MAIN)).toMatchObject({locator: pgLocator('h1', 'main', entry.sessionId), exists: true})
    await store.read()
    expect(store.transcriptOf({sessionId: 'fresh-id'}, 'agent:main:x')).toMatchObject({locator: 'pg:h1/main#fresh-id', exists: false})
    expect(() => store.transcriptOf({sessionId: '../escape'}, 'agent:main:x')).toThrow(expect.objectContaining({code: 'E_BAD_SESSION_ID'}))
  })

  it('tails with --limit semantics exactly as the host: same entries, raw lines, header and partial', async () => {
    for (const key of [MAIN, EXPLICIT]) {
      const mine = store.transcriptOf((await store.findEntry(key))!.entry, key)
      const theirs = file.transcriptOf((await file.findEntry(key))!.entry, key)
      for (const opts of [{limit: 1}, {limit: 2, exactPartial: true}, {limit: 10_000, exactPartial: true}]) {
        const a = await store.tail(mine, {...opts, count: isMessage})
        const b = await file.tail(theirs, {...opts, count: isMessage})
        expect({entries: a?.entries, raw: a?.rawLines, header: a?.header, partial: a?.partial, bad: a?.badLines}).toEqual({entries: b?.entries, raw: b?.rawLines, header: b?.header, partial: b?.partial, bad: b?.badLines})
      }
    }
    // The window of a tail never reads the whole transcript: it asks for pages from the end (tested by the bench).
    expect(await store.tail(store.transcriptOf({sessionId: 'no-such'}), {limit: 5})).toBeUndefined()
  })

  it('a tail of a 20 000-event transcript fetches a few pages from its end, never the whole transcript', async () => {
    const url = pg.cluster.url(new URL(fleet.url).pathname.slice(1))
    const {connectPg} = await import('../../../src/fleet/pg.js')
    const c = await connectPg(url)
    try {
      // A host of its own, so that the other cases' host keeps exactly the fixture's transcripts.
      await c.query("INSERT INTO clawkit_hosts (host) VALUES ('h9')")
      await c.query("INSERT INTO clawkit_agents (host, agent_id, era, store_path) VALUES ('h9', 'main', 'json', '/x')")
      await c.query(`INSERT INTO clawkit_transcripts (host, agent_id, session_id, locator, "where", ended, found_by, format) VALUES ('h9', 'main', 'long-1', '/x/long-1.jsonl', 'orphan', 'orphaned', 'none', 'jsonl')`)
      await c.query(`INSERT INTO clawkit_events (host, agent_id, session_id, seq, raw, entry_type) VALUES ('h9', 'main', 'long-1', 1, '{"type":"session","version":3,"id":"long-1","timestamp":"2026-11-01T00:00:00.000Z","cwd":"/w"}', 'session')`)
      await c.query(`INSERT INTO clawkit_events (host, agent_id, session_id, seq, raw, entry_type) SELECT 'h9', 'main', 'long-1', i,
        json_build_object('type', 'message', 'id', 'e' || i, 'parentId', 'e' || (i - 1), 'timestamp', '2026-11-01T00:00:01.000Z', 'message', json_build_object('role', 'user', 'content', 'n' || i))::text, 'message' FROM generate_series(2, 20001) i`)
    } finally {
      await c.end()
    }
    let fetched = 0
    const {PgSessionStore} = await import('../../../src/store/pg/store.js')
    const counting = new PgSessionStore(async (text, values) => {
      const rows = await fleet.query(text, values)
      fetched += rows.length
      return rows as never
    }, {host: 'h9', agentId: 'main', storePath: '/x', era: 'json'})
    const t = (await counting.allSessions()).find((s) => s.sessionId === 'long-1')!.transcript
    fetched = 0
    const tail = await counting.tail(t, {limit: 3, count: isMessage, exactPartial: true})
    expect(tail?.entries.map((e) => e.id)).toEqual(['e19999', 'e20000', 'e20001'])
    expect(tail?.partial).toBe(true)
    expect(fetched).toBeLessThan(100)
  })

  it('lineage and allSessions: the same sessions, in the same order, as the host after two resets', async () => {
    expect((await store.sessionsOf(MAIN)).map(comparable)).toEqual((await file.sessionsOf(MAIN)).map(comparable))
    expect((await store.sessionsOf(MAIN)).map((s) => s.where)).toEqual(['reset-archive', 'reset-archive', 'live'])
    expect((await store.sessionsOf(EXPLICIT)).map(comparable)).toEqual((await file.sessionsOf(EXPLICIT)).map(comparable))
    expect(await store.sessionsOf('agent:main:nope')).toEqual([])
    const byKey = (a: {key: string | null}, b: {key: string | null}) => String(a.key).localeCompare(String(b.key))
    expect((await store.allSessions()).map(comparable)).toEqual([...(await file.allSessions())].sort(byKey).map(comparable))
    // The deleted keys' archives come last, unclaimed: one under the key its sidecar names, one under none.
    expect((await store.allSessions()).slice(-4).map((s) => [s.key, s.sessionId, s.where, s.foundBy])).toEqual([
      ['agent:main:telegram:direct:42', 'gone-1', 'deleted-archive', 'trajectory'],
      [null, 'lost-1', 'deleted-archive', 'none'],
      [null, 'blank-1', 'deleted-archive', 'none'],
      [null, 'huge-1', 'deleted-archive', 'none'],
    ])
  })

  it('streams every transcript line by line with the raw text as stored, the same lines as the host', async () => {
    const theirs = await file.allSessions()
    for (const [i, s] of (await store.allSessions()).entries()) {
      const other = theirs.find((x) => x.sessionId === s.sessionId && x.where === s.where)!
      expect(await lines(store, s.transcript), `${i}`).toEqual(await lines(file, other.transcript))
    }
    await expect(lines(store, store.transcriptOf({sessionId: 'no-such'}))).rejects.toMatchObject({code: 'E_ENOENT'})
  })

  it('grepLines: the same lines as the host for a needle, case-folded or not (LIKE wildcards in the needle taken literally)', async () => {
    const grep = async (st: SessionReader, t: KeySession['transcript'], needles: string[], ignoreCase: boolean) => {
      const out: number[] = []
      for await (const l of st.grepLines(t, {needles, ignoreCase})) out.push(l.line)
      return out
    }
    const theirs = await file.allSessions()
    let hits = 0
    for (const s of await store.allSessions()) {
      const other = theirs.find((x) => x.sessionId === s.sessionId && x.where === s.where)!
      for (const [needles, ignoreCase] of [[['"usage"'], false], [['BETWEEN the'], true], [['between the'], false], [['100%_x'], true]] as const) {
        const got = await grep(store, s.transcript, [...needles], ignoreCase)
        expect(got, `${s.sessionId} ${needles}`).toEqual(await grep(file, other.transcript, [...needles], ignoreCase))
        hits += got.length
      }
    }
    expect(hits).toBeGreaterThan(0)
  })

  it('contentCandidates: the lines whose searched text holds the literal, in one query; over the cap only the sessions', async () => {
    const filter = {needles: ['between the'], ignoreCase: true}
    const got = await store.contentCandidates(filter, SEARCH_TEXT_VERSION)
    expect(got?.lines).toBeDefined()
    const expected: Record<string, number[]> = {}
    for (const s of await file.allSessions()) {
      for await (const l of file.readLines(s.transcript)) if (l.value && /between the/i.test(JSON.stringify(l.value))) (expected[s.sessionId] ??= []).push(l.line)
    }
    expect(Object.fromEntries([...got!.lines!].map(([id, ls]) => [id, ls.map((l) => l.line)]))).toEqual(expected)
    expect([...got!.sessions].sort()).toEqual(Object.keys(expected).sort())
    const capped = new PgSessionStore(fleet.query, {host: 'h1', agentId: 'main', storePath: 'x', era: 'json', searchIndex: 'pg_trgm', contentLinesCap: 0})
    const few = await capped.contentCandidates(filter, SEARCH_TEXT_VERSION)
    expect(few?.lines).toBeUndefined()
    expect([...few!.sessions].sort()).toEqual(Object.keys(expected).sort())
    // Two characters: the trigram index cannot answer, so there is no narrowing at all.
    expect(await store.contentCandidates({needles: ['be'], ignoreCase: true}, SEARCH_TEXT_VERSION)).toBeUndefined()
    // A reader of another search-text version may rule nothing out by this text: every transcript, none with lines.
    const other = await store.contentCandidates(filter, SEARCH_TEXT_VERSION + 1)
    expect(other?.lines?.size ?? 0).toBe(0)
    expect([...other!.sessions].sort()).toEqual((await file.allSessions()).map((s) => s.sessionId).sort())
  })

  it('finds a message by its idempotency key; none for another key or a missing transcript', async () => {
    const t = store.transcriptOf((await store.findEntry(EXPLICIT))!.entry, EXPLICIT)
    const hit = await store.findIdempotencyKey(t, 'k-1')
    expect(hit).toEqual(await file.findIdempotencyKey(file.transcriptOf((await file.findEntry(EXPLICIT))!.entry, EXPLICIT), 'k-1'))
    expect(hit).toMatchObject({meta: {channel: 'slack'}})
    expect(await store.findIdempotencyKey(t, 'k-2')).toBeUndefined()
    expect(await store.findIdempotencyKey(store.transcriptOf({sessionId: 'no-such'}), 'k-1')).toBeUndefined()
  })

  it('has no writes: handing the replica to a writer is a type error, and no write exists to call at run time', () => {
    // @ts-expect-error a PgSessionStore is a SessionReader only, so a writer's SessionStore parameter refuses it
    const asWriter: SessionStore = store
    for (const write of ['update', 'withTranscript', 'newSessionFile', 'planReset', 'reset'] as const) expect(asWriter[write], write).toBeUndefined()
  })
})
