// `sessions usage` reports (--by with breakdowns, --timezone, --since/--until, --last, --csv) through the real CLI on a
// generated multi-agent, multi-model store spanning February to November 2026 and both DST changes of Berlin and New
// York, in two zones: the child's own TZ (the default zone) and --timezone. Every row is compared with the test's own
// grouping of the calls it wrote (usage-store.ts). Node 20: the figures come from a scan (the catalog needs node:sqlite;
// usage-reports.sqlite.test.ts compares the catalog's with them).
import {describe, expect, it} from 'vitest'

import {baseEnv, runCli, tempDir} from '../../support/cli.js'
import {hasScript, onTty, visible} from '../../support/tty.js'
import {expectRows, REPORT_BYS, usageIn} from '../../support/usage-reports.js'
import {generateUsageStore, wallDate} from '../../support/usage-store.js'

const store = generateUsageStore(tempDir(), 30)

describe('sessions usage reports', () => {
  for (const zone of [{tz: 'Europe/Berlin'}, {flag: 'America/New_York'}]) {
    const tz = zone.tz ?? zone.flag!
    it(`every grouping and breakdown in ${tz} (${zone.tz ? 'TZ of the child, the default' : '--timezone'}) equals the raw calls grouped independently`, async () => {
      expect(store.calls.length).toBeGreaterThan(500)
      for (const by of REPORT_BYS) expectRows(await usageIn(store.state, zone, '--by', by), store.calls, by, tz, store.facts)
    }, 120_000)
  }

  it('the same instants fall on other days in Berlin and New York (the generated calls straddle both midnights)', () => {
    const differ = store.calls.filter((c) => wallDate(c.t, 'Europe/Berlin') !== wallDate(c.t, 'America/New_York'))
    expect(differ.length).toBeGreaterThan(10)
  })

  it('--since/--until bare dates are whole days of the zone; --last N counts N periods back from now, the current one included', async () => {
    const tz = 'America/New_York'
    const r = await usageIn(store.state, {flag: tz}, '--by', 'day', '--since', '2026-03-08', '--until', '2026-11-01')
    // 2026-03-08 00:00 EST is 05:00Z; 2026-11-01 ends at 2026-11-02 00:00 EST, 05:00Z.
    expectRows(r, store.calls, 'day', tz, store.facts, {since: Date.parse('2026-03-08T05:00:00Z'), until: Date.parse('2026-11-02T05:00:00Z') - 1})
    expect(r.since).toBe('2026-03-08T05:00:00.000Z')
    const berlin = await usageIn(store.state, {tz: 'Europe/Berlin'}, '--by', 'month', '--since', '2026-10-25T02:30', '--until', '2026-10-31')
    // 02:30 happens twice that night in Berlin: the first (CEST, 00:30Z) starts the window.
    expect(berlin.since).toBe('2026-10-25T00:30:00.000Z')
    expectRows(berlin, store.calls, 'month', 'Europe/Berlin', store.facts, {since: Date.parse('2026-10-25T00:30:00Z'), until: Date.parse('2026-10-31T23:00:00Z') - 1})
    // The window opens at the first instant of the month two before this one (UTC), whatever today is.
    const last = await usageIn(store.state, {flag: 'UTC'}, '--by', 'month', '--last', '3')
    expect(Date.parse(last.since!)).toBe(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 2, 1))
    expectRows(last, store.calls, 'month', 'UTC', store.facts, {since: Date.parse(last.since!)})
    const bad = await runCli(['sessions', 'usage', '--by', 'agent', '--last', '2', '--json'], {env: baseEnv(tempDir(), {OPENCLAW_STATE_DIR: store.state})})
    expect(bad.code).toBe(2)
    expect(bad.stdout).toContain('--last counts periods of a time grouping')
    const zone = await runCli(['sessions', 'usage', '--timezone', 'Mars/Olympus'], {env: baseEnv(tempDir(), {OPENCLAW_STATE_DIR: store.state})})
    expect(zone.code).toBe(2)
    expect(zone.stderr).toContain('--timezone "Mars/Olympus" is not an IANA time zone')
    const twice = await runCli(['sessions', 'usage', '--by', 'day,day'], {env: baseEnv(tempDir(), {OPENCLAW_STATE_DIR: store.state})})
    expect(twice.code).toBe(2)
  }, 60_000)

  it('--csv: a header and one line per row of the --json document, values and figures alike', async () => {
    const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: store.state, TZ: 'Europe/Berlin'})
    const doc = await usageIn(store.state, {tz: 'Europe/Berlin'}, '--by', 'day,model')
    const r = await runCli(['sessions', 'usage', '--all-agents', '--by', 'day,model', '--csv'], {env})
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('day,model,calls,input,output,cacheRead,cacheWrite,totalTokens,costUsd,estimated,removedCostUsd,firstCallAt,lastCallAt')
    expect(lines).toHaveLength(doc.rows.length + 1)
    lines.slice(1).forEach((l, i) => {
      const f = l.split(',')
      const x = doc.rows[i]
      expect(f.slice(0, 2)).toEqual(x.values)
      expect(f.slice(2, 9).map(Number)).toEqual([x.calls, x.input, x.output, x.cacheRead, x.cacheWrite, x.totalTokens, Number(x.costUsd.toFixed(9))])
      expect(f[9]).toBe(String(x.estimated))
    })
    const both = await runCli(['sessions', 'usage', '--csv', '--json'], {env})
    expect(both.code).toBe(2)
  }, 60_000)

  it('the header names the zone; a breakdown prints each period once; the table fits 50 to 200 columns', async () => {
    const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: store.state, TZ: 'America/New_York'})
    const r = await runCli(['sessions', 'usage', '--all-agents', '--by', 'month,model'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.split('\n')[0]).toMatch(/^Usage by month, model \(America\/New_York\): /)
    // Ten months of five models: each month's label on its first row only.
    expect(r.stdout.match(/^2026-\d\d /gm)).toHaveLength(10)
    if (!hasScript) return
    for (const cols of [50, 60, 80, 120, 200]) {
      const t = await onTty(cols, ['sessions', 'usage', '--all-agents', '--by', 'week,kind,channel'], env)
      expect(t.code).toBe(0)
      for (const l of t.out.trimEnd().split('\n')) expect(visible(l), `${cols}: ${l}`).toBeLessThanOrEqual(cols)
      expect(t.out).toMatch(/Total/)
      expect(t.out).toMatch(/\$\d+\.\d{4}/)
    }
  }, 90_000)
})
