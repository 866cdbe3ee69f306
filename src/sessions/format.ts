// Text formats shared with OpenClaw's `sessions` table (token cells, relative ages, flags, key truncation), and the
// file sizes clawkit prints in status and in its errors.

// Byte sizes live in the store (its own errors name sizes), the lowest layer that needs them.
export {formatBytes} from '../text/bytes.js'

/** `formatTimeAgo` from OpenClaw (cli-surface.md §3.2). */
export function formatTimeAgo(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return 'unknown'
  const seconds = Math.round(ms / 1000)
  const minutes = Math.round(seconds / 60)
  if (minutes < 1) return 'just now'
  if (minutes < 60) return `${minutes}m ago`
  const hours = Math.round(minutes / 60)
  if (hours < 48) return `${hours}h ago`
  return `${Math.round(hours / 24)}d ago`
}

/**
 * A token count as OpenClaw 2026.9 prints it (`formatTokenCount`): `0`, `523`, `2.0k`, `12k`, `200k`, `1.2m`. Below
 * 1000 it is the count itself: 2026.4's `formatKTokens` printed `0.0k` for a session just reset, and 2026.9 stopped.
 */
export function formatTokensK(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return '0'
  if (n < 1000) return String(Math.round(n))
  if (n < 1_000_000) {
    const k = (n / 1000).toFixed(n >= 10_000 ? 0 : 1)
    // 999 600 rounds to "1000k": that is a million.
    if (Number(k) < 1000) return `${k}k`
  }
  return `${(n / 1_000_000).toFixed(1)}m`
}

/** An exact count with thousands grouped (`63,712`), for the tables that add counts up (`sessions usage`). */
export function groupDigits(n: number): string {
  // Not toLocaleString: building ICU's number formatter costs milliseconds that a read command would notice.
  const [int, frac] = String(n).split('.')
  return `${int.replace(/\B(?=(\d{3})+$)/g, ',')}${frac === undefined ? '' : `.${frac}`}`
}

export function percentUsed(total: number | null, ctx: number): number | null {
  if (total === null || !(ctx > 0)) return null
  return Math.min(999, Math.round((total / ctx) * 100))
}

/** The total a table shows: a stale (or missing) one counts as unknown, as in OpenClaw's tables. */
export function freshTotal(r: {totalTokens: number | null; totalTokensFresh: boolean}): number | null {
  return r.totalTokensFresh ? r.totalTokens : null
}

/** `<total>/<ctx> (<pct>%)`, or `unknown/<ctx> (?%)` when the total is not fresh. */
export function formatTokensCell(total: number | null, ctx: number): string {
  const pct = percentUsed(total, ctx)
  if (total === null || pct === null) return `unknown/${formatTokensK(ctx)} (?%)`
  return `${formatTokensK(total)}/${formatTokensK(ctx)} (${pct}%)`
}

/** Keys over 26 characters: first 16 + `...` + last 6. */
export function truncateKey(key: string, width = 26): string {
  return key.length > width ? `${key.slice(0, 16)}...${key.slice(-6)}` : key
}

export interface FlagSource {
  thinkingLevel?: string
  verboseLevel?: string
  traceLevel?: string
  reasoningLevel?: string
  elevatedLevel?: string
  responseUsage?: string
  groupActivation?: string
  systemSent?: boolean
  abortedLastRun?: boolean
  sessionId?: string
}

export function formatFlags(r: FlagSource): string {
  const out: string[] = []
  if (r.thinkingLevel) out.push(`think:${r.thinkingLevel}`)
  if (r.verboseLevel) out.push(`verbose:${r.verboseLevel}`)
  if (r.traceLevel) out.push(`trace:${r.traceLevel}`)
  if (r.reasoningLevel) out.push(`reasoning:${r.reasoningLevel}`)
  if (r.elevatedLevel) out.push(`elev:${r.elevatedLevel}`)
  if (r.responseUsage) out.push(`usage:${r.responseUsage}`)
  if (r.groupActivation) out.push(`activation:${r.groupActivation}`)
  if (r.systemSent) out.push('system')
  if (r.abortedLastRun) out.push('aborted')
  if (r.sessionId) out.push(`id:${r.sessionId}`)
  return out.join(' ')
}

const pad = (n: number) => String(n).padStart(2, '0')

/**
 * Local time with its UTC offset (`2026-11-25 22:31:01 +01:00`), in the zone TZ names: a bare time would be read as
 * local whatever zone it was printed in. --json keeps the stored ISO string.
 */
export function localTime(iso: unknown): string {
  const d = new Date(iso as string)
  if (Number.isNaN(d.getTime())) return String(iso)
  const offset = -d.getTimezoneOffset()
  const abs = Math.abs(offset)
  const zone = `${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${zone}`
}

