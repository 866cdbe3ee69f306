// Test support for usage reports: run `sessions usage --json` on a state dir in a time zone (TZ set on the child, or
// --timezone) and compare every row with the test's own grouping of the raw calls (usage-store.ts).
import {expect} from 'vitest'

import type {SessionsUsageResult} from '../../src/commands/sessions/usage.js'
import {baseEnv, json, runCli, tempDir} from './cli.js'
import {expectedGroups, type KeyFacts, type RawCall} from './usage-store.js'

/** The groupings checked against the raw calls: each dimension alone, and breakdowns of a time by a who and a what. */
export const REPORT_BYS = ['day', 'week', 'month', 'model', 'provider', 'agent', 'channel', 'kind', 'cron', 'key', 'day,model', 'month,agent', 'week,kind,channel']

export async function usageIn(state: string, zone: {tz?: string; flag?: string}, ...args: string[]): Promise<SessionsUsageResult> {
  const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state, ...(zone.tz ? {TZ: zone.tz} : {})})
  const r = await runCli(['sessions', 'usage', '--all-agents', '--json', ...(zone.flag ? ['--timezone', zone.flag] : []), ...args], {env})
  expect(r.code, r.stderr).toBe(0)
  return json<SessionsUsageResult>(r)
}

/** Every row, and the total, equal the raw calls' sums grouped independently (no row missing, none extra). */
export function expectRows(r: SessionsUsageResult, calls: readonly RawCall[], by: string, tz: string, facts: Map<string, KeyFacts>, window: {since?: number; until?: number} = {}): void {
  const want = expectedGroups(calls, by, tz, facts, window)
  expect(r.timezone).toBe(tz)
  expect(r.dims).toEqual(by.split(','))
  expect(r.rows.map((x) => x.group).sort(), by).toEqual([...want.keys()].sort())
  for (const x of r.rows) {
    const w = want.get(x.group)!
    expect({calls: x.calls, input: x.input, output: x.output, cacheRead: x.cacheRead, cacheWrite: x.cacheWrite}, `${by} ${x.group}`).toEqual({calls: w.calls, input: w.input, output: w.output, cacheRead: w.cacheRead, cacheWrite: w.cacheWrite})
    expect(x.costUsd, `${by} ${x.group}`).toBeCloseTo(w.cost, 9)
    if (by.includes(',')) expect(x.values?.join(' \u00B7 ')).toBe(x.group)
  }
  const all = [...want.values()]
  expect(r.total.calls).toBe(all.reduce((s, w) => s + w.calls, 0))
  expect(r.total.input).toBe(all.reduce((s, w) => s + w.input, 0))
  expect(r.total.cacheRead).toBe(all.reduce((s, w) => s + w.cacheRead, 0))
  expect(r.total.costUsd).toBeCloseTo(all.reduce((s, w) => s + w.cost, 0), 9)
}
