// Fleet reads of SQLite-era hosts (OpenClaw 2026.9.6 fixtures, native and imported) beside a JSON-era one, through the
// real CLI on a real PostgreSQL: each host's rows, histories, lineages and usage on the replica equal what the same
// command answers on the host itself, plus `host`. Dropped as legitimately different: transcript locators
// (`pg:<host>/<agent>#<sessionId>` instead of `<db path>#<sessionId>`) and ageMs (each run's own now).
import {beforeAll, expect, it} from 'vitest'

import {copyFixture, json, TWO_AGENTS} from '../../support/cli.js'
import {fleetRunners, seedHost} from '../../support/fleet-seed.js'
import {describePg, usePg} from '../../support/postgres.js'
import {expectDoc} from '../../support/schema-check.js'
import {describeSqlite, IMPORTED_96, NATIVE_96} from '../../support/sqlite.js'
import type {SessionsHistoryResult} from '../../../src/commands/sessions/history.js'
import type {SessionsLineageResult} from '../../../src/commands/sessions/lineage.js'
import type {SessionsListResult} from '../../../src/commands/sessions/list.js'
import type {SessionsUsageResult} from '../../../src/commands/sessions/usage.js'
import type {FleetStatusResult} from '../../../src/fleet/status.js'

const HOSTS: Record<string, string> = {}
let url = ''
const {local, fleet, ok, withoutAge} = fleetRunners(HOSTS, () => url)

describeSqlite('fleet reads of SQLite-era hosts', () => {
  describePg('(real PostgreSQL)', () => {
    const pg = usePg()

    beforeAll(async () => {
      url = pg.db()
      HOSTS.native = copyFixture(NATIVE_96)
      HOSTS.imported = copyFixture(IMPORTED_96)
      HOSTS.json = copyFixture(TWO_AGENTS)
      for (const [host, stateDir] of Object.entries(HOSTS)) await seedHost(url, {host, stateDir})
    }, 180_000)

    it('sessions list --all-agents: the union of each host\'s local rows (2026.9.6 fields for SQLite-era ones) plus host', async () => {
      const r = expectDoc<SessionsListResult>(await fleet(['sessions', 'list', '--all-agents', '--json']), 'sessions-list')
      const expected: SessionsListResult['sessions'] = []
      for (const host of Object.keys(HOSTS)) for (const row of json(ok(await local(host, ['sessions', 'list', '--all-agents', '--json']))).sessions) expected.push({host, ...row})
      expected.sort((a, b) => (b.updatedAt ?? -Infinity) - (a.updatedAt ?? -Infinity))
      expect(withoutAge(r.sessions)).toEqual(withoutAge(expected))
      expect(r.sessions.some((s) => s.host === 'native' && 'agentRuntime' in s)).toBe(true)
      const status = json<FleetStatusResult>(ok(await fleet(['status', '--json'])))
      expect(status.hosts.map((h) => [h.host, [...new Set(h.agents.map((a) => a.era))]])).toEqual([['imported', ['sqlite']], ['json', ['json']], ['native', ['sqlite']]])
    })

    // One test per host (a test for both ran ~50 CLI processes, a fifth of its timeout on a quiet machine).
    for (const host of ['native', 'imported']) {
      it(`history (--include-archived, --raw), lineage and usage of every key of ${host} (SQLite era) equal the host's own`, async () => {
        const keys: string[] = json(ok(await local(host, ['sessions', 'list', '--all-agents', '--json']))).sessions.map((s) => s.key)
        expect(keys.length).toBeGreaterThan(0)
        for (const key of keys) {
          for (const extra of [['--limit', '4'], ['--include-archived', '--limit', '30', '--raw']]) {
            const args = ['sessions', 'history', key, ...extra, '--json']
            const strip = (d: SessionsHistoryResult) => ({...d, sessionFile: undefined, sessions: d.sessions?.map((s) => ({...s, sessionFile: undefined}))})
            const [fromReplica, fromHost] = await Promise.all([fleet([...args, '--host', host]), local(host, args)])
            const theirs = json<SessionsHistoryResult>(ok(fromHost))
            expect(strip(expectDoc<SessionsHistoryResult>(fromReplica, 'sessions-history')), `${host} ${key}`).toEqual(strip({host, ...theirs}))
          }
          const strip = (d: SessionsLineageResult) => ({...d, sessions: d.sessions.map((s) => ({...s, transcript: undefined}))})
          const [fromReplica, fromHost] = await Promise.all([fleet(['sessions', 'lineage', key, '--host', host, '--json']), local(host, ['sessions', 'lineage', key, '--json'])])
          expect(strip(json(ok(fromReplica)))).toEqual(strip({host, ...json(ok(fromHost))}))
        }
        for (const by of ['session', 'model']) {
          // `source` says where each read (the replica; the host's catalog): the figures are the same.
          const strip = (d: SessionsUsageResult) => ({...d, hosts: undefined, source: undefined, removed: undefined, rows: d.rows.map((r) => ({...r, host: undefined}))})
          const [fromReplica, fromHost] = await Promise.all([fleet(['sessions', 'usage', '--host', host, '--all-agents', '--by', by, '--json']), local(host, ['sessions', 'usage', '--all-agents', '--by', by, '--json'])])
          const theirs = json(ok(fromHost))
          expect(theirs.total.calls).toBeGreaterThan(0)
          expect(strip(json(ok(fromReplica)))).toEqual(strip(theirs))
          expect(theirs.source).toBe('catalog')
        }
      })
    }
  })
})
