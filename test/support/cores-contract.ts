// The sessions and channel cores, run unchanged on every backend that writes: the JSON file layout and its in-memory
// twin (test/store/cores-on-backends.test.ts) and OpenClaw's SQLite database (test/store/sqlite/cores.sqlite.test.ts).
// The same assertions on each show that the cores reach sessions only through SessionStore, and what each core does
// to a store. A backend hands over a state whose agent `main` has two sessions and says what only it decides.
import {describe, expect, it} from 'vitest'

import {runAgentTurn} from '../../src/agent/turn.js'
import {mirrorDelivery} from '../../src/channels/mirror.js'
import {sessionHistory} from '../../src/sessions/history.js'
import {listSessions} from '../../src/sessions/list.js'
import {planReset, resetSession} from '../../src/sessions/reset.js'
import type {OpenClawState} from '../../src/store/state.js'
import type {SessionStore} from '../../src/store/types.js'
import {lastUserText, type MockAnthropic} from './mock-anthropic.js'
import type {SeededSession} from './store-contract.js'

export interface CoresBackend {
  state: OpenClawState
  /** Agent `main`'s store, as the state hands it out. */
  store: SessionStore
  main: SeededSession
  other: SeededSession
  /** Text the model's context for the main session must hold (its compaction summary, an earlier message). */
  context: RegExp
  /** Where a reset keeps the old transcript, from the one it replaced: renamed beside it, or kept as it is. */
  archiveOf(transcript: string): RegExp
  /** The env the agent turn runs with (its API key; clawkit's own dirs). */
  env: Record<string, string>
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** A reset that renames the old transcript beside itself (`<file>.reset.<time>`: the JSON layout). */
export const renamedArchive = (t: string): RegExp => new RegExp(`^${escape(t)}\\.reset\\.`)
/** A reset that keeps the old transcript where it is (its window stays in the database: the SQLite era). */
export const keptArchive = (t: string): RegExp => new RegExp(`^${escape(t)}$`)

export function describeCores(name: string, make: () => CoresBackend | Promise<CoresBackend>, mock: () => MockAnthropic): void {
  describe(`sessions and channel cores on the ${name} backend`, () => {
    it('sessions list: the rows of the store, newest first, with their counts', async () => {
      const {state, store, main} = await make()
      const data = await store.read()
      const newestFirst = Object.keys(data).sort((a, b) => data[b].updatedAt - data[a].updatedAt)
      const doc = await listSessions(state, {now: 1_800_000_000_000})
      expect(doc.sessions.map((r) => r.key)).toEqual(newestFirst)
      expect(doc).toMatchObject({count: 2, totalCount: 2, hasMore: false})
      expect(doc.sessions.find((r) => r.key === main.key)).toMatchObject({sessionId: main.sessionId, agentId: 'main', kind: 'direct'})
    })

    it('sessions history: the last messages of a session by key, --limit counting messages from the end', async () => {
      const {state, main} = await make()
      const all = await sessionHistory(state, main.key, {limit: 1000})
      const last2 = await sessionHistory(state, main.key, {limit: 2})
      expect(all.entries.length).toBeGreaterThan(2)
      expect(last2.entries.filter((e) => e.type === 'message').length).toBe(2)
      expect(last2.entries.at(-1)).toEqual(all.entries.at(-1))
      expect(last2.truncated).toBe(true)
    })

    it('sessions reset: the plan, then a new sessionId with an empty history; the old one is kept where the plan said', async () => {
      const {state, store, main, archiveOf} = await make()
      const plan = await planReset(state, 'main', {now: new Date('2026-12-01T10:00:00.000Z')})
      expect(plan).toMatchObject({dryRun: true, key: main.key, previousSessionId: main.sessionId})
      const done = await resetSession(state, 'main', {now: new Date('2026-12-01T10:00:00.000Z')})
      expect(done.previousSessionId).toBe(plan.previousSessionId)
      expect(done.sessionId).not.toBe(done.previousSessionId)
      expect((await store.findEntry(main.key))?.entry.sessionId).toBe(done.sessionId)
      expect((await sessionHistory(state, main.key, {limit: 20})).entries).toEqual([])
      expect(done.archivedTranscript).toBe(plan.archivedTranscript)
      expect(done.archivedTranscript).toMatch(archiveOf(plan.transcript!))
    })

    it('message send mirror: the delivered text lands once in the session; the same idempotency key again is a duplicate', async () => {
      const {state, store, main} = await make()
      const p = {state, agentId: 'main', sessionKey: main.key, channel: 'webhook' as const, route: {to: 'https://example.invalid/hook'} as never, text: 'posted', mediaUrls: [], idempotencyKey: 'k-cores-1', meta: {} as never}
      expect(await mirrorDelivery(p)).toMatchObject({sessionKey: main.key, created: false, duplicate: false})
      expect(await mirrorDelivery(p)).toMatchObject({duplicate: true})
      const found = await store.findIdempotencyKey(store.transcriptOf((await store.findEntry(main.key))!.entry, main.key), 'k-cores-1')
      expect(found?.entryId).toBeTruthy()
      expect((await sessionHistory(state, main.key, {limit: 1})).entries.at(-1)).toMatchObject({type: 'message', role: 'assistant'})
    })

    it('agent turn: the model gets the session\'s context, the reply is appended onto its leaf and the usage lands in the entry', async () => {
      const {state, store, main, context, env} = await make()
      const before = (await store.findEntry(main.key))!.entry
      const calls = mock().messageRequests().length
      const r = await runAgentTurn({state, message: 'one more question', selector: {sessionKey: main.key}, env})
      expect(r).toMatchObject({sessionKey: main.key, sessionId: before.sessionId, aborted: false})
      const reqs = mock().messageRequests().slice(calls)
      expect(reqs.length).toBeGreaterThan(0)
      expect(lastUserText(reqs.at(-1)!.body)).toContain('one more question')
      expect(JSON.stringify(reqs.at(-1)!.body.messages)).toMatch(context)
      const after = (await store.findEntry(main.key))!.entry
      expect(after.updatedAt).toBeGreaterThan(before.updatedAt)
      expect(after.inputTokens).toBeGreaterThan(0)
      const history = await sessionHistory(state, main.key, {limit: 2})
      expect(history.entries.filter((e) => e.type === 'message').map((e) => (e as {role?: string}).role)).toEqual(['user', 'assistant'])
    })
  })
}
