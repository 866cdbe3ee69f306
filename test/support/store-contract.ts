// The SessionReader/SessionStore contract as one suite, run on every backend: the JSON file layout and its in-memory
// twin (test/store/contract.test.ts), OpenClaw's SQLite database (test/store/sqlite/contract.sqlite.test.ts) and, read
// cases only, the fleet replica (test/store/pg/contract.test.ts). Each backend hands over a store seeded with two
// sessions and its own way of reading what it holds (`linesOf`), so that the store is checked against its storage,
// not against itself. What only one layout promises (archive names, relocated files, canonical keys) stays in that
// backend's own tests.
import {describe, expect, it} from 'vitest'

import {appendTo} from '../../src/store/append.js'
import type {TranscriptEntry} from '../../src/store/transcript-types.js'
import type {AgentSession, SessionReader, SessionStore, TranscriptLine, TranscriptMark, TranscriptRef} from '../../src/store/types.js'
import {SEARCH_TEXT_VERSION} from '../../src/sessions/search-text.js'

/** One seeded session of a backend under test. */
export interface SeededSession {
  key: string
  sessionId: string
}

export interface ContractBackend<S extends SessionReader = SessionReader> {
  store: S
  /** The session with a long transcript (at least three messages). */
  main: SeededSession
  /** A second session of the same agent. */
  other: SeededSession
  /** The lines stored under a transcript, header first, read from the storage itself (never through the store). */
  linesOf(t: TranscriptRef): object[] | undefined
  /** A word of the main session's user or assistant text (what a full-text index answers for). */
  word: string
  /**
   * How readLines meets a transcript that is not there: the file layouts and the replica fail with E_ENOENT; a SQLite
   * session without events reads as empty (a difference callers see only for a session that was never written).
   */
  missingReads: 'fail' | 'empty'
}

const isMessage = (e: TranscriptEntry) => e.type === 'message'

async function readAll(store: SessionReader, t: TranscriptRef): Promise<TranscriptLine[]> {
  const out: TranscriptLine[] = []
  for await (const l of store.readLines(t)) out.push(l)
  return out
}

async function currentRef(store: SessionReader, s: SeededSession): Promise<TranscriptRef> {
  return store.transcriptOf((await store.findEntry(s.key))!.entry, s.key)
}

/** The read cases: every backend, the replica included. `make` may hand out the same store each time (nothing writes). */
export function describeReadContract(name: string, make: () => ContractBackend | Promise<ContractBackend>): void {
  describe(`SessionReader contract: ${name}`, () => {
    it('reads the index and one entry, a key spelled in upper case included; readRows keeps read()\'s order and values', async () => {
      const {store, main, other} = await make()
      const data = await store.read()
      expect(Object.keys(data).sort()).toEqual([main.key, other.key].sort())
      expect((await store.findEntry(main.key))?.entry.sessionId).toBe(main.sessionId)
      expect((await store.findEntry(main.key.toUpperCase()))?.storedKey).toBe(main.key)
      expect(await store.findEntry('agent:main:nope')).toBeUndefined()
      const rows = await store.readRows((key, e) => `${key}=${e.sessionId}`)
      expect([...rows.keys()]).toEqual(Object.keys(data))
      expect([...rows.values()]).toEqual(Object.entries(data).map(([k, e]) => `${k}=${e.sessionId}`))
    })

    it('findBySessionId: the entry whose current session it is; none for an id no entry holds', async () => {
      const {store, main, other} = await make()
      expect((await store.findBySessionId(main.sessionId)).map((h) => [h.storedKey, h.entry.sessionId])).toEqual([[main.key, main.sessionId]])
      expect((await store.findBySessionId(other.sessionId)).map((h) => h.storedKey)).toEqual([other.key])
      expect(await store.findBySessionId('no-such-session')).toEqual([])
    })

    it('eachEntry: the entries read() gives, each visit awaited before the next entry is read; a visit\'s own error ends the walk', async () => {
      const {store} = await make()
      const seen: [string, unknown][] = []
      const log: string[] = []
      await store.eachEntry(async (key, entry) => {
        log.push(`start ${key}`)
        await new Promise((resolve) => setTimeout(resolve, 5))
        seen.push([key, entry])
        log.push(`end ${key}`)
      })
      const data = await store.read()
      expect(seen).toEqual(Object.entries(data))
      expect(log).toEqual(Object.keys(data).flatMap((k) => [`start ${k}`, `end ${k}`]))
      const boom = new Error('upload failed')
      await expect(store.eachEntry(() => Promise.reject(boom))).rejects.toBe(boom)
    })

    it('stats: the sessions, the newest update and the newest rows; the keys only when asked', async () => {
      const {store} = await make()
      const data = await store.read()
      const newestAt = Math.max(...Object.values(data).map((e) => e.updatedAt))
      const newestKey = Object.keys(data).find((k) => data[k].updatedAt === newestAt)
      const st = await store.stats({newest: 1})
      expect(st).toMatchObject({sessions: 2, lastUpdatedAt: newestAt})
      expect(st.newest.map((h) => h.storedKey)).toEqual([newestKey])
      expect((await store.stats()).newest).toEqual([])
      expect((await store.stats({keys: true})).keys?.sort()).toEqual(Object.keys(data).sort())
      expect((await store.stats()).keys).toBeUndefined()
    })

    it('transcriptOf: the entry\'s transcript exists, an id nothing stored is not there, an unsafe id is refused', async () => {
      const {store, main} = await make()
      await store.read()
      expect((await currentRef(store, main)).exists).toBe(true)
      expect(store.transcriptOf({sessionId: 'fresh-id'}, 'agent:main:x').exists).toBe(false)
      // An id that could not name a transcript (a path, or a "#" that would split a database locator elsewhere).
      for (const bad of ['../escape', 'a#b', 'archive/x', '']) expect(() => store.transcriptOf({sessionId: bad}, 'agent:main:x'), bad).toThrow(expect.objectContaining({code: 'E_BAD_SESSION_ID'}))
    })

    it('tails with --limit semantics: the last N messages with what follows them, partial only when older messages exist', async () => {
      const {store, main, linesOf} = await make()
      const t = await currentRef(store, main)
      const [header, ...all] = linesOf(t) as [{id: string}, ...TranscriptEntry[]]
      const messages = all.filter(isMessage)
      expect(messages.length).toBeGreaterThanOrEqual(3)
      const two = await store.tail(t, {limit: 2, count: isMessage, exactPartial: true})
      const startAt = all.findIndex((e) => e.id === messages.at(-2)!.id)
      expect(two?.entries.map((e) => e.id)).toEqual(all.slice(startAt).map((e) => e.id))
      expect(two?.partial).toBe(true)
      expect(two?.header?.id).toBe(header.id)
      expect(two?.rawLines.map((l) => JSON.parse(l!).id)).toEqual(all.slice(startAt).map((e) => e.id))
      const everything = await store.tail(t, {limit: 10_000, count: isMessage, exactPartial: true})
      expect(everything?.entries.map((e) => e.id)).toEqual(all.map((e) => e.id))
      expect(everything?.partial).toBe(false)
      expect(everything?.badLines).toEqual([])
      expect(await store.tail(store.transcriptOf({sessionId: 'no-such'}), {limit: 5})).toBeUndefined()
    })

    it('streams a whole transcript line by line, each value the stored line and its raw text that line; a missing one as the backend declares', async () => {
      const {store, main, linesOf, missingReads} = await make()
      const t = await currentRef(store, main)
      const got = await readAll(store, t)
      expect(got.map((l) => l.value)).toEqual(linesOf(t))
      expect(got.map((l) => JSON.parse(l.raw))).toEqual(got.map((l) => l.value))
      const numbers = got.map((l) => l.line)
      expect(numbers).toEqual([...new Set(numbers)].sort((a, b) => a - b))
      await store.read()
      const missing = readAll(store, store.transcriptOf({sessionId: 'not-there-1'}))
      if (missingReads === 'empty') expect(await missing).toEqual([])
      else await expect(missing).rejects.toMatchObject({code: 'E_ENOENT'})
    })

    it('grepLines: every line of readLines that holds a needle (ASCII case folded on request), each as readLines gives it', async () => {
      const {store, main} = await make()
      const t = await currentRef(store, main)
      const all = await readAll(store, t)
      const byLine = new Map(all.map((l) => [l.line, l]))
      for (const [needles, ignoreCase] of [[['"type":"message"'], false], [['"ROLE":"USER"'], true], [['"role":"assistant"', 'model_change'], false]] as const) {
        const got: TranscriptLine[] = []
        for await (const l of store.grepLines(t, {needles: [...needles], ignoreCase})) got.push(l)
        const holds = (raw: string) => needles.some((n) => (ignoreCase ? raw.toLowerCase().includes(n.toLowerCase()) : raw.includes(n)))
        const want = all.filter((l) => holds(l.raw))
        expect(want.length, needles.join()).toBeGreaterThan(0)
        // A backend may hand over more lines than hold a needle, never fewer, and only lines readLines gives.
        expect(got.filter((l) => holds(l.raw)), needles.join()).toEqual(want)
        for (const l of got) expect(byLine.get(l.line), needles.join()).toEqual(l)
      }
    })

    it('indexedLines and contentCandidates answer exactly where the store declares the index (capabilities)', async () => {
      const {store, main, word} = await make()
      const t = await currentRef(store, main)
      const byLine = new Map((await readAll(store, t)).map((l) => [l.line, l]))
      const indexed = await store.indexedLines(t, [word])
      expect(indexed !== undefined && indexed.length > 0, 'full-text answer').toBe(store.capabilities.fullText)
      for (const l of indexed ?? []) expect(byLine.get(l.line)).toEqual(l)
      const candidates = await store.contentCandidates({needles: [word], ignoreCase: true}, SEARCH_TEXT_VERSION)
      expect(candidates?.sessions.has(main.sessionId) ?? false, 'content index answer').toBe(store.capabilities.contentIndex)
    })

    it('readSince: every line with a mark, then nothing new after it', async () => {
      const {store, main, linesOf} = await make()
      const t = await currentRef(store, main)
      const read = async (mark?: TranscriptMark) => {
        const since = await store.readSince(t, mark)
        const values: unknown[] = []
        for await (const l of since.lines) values.push(l.value)
        return {since, values, mark: since.mark()}
      }
      const first = await read()
      expect(first.since.rewritten).toBe(false)
      expect(first.values).toEqual(linesOf(t))
      const again = await read(first.mark)
      expect(again.values).toEqual([])
      expect(again.since.rewritten).toBe(false)
    })

    it('change tracking (capabilities): a listing token that holds, a transcript unchanged since its ends-checked mark, stretches read back as readLines reads them', async () => {
      const {store, main} = await make()
      const t = await currentRef(store, main)
      const first = await store.listingToken()
      if (!store.capabilities.changeTracking) {
        // Without it everything may have changed, always.
        expect(first.changed).toBe(true)
        expect((await store.listingToken(first.token)).changed).toBe(true)
        expect(await store.unchangedSince([{t, mark: {seq: 0, bytes: 0, size: 0}}])).toEqual([false])
        return
      }
      expect((await store.listingToken(first.token)).changed).toBe(false)
      const since = await store.readSince(t, undefined, {verify: 'ends'})
      const lines: TranscriptLine[] = []
      for await (const l of since.lines) lines.push(l)
      const mark = since.mark()
      expect(await store.unchangedSince([{t, mark}])).toEqual([true])
      expect((await store.readSince(t, mark, {verify: 'ends'})).unchanged).toBe(true)
      // The stretch of the second and third lines, as a reader keeping its own index records it.
      const all = await readAll(store, t)
      expect(lines.length).toBeGreaterThanOrEqual(4)
      const [a, b] = [lines[1], lines[3]]
      const span = a.offset !== undefined && b.offset !== undefined ? {line: a.line, offset: a.offset, bytes: b.offset - a.offset} : {line: a.line, lines: b.line - a.line}
      const got: TranscriptLine[] = []
      for await (const l of store.grepSpans(t, [span])) got.push(l)
      expect(got).toEqual(all.filter((l) => l.line >= a.line && l.line < b.line))
    })

    it('sessionsOf and allSessions: the current session last; every key\'s sessions once, in readRows\' order, first', async () => {
      const {store, main} = await make()
      const ofMain = await store.sessionsOf(main.key)
      expect(ofMain.at(-1)).toMatchObject({sessionId: main.sessionId, ended: 'current'})
      expect(await store.sessionsOf('agent:main:nope')).toEqual([])
      const expected: AgentSession[] = []
      for (const key of (await store.readRows(() => 0)).keys()) for (const s of await store.sessionsOf(key)) expected.push({...s, key})
      const all = await store.allSessions()
      expect(all.slice(0, expected.length)).toEqual(expected)
      const ids = all.map((s) => s.transcript.locator)
      expect(new Set(ids).size).toBe(ids.length)
    })

    it('finds no message for a key nothing carries, nor in a missing transcript', async () => {
      const {store, main} = await make()
      const t = await currentRef(store, main)
      expect(await store.findIdempotencyKey(t, 'k-none')).toBeUndefined()
      await store.read()
      expect(await store.findIdempotencyKey(store.transcriptOf({sessionId: 'no-such'}), 'k-1')).toBeUndefined()
    })
  })
}

/** The read cases and the write cases: every backend that writes. `make` hands out a fresh store each time. */
export function describeContract(name: string, make: () => ContractBackend<SessionStore> | Promise<ContractBackend<SessionStore>>): void {
  describeReadContract(name, make)
  describe(`SessionStore contract, writes: ${name}`, () => {
    it('updates under the lock: the mutator result passes through, a row added is found, and what a caller holds is a copy', async () => {
      const {store} = await make()
      const out = await store.update((data) => {
        data['agent:main:added'] = {sessionId: 'added-1', updatedAt: 5, label: 'kept'}
        return 'done'
      })
      expect(out).toBe('done')
      const hit = await store.findEntry('agent:main:added')
      expect(hit).toMatchObject({storedKey: 'agent:main:added', entry: {sessionId: 'added-1', updatedAt: 5, label: 'kept'}})
      // What a caller holds is a copy: changing it changes nothing stored.
      hit!.entry.label = 'changed'
      expect((await store.findEntry('agent:main:added'))?.entry.label).toBe('kept')
    })

    it('reads the model context under the lock: every entry, the root-to-leaf path; nothing for a missing transcript', async () => {
      const {store, main, linesOf} = await make()
      const t = await currentRef(store, main)
      const [header, ...entries] = linesOf(t) as [{id: string}, ...TranscriptEntry[]]
      const ctx = await store.withTranscript(t, (tx) => tx.readContext())
      expect(ctx?.header?.id).toBe(header.id)
      expect(ctx?.badHeader).toBe(false)
      expect(ctx?.entries.map((e) => e.id)).toEqual(entries.map((e) => e.id))
      expect(ctx?.path.at(-1)?.id).toBe(entries.at(-1)!.id)
      expect(ctx?.path[0].parentId).toBeNull()
      expect(await store.withTranscript(store.transcriptOf({sessionId: 'no-such'}), (tx) => tx.readContext())).toBeUndefined()
    })

    it('appends with OpenClaw ids and parent chain: a new transcript starts with the header, later appends and caller-chained lines follow the leaf', async () => {
      const {store, linesOf} = await make()
      const key = 'agent:main:new'
      await store.update((data) => void (data[key] = {sessionId: 'new-session', updatedAt: Date.parse('2026-01-01T00:00:00.000Z')}))
      const t = store.transcriptOf((await store.findEntry(key))!.entry, key)
      await expect(appendTo(store, t, [{type: 'custom', customType: 'x', data: {}}])).rejects.toThrow(/header/)
      const header = {type: 'session' as const, version: 3, id: 'new-session', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w'}
      const first = await appendTo(store, t, [{type: 'message', message: {role: 'user', content: 'hi', timestamp: 1}}, {type: 'custom', customType: 'x', data: {a: 1}}], {header})
      expect(first.created).toBe(true)
      expect(first.entries[0].parentId).toBeNull()
      expect(first.entries[1].parentId).toBe(first.entries[0].id)
      const second = await store.withTranscript(t, (tx) => tx.append([{type: 'message', message: {role: 'assistant', content: [], timestamp: 2}}]))
      expect(second.created).toBe(false)
      expect(second.entries[0].parentId).toBe(first.entries[1].id)
      const own = {type: 'message', id: 'abcdef01', parentId: second.entries[0].id, timestamp: '2026-01-01T00:00:01.000Z', message: {role: 'user', content: 'again', timestamp: 3}}
      await store.withTranscript(t, (tx) => tx.write([own]))
      const ids = [first.entries[0].id, first.entries[1].id, second.entries[0].id, 'abcdef01']
      expect(new Set(ids).size).toBe(4)
      const lines = linesOf(t)!
      expect(lines[0]).toMatchObject({type: 'session', id: 'new-session'})
      expect(lines.slice(1).map((l) => (l as {id: string}).id)).toEqual(ids)
      const ctx = await store.withTranscript(t, (tx) => tx.readContext())
      expect(ctx?.path.map((e) => e.id)).toEqual(ids)
    })

    it('change tracking (capabilities): an append is seen by unchangedSince and read alone from the mark; a new session changes the listing token', async () => {
      const {store, main} = await make()
      if (!store.capabilities.changeTracking) return
      const t = await currentRef(store, main)
      const token = (await store.listingToken()).token
      const since = await store.readSince(t, undefined, {verify: 'ends'})
      for await (const _ of since.lines) void _
      const mark = since.mark()
      await appendTo(store, t, [{type: 'message', message: {role: 'user', content: 'one more', timestamp: 9}}])
      expect(await store.unchangedSince([{t, mark}])).toEqual([false])
      const next = await store.readSince(t, mark, {verify: 'ends'})
      const appended: unknown[] = []
      for await (const l of next.lines) appended.push(l.value)
      expect(next.rewritten).toBe(false)
      expect(appended).toMatchObject([{type: 'message', message: {content: 'one more'}}])
      // An append is no change of the listing; a new session is.
      expect((await store.listingToken(token)).changed).toBe(false)
      await store.update((data) => void (data['agent:main:listed'] = {sessionId: 'listed-1', updatedAt: 7}))
      expect((await store.listingToken(token)).changed).toBe(true)
    })

    it('finds a message by its idempotency key, with or without the lock', async () => {
      const {store, other} = await make()
      const t = await currentRef(store, other)
      const res = await appendTo(store, t, [{type: 'message', message: {role: 'assistant', content: [{type: 'text', text: 'sent'}], idempotencyKey: 'k-1', openclawMessageMeta: {channel: 'slack'}}}])
      expect(await store.findIdempotencyKey(t, 'k-1')).toEqual({entryId: res.entries[0].id, meta: {channel: 'slack'}})
      expect(await store.withTranscript(t, (tx) => tx.findIdempotencyKey('k-1'))).toEqual({entryId: res.entries[0].id, meta: {channel: 'slack'}})
      expect(await store.findIdempotencyKey(t, 'k-2')).toBeUndefined()
    })

    it('plans and runs a reset: a plan changes nothing; a new session with no entries, counters cleared, the old one first in the key\'s lineage and readable', async () => {
      const {store, main, linesOf} = await make()
      const before = (await store.findEntry(main.key))!.entry
      const old = await currentRef(store, main)
      const oldLines = linesOf(old)
      const now = new Date('2026-12-01T10:00:00.000Z')
      const plan = await store.planReset(main.key, now)
      expect(plan).toMatchObject({key: main.key, previousSessionId: main.sessionId, transcript: old.locator})
      expect((await store.findEntry(main.key))!.entry).toEqual(before)

      const done = await store.reset(main.key, {now, cwd: '/work'})
      expect(done.previousSessionId).toBe(main.sessionId)
      expect(done.sessionId).not.toBe(main.sessionId)
      const after = (await store.findEntry(main.key))!.entry
      expect(after).toMatchObject({sessionId: done.sessionId, inputTokens: 0, outputTokens: 0, totalTokens: 0, totalTokensFresh: true, compactionCount: 0})
      for (const f of ['model', 'modelProvider']) expect(after[f]).toEqual(before[f])
      const t = store.transcriptOf(after, main.key)
      expect((await store.tail(t, {limit: 5}))?.entries ?? []).toEqual([])
      const lineage = await store.sessionsOf(main.key)
      expect(lineage.map((s) => [s.sessionId, s.ended])).toEqual([
        [main.sessionId, 'reset'],
        [done.sessionId, 'current'],
      ])
      expect((await readAll(store, lineage[0].transcript)).map((l) => l.value)).toEqual(oldLines)
    })

    it('a missing session is an E_SESSION_NOT_FOUND error for a plan and for a reset, and nothing is written', async () => {
      const {store} = await make()
      const before = await store.read()
      await expect(store.planReset('agent:main:nope', new Date())).rejects.toMatchObject({code: 'E_SESSION_NOT_FOUND'})
      await expect(store.reset('agent:main:nope', {now: new Date(), cwd: '/w'})).rejects.toMatchObject({code: 'E_SESSION_NOT_FOUND'})
      expect(await store.read()).toEqual(before)
    })

    it('locks: two concurrent holders of one transcript take turns, a holder re-enters its own lock, and appends never interleave', async () => {
      const {store, main, linesOf} = await make()
      const t = await currentRef(store, main)
      const events: string[] = []
      let release!: () => void
      const gate = new Promise<void>((resolve) => (release = resolve))
      const first = store.withTranscript(t, async (tx) => {
        events.push('first in')
        // Re-entry from the same call chain must not deadlock.
        await store.withTranscript(t, async () => void events.push('first re-entered'))
        await gate
        await tx.append([{type: 'custom', customType: 'first', data: {}}])
        events.push('first out')
      })
      const second = store.withTranscript(t, async (tx) => {
        events.push('second in')
        await tx.append([{type: 'custom', customType: 'second', data: {}}])
      })
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(events).toEqual(['first in', 'first re-entered'])
      release()
      await Promise.all([first, second])
      expect(events).toEqual(['first in', 'first re-entered', 'first out', 'second in'])
      const tail = linesOf(t)!.slice(-2) as {customType: string; id: string; parentId: string}[]
      expect(tail.map((l) => l.customType)).toEqual(['first', 'second'])
      expect(tail[1].parentId).toBe(tail[0].id)
    })

    it('locks: an abort ends a wait at once (before and during it), and the aborted caller never runs', async () => {
      const {store, main} = await make()
      const t = await currentRef(store, main)
      let release!: () => void
      const gate = new Promise<void>((resolve) => (release = resolve))
      const holder = store.withTranscript(t, () => gate)
      let ran = false
      await expect(store.withTranscript(t, async () => void (ran = true), {signal: AbortSignal.abort()})).rejects.toMatchObject({code: 'E_LOCK_WAIT_ABORTED'})
      const ctl = new AbortController()
      const waiting = store.withTranscript(t, async () => void (ran = true), {signal: ctl.signal})
      setTimeout(() => ctl.abort(), 20)
      await expect(waiting).rejects.toMatchObject({code: 'E_LOCK_WAIT_ABORTED'})
      release()
      await holder
      expect(ran).toBe(false)
      // The lock is free again for the next caller.
      expect(await store.withTranscript(t, async () => 'next')).toBe('next')
    })

    it('locks: concurrent index updates in one process lose no write', async () => {
      const {store} = await make()
      await Promise.all(
        Array.from({length: 8}, (_, i) =>
          store.update(async (data) => {
            await new Promise((resolve) => setTimeout(resolve, 2))
            data[`agent:main:c${i}`] = {sessionId: `c-${i}`, updatedAt: i}
          }),
        ),
      )
      const keys = Object.keys(await store.read())
      for (let i = 0; i < 8; i++) expect(keys).toContain(`agent:main:c${i}`)
    })
  })
}
