// Two resets of one key on the real file store, the second starting while the first is between its index write and
// its new transcript's creation (the window test/reliability/concurrency.test.ts hit through the CLI): the second must
// wait for that file, so that every live transcript is one the index names and none is left header-only and unreferenced
// (which doctor --fix then archived as deleted).
import {AsyncLocalStorage} from 'node:async_hooks'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {FileSessionStore} from '../../src/store/file/store.js'
import {type ResetBackend, runReset} from '../../src/store/reset.js'
import type {ResetOutcome} from '../../src/store/types.js'
import {copyFixture, sessionsJsonPath, TWO_AGENTS} from '../support/cli.js'

const KEY = 'agent:main:main'

describe('runReset on the file store, two resets of one key at once', () => {
  it('a reset that starts once the first has written the index waits for the first one\'s new transcript: no transcript is left unreferenced', async () => {
    const state = copyFixture(TWO_AGENTS)
    const index = sessionsJsonPath(state)
    const store = new FileSessionStore({agentId: 'main', path: index})
    const real = (store as unknown as {resetBackend(): ResetBackend}).resetBackend()
    // The second reset runs outside the first one's async context: the store's locks are re-entrant along one chain of
    // calls, so started from inside the first reset it would count the first one's locks as its own.
    const outside = AsyncLocalStorage.snapshot()
    let second: Promise<ResetOutcome> | undefined
    let secondDoneEarly = false
    const first: ResetBackend = {
      ...real,
      update: async (mutator, journal) => {
        const out = await real.update(mutator, journal)
        if (!second && out !== undefined) {
          second = outside(() => store.reset(KEY, {cwd: state}))
          // Long enough for the second reset to finish if nothing holds it back (it takes a few ms here).
          secondDoneEarly = await Promise.race([second.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 300))])
        }
        return out
      },
    }
    const a = await runReset(first, KEY, {cwd: state})
    expect(second).toBeDefined()
    const b = await second!
    expect(b.previousSessionId).toBe(a.sessionId)
    // It found the first one's transcript to archive (none, had it run in the gap: the file came only after it).
    expect(b.archivedTranscript?.startsWith(`${a.sessionFile}.reset.`), `archived ${b.archivedTranscript}`).toBe(true)
    const data = JSON.parse(fs.readFileSync(index, 'utf8')) as Record<string, {sessionId: string; sessionFile?: string}>
    expect(data[KEY].sessionId).toBe(b.sessionId)
    const dir = path.dirname(index)
    const named = new Set(Object.values(data).map((e) => path.basename(e.sessionFile ?? `${e.sessionId}.jsonl`)))
    // Transcripts (a trajectory beside one is the agent's tool log, not a transcript).
    const live = fs.readdirSync(dir).filter((n) => n.endsWith('.jsonl') && !n.includes('.trajectory'))
    expect(live.filter((n) => !named.has(n))).toEqual([])
    expect(live).toContain(path.basename(b.sessionFile))
    // It got there by waiting for the first reset's transcript, then rotating it as any later reset does.
    expect(secondDoneEarly).toBe(false)
  })
})
