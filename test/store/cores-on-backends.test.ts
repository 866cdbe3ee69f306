// The sessions and channel cores, run unchanged on two backends: the OpenClaw file layout (a copy of a real 2026.4.27
// state dir) and the in-memory twin handed to OpenClawState as its store. The same assertions on both show that the
// cores reach sessions only through SessionStore, and what each core does to a store.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {runAgentTurn} from '../../src/agent/turn.js'
import {mirrorDelivery} from '../../src/channels/mirror.js'
import {sessionHistory} from '../../src/sessions/history.js'
import {listSessions} from '../../src/sessions/list.js'
import {planReset, resetSession} from '../../src/sessions/reset.js'
import {MemorySessionStore} from '../../src/store/file/memory-store.js'
import {OpenClawState} from '../../src/store/state.js'
import {isTranscriptFileName} from '../../src/store/file/transcript.js'
import type {SessionStore} from '../../src/store/types.js'
import {COMPACTION, copyFixture, FIXTURES} from '../support/cli.js'
import {transcriptLines} from '../support/state-files.js'
import {lastUserText} from '../support/mock-anthropic.js'
import {useServers} from '../support/servers.js'

const servers = useServers({mock: true})

const MAIN = 'agent:main:main'
const FIXTURE_DIR = path.join(FIXTURES, COMPACTION, 'agents', 'main', 'sessions')

const lines = (file: string): object[] => transcriptLines(file)

interface Backend {
  state: OpenClawState
  store: SessionStore
}

/** A fixture copy whose model provider is the mock server (copyFixture keeps its workspace inside it). */
function stateDirCopy(): string {
  const stateDir = copyFixture(COMPACTION)
  const cfg = path.join(stateDir, 'openclaw.json')
  fs.mkdirSync(path.join(stateDir, 'workspace'))
  fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace('http://127.0.0.1:18089', servers.mock.url))
  return stateDir
}

const ENV = {HOME: '/nonexistent', ANTHROPIC_API_KEY: 'test-key'}

const BACKENDS: [string, () => Backend][] = [
  [
    'file (OpenClaw JSON layout)',
    () => {
      const state = OpenClawState.open({stateDir: stateDirCopy(), env: ENV, ignoreSettings: true})
      return {state, store: state.store('main')}
    },
  ],
  [
    'memory',
    () => {
      // The config still comes from a real state dir; every session read and write goes to the twin.
      const stateDir = stateDirCopy()
      const seed = new MemorySessionStore('main')
      const transcripts: Record<string, object[]> = {}
      for (const name of fs.readdirSync(FIXTURE_DIR)) if (isTranscriptFileName(name)) transcripts[seed.locatorOf(name)] = lines(path.join(FIXTURE_DIR, name))
      const twin = new MemorySessionStore('main', {index: JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'sessions.json'), 'utf8')), transcripts})
      const state = OpenClawState.open({stateDir, env: ENV, ignoreSettings: true, storeFactory: () => twin})
      // Nothing may reach the files: they are removed, so a core that bypassed the store would find nothing.
      fs.rmSync(path.join(stateDir, 'agents', 'main', 'sessions'), {recursive: true, force: true})
      return {state, store: twin}
    },
  ],
]

describe.each(BACKENDS)('sessions and channel cores on the %s backend', (_name, make) => {
  it('sessions list: the rows of the store, newest first, with their counts', async () => {
    const {state} = make()
    const doc = await listSessions(state, {now: 1_800_000_000_000})
    expect(doc.sessions.map((r) => r.key)).toEqual([MAIN, 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001'])
    expect(doc).toMatchObject({count: 2, totalCount: 2, hasMore: false})
    expect(doc.sessions[0]).toMatchObject({sessionId: 'f1ea83b9-e3d9-43c8-b4e4-5d101bf3ee2f', agentId: 'main', kind: 'direct'})
  })

  it('sessions history: the last messages of a session by key, --limit counting messages from the end', async () => {
    const {state} = make()
    const all = await sessionHistory(state, MAIN, {limit: 1000})
    const last2 = await sessionHistory(state, MAIN, {limit: 2})
    expect(all.entries.length).toBeGreaterThan(2)
    expect(last2.entries.filter((e) => e.type === 'message').length).toBe(2)
    expect(last2.entries.at(-1)).toEqual(all.entries.at(-1))
    expect(last2.truncated).toBe(true)
  })

  it('sessions reset: the plan, then a new sessionId with an empty history; the old one is kept where the plan said', async () => {
    const {state, store} = make()
    const plan = await planReset(state, 'main', {now: new Date('2026-12-01T10:00:00.000Z')})
    expect(plan).toMatchObject({dryRun: true, key: MAIN, previousSessionId: 'f1ea83b9-e3d9-43c8-b4e4-5d101bf3ee2f'})
    const done = await resetSession(state, 'main', {now: new Date('2026-12-01T10:00:00.000Z')})
    expect(done.previousSessionId).toBe(plan.previousSessionId)
    expect(done.sessionId).not.toBe(done.previousSessionId)
    expect((await store.findEntry(MAIN))?.entry.sessionId).toBe(done.sessionId)
    const history = await sessionHistory(state, MAIN, {limit: 20})
    expect(history.entries).toEqual([])
    // Archived as `<old locator>.reset.<time>`, the name the plan gave.
    expect(done.archivedTranscript).toBe(plan.archivedTranscript)
    expect(done.archivedTranscript?.startsWith(`${plan.transcript}.reset.`)).toBe(true)
  })

  it('message send mirror: the delivered text lands once in the session; the same idempotency key again is a duplicate', async () => {
    const {state, store} = make()
    const p = {state, agentId: 'main', sessionKey: MAIN, channel: 'webhook' as const, route: {to: 'https://example.invalid/hook'} as never, text: 'posted', mediaUrls: [], idempotencyKey: 'k-cores-1', meta: {} as never}
    const first = await mirrorDelivery(p)
    expect(first).toMatchObject({sessionKey: MAIN, created: false, duplicate: false})
    const again = await mirrorDelivery(p)
    expect(again).toMatchObject({duplicate: true})
    const found = await store.findIdempotencyKey(store.transcriptOf((await store.findEntry(MAIN))!.entry, MAIN), 'k-cores-1')
    expect(found?.entryId).toBeTruthy()
    const history = await sessionHistory(state, MAIN, {limit: 1})
    expect(history.entries.at(-1)).toMatchObject({type: 'message', role: 'assistant'})
  })

  it('agent turn: the model gets the session\'s context, the reply is appended onto its leaf and the usage lands in the entry', async () => {
    const {state, store} = make()
    const before = (await store.findEntry(MAIN))!.entry
    const calls = servers.mock.messageRequests().length
    const r = await runAgentTurn({state, message: 'one more question', selector: {sessionKey: MAIN}, env: ENV})
    expect(r).toMatchObject({sessionKey: MAIN, sessionId: before.sessionId, aborted: false})
    const reqs = servers.mock.messageRequests().slice(calls)
    expect(reqs.length).toBeGreaterThan(0)
    expect(lastUserText(reqs.at(-1)!.body)).toContain('one more question')
    // The compaction fixture's summary is part of the context the model gets.
    expect(JSON.stringify(reqs.at(-1)!.body.messages)).toMatch(/summary/i)
    const after = (await store.findEntry(MAIN))!.entry
    expect(after.updatedAt).toBeGreaterThan(before.updatedAt)
    expect(after.inputTokens).toBeGreaterThan(0)
    const history = await sessionHistory(state, MAIN, {limit: 2})
    expect(history.entries.filter((e) => e.type === 'message').map((e) => (e as {role?: string}).role)).toEqual(['user', 'assistant'])
  })
})
