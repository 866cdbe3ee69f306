// The replica's read side against the SQLite-era store it was seeded from (OpenClaw 2026.9.6 fixtures): the same index,
// lineages in the same order, the same lines and tails, for every agent and key. Locators differ by design.
import {afterAll, beforeAll, expect, it} from 'vitest'

import {FleetState} from '../../../src/fleet/state.js'
import {OpenClawState} from '../../../src/store/state.js'
import type {TranscriptEntry} from '../../../src/store/transcript-types.js'
import type {KeySession, SessionReader, TranscriptLine} from '../../../src/store/types.js'
import {baseEnv, copyFixture, runCli, tempDir} from '../../support/cli.js'
import {seedHost} from '../../support/fleet-seed.js'
import {describePg, usePg} from '../../support/postgres.js'
import {describeSqlite, IMPORTED_96, NATIVE_96} from '../../support/sqlite.js'

const comparable = (s: Omit<KeySession, 'foundBy'> & {foundBy: string; key?: string | null}) => ({sessionId: s.sessionId, where: s.where, ended: s.ended, endedAt: s.endedAt, foundBy: s.foundBy, exists: s.transcript.exists, ...('key' in s ? {key: s.key} : {})})

async function lines(store: SessionReader, t: KeySession['transcript']): Promise<TranscriptLine[]> {
  const out: TranscriptLine[] = []
  for await (const l of store.readLines(t)) out.push(l)
  return out
}

describeSqlite('SessionStore contract, read side: the replica of SQLite-era hosts', () => {
  describePg('(real PostgreSQL)', () => {
    const pg = usePg()
    const states: Record<string, OpenClawState> = {}
    let fleet: FleetState

    beforeAll(async () => {
      const url = pg.db()
      for (const [host, fixture] of [['native', NATIVE_96], ['imported', IMPORTED_96]]) {
        const stateDir = copyFixture(fixture)
        // Two resets by clawkit's own SQLite writer: the key then has three windows, whose order the replica must keep.
        if (host === 'native') {
          for (let i = 0; i < 2; i++) {
            const r = await runCli(['sessions', 'reset', 'agent:main:main', '--json', '--state-dir', stateDir], {env: baseEnv(tempDir())})
            expect(r.code, r.stderr + r.stdout).toBe(0)
            await new Promise((resolve) => setTimeout(resolve, 20))
          }
        }
        await seedHost(url, {host, stateDir})
        states[host] = OpenClawState.open({stateDir, ignoreSettings: true})
      }
      fleet = await FleetState.open(url)
    }, 120_000)
    afterAll(async () => {
      for (const s of Object.values(states)) s.close()
      await fleet?.close()
    })

    it('every agent: the index, each key\'s lineage in order, allSessions, every line and a tail equal the database\'s', async () => {
      let keysSeen = 0
      for (const [host, state] of Object.entries(states)) {
        for (const agentId of state.allAgentIds()) {
          const mine = fleet.store(agentId, host)
          const theirs = state.store(agentId)
          expect(mine.era).toBe('sqlite')
          expect({...(await mine.read())}).toEqual({...(await theirs.read())})
          expect(Object.keys(await mine.read())).toEqual(Object.keys(await theirs.read()))
          // stats keys: at least every listed key (the database also holds rows it does not list, such as placeholders).
          for (const st of [await mine.stats({keys: true}), await theirs.stats({keys: true})]) expect(st.keys).toEqual(expect.arrayContaining(Object.keys(await theirs.read())))
          expect((await mine.allSessions()).map(comparable)).toEqual((await theirs.allSessions()).map(comparable))
          for (const key of Object.keys(await theirs.read())) {
            keysSeen++
            const a = await mine.sessionsOf(key)
            const b = await theirs.sessionsOf(key)
            expect(a.map(comparable), `${host} ${key}`).toEqual(b.map(comparable))
            for (const [i, s] of a.entries()) {
              if (!s.transcript.exists) continue
              expect(await lines(mine, s.transcript)).toEqual(await lines(theirs, b[i].transcript))
              const count = (e: TranscriptEntry) => e.type === 'message'
              const ta = await mine.tail(s.transcript, {limit: 2, count, exactPartial: true})
              const tb = await theirs.tail(b[i].transcript, {limit: 2, count, exactPartial: true})
              expect({e: ta?.entries, r: ta?.rawLines, p: ta?.partial, h: ta?.header}).toEqual({e: tb?.entries, r: tb?.rawLines, p: tb?.partial, h: tb?.header})
            }
          }
        }
      }
      expect(keysSeen).toBeGreaterThan(2)
      expect((await fleet.store('main', 'native').sessionsOf('agent:main:main')).map((s) => s.ended)).toEqual(['reset', 'reset', 'current'])
    })
  })
})
