// `sessions history`: the last messages of a session, parsed for scripts or kept raw, read from the end of the file.
import type {ReadableState} from '../store/state.js'
import type {BadLine, ContentBlock, TranscriptEntry} from '../store/transcript-types.js'
import type {SessionWhere, TranscriptLocation, TranscriptReadResult} from '../store/types.js'
import {keyLineage} from './lineage.js'
import {HISTORY_MESSAGE_TYPES, isHistoryMessage} from './messages.js'
import {type ArchivedSessionInfo, resolveForReading} from './resolve.js'

export {HISTORY_MESSAGE_TYPES, isHistoryMessage}

export interface HistoryToolCall {
  id: string
  name: string
  arguments: unknown
}

/** One transcript entry, flattened for display and scripts. */
export interface HistoryEntry {
  id: string
  parentId: string | null
  type: string
  timestamp: string
  role?: string
  text?: string
  thinking?: string
  toolCalls?: HistoryToolCall[]
  toolResult?: {toolCallId: string; toolName: string; isError: boolean}
  usage?: unknown
  provider?: string
  model?: string
  stopReason?: string
  errorMessage?: string
  summary?: string
  firstKeptEntryId?: string
  tokensBefore?: number
  customType?: string
  thinkingLevel?: string
  /** A `reset` entry's reason (new, reset, idle, daily...). */
  reason?: string
}

/** The `sessions history --json` document. */
export interface SessionsHistoryResult {
  /** Fleet reads (--store-url): the host the session lives on. */
  host?: string
  /** Null only for an archived session nothing ties to a key any more. */
  key: string | null
  agentId: string
  sessionId: string
  sessionFile: string
  sessionFileLocation: TranscriptLocation
  transcriptExists: boolean
  limit: number
  /** With --offset: the newest messages skipped (paging back through a long session). */
  offset?: number
  /** True when older entries exist before the first one returned. */
  truncated: boolean
  entries: HistoryEntry[]
  /** The same entries as stored (only with --raw). */
  raw?: string[]
  badLines: BadLine[]
  /**
   * With --include-archived: the sessions the entries come from, oldest first. `start` is the index in `entries` of
   * the session's first entry; a boundary is shown before every session but the first.
   */
  sessions?: HistorySession[]
  /**
   * Asked by the sessionId of an archived session (no key's current one): which one, read-only. Without
   * --include-archived the entries are that session's; with it, its key's whole lineage as for the key.
   */
  archived?: ArchivedSessionInfo
}

export interface HistorySession {
  sessionId: string
  sessionFile: string
  where: SessionWhere
  /** How it ended: current, reset, deleted, compaction. */
  ended: string
  endedAt: string | null
  start: number
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  const parts = (content as ContentBlock[]).filter((b) => b?.type === 'text').map((b) => String((b as {text?: unknown}).text ?? ''))
  return parts.length > 0 ? parts.join('\n') : undefined
}

export function toHistoryEntry(e: TranscriptEntry): HistoryEntry {
  const out: HistoryEntry = {id: e.id, parentId: e.parentId ?? null, type: e.type, timestamp: e.timestamp}
  if (e.type === 'message') {
    const m = (e as {message?: Record<string, unknown>}).message ?? {}
    out.role = typeof m.role === 'string' ? m.role : undefined
    out.text = textOf(m.content)
    if (Array.isArray(m.content)) {
      const blocks = m.content as ContentBlock[]
      const thinking = blocks.filter((b) => b?.type === 'thinking').map((b) => String((b as {thinking?: unknown}).thinking ?? ''))
      if (thinking.length > 0) out.thinking = thinking.join('\n')
      const calls = blocks.filter((b) => b?.type === 'toolCall') as {id: string; name: string; arguments: unknown}[]
      if (calls.length > 0) out.toolCalls = calls.map((c) => ({id: c.id, name: c.name, arguments: printableJson(c.arguments)}))
    }
    if (m.role === 'toolResult') out.toolResult = {toolCallId: String(m.toolCallId ?? ''), toolName: String(m.toolName ?? ''), isError: m.isError === true}
    if (m.role === 'assistant') {
      out.usage = m.usage
      out.provider = typeof m.provider === 'string' ? m.provider : undefined
      out.model = typeof m.model === 'string' ? m.model : undefined
      out.stopReason = typeof m.stopReason === 'string' ? m.stopReason : undefined
      out.errorMessage = typeof m.errorMessage === 'string' ? m.errorMessage : undefined
    }
  } else if (e.type === 'compaction') {
    out.summary = String(e.summary ?? '')
    out.firstKeptEntryId = typeof e.firstKeptEntryId === 'string' ? e.firstKeptEntryId : undefined
    out.tokensBefore = typeof e.tokensBefore === 'number' ? e.tokensBefore : undefined
  } else if (e.type === 'branch_summary') {
    out.summary = String(e.summary ?? '')
  } else if (e.type === 'custom_message' || e.type === 'custom') {
    out.customType = typeof e.customType === 'string' ? e.customType : undefined
    if (e.type === 'custom_message') out.text = textOf(e.content)
  } else if (e.type === 'model_change') {
    out.provider = typeof e.provider === 'string' ? e.provider : undefined
    out.model = typeof e.modelId === 'string' ? e.modelId : undefined
  } else if (e.type === 'reset') {
    out.reason = typeof e.reason === 'string' ? e.reason : undefined
  } else if (e.type === 'thinking_level_change') {
    out.thinkingLevel = typeof e.thinkingLevel === 'string' ? e.thinkingLevel : undefined
  }
  return out
}

export interface HistoryOptions {
  agent?: string
  limit?: number
  raw?: boolean
  /** Every session the key has had (archives, earlier windows), newest read first and only as far as --limit needs. */
  includeArchived?: boolean
  /** Skip the newest N messages (and what follows them): the next page back of a long session. */
  offset?: number
}

/**
 * The window of a tail read: from the limit-th message from the end, with the non-message entries after it.
 * `truncated` when a message exists before it.
 */
function windowOf(tail: TranscriptReadResult, limit: number): {start: number; truncated: boolean} {
  let seen = 0
  let start = tail.entries.length
  for (let i = tail.entries.length - 1; i >= 0 && seen < limit; i--) {
    if (isHistoryMessage(tail.entries[i])) {
      seen++
      start = i
    }
  }
  if (seen === 0) start = tail.entries.length
  return {start, truncated: tail.partial || tail.entries.slice(0, start).some(isHistoryMessage)}
}

async function archivedHistory(state: ReadableState, target: string, opts: HistoryOptions, limit: number): Promise<SessionsHistoryResult> {
  const l = await keyLineage(state, target, {agent: opts.agent})
  const current = l.sessions.at(-1)!
  // Newest session first, each read from its end, until --limit messages are in hand: older ones are never opened.
  const parts: {s: (typeof l.sessions)[number]; entries: TranscriptEntry[]; raw: string[]; bad: BadLine[]}[] = []
  let remaining = limit
  let truncated = false
  for (let i = l.sessions.length - 1; i >= 0; i--) {
    const s = l.sessions[i]
    if (remaining === 0) {
      truncated = true
      break
    }
    const tail = s.transcript.exists ? await l.store.tail(s.transcript, {limit: remaining, count: isHistoryMessage, exactPartial: true}) : undefined
    if (!tail) {
      parts.unshift({s, entries: [], raw: [], bad: []})
      continue
    }
    const w = windowOf(tail, remaining)
    const entries = tail.entries.slice(w.start)
    remaining -= entries.filter(isHistoryMessage).length
    parts.unshift({s, entries, raw: tail.rawLines.slice(w.start).map((r, j) => r ?? JSON.stringify(entries[j])), bad: tail.badLines})
    if (w.truncated) {
      truncated = true
      break
    }
  }
  const entries: HistoryEntry[] = []
  const raw: string[] = []
  const sessions: HistorySession[] = []
  const badLines: BadLine[] = []
  for (const p of parts) {
    sessions.push({sessionId: p.s.sessionId, sessionFile: p.s.transcript.locator, where: p.s.where, ended: p.s.ended, endedAt: p.s.endedAt ?? null, start: entries.length})
    entries.push(...p.entries.map(toHistoryEntry))
    raw.push(...p.raw)
    badLines.push(...p.bad)
  }
  const result: SessionsHistoryResult = {
    key: l.key,
    agentId: l.agentId,
    sessionId: current.sessionId,
    sessionFile: current.transcript.locator,
    sessionFileLocation: current.transcript.location,
    transcriptExists: current.transcript.exists,
    limit,
    truncated,
    entries,
    badLines,
    sessions,
  }
  if (opts.raw) result.raw = raw
  if (l.archived) result.archived = l.archived
  return result
}

export async function sessionHistory(state: ReadableState, target: string, opts: HistoryOptions = {}): Promise<SessionsHistoryResult> {
  const limit = opts.limit ?? 20
  const offset = opts.offset ?? 0
  if (offset > 0) return withoutNewest(await sessionHistory(state, target, {...opts, limit: limit + offset, offset: 0}), limit, offset)
  if (opts.includeArchived) return archivedHistory(state, target, opts, limit)
  // A key, a current sessionId, then an archived sessionId (resolveForReading): an archive is read like a live transcript.
  const t = await resolveForReading(state, target, {agent: opts.agent})
  const store = t.archived ? t.archived.store : state.storeFor(t.current.ref)
  const transcript = t.archived ? t.archived.session.transcript : store.transcriptOf(t.current.entry, t.current.key)
  const base = {
    key: t.archived ? t.archived.key : t.current.key,
    agentId: t.archived ? t.archived.agentId : t.current.agentId,
    sessionId: t.archived ? t.archived.session.sessionId : t.current.entry.sessionId,
    sessionFile: transcript.locator,
    sessionFileLocation: transcript.location,
    limit,
    ...(t.archived ? {archived: t.archived.archived} : {}),
  }
  const tail = await store.tail(transcript, {limit, count: isHistoryMessage, exactPartial: true})
  if (!tail) return {...base, transcriptExists: false, truncated: false, entries: [], badLines: []}
  const {start, truncated} = windowOf(tail, limit)
  const window = tail.entries.slice(start)
  const result: SessionsHistoryResult = {
    ...base,
    transcriptExists: true,
    truncated,
    entries: window.map(toHistoryEntry),
    badLines: tail.badLines,
  }
  if (opts.raw) result.raw = tail.rawLines.slice(start).map((l, i) => l ?? JSON.stringify(window[i]))
  return result
}

/**
 * A window read `offset` messages deeper than asked, with its newest `offset` messages (and everything from the first of
 * them on) taken off: the page before the one `limit` alone gives. `truncated` is the deeper read's (older messages
 * exist before the first entry kept).
 */
function withoutNewest(r: SessionsHistoryResult, limit: number, offset: number): SessionsHistoryResult {
  const messages = r.entries.flatMap((e, i) => (HISTORY_MESSAGE_TYPES.has(e.type) ? [i] : []))
  const keep = messages.length - offset
  const cut = keep <= 0 ? 0 : messages[keep] ?? r.entries.length
  const out: SessionsHistoryResult = {...r, limit, offset, entries: r.entries.slice(0, cut)}
  if (r.raw) out.raw = r.raw.slice(0, cut)
  if (r.sessions) out.sessions = r.sessions.filter((s) => s.start < cut)
  return out
}

/**
 * A value as it is, if it can be printed as JSON; JSON.stringify gives up on values nested thousands of levels deep
 * (JSON.parse reads them), so such a value is shown as a note instead of failing the whole history.
 */
function printableJson(v: unknown): unknown {
  try {
    JSON.stringify(v)
    return v
  } catch {
    return '[nested too deeply to show]'
  }
}
