// runReset's retry, without processes or timing: a backend whose transcript lock lets "another writer" rotate the
// session just before the reset holds it. The reset must then start over from the new row and rotate only the
// transcript whose lock it holds (the CLI race in test/reliability/concurrency.test.ts depends on a scheduler).
import {describe, expect, it} from 'vitest'

import {findEntryIn} from '../../src/store/entry-lookup.js'
import {type ResetBackend, runReset} from '../../src/store/reset.js'
import type {SessionEntry, SessionStoreData} from '../../src/store/types.js'
import {storeDataFrom} from '../../src/store/index-data.js'

const KEY = 'agent:main:main'

/** `rotations`: how many times another writer resets the session as this reset is about to hold a transcript lock. */
function backend(rotations: number) {
  const data: SessionStoreData = storeDataFrom({[KEY]: {sessionId: 's0', updatedAt: 1} as SessionEntry})
  const files = new Set(['s0.jsonl'])
  const held: string[] = []
  const log: string[] = []
  let left = rotations
  let n = 0
  const b: ResetBackend = {
    findEntry: async (key) => findEntryIn(data, key),
    transcriptOf: (entry) => ({locator: `${entry.sessionId}.jsonl`, location: 'derived', exists: files.has(`${entry.sessionId}.jsonl`)}),
    transcriptPresent: (t) => files.has(t.locator),
    renamedFor: (_old, _oldId, newId) => `${newId}.jsonl`,
    update: async (mutator) => {
      const named = `${data[KEY].sessionId}.jsonl`
      const result = await mutator(data)
      log.push(`update ${data[KEY].sessionId === named.slice(0, -6) ? 'left' : 'rewrote'} the row holding [${held.join(', ')}] while it named ${named}`)
      return result
    },
    lockTranscript: async (locator, fn) => {
      if (left > 0 && !held.includes(locator)) {
        left--
        // Another writer's reset lands first: a new row, the old file archived.
        const id = `other${++n}`
        files.delete(`${data[KEY].sessionId}.jsonl`)
        data[KEY] = {...data[KEY], sessionId: id}
        files.add(`${id}.jsonl`)
      }
      held.push(locator)
      try {
        return await fn()
      } finally {
        held.splice(held.lastIndexOf(locator), 1)
      }
    },
    createTranscript: async (locator) => void files.add(locator),
    archiveTranscript: async (locator, to) => {
      log.push(`archive ${locator} -> ${to.replace(/\.reset\..*$/, '.reset.*')}`)
      return files.delete(locator)
    },
  }
  return {b, data, files, log}
}

describe('runReset when other writers rotate the session first', () => {
  it('one rotation while it waited: a second round rotates the new transcript, whose lock it then holds', async () => {
    const {b, data, files, log} = backend(1)
    const r = await runReset(b, KEY, {cwd: '/w', now: new Date('2026-11-26T00:00:00Z')})
    expect(r.previousSessionId).toBe('other1')
    expect(data[KEY].sessionId).toBe(r.sessionId)
    // Round one saw the row moved on and wrote nothing; the write came in round two, holding the lock of the
    // transcript the row named then, and of the new transcript it names (each round guesses a new id).
    const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}'
    const updates = log.filter((l) => l.startsWith('update'))
    expect(updates).toHaveLength(2)
    expect(updates[0]).toMatch(new RegExp(`^update left the row holding \\[s0\\.jsonl, ${uuid}\\.jsonl\\] while it named other1\\.jsonl$`))
    expect(updates[1]).toBe(`update rewrote the row holding [other1.jsonl, ${r.sessionId}.jsonl] while it named other1.jsonl`)
    expect(log.filter((l) => l.startsWith('archive'))).toEqual(['archive other1.jsonl -> other1.jsonl.reset.*'])
    expect([...files].sort()).toEqual([`${r.sessionId}.jsonl`])
  })

  it('a session rotated before every one of its 50 rounds: E_SESSION_ROTATING, and nothing was reset or archived by it', async () => {
    const {b, log} = backend(1000)
    await expect(runReset(b, KEY, {cwd: '/w'})).rejects.toMatchObject({code: 'E_SESSION_ROTATING'})
    expect(log.filter((l) => l.startsWith('archive'))).toEqual([])
    expect(log.filter((l) => l.startsWith('update'))).toHaveLength(50)
  })
})
