// Flag values that clawkit checks itself rather than through oclif's typed flags, so every bad value is reported in one
// style, with one code and exit 2 (oclif's integer flag printed "Parsing --limit / Expected an integer ...").
import {UsageError} from './errors.js'

/**
 * A count flag such as --limit: a positive integer, or with `all` allowed, `all` (returned as null). The message is
 * OpenClaw's for its own --limit (`--limit must be a positive integer or "all", for example --limit 25.`).
 */
export function positiveIntegerFlag(flag: string, raw: string, opts: {all?: boolean; example?: number} = {}): number | null {
  const v = raw.trim()
  if (opts.all && v.toLowerCase() === 'all') return null
  if (!/^\d+$/.test(v) || Number(v) <= 0 || !Number.isSafeInteger(Number(v))) {
    throw new UsageError(`${flag} must be a positive integer${opts.all ? ' or "all"' : ''}, for example ${flag} ${opts.example ?? 25}.`, `E_BAD_${flag.replace(/^-+/, '').toUpperCase().replaceAll('-', '_')}`)
  }
  return Number(v)
}

/** A count that may be 0, such as --offset: a non-negative integer. */
export function nonNegativeIntegerFlag(flag: string, raw: string): number {
  const v = raw.trim()
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new UsageError(`${flag} must be 0 or a positive integer, for example ${flag} 20.`, `E_BAD_${flag.replace(/^-+/, '').toUpperCase().replaceAll('-', '_')}`)
  return Number(v)
}

const DURATION_UNITS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000}

/** A length of time such as --until-idle's: `500ms`, `30s`, `5m`, `1h`, or a bare number of seconds; in milliseconds. */
export function durationFlag(flag: string, raw: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i.exec(raw.trim())
  const ms = m ? Number(m[1]) * DURATION_UNITS[(m[2] ?? 's').toLowerCase()] : Number.NaN
  if (!Number.isFinite(ms) || ms <= 0 || ms > 2 ** 31 - 1) {
    throw new UsageError(`${flag} must be a length of time such as 30s, 5m, 1h or 500ms (a bare number is seconds), up to 24 days.`, `E_BAD_${flag.replace(/^-+/, '').toUpperCase().replaceAll('-', '_')}`)
  }
  return Math.round(ms)
}
