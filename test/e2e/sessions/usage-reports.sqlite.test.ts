// `sessions usage` reports under Node 24, where the local catalog answers: on the generated JSON-era store (months of
// calls across DST changes, usage-store.ts) and on a SQLite-era fixture given sessions of every kind of key with such
// calls (usage-store-sqlite.ts), every grouping and breakdown in two zones equals the raw calls grouped by the test,
// and the catalog's document equals --scan's (but for `source` and `removed`, which say where each read).
import path from 'node:path'

import {expect, it} from 'vitest'

import type {SessionsUsageResult} from '../../../src/commands/sessions/usage.js'
import {sessionsUsage, type UsageOptions} from '../../../src/sessions/usage.js'
import {copyFixture, tempDir} from '../../support/cli.js'
import {inProcess} from '../../support/in-process.js'
import {dbPath} from '../../support/sqlite-expect.js'
import {describeSqlite, NATIVE_96} from '../../support/sqlite.js'
import {addSqliteUsage, sqliteCalls} from '../../support/usage-store-sqlite.js'
import {expectRows, REPORT_BYS, usageIn} from '../../support/usage-reports.js'
import {generateUsageStore} from '../../support/usage-store.js'

const comparable = ({source: _s, removed: _r, ...rest}: SessionsUsageResult) => rest

/**
 * The second oracle, --scan's document, computed in this process (as the command computes it: its flags passed to
 * sessionsUsage as they are, the zone as --timezone); each report from the catalog is a real CLI run, and the scan's
 * own reports are checked against the raw calls through the CLI in usage-reports.test.ts.
 */
function scanned(stateDir: string, tz: string, opts: UsageOptions): Promise<SessionsUsageResult> {
  return inProcess(stateDir, (state) => sessionsUsage(state, {...opts, allAgents: true, timezone: tz, scan: true}))
}

describeSqlite('sessions usage reports from the catalog', () => {
  it('JSON era: every grouping in Berlin (TZ) and New York (--timezone) from the catalog equals the raw calls and --scan', async () => {
    const store = generateUsageStore(tempDir(), 31)
    for (const zone of [{tz: 'Europe/Berlin'}, {flag: 'America/New_York'}]) {
      const tz = zone.tz ?? zone.flag!
      for (const by of REPORT_BYS) {
        const cat = await usageIn(store.state, zone, '--by', by)
        expect(cat.source).toBe('catalog')
        expectRows(cat, store.calls, by, tz, store.facts)
        const scan = await scanned(store.state, tz, {by})
        expect(scan.source).toBe('scan')
        expect(comparable(cat)).toEqual(comparable(scan))
      }
    }
    // A window goes call by call through the ledger: the same as a scan's, and the raw calls'.
    const since = Date.parse('2026-03-29T00:00:00Z')
    const cat = await usageIn(store.state, {tz: 'Europe/Berlin'}, '--by', 'week,cron', '--since', '2026-03-29T01:00Z', '--until', '2026-10-25')
    expectRows(cat, store.calls, 'week,cron', 'Europe/Berlin', store.facts, {since: since + 3_600_000, until: Date.parse('2026-10-25T23:00:00Z') - 1})
    expect(comparable(cat)).toEqual(comparable(await scanned(store.state, 'Europe/Berlin', {by: 'week,cron', since: '2026-03-29T01:00Z', until: '2026-10-25'})))
  }, 240_000)

  it('SQLite era: a 2026.9.6 database with sessions of every kind of key; every grouping in two zones equals its events grouped by the test, catalog and scan alike', async () => {
    const state = copyFixture(NATIVE_96)
    const file = dbPath(state, 'main')
    const facts = addSqliteUsage(file, 'main', 7)
    const explicit = sqliteCalls(file, 'main').map((c) => c.key).find((k) => k.includes(':explicit:'))!
    facts.set(explicit, {channel: '(none)', kind: 'explicit', cron: '(not cron)'})
    const calls = sqliteCalls(file, 'main')
    expect(new Set(calls.map((c) => c.key)).size).toBe(facts.size)
    expect(calls.length).toBeGreaterThan(60)
    for (const zone of [{tz: 'America/New_York'}, {flag: 'Europe/Berlin'}]) {
      const tz = zone.tz ?? zone.flag!
      for (const by of REPORT_BYS) {
        const cat = await usageIn(state, zone, '--by', by)
        expect(cat.source).toBe('catalog')
        expectRows(cat, calls, by, tz, facts)
        expect(comparable(cat)).toEqual(comparable(await scanned(state, tz, {by})))
      }
    }
    expect(path.basename(file)).toBe('openclaw-agent.sqlite')
  }, 240_000)
})
