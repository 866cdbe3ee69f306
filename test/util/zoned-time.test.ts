// Calendar periods in IANA zones across DST changes: every period's start and end bracket its instants, and the
// labels agree with Intl's own wall-clock reading (toLocaleString in the zone), the tests' independent reading.
import {execFileSync} from 'node:child_process'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

import {describe, expect, it} from 'vitest'

import {ROOT} from '../support/cli.js'
import {canonicalTimeZone, periodEnd, periodLabel, periodStart, type Period, zonedInstant} from '../../src/util/zoned-time.js'

/** The zone's wall date as sv-SE prints it (YYYY-MM-DD HH:MM:SS), an independent path through Intl. */
const wall = (t: number, tz: string) => new Date(t).toLocaleString('sv-SE', {timeZone: tz})

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Kolkata']

describe('zoned time', () => {
  it('every eleven hours of 2026 in six zones (DST of an hour, of half an hour, at midnight; none): the period brackets it, its label is the wall date', () => {
    for (const tz of ZONES) {
      for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 11 * 3_600_000 + 17_000) {
        for (const p of ['hour', 'day', 'week', 'month'] as Period[]) {
          const s = periodStart(t, p, tz)
          const e = periodEnd(t, p, tz)
          expect(s, `${tz} ${p} ${new Date(t).toISOString()}`).toBeLessThanOrEqual(t)
          expect(e).toBeGreaterThan(t)
          expect(periodLabel(s, p, tz)).toBe(periodLabel(t, p, tz))
          if (p !== 'hour') expect(periodLabel(s - 1, p, tz)).not.toBe(periodLabel(t, p, tz))
          // The hour an autumn night repeats is one wall-clock label for two real hours (one row of --by hour).
          if (p !== 'hour') expect(periodLabel(e, p, tz)).not.toBe(periodLabel(t, p, tz))
          expect(periodLabel(e - 1, p, tz)).toBe(periodLabel(t, p, tz))
        }
        expect(periodLabel(t, 'day', tz)).toBe(wall(t, tz).slice(0, 10))
        expect(periodLabel(t, 'month', tz)).toBe(wall(t, tz).slice(0, 7))
      }
    }
  })

  it('a DST day has 23 or 25 hours; a week starts on Monday; back counts whole periods', () => {
    const spring = periodStart(Date.UTC(2026, 2, 29, 12), 'day', 'Europe/Berlin')
    expect(periodEnd(spring, 'day', 'Europe/Berlin') - spring).toBe(23 * 3_600_000)
    const autumn = periodStart(Date.UTC(2026, 9, 25, 12), 'day', 'Europe/Berlin')
    expect(periodEnd(autumn, 'day', 'Europe/Berlin') - autumn).toBe(25 * 3_600_000)
    // 2026-11-28 is a Saturday: its week starts on Monday the 23rd.
    expect(periodLabel(Date.UTC(2026, 10, 28, 12), 'week', 'UTC')).toBe('2026-11-23')
    expect(periodStart(Date.UTC(2026, 10, 28, 12), 'month', 'America/New_York', 11)).toBe(Date.parse('2025-12-01T05:00:00Z'))
    expect(zonedInstant('Europe/Berlin', 2026, 10, 25, 2, 30)).toBe(Date.parse('2026-10-25T00:30:00Z'))
    expect(canonicalTimeZone('Mars/Olympus')).toBeUndefined()
    expect(canonicalTimeZone('utc')).toBe('UTC')
  })

  it('the local zone is Intl\'s: UTC by its names without Intl, any other TZ (or none, or the system\'s link) through it', () => {
    // A process each: ICU reads the zone when it starts. The built module, as the CLI runs it.
    const mod = pathToFileURL(path.join(ROOT, 'dist', 'util', 'zoned-time.js')).href
    const script = `import(${JSON.stringify(mod)}).then((m) => console.log(JSON.stringify([m.localTimeZone(), Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'])))`
    const {TZ: _, ...env} = process.env
    for (const tz of [undefined, 'UTC', 'Etc/UTC', 'UCT', 'Etc/UCT', 'Universal', 'Etc/Universal', 'Zulu', 'Etc/Zulu', 'GMT', 'Etc/GMT', 'utc', 'UTC0', ':UTC', '', 'Europe/Berlin', 'America/New_York']) {
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {env: tz === undefined ? env : {...env, TZ: tz}, encoding: 'utf8'})
      const [got, intl] = JSON.parse(out) as [string, string]
      expect(got, `TZ=${tz ?? '(unset)'}`).toBe(intl)
    }
  })
})
