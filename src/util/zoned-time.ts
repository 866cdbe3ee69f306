// Calendar periods (hour, day, ISO week, month) of an instant in an IANA time zone, and the instant a zone's local
// date/time names, with nothing but Intl: usage reports and budgets count days as the operator's clock does, DST
// changes included (a day of 23 or 25 hours).

import fs from 'node:fs'

/**
 * The names of UTC that Intl (ICU) gives as `UTC`, on Node 20 and 24 alike, from TZ or from the /etc/localtime link;
 * not GMT (Node 24 says `+00:00`), nor a name in another case, nor a POSIX rule (`UTC0`).
 */
const UTC_NAMES = new Set(['UTC', 'Etc/UTC', 'UCT', 'Etc/UCT', 'Universal', 'Etc/Universal', 'Zulu', 'Etc/Zulu'])

/**
 * The zone the process runs in (TZ, else the system's): the default of --timezone. Intl's first use costs ~20 ms (its
 * locale data), a tenth of a warm `sessions usage`; a server's zone is mostly UTC, which is read here as ICU reads it
 * (TZ if set, else the zone /etc/localtime links to) and given without Intl. Any other zone is Intl's.
 */
export function localTimeZone(): string {
  const name = process.env.TZ ?? linkedZone()
  if (name !== undefined && UTC_NAMES.has(name)) return 'UTC'
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}

/** The zone name /etc/localtime links to (`.../zoneinfo/Etc/UTC`: `Etc/UTC`), or undefined. */
function linkedZone(): string | undefined {
  try {
    const target = fs.readlinkSync('/etc/localtime')
    const at = target.lastIndexOf('zoneinfo/')
    return at < 0 ? undefined : target.slice(at + 'zoneinfo/'.length)
  } catch {
    return undefined
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz)
  if (!f) {
    // en-US with h23 gives plain numbers; the parts are read by type, never by position.
    f = new Intl.DateTimeFormat('en-US', {timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit'})
    formatters.set(tz, f)
  }
  return f
}

/** A time zone as given (`Europe/Berlin`, `UTC`): its canonical name, or undefined when Intl knows no such zone. */
export function canonicalTimeZone(raw: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', {timeZone: raw.trim()}).resolvedOptions().timeZone
  } catch {
    return undefined
  }
}

export interface ZonedParts {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

/** The wall-clock date and time of instant `t` (ms) in zone `tz`. */
export function zonedParts(t: number, tz: string): ZonedParts {
  const out: Record<string, number> = {}
  for (const p of formatter(tz).formatToParts(new Date(t))) if (p.type !== 'literal') out[p.type] = Number(p.value)
  // Years before 1 come back as era-less numbers; usage never meets them (times outside 0-9999 are not calendar times).
  return {year: out.year, month: out.month, day: out.day, hour: out.hour === 24 ? 0 : out.hour, minute: out.minute, second: out.second}
}

/** The zone's offset from UTC at instant `t`, in ms (east positive). */
function offsetAt(t: number, tz: string): number {
  const p = zonedParts(t, tz)
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second)
  return asUtc - Math.floor(t / 1000) * 1000
}

/**
 * The instant at which the zone's clocks show the given local date and time. A time skipped by a DST change (02:30 on
 * a spring-forward night) is taken as an instant after the gap; a time shown twice (autumn) as its first showing.
 * Midnights and month starts meet a gap only in the few zones that change at midnight.
 */
export function zonedInstant(tz: string, year: number, month: number, day = 1, hour = 0, minute = 0, second = 0): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute, second)
  // Two rounds settle any zone: the offset guessed at the wall time as if it were UTC, then at the first answer.
  const first = wall - offsetAt(wall, tz)
  const second2 = wall - offsetAt(first, tz)
  if (second2 === first) {
    // Shown twice? The earlier showing is an hour (or the DST step) before; take it when it shows the same wall time.
    const earlier = wall - offsetAt(first - 3_600_000, tz)
    if (earlier < first && wallOf(earlier, tz) === wall) return earlier
    return first
  }
  // The wall time is in a gap: neither guess shows it. The later instant is the first after the gap.
  return wallOf(second2, tz) === wall ? second2 : Math.max(first, second2)
}

function wallOf(t: number, tz: string): number {
  const p = zonedParts(t, tz)
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second)
}

export type Period = 'hour' | 'day' | 'week' | 'month'

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** The calendar date of ISO week's Monday for a date (days since the epoch of a UTC calendar, which has no DST). */
function mondayOf(year: number, month: number, day: number): {year: number; month: number; day: number} {
  const d = new Date(Date.UTC(year, month - 1, day))
  const back = (d.getUTCDay() + 6) % 7
  d.setUTCDate(d.getUTCDate() - back)
  return {year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate()}
}

/**
 * The label of the period holding instant `t` in zone `tz`: `YYYY-MM-DD HH:00` (hour), `YYYY-MM-DD` (day; week: the
 * date of its Monday, ISO weeks), `YYYY-MM` (month).
 */
export function periodLabel(t: number, period: Period, tz: string): string {
  const p = zonedParts(t, tz)
  switch (period) {
    case 'hour':
      return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:00`
    case 'day':
      return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`
    case 'week': {
      const m = mondayOf(p.year, p.month, p.day)
      return `${pad(m.year, 4)}-${pad(m.month)}-${pad(m.day)}`
    }
    case 'month':
      return `${pad(p.year, 4)}-${pad(p.month)}`
  }
}

/**
 * Labels by instant, cached per quarter hour: every zone's offsets and DST changes fall on quarter hours, so all the
 * instants of one quarter hour share a label (a report of a million calls asks Intl a few thousand times).
 */
export class PeriodLabeler {
  private readonly cache = new Map<number, string>()
  constructor(
    readonly period: Period,
    readonly tz: string,
  ) {}

  label(t: number): string {
    const q = Math.floor(t / 900_000)
    let s = this.cache.get(q)
    if (s === undefined) {
      s = periodLabel(q * 900_000, this.period, this.tz)
      this.cache.set(q, s)
    }
    return s
  }
}

/** The first instant of the period holding `t`, `back` periods earlier (0: this one). */
export function periodStart(t: number, period: Period, tz: string, back = 0): number {
  const p = zonedParts(t, tz)
  switch (period) {
    case 'hour': {
      // Hours are counted on the real time line (a DST night has 23 or 25 of them).
      const start = t - ((p.minute * 60 + p.second) * 1000 + (t % 1000 + 1000) % 1000)
      return start - back * 3_600_000
    }
    case 'day': {
      const d = new Date(Date.UTC(p.year, p.month - 1, p.day - back))
      return zonedInstant(tz, d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())
    }
    case 'week': {
      const m = mondayOf(p.year, p.month, p.day)
      const d = new Date(Date.UTC(m.year, m.month - 1, m.day - 7 * back))
      return zonedInstant(tz, d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())
    }
    case 'month': {
      const d = new Date(Date.UTC(p.year, p.month - 1 - back, 1))
      return zonedInstant(tz, d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
    }
  }
}

/** The first instant after the period holding `t` (the start of the next one). */
export function periodEnd(t: number, period: Period, tz: string): number {
  const p = zonedParts(t, tz)
  switch (period) {
    case 'hour':
      return periodStart(t, 'hour', tz) + 3_600_000
    case 'day': {
      const d = new Date(Date.UTC(p.year, p.month - 1, p.day + 1))
      return zonedInstant(tz, d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())
    }
    case 'week': {
      const m = mondayOf(p.year, p.month, p.day)
      const d = new Date(Date.UTC(m.year, m.month - 1, m.day + 7))
      return zonedInstant(tz, d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())
    }
    case 'month': {
      const d = new Date(Date.UTC(p.year, p.month, 1))
      return zonedInstant(tz, d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
    }
  }
}
