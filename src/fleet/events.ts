// What one transcript line becomes in the replica (docs/fleet.md, clawkit_events): the line as stored plus the columns
// the fleet readers query (type, id, role, time, the text search reads), and the usage it adds to its transcript.
import {readUsage, type UsageTotals} from '../sessions/lineage.js'
import {searchTextOf} from '../sessions/search-text.js'
import type {TranscriptLine} from '../store/types.js'

export interface EventRow {
  seq: number
  raw: string
  entryType: string | null
  entryId: string | null
  role: string | null
  at: string | null
  searchText: string | null
}

/** Per-transcript usage totals (clawkit_transcripts): recorded `usage.cost.total` only, never an estimate. */
export interface UsageSums extends UsageTotals {
  calls: number
}

export const emptySums = (): UsageSums => ({input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costUsd: 0, calls: 0})

// PostgreSQL text cannot hold U+0000; a line that parses as JSON never has one raw (JSON escapes it), a broken one may.
const noNul = (s: string) => (s.includes('\u0000') ? s.replaceAll('\u0000', '\uFFFD') : s)

/** A string as a PostgreSQL text value: U+0000, which text cannot hold, becomes U+FFFD (keys and ids from files). */
export const pgText = noNul

// An escaped U+0000 or an unpaired surrogate, after an even number of backslashes (else the backslash is escaped).
const JSONB_UNSAFE = /(?<=(?:^|[^\\])(?:\\\\)*)\\u(?:0000|d[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2}\\u)d[c-f][0-9a-f]{2})/gi

/**
 * JSON text as jsonb accepts it: jsonb refuses `\u0000` and unpaired surrogates, which JSON.stringify writes for such
 * strings in an entry; they become `\ufffd` (the replica's entry then differs from the host's in those characters only).
 */
export function jsonbText(json: string): string {
  return json.includes('\\u') ? json.replace(JSONB_UNSAFE, '\\ufffd') : json
}

/** An ISO time PostgreSQL accepts (years 1..9999), from the entry's timestamp (ISO text or epoch ms); else null. */
function isoTime(v: unknown): string | null {
  const t = typeof v === 'string' ? Date.parse(v) : typeof v === 'number' ? v : Number.NaN
  if (!Number.isFinite(t)) return null
  const d = new Date(t)
  const y = d.getUTCFullYear()
  return y >= 1 && y <= 9999 ? d.toISOString() : null
}

/**
 * The content search reads, exactly as `sessions search` reads it (searchTextOf in src/sessions/search-text.ts): the
 * replica's trigram index on it then names every transcript a fleet search could find a hit in, never fewer.
 */
function searchTextFor(v: Record<string, unknown> | undefined): string | null {
  const text = searchTextOf(v)
  return text === null ? null : noNul(text)
}

/** A token count as the bigint columns take it: rounded, and 0 when it is not a safe integer. */
export function tokens(n: number): number {
  const r = Math.round(n)
  return Number.isSafeInteger(r) ? r : 0
}

export function eventRowOf(l: TranscriptLine): EventRow {
  const v = l.bad ? undefined : l.value
  const type = v && typeof v.type === 'string' ? v.type : null
  const msg = type === 'message' && v!.message && typeof v!.message === 'object' ? (v!.message as Record<string, unknown>) : undefined
  return {
    seq: l.line,
    raw: noNul(l.raw),
    entryType: type,
    entryId: v && typeof v.id === 'string' ? noNul(v.id) : null,
    role: msg && typeof msg.role === 'string' ? noNul(msg.role) : null,
    at: v ? isoTime(v.timestamp) : null,
    searchText: searchTextFor(v),
  }
}

/** Adds the usage one line records (an assistant message with `usage`), as `sessions usage` counts a call. */
export function addLineUsage(s: UsageSums, l: TranscriptLine): void {
  const v = l.bad ? undefined : l.value
  if (!v || v.type !== 'message') return
  const msg = v.message as Record<string, unknown> | undefined
  if (!msg || msg.role !== 'assistant') return
  const u = readUsage(msg.usage)
  if (!u) return
  // Whole tokens per call (the columns are bigint; a hand-edited 1.5 would fail the insert), and none past 2^53: one
  // absurd value (1e20) would fail every later sync of the host. checkReplica counts alike.
  s.input += tokens(u.input)
  s.output += tokens(u.output)
  s.cacheRead += tokens(u.cacheRead)
  s.cacheWrite += tokens(u.cacheWrite)
  s.totalTokens += tokens(u.totalTokens)
  s.costUsd += u.cost ?? 0
  s.calls++
}
