// `sessions lineage` and `history --include-archived`: every session a key has had, from the store's sessionsOf(), with
// message counts and usage totals read by streaming each transcript (never one held whole). A `reset` event inside a
// transcript (OpenClaw's gateway /new and /reset in the SQLite era keep the sessionId) splits it like a new session.
import {normalizeAgentId} from '../config/agent-id.js'
import {NotFoundError} from '../errors.js'
import {parseAgentSessionKey, toAgentStoreSessionKey} from '../store/session-key.js'
import type {ReadableState} from '../store/state.js'
import type {TranscriptEntry} from '../store/transcript-types.js'
import type {AgentSession, KeySession, SessionReader, SessionWhere} from '../store/types.js'
import {isHistoryMessage} from './messages.js'
import {type ArchivedSessionInfo, resolveForReading} from './resolve.js'

export interface UsageTotals {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  totalTokens: number
  costUsd: number
}

/** One session (or, split at `reset` events, one part of it) in a key's lineage. */
export interface LineageSession {
  sessionId: string
  /** 1-based part of the sessionId when `reset` events split its transcript; absent when it has none. */
  part?: number
  where: SessionWhere
  /** The transcript's locator: a file path, or `<database>#<sessionId>`. */
  transcript: string
  transcriptExists: boolean
  /** `none`: an archived session asked by its id that nothing ties to a key any more. */
  foundBy: ReadSession['foundBy']
  firstMessageAt: string | null
  lastMessageAt: string | null
  messages: number
  usage: UsageTotals
  /** current, reset (a new sessionId), reset-event (a `reset` entry inside the transcript), deleted, compaction, orphaned. */
  ended: KeySession['ended'] | 'reset-event'
  endedAt: string | null
  /** The `reason` of the reset event that ended this part (new, reset, idle, daily...). */
  resetReason?: string
  /** Lines that could not be read (doctor names them). */
  badLines: number
}

/** The `sessions lineage --json` document. */
export interface SessionsLineageResult {
  /** Fleet reads (--store-url): the host the key lives on. */
  host?: string
  /** Null only for an archived session nothing ties to a key any more (then it is the only session). */
  key: string | null
  agentId: string
  /** Oldest first; the current session last. */
  sessions: LineageSession[]
  /** Asked by the sessionId of an archived session (no key's current one): which one; the lineage is its key's. */
  archived?: ArchivedSessionInfo
}

/** How the renderers name where a session's transcript is. */
export const WHERE_TEXT: Record<SessionWhere, string> = {live: 'live transcript', 'reset-archive': '.reset. archive', 'deleted-archive': '.deleted. archive', window: 'database window', orphan: 'orphaned transcript (no entry points at it)'}

/** A session as a reader gets it: a key's (sessionsOf), or an archive that nothing ties to a key (foundBy `none`). */
export type ReadSession = Omit<AgentSession, 'key'>

export interface KeyLineage {
  /** Null only for an archived session nothing ties to a key (its lineage is itself). */
  key: string | null
  agentId: string
  store: SessionReader
  sessions: ReadSession[]
  /** Set when the target was an archived session's id (resolveForReading). */
  archived?: ArchivedSessionInfo
}

/**
 * A lineage (oldest first, the current session last) with one more ended session put where its end falls: before the
 * first session that ended later, and always before the current one.
 */
function inOrder(sessions: ReadSession[], extra: ReadSession): ReadSession[] {
  const at = sessions.findIndex((s) => s.ended === 'current' || (s.endedAt !== undefined && extra.endedAt !== undefined && s.endedAt > extra.endedAt))
  return at < 0 ? [...sessions, extra] : [...sessions.slice(0, at), extra, ...sessions.slice(at)]
}

/**
 * The key a user means and every session it has had, also when its entry is gone (only archives left). The sessionId
 * of an archived session stands for the key it served (resolveForReading has the order).
 */
export async function keyLineage(state: ReadableState, target: string, opts: {agent?: string} = {}): Promise<KeyLineage> {
  let key: string
  let agentId: string
  try {
    const t = await resolveForReading(state, target, {agent: opts.agent})
    if (t.archived) {
      const a = t.archived
      const {key: _k, ...own} = a.session
      if (a.key === null) return {key: null, agentId: a.agentId, store: a.store, sessions: [own], archived: a.archived}
      const sessions = await a.store.sessionsOf(a.key)
      // allSessions tied it to the key (a trajectory sidecar, an archive row); the key's lineage lists it as well.
      const listed = sessions.some((s) => s.transcript.locator === a.session.transcript.locator)
      return {key: a.key, agentId: a.agentId, store: a.store, sessions: listed ? sessions : inOrder(sessions, own), archived: a.archived}
    }
    key = t.current.key
    agentId = t.current.agentId
  } catch (error) {
    // A deleted key has no entry but may have archives: look them up under the key as typed.
    if (!(error instanceof NotFoundError) || !target.includes(':')) throw error
    const agentOpt = opts.agent ? state.requireAgent(opts.agent) : undefined
    key = toAgentStoreSessionKey(agentOpt ?? state.activeAgentId, target.trim())
    const parsed = parseAgentSessionKey(key)
    agentId = parsed ? normalizeAgentId(parsed.agentId) : (agentOpt ?? state.activeAgentId)
    const store = state.storeFor(state.sessionStoreRef(agentId))
    const sessions = await store.sessionsOf(key)
    if (sessions.length === 0) throw error
    return {key, agentId, store, sessions}
  }
  const store = state.storeFor(state.sessionStoreRef(agentId))
  return {key, agentId, store, sessions: await store.sessionsOf(key)}
}

export function emptyUsage(): UsageTotals {
  return {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costUsd: 0}
}

/**
 * The most one model call can plausibly record: a billion tokens in one figure (today's largest context windows hold
 * a few million) and $100 000. Above them a figure is a corrupted or hand-edited value, not usage.
 */
export const MAX_CALL_TOKENS = 1e9
export const MAX_CALL_COST_USD = 1e5

/** One message's `usage` read as numbers, with the figures that were present but not plausible numbers counted. */
export interface CallUsage extends Omit<UsageTotals, 'costUsd'> {
  /** `cost.total`; undefined when not recorded (or not plausible: then counted in badValues). */
  cost?: number
  /** Figures present but negative, not finite, not a number, or over MAX_CALL_TOKENS / MAX_CALL_COST_USD: read as 0. */
  badValues: number
  /** `cost.total` was recorded but not plausible: the call costs 0 (it is not priced from openclaw.json instead). */
  badCost?: true
}

/**
 * One message's `usage` read as numbers (OpenClaw's shape); `cost` is `cost.total`. The one rule every reader of usage
 * applies (sessions usage, list --usage, lineage and export totals, the fleet replica's sums): a figure that is absent
 * is 0; one that is not a plausible number (negative, not finite, a string, absurd) is 0 and counted, so that no total
 * is ever negative, Infinity or null.
 */
export function readUsage(u: unknown): CallUsage | undefined {
  if (!u || typeof u !== 'object') return undefined
  const x = u as Record<string, unknown>
  let badValues = 0
  const figure = (v: unknown, max: number): number | undefined => {
    if (v === undefined || v === null) return undefined
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= max) return v
    badValues++
    return undefined
  }
  const tokens = (v: unknown) => figure(v, MAX_CALL_TOKENS) ?? 0
  const before = badValues
  const cost = x.cost && typeof x.cost === 'object' ? figure((x.cost as Record<string, unknown>).total, MAX_CALL_COST_USD) : undefined
  const badCost = badValues > before
  const out = {input: tokens(x.input), output: tokens(x.output), cacheRead: tokens(x.cacheRead), cacheWrite: tokens(x.cacheWrite), totalTokens: tokens(x.totalTokens)}
  return {...out, ...(cost === undefined ? {} : {cost}), badValues, ...(badCost ? {badCost: true as const} : {})}
}

/** Sums in dollars kept to 1e-9 so that float noise never shows in totals. */
export const addCost = (a: number, b: number): number => Math.round((a + b) * 1e9) / 1e9

/** Adds one message's `usage` (OpenClaw's shape: input, output, cacheRead, cacheWrite, totalTokens, cost.total). */
export function addUsage(t: UsageTotals, u: unknown): void {
  const x = readUsage(u)
  if (!x) return
  t.input += x.input
  t.output += x.output
  t.cacheRead += x.cacheRead
  t.cacheWrite += x.cacheWrite
  t.totalTokens += x.totalTokens
  t.costUsd = addCost(t.costUsd, x.cost ?? 0)
}

/** The parts of one session: its whole transcript streamed once, split at `reset` events. */
async function partsOf(store: SessionReader, s: ReadSession): Promise<LineageSession[]> {
  const base = {sessionId: s.sessionId, where: s.where, transcript: s.transcript.locator, transcriptExists: s.transcript.exists, foundBy: s.foundBy}
  const fresh = (): LineageSession => ({...base, firstMessageAt: null, lastMessageAt: null, messages: 0, usage: emptyUsage(), ended: s.ended, endedAt: s.endedAt ?? null, badLines: 0})
  const parts: LineageSession[] = [fresh()]
  if (!s.transcript.exists) return parts
  let cur = parts[0]
  for await (const line of store.readLines(s.transcript)) {
    if (line.bad) {
      cur.badLines++
      continue
    }
    // The header (any line typed session) is not an entry.
    if (!line.value || (line.value as {type?: unknown}).type === 'session') continue
    const e = line.value as unknown as TranscriptEntry
    if (e.type === 'reset') {
      cur.ended = 'reset-event'
      cur.endedAt = typeof e.timestamp === 'string' ? e.timestamp : null
      if (typeof e.reason === 'string') cur.resetReason = e.reason
      cur = fresh()
      parts.push(cur)
      continue
    }
    if (!isHistoryMessage(e)) continue
    cur.messages++
    const at = typeof e.timestamp === 'string' ? e.timestamp : null
    if (at) {
      cur.firstMessageAt ??= at
      cur.lastMessageAt = at
    }
    if (e.type === 'message') addUsage(cur.usage, (e as {message?: {usage?: unknown}}).message?.usage)
  }
  if (parts.length > 1) parts.forEach((p, i) => (p.part = i + 1))
  return parts
}

export async function sessionLineage(state: ReadableState, target: string, opts: {agent?: string} = {}): Promise<SessionsLineageResult> {
  const l = await keyLineage(state, target, opts)
  const sessions: LineageSession[] = []
  for (const s of l.sessions) sessions.push(...(await partsOf(l.store, s)))
  return {key: l.key, agentId: l.agentId, sessions, ...(l.archived ? {archived: l.archived} : {})}
}
