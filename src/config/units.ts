// Durations and byte sizes as OpenClaw's config and CLI write them (`30d`, `24h`, `1h30m`; `10gb`, `512kb`, `500`):
// its parseDurationMs and parseByteSize, so that a value means the same to both tools.

const DURATION_UNITS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000}

/**
 * OpenClaw's parseDurationMs: a non-negative number with a unit (ms, s, m, h, d), or several (`1h30m`); a bare number
 * takes `defaultUnit`. Throws an Error naming the value when it is not one.
 */
export function parseDurationMs(raw: string, defaultUnit: keyof typeof DURATION_UNITS = 'ms'): number {
  const t = raw.trim().toLowerCase()
  const bad = () => new Error(`Invalid duration: ${JSON.stringify(raw)}. Use values like 30d, 24h, 5m, 30s or 1h30m.`)
  if (!t) throw bad()
  const single = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(t)
  let ms: number
  if (single) {
    ms = Number(single[1]) * DURATION_UNITS[single[2] ?? defaultUnit]
  } else {
    ms = 0
    let consumed = 0
    for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
      if (m.index !== consumed) throw bad()
      ms += Number(m[1]) * DURATION_UNITS[m[2]]
      consumed += m[0].length
    }
    if (consumed === 0 || consumed !== t.length) throw bad()
  }
  const out = Math.round(ms)
  if (!Number.isSafeInteger(out) || out < 0) throw bad()
  return out
}

const BYTE_UNITS: Record<string, number> = {b: 1, kb: 1024, k: 1024, mb: 1024 ** 2, m: 1024 ** 2, gb: 1024 ** 3, g: 1024 ** 3, tb: 1024 ** 4, t: 1024 ** 4}

/** OpenClaw's parseByteSize: a non-negative number with an optional binary unit (b, kb, mb, gb, tb; k, m, g, t). */
export function parseByteSize(raw: string, defaultUnit = 'b'): number {
  const t = raw.trim().toLowerCase()
  const m = /^(\d+(?:\.\d+)?)([a-z]+)?$/.exec(t)
  const mult = m ? BYTE_UNITS[m[2] ?? defaultUnit] : undefined
  const bytes = m && mult ? Math.round(Number(m[1]) * mult) : Number.NaN
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new Error(`Invalid byte size: ${JSON.stringify(raw)}. Use values like 512kb, 10mb, 1gb or 500.`)
  return bytes
}
