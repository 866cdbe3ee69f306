// What `sessions search` reads in a transcript entry: the searchable parts (message text, tool-call arguments, tool
// results, summaries) and their roles, and the search text the fleet replica stores for its index (SEARCH_TEXT_VERSION).

/** Who a hit's text belongs to: `tool` is a tool call's arguments or a tool's result; `summary` a compaction or branch summary. */
export type SearchRole = 'user' | 'assistant' | 'tool' | 'summary'
export const SEARCH_ROLES: readonly SearchRole[] = ['user', 'assistant', 'tool', 'summary']
/** What was searched: message text, a tool call's string arguments, a tool result's text, or a summary entry. */
export type SearchKind = 'text' | 'toolCall' | 'toolResult' | 'compaction' | 'branchSummary'

/** A searchable text of an entry. */
interface Part {
  role: SearchRole
  kind: SearchKind
  text: string
  toolName?: string
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** A message's text: its string content, or its text blocks joined by a newline (images and thinking are not text). */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  const texts: string[] = []
  for (const b of content) if (isObj(b) && b.type === 'text' && typeof b.text === 'string') texts.push(b.text)
  return texts.length > 0 ? texts.join('\n') : undefined
}

/** The string values inside a tool call's arguments, depth first, joined by newlines: what was passed, not its JSON. */
function stringLeaves(v: unknown, out: string[], depth = 0): string[] {
  if (depth > 64) return out
  if (typeof v === 'string') out.push(v)
  else if (Array.isArray(v)) for (const x of v) stringLeaves(x, out, depth + 1)
  else if (isObj(v)) for (const x of Object.values(v)) stringLeaves(x, out, depth + 1)
  return out
}

/** What of a transcript entry is searched (exported for the tests' independent reading of the same rules: they re-implement it). */
export function partsOf(e: Record<string, unknown>): Part[] {
  const out: Part[] = []
  if (e.type === 'message' && isObj(e.message)) {
    const m = e.message
    if (m.role === 'user' || m.role === 'assistant') {
      const text = textOf(m.content)
      if (text !== undefined) out.push({role: m.role, kind: 'text', text})
    }
    if (m.role === 'assistant' && Array.isArray(m.content)) {
      for (const b of m.content) {
        if (!isObj(b) || b.type !== 'toolCall') continue
        const leaves = stringLeaves(b.arguments, [])
        if (leaves.length > 0) out.push({role: 'tool', kind: 'toolCall', text: leaves.join('\n'), ...(typeof b.name === 'string' ? {toolName: b.name} : {})})
      }
    }
    if (m.role === 'toolResult') {
      const text = textOf(m.content)
      if (text !== undefined) out.push({role: 'tool', kind: 'toolResult', text, ...(typeof m.toolName === 'string' ? {toolName: m.toolName} : {})})
    }
  } else if ((e.type === 'compaction' || e.type === 'branch_summary') && typeof e.summary === 'string') {
    out.push({role: 'summary', kind: e.type === 'compaction' ? 'compaction' : 'branchSummary', text: e.summary})
  }
  return out
}

/**
 * Which searchTextOf wrote a replica row: bump it with any change to what searchTextOf (partsOf) returns. The replica
 * records it per transcript (`clawkit_transcripts.search_text_version`); fleet search narrows by search_text only the
 * transcripts of its own version and reads the others in full, and the next sync uploads those again.
 */
export const SEARCH_TEXT_VERSION = 1

/**
 * The text `sessions search` reads in an entry, its parts joined by newlines, or null when it has none: what the fleet
 * replica stores as `clawkit_events.search_text`, so that its index narrows a search without ever missing a hit.
 */
export function searchTextOf(e: Record<string, unknown> | undefined): string | null {
  const parts = e ? partsOf(e) : []
  return parts.length > 0 ? parts.map((p) => p.text).join('\n') : null
}

/** The entry's time: its ISO timestamp, else the message's epoch-ms one. */
export function timeOf(e: Record<string, unknown>): number | undefined {
  const m = isObj(e.message) ? e.message : undefined
  const t = typeof e.timestamp === 'string' ? Date.parse(e.timestamp) : typeof e.timestamp === 'number' ? e.timestamp : typeof m?.timestamp === 'number' ? m.timestamp : Number.NaN
  // Past Date's range (±8.64e15 ms) is no time either: a hit's time is printed as an ISO date. A fraction of a millisecond
  // is dropped as Date drops it, so that hits are compared, sorted and shown by one value (and the catalog keeps integers).
  const ms = new Date(t).getTime()
  return Number.isFinite(ms) ? ms : undefined
}

/** The latest and earliest times an ISO string of years 0000-9999 carries: within them, ISO strings sort as their times do. */
export const MAX_ISO_MS = 253_402_300_799_999
export const MIN_ISO_MS = -62_167_219_200_000

/**
 * A time's rank in the order search shows hits (their ISO strings): within years 0000-9999 the time itself, any other
 * time below all of those (its string starts with + or -), no time below everything (null). The catalog keeps each
 * span's newest time so, and search reads an exact answer's spans in that order.
 */
export function timeRank(t: number | undefined): number | null {
  return t === undefined ? null : t >= MIN_ISO_MS && t <= MAX_ISO_MS ? t : MIN_ISO_MS - 1
}
