// The contract on the JSON layout and its twin: the shared suite (test/support/store-contract.ts, which SQLite and the
// replica run too) on OpenClaw's file layout (a copy of a real 2026.4.27 state dir) and on the in-memory twin seeded with
// the same rows and transcripts, then what the JSON layout promises beyond it: file names, relocated sessionFiles,
// `.reset.`/`.deleted.` archives found by what they hold, stats of a shared index, a rewrite read again whole. A case
// that only one of the two passes means the interface (src/store/types.ts) lets the features depend on something a
// backend does not promise.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {FileSessionStore} from '../../src/store/file/store.js'
import {archiveTimestamp} from '../../src/store/fs-util.js'
import {MemorySessionStore} from '../../src/store/file/memory-store.js'
import {isTranscriptFileName} from '../../src/store/file/transcript.js'
import type {SessionStore} from '../../src/store/types.js'
import {COMPACTION, copyFixture, FIXTURES, sessionsJsonPath} from '../support/cli.js'
import {transcriptLines} from '../support/state-files.js'
import {describeContract} from '../support/store-contract.js'
import {storeDataFrom} from '../../src/store/index-data.js'
import {appendTo} from '../../src/store/append.js'

const MAIN = 'agent:main:main'
const EXPLICIT = 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001'
const MAIN_ID = 'f1ea83b9-e3d9-43c8-b4e4-5d101bf3ee2f'
const FIXTURE_DIR = path.join(FIXTURES, COMPACTION, 'agents', 'main', 'sessions')

interface Backend {
  store: SessionStore
  /** The locator of a transcript of this name in the store. */
  locatorOf(name: string): string
  /** The lines stored under a locator (archives included), or undefined when there is nothing there. */
  linesAt(locator: string): object[] | undefined
  /** Leave lines under a name as OpenClaw would (a `.deleted.` archive, a trajectory sidecar). */
  put(name: string, lines: readonly object[]): void
}

const fixtureLines = (name: string): Record<string, unknown>[] => transcriptLines(path.join(FIXTURE_DIR, name))

const BACKENDS: [string, () => Backend][] = [
  [
    'file (OpenClaw JSON layout)',
    () => {
      const dir = path.dirname(sessionsJsonPath(copyFixture(COMPACTION)))
      const store = new FileSessionStore({agentId: 'main', path: path.join(dir, 'sessions.json')})
      const linesAt = (locator: string) => {
        if (!fs.existsSync(locator)) return undefined
        return fs.readFileSync(locator, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as object)
      }
      const put = (name: string, lines: readonly object[]) => fs.writeFileSync(path.join(dir, name), lines.map((l) => `${JSON.stringify(l)}\n`).join(''), {mode: 0o600})
      return {store, locatorOf: (name) => path.join(dir, name), linesAt, put}
    },
  ],
  [
    'memory',
    () => {
      const transcripts: Record<string, object[]> = {}
      const store0 = new MemorySessionStore('main')
      for (const name of fs.readdirSync(FIXTURE_DIR)) if (isTranscriptFileName(name)) transcripts[store0.locatorOf(name)] = fixtureLines(name)
      const index = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'sessions.json'), 'utf8'))
      const store = new MemorySessionStore('main', {index, transcripts})
      return {store, locatorOf: (name) => store.locatorOf(name), linesAt: (locator) => store.lines(locator), put: (name, lines) => store.put(store.locatorOf(name), lines)}
    },
  ],
]

for (const [name, make] of BACKENDS) {
  describeContract(name, () => {
    const {store, linesAt} = make()
    return {store, main: {key: MAIN, sessionId: MAIN_ID}, other: {key: EXPLICIT, sessionId: '0a1b2c3d-0000-4000-8000-000000000001'}, linesOf: (t) => linesAt(t.locator), word: 'bootstrap', missingReads: 'fail'}
  })
}

describe.each(BACKENDS)('JSON layout contract: %s', (_name, make) => {
  it('stats: the sessions, the newest update and the newest rows; global, unknown and non-object rows are not sessions; a shared store counts one agent\'s keys; an index in hand is counted, not read again', async () => {
    const {store} = make()
    const data = await store.read()
    const newestAt = Math.max(...Object.values(data).map((e) => e.updatedAt as number))
    const newestKey = Object.keys(data).find((k) => data[k]!.updatedAt === newestAt)!
    const st = await store.stats({newest: 1})
    expect(st).toMatchObject({sessions: 2, lastUpdatedAt: newestAt, events: null})
    expect(st.newest.map((h) => h.storedKey)).toEqual([newestKey])
    expect((await store.stats()).newest).toEqual([])
    await store.update((d) => {
      d.global = {sessionId: 'g', updatedAt: newestAt + 5}
      d.unknown = {sessionId: 'u', updatedAt: newestAt + 5}
      ;(d as Record<string, unknown>)['agent:main:broken'] = 'not an object'
      d['agent:work:y'] = {sessionId: 'y', updatedAt: newestAt + 1}
    })
    const all = await store.stats({newest: 10})
    expect(all).toMatchObject({sessions: 3, lastUpdatedAt: newestAt + 1})
    expect(all.newest.map((h) => h.storedKey)).toEqual(['agent:work:y', newestKey, ...Object.keys(data).filter((k) => k !== newestKey)])
    expect(await store.stats({ofAgent: 'main'})).toMatchObject({sessions: 2, lastUpdatedAt: newestAt})
    const work = await store.stats({ofAgent: 'work', newest: 5})
    expect(work).toMatchObject({sessions: 1, lastUpdatedAt: newestAt + 1})
    expect(work.newest.map((h) => h.storedKey)).toEqual(['agent:work:y'])
    // The index as a caller read it earlier (status reuses doctor's scan): what it holds is counted, not the store.
    const given = await store.stats({newest: 1, index: storeDataFrom({'agent:main:z': {sessionId: 'z', updatedAt: 7}})})
    expect(given).toMatchObject({sessions: 1, lastUpdatedAt: 7})
    expect(given.newest.map((h) => h.storedKey)).toEqual(['agent:main:z'])
    // keys: every stored key (what history may match, non-sessions too), only when asked.
    expect((await store.stats({keys: true})).keys?.sort()).toEqual(Object.keys(await store.read()).sort())
    expect((await store.stats()).keys).toBeUndefined()
  })

  it('a key stored in mixed case stays so and is found by its lowercase form', async () => {
    const {store} = make()
    await store.update((data) => void (data['Agent:Main:Mixed'] = {sessionId: 'mixed-1', updatedAt: 5, label: 'kept'}))
    expect(await store.findEntry('agent:main:mixed')).toEqual({storedKey: 'Agent:Main:Mixed', entry: {sessionId: 'mixed-1', updatedAt: 5, label: 'kept'}})
  })

  it('findBySessionId: two keys sharing one session (a cron job and its run), newest first', async () => {
    const {store} = make()
    await store.update((data) => {
      data['agent:main:cron:nightly'] = {sessionId: 'shared-1', updatedAt: 10}
      data['agent:main:cron:nightly:run:1'] = {sessionId: 'shared-1', updatedAt: 20}
    })
    expect((await store.findBySessionId('shared-1')).map((h) => h.storedKey)).toEqual(['agent:main:cron:nightly:run:1', 'agent:main:cron:nightly'])
  })

  it('resolves a transcript: a moved sessionFile to the local file, else derived from sessionId; a bad id is refused', async () => {
    const {store, locatorOf} = make()
    const entry = (await store.findEntry(MAIN))!.entry
    expect(store.transcriptOf(entry, MAIN)).toMatchObject({locator: locatorOf(`${MAIN_ID}.jsonl`), location: 'relocated', exists: true})
    expect(store.transcriptOf({sessionId: 'fresh-id'}, 'agent:main:x')).toEqual({locator: locatorOf('fresh-id.jsonl'), location: 'derived', exists: false})
    expect(store.newSessionFile('fresh-id', 'agent:main:telegram:group:-100:topic:7')).toBe(locatorOf('fresh-id-topic-7.jsonl'))
    expect(() => store.transcriptOf({sessionId: '../escape'}, 'agent:main:x')).toThrow(expect.objectContaining({code: 'E_BAD_SESSION_ID'}))
  })

  it('appends with OpenClaw ids and parent chain: a new transcript starts with the header, later appends chain onto the leaf', async () => {
    const {store, linesAt} = make()
    const t = store.transcriptOf({sessionId: 'new-session'}, 'agent:main:new')
    await expect(appendTo(store, t, [{type: 'custom', customType: 'x', data: {}}])).rejects.toThrow(/header/)
    const header = {type: 'session' as const, version: 3, id: 'new-session', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w'}
    const first = await appendTo(store, t, [{type: 'message', message: {role: 'user', content: 'hi', timestamp: 1}}, {type: 'custom', customType: 'x', data: {a: 1}}], {header})
    expect(first.created).toBe(true)
    expect(first.entries[0].id).toMatch(/^[0-9a-f]{8}$/)
    expect(first.entries[0].parentId).toBeNull()
    expect(first.entries[1].parentId).toBe(first.entries[0].id)
    // pi's literal field order for custom entries.
    expect(Object.keys(first.entries[1])).toEqual(['type', 'customType', 'data', 'id', 'parentId', 'timestamp'])
    const second = await store.withTranscript(t, (tx) => tx.append([{type: 'message', message: {role: 'assistant', content: [], timestamp: 2}}]))
    expect(second.created).toBe(false)
    expect(second.entries[0].parentId).toBe(first.entries[1].id)
    // Lines chained by the caller (a turn keeps its own leaf) are written as given, after the last.
    const own = {type: 'message', id: 'abcdef01', parentId: second.entries[0].id, timestamp: '2026-01-01T00:00:01.000Z', message: {role: 'user', content: 'again', timestamp: 3}}
    await store.withTranscript(t, (tx) => tx.write([own]))
    const lines = linesAt(t.locator)!
    expect(lines[0]).toEqual(header)
    expect(lines.slice(1).map((l) => (l as {id: string}).id)).toEqual([first.entries[0].id, first.entries[1].id, second.entries[0].id, 'abcdef01'])
    const ctx = await store.withTranscript(t, (tx) => tx.readContext())
    expect(ctx?.path.map((e) => e.id)).toEqual([first.entries[0].id, first.entries[1].id, second.entries[0].id, 'abcdef01'])
  })

  it('plans and runs a reset: new id, header-only transcript, old one archived and reachable, counters cleared, metadata kept', async () => {
    const {store, locatorOf, linesAt} = make()
    const before = (await store.findEntry(MAIN))!.entry
    const old = locatorOf(`${MAIN_ID}.jsonl`)
    const oldLines = linesAt(old)!
    const now = new Date('2026-12-01T10:00:00.000Z')
    const plan = await store.planReset(MAIN, now)
    expect(plan).toEqual({
      key: MAIN,
      previousSessionId: MAIN_ID,
      transcript: old,
      archivedTranscript: `${old}.reset.${archiveTimestamp(now)}`,
      clearedFields: ['cacheRead', 'cacheWrite', 'estimatedCostUsd', 'lastInteractionAt', 'compactionCheckpoints', 'inputTokens', 'outputTokens', 'totalTokens'],
    })
    // A plan changes nothing.
    expect((await store.findEntry(MAIN))!.entry).toEqual(before)

    const done = await store.reset(MAIN, {now, cwd: '/work'})
    expect(done.previousSessionId).toBe(MAIN_ID)
    expect(done.sessionId).not.toBe(MAIN_ID)
    expect(done.sessionFile).toBe(locatorOf(`${done.sessionId}.jsonl`))
    expect(done.archivedTranscript).toBe(plan.archivedTranscript)
    expect(linesAt(done.archivedTranscript!)).toEqual(oldLines)
    expect(linesAt(old)).toBeUndefined()
    expect(linesAt(done.sessionFile)).toEqual([{type: 'session', version: 3, id: done.sessionId, timestamp: now.toISOString(), cwd: '/work'}])

    const after = (await store.findEntry(MAIN))!.entry
    expect(after).toMatchObject({sessionId: done.sessionId, sessionFile: done.sessionFile, inputTokens: 0, outputTokens: 0, totalTokens: 0, totalTokensFresh: true, compactionCount: 0, systemSent: false, abortedLastRun: false})
    for (const f of ['cacheRead', 'cacheWrite', 'estimatedCostUsd', 'lastInteractionAt', 'compactionCheckpoints']) expect(after).not.toHaveProperty(f)
    for (const f of ['model', 'modelProvider', 'contextTokens', 'skillsSnapshot', 'systemPromptReport', 'agentHarnessId']) expect(after[f]).toEqual(before[f])
    expect(after.updatedAt).toBe(Math.max(now.getTime(), before.updatedAt))
    expect(after.sessionStartedAt).toBe(now.getTime())
    // The new transcript is the one the row now points at, and it holds no entries yet.
    const t = store.transcriptOf(after, MAIN)
    expect(t.locator).toBe(done.sessionFile)
    expect((await store.tail(t, {limit: 5}))?.entries).toEqual([])
  })

  it('lineage: a key reset twice has three sessions, oldest first, the archives found by what they hold; another key keeps only its own', async () => {
    const {store, linesAt} = make()
    const first = await store.reset(MAIN, {now: new Date('2026-12-01T10:00:00.000Z'), cwd: '/w'})
    const mid = store.transcriptOf((await store.findEntry(MAIN))!.entry, MAIN)
    await appendTo(store, mid, [{type: 'message', message: {role: 'user', content: 'between the resets', timestamp: 1}}])
    const second = await store.reset(MAIN, {now: new Date('2026-12-02T10:00:00.000Z'), cwd: '/w'})
    const lineage = await store.sessionsOf(MAIN)
    expect(lineage.map((s) => [s.sessionId, s.where, s.ended])).toEqual([
      [MAIN_ID, 'reset-archive', 'reset'],
      [first.sessionId, 'reset-archive', 'reset'],
      [second.sessionId, 'live', 'current'],
    ])
    expect(lineage.map((s) => s.transcript.locator)).toEqual([first.archivedTranscript, second.archivedTranscript, second.sessionFile])
    expect(lineage[0].endedAt).toBe('2026-12-01T10:00:00.000Z')
    // Each ref reads the transcript it names, whole and in order.
    for (const s of lineage) {
      const read: object[] = []
      for await (const l of store.readLines(s.transcript)) read.push(l.value!)
      expect(read).toEqual(linesAt(s.transcript.locator))
      expect(read[0]).toMatchObject({type: 'session', id: s.sessionId})
    }
    // The other key's start is no reset's time: none of these archives is its.
    expect((await store.sessionsOf(EXPLICIT)).map((s) => [s.sessionId, s.where])).toEqual([['0a1b2c3d-0000-4000-8000-000000000001', 'live']])
    expect(await store.sessionsOf('agent:main:nope')).toEqual([])
  })

  it('lineage: two keys reset in the same second each keep their own archive, also a key whose reset archived nothing', async () => {
    const {store} = make()
    await store.update((data) => {
      data['agent:main:empty'] = {sessionId: 'empty-1', updatedAt: 1}
    })
    const t = Date.parse('2026-12-01T10:00:00.000Z')
    const empty = await store.reset('agent:main:empty', {now: new Date(t), cwd: '/w'})
    expect(empty.archivedTranscript).toBeNull()
    const explicit = await store.reset(EXPLICIT, {now: new Date(t + 1), cwd: '/w'})
    expect((await store.sessionsOf('agent:main:empty')).map((s) => [s.sessionId, s.where])).toEqual([[empty.sessionId, 'live']])
    expect((await store.sessionsOf(EXPLICIT)).map((s) => [s.sessionId, s.where])).toEqual([
      [explicit.previousSessionId, 'reset-archive'],
      [explicit.sessionId, 'live'],
    ])
  })

  it('allSessions: every key\'s lineage once, then a deleted key\'s archives (by its sidecar, else with no key)', async () => {
    const {store, put, locatorOf} = make()
    await store.reset(MAIN, {now: new Date('2026-12-01T10:00:00.000Z'), cwd: '/w'})
    const header = (id: string) => ({type: 'session', version: 3, id, timestamp: '2026-11-01T09:00:00.000Z', cwd: '/w'})
    const call = {type: 'message', id: 'm1', parentId: null, timestamp: '2026-11-01T09:00:01.000Z', message: {role: 'assistant', content: [{type: 'text', text: 'x'}]}}
    // A key deleted by OpenClaw: its transcript archived as `.deleted.`, its trajectory sidecar still naming the key.
    put('gone-1.jsonl.deleted.2026-11-02T10-00-00.000Z', [header('gone-1'), call])
    put('gone-1.trajectory.jsonl', [{type: 'trajectory', sessionKey: 'agent:main:telegram:direct:42', sessionId: 'gone-1'}])
    // One deleted without a sidecar: nothing names its key any more.
    put('lost-1.jsonl.deleted.2026-11-03T10-00-00.000Z', [header('lost-1'), call])
    const all = await store.allSessions()
    const keys = [...(await store.readRows(() => 0)).keys()]
    const expected = []
    for (const key of keys) for (const s of await store.sessionsOf(key)) expected.push({...s, key})
    expect(all.slice(0, expected.length)).toEqual(expected)
    expect(all.slice(expected.length).map((s) => [s.key, s.sessionId, s.where, s.ended, s.foundBy, s.transcript.locator])).toEqual([
      ['agent:main:telegram:direct:42', 'gone-1', 'deleted-archive', 'deleted', 'trajectory', locatorOf('gone-1.jsonl.deleted.2026-11-02T10-00-00.000Z')],
      [null, 'lost-1', 'deleted-archive', 'deleted', 'none', locatorOf('lost-1.jsonl.deleted.2026-11-03T10-00-00.000Z')],
    ])
    // Each transcript once, the reset archive of MAIN under MAIN.
    const locators = all.map((s) => s.transcript.locator)
    expect(new Set(locators).size).toBe(locators.length)
    expect(all.find((s) => s.sessionId === MAIN_ID)).toMatchObject({key: MAIN, where: 'reset-archive'})
  })

  it('grepLines yields exactly the lines of readLines whose stored text holds a needle (ASCII case folded on request): every case mix, a line longer than any read block, lines across block boundaries', async () => {
    const {store, locatorOf, put} = make()
    const words = ['zebra', 'ZEBRA', 'zEbRa', 'Zebra', 'zebr a', 'lion king', 'LION KING', 'lion  king', 'nothing']
    const lines: object[] = [{type: 'session', version: 3, id: 'grep-1', timestamp: '2026-11-01T00:00:00.000Z', cwd: '/w'}]
    for (let i = 0; i < 3000; i++) lines.push({type: 'message', id: `g${i}`, message: {role: 'user', content: `${'x'.repeat(i % 700)} ${words[i % words.length]} ${'y'.repeat(300)}`}})
    lines.push({type: 'message', id: 'long', message: {role: 'user', content: `${'w'.repeat(2_500_000)} ZEBRA`}})
    lines.push({type: 'message', id: 'last', message: {role: 'user', content: 'zebra at the end'}})
    put('grep-1.jsonl', lines)
    const t = {locator: locatorOf('grep-1.jsonl'), location: 'derived' as const, exists: true}
    const all: {line: number; raw: string; value: unknown}[] = []
    for await (const l of store.readLines(t)) all.push({line: l.line, raw: l.raw, value: l.value})
    const cases: {needles: string[]; ignoreCase: boolean; has: (raw: string) => boolean}[] = [
      {needles: ['zebra'], ignoreCase: true, has: (r) => r.toLowerCase().includes('zebra')},
      {needles: ['ZEBRA'], ignoreCase: false, has: (r) => r.includes('ZEBRA')},
      {needles: ['zebra', 'lion king'], ignoreCase: true, has: (r) => r.toLowerCase().includes('zebra') || r.toLowerCase().includes('lion king')},
      {needles: ['ion k'], ignoreCase: false, has: (r) => r.includes('ion k')},
    ]
    for (const c of cases) {
      const got: {line: number; raw: string; value: unknown}[] = []
      for await (const l of store.grepLines(t, {needles: c.needles, ignoreCase: c.ignoreCase})) got.push({line: l.line, raw: l.raw, value: l.value})
      const want = all.filter((l) => c.has(l.raw))
      expect(want.length, c.needles.join()).toBeGreaterThan(300)
      expect(got.map((l) => l.line), c.needles.join()).toEqual(want.map((l) => l.line))
      expect(got, c.needles.join()).toEqual(want)
    }
  })

  it('readSince: all lines then none; after an append only the new line; a mark taken mid-read resumes after the last line read; a rewrite is read again whole', async () => {
    const {store, put, locatorOf, linesAt} = make()
    const t = store.transcriptOf((await store.findEntry(MAIN))!.entry, MAIN)
    const read = async (mark?: Parameters<SessionStore['readSince']>[1], stopAfter = Infinity) => {
      const since = await store.readSince(t, mark)
      const lines: {line: number; value: unknown}[] = []
      for await (const l of since.lines) {
        lines.push({line: l.line, value: l.value})
        if (lines.length >= stopAfter) break
      }
      return {since, lines, mark: since.mark()}
    }
    const stored = linesAt(locatorOf(`${MAIN_ID}.jsonl`))!
    const first = await read()
    expect(first.since.rewritten).toBe(false)
    expect(first.lines.map((l) => l.value)).toEqual(stored)
    expect(first.lines.map((l) => l.line)).toEqual(stored.map((_, i) => i + 1))
    expect(first.mark).toMatchObject({seq: stored.length, size: expect.any(Number)})

    const again = await read(first.mark)
    expect(again.lines).toEqual([])
    expect(again.since.rewritten).toBe(false)

    await appendTo(store, t, [{type: 'message', message: {role: 'user', content: 'one more', timestamp: 1}}])
    const next = await read(again.mark)
    expect(next.since.rewritten).toBe(false)
    expect(next.lines.map((l) => l.line)).toEqual([stored.length + 1])
    expect(next.lines[0].value).toMatchObject({type: 'message', message: {content: 'one more'}})

    // Stopped after two lines: the mark covers exactly those two and carries no size (it never means "unchanged").
    const part = await read(undefined, 2)
    expect(part.mark.seq).toBe(2)
    expect(part.mark.size).toBeUndefined()
    const rest = await read(part.mark)
    expect(rest.since.rewritten).toBe(false)
    expect(rest.lines.map((l) => l.line)).toEqual(Array.from({length: stored.length - 1}, (_, i) => i + 3))

    // Rewritten in the middle (same length of text would not matter: the prefix hash differs): read again from line 1.
    const edited = [...linesAt(t.locator)!]
    edited[1] = {...(edited[1] as Record<string, unknown>), edited: true}
    put(t.locator.slice(t.locator.lastIndexOf('/') + 1), edited)
    const re = await read(next.mark)
    expect(re.since.rewritten).toBe(true)
    expect(re.lines.map((l) => l.value)).toEqual(edited)
    expect(re.lines[0].line).toBe(1)
  })

  it('a reset folds a mixed-case spelling into the lowercase key and keeps the other rows', async () => {
    const {store} = make()
    await store.update((data) => {
      data['Agent:Main:Folded'] = {sessionId: 'folded-1', updatedAt: 1, label: 'mine'}
    })
    const done = await store.reset('agent:main:folded', {now: new Date('2026-12-01T10:00:00.000Z'), cwd: '/w'})
    // There was no transcript to archive.
    expect(done.archivedTranscript).toBeNull()
    const data = await store.read()
    expect(Object.keys(data)).toEqual([MAIN, EXPLICIT, 'agent:main:folded'])
    expect(data['agent:main:folded']).toMatchObject({sessionId: done.sessionId, label: 'mine'})
  })

})
