// Finds the session a user means by a key or a sessionId, across the agents' stores.
import {normalizeAgentId} from '../config/agent-id.js'
import {NotFoundError, UsageError} from '../errors.js'
import {findEntryIn} from '../store/entry-lookup.js'
import {isSafeSessionId} from '../store/session-id.js'
import {normalizeSessionKey, parseAgentSessionKey, toAgentStoreSessionKey} from '../store/session-key.js'
import type {ReadableState} from '../store/state.js'
import type {AgentSession, KeySession, SessionEntry, SessionReader, SessionStoreData, SessionWhere, StoreRef} from '../store/types.js'

export interface ResolvedSession {
  ref: StoreRef
  key: string
  /** The key as spelled in the file (OpenClaw folds mixed-case spellings to the lowercase key). */
  storedKey: string
  entry: SessionEntry
  agentId: string
}

export function looksLikeKey(s: string): boolean {
  return s.includes(':') || ['main', 'global', 'unknown'].includes(s.toLowerCase())
}

export interface ResolveOptions {
  agent?: string
  /**
   * When no key matches exactly, also accept a unique prefix or a key cut by a table (`head…tail`, `head...tail`).
   * Only for reading: a writer acting on the one key a typo happens to prefix would change the wrong session.
   */
  allowPrefix?: boolean
}

/** How a `--json` document marks a session read from an archive, in the words `history --include-archived` uses. */
export interface ArchivedSessionInfo {
  sessionId: string
  /** reset-archive, deleted-archive, window (an earlier window of a SQLite store) or orphan. */
  where: SessionWhere
  /** How it ended: reset, deleted, compaction or orphaned. */
  ended: KeySession['ended']
  /** When it was archived, when the store records it. */
  endedAt: string | null
}

/**
 * A session no key holds as its current one any more (SessionReader.allSessions): an archive, an earlier window or an
 * orphan. Read-only: nothing that writes resolves to one.
 */
export interface ResolvedArchive {
  agentId: string
  ref: StoreRef
  store: SessionReader
  /** The key it served; null when nothing ties it to one any more (a deleted key that left no trajectory sidecar). */
  key: string | null
  session: AgentSession
  archived: ArchivedSessionInfo
}

/** What a reader (history, export, lineage) was asked for: a key's current session, or an archived one. */
export type ReadTarget = {current: ResolvedSession; archived?: undefined} | {current?: undefined; archived: ResolvedArchive}

/** How many candidates an ambiguous key error names. */
const MAX_CANDIDATES = 8

export async function resolveSession(state: ReadableState, target: string, opts: ResolveOptions = {}): Promise<ResolvedSession> {
  const raw = target.trim()
  if (!raw) throw new UsageError('Pass a session key or session id (for example "agent:main:main").', 'E_MISSING_SESSION')
  if (raw.includes('\0') || raw.length > 512) throw new UsageError('Invalid session key or id.', 'E_BAD_SESSION')
  state.requireStateDir()
  const agentOpt = opts.agent ? state.requireAgent(opts.agent) : undefined

  if (looksLikeKey(raw)) {
    const key = toAgentStoreSessionKey(agentOpt ?? state.activeAgentId, raw)
    const parsed = parseAgentSessionKey(key)
    const agentId = parsed ? normalizeAgentId(parsed.agentId) : (agentOpt ?? state.activeAgentId)
    // The database is the truth for a SQLite-era agent; a legacy sessions.json beside it holds stale or stray rows.
    const ref = state.sessionStoreRef(agentId)
    const store = state.storeFor(ref)
    const hit = await store.findEntry(key)
    if (hit) return {ref, key, storedKey: hit.storedKey, entry: hit.entry, agentId}
    if (opts.allowPrefix) {
      const byPrefix = await resolveKeyPrefix(state, raw, agentOpt)
      if (byPrefix) return byPrefix
    }
  } else if (isSafeSessionId(raw)) {
    const agents = agentOpt ? [agentOpt] : state.allAgentIds()
    const seen = new Set<string>()
    for (const agentId of agents) {
      const ref = state.sessionStoreRef(agentId)
      if (seen.has(ref.path)) continue
      seen.add(ref.path)
      // Several keys can share an id (a cron job row and its run row); the newest wins, as in OpenClaw (the store
      // gives them newest first: a SQLite store from its index of current ids, a sessions.json read whole).
      const [newest] = await state.storeFor(ref).findBySessionId(raw)
      if (newest) {
        const {storedKey, entry} = newest
        return {ref, key: normalizeSessionKey(storedKey), storedKey, entry, agentId}
      }
    }
  } else {
    throw new UsageError(`Invalid session key or id: ${JSON.stringify(raw).slice(0, 140)}`, 'E_BAD_SESSION')
  }
  throw new NotFoundError(`Session not found: ${raw}`, 'E_SESSION_NOT_FOUND', ['List sessions with "clawkit sessions list --all-agents".'])
}

/**
 * The session a reader means, in this order: an exact key, a key's current sessionId (resolveSession, unchanged), a
 * unique key prefix, and only then the sessionId of an archived session (findArchivedSession). So an id that is both
 * some key's current session and an archive's is the current one. Writers (reset, agent) use resolveSession or their
 * own selection and never reach an archive.
 */
export async function resolveForReading(state: ReadableState, target: string, opts: {agent?: string} = {}): Promise<ReadTarget> {
  try {
    return {current: await resolveSession(state, target, {agent: opts.agent, allowPrefix: true})}
  } catch (error) {
    const raw = target.trim()
    // resolveSession validated the id (no path separators, no dots-only names) before any lookup; a key is no id.
    if (!(error instanceof NotFoundError) || looksLikeKey(raw) || !isSafeSessionId(raw)) throw error
    const archived = await findArchivedSession(state, raw, opts.agent)
    if (!archived) throw error
    return {archived}
  }
}

/**
 * The archived session with this sessionId, searched in --agent's store or every agent's. Only sessions that are no
 * key's current one count (a current one is resolveSession's). Two archives with one id (the same transcript reset in
 * two stores, a JSON-era archive and its re-import, an id reused after a delete): the newest by the time it was
 * archived; one without a recorded time counts as the oldest, and of equal times the one listed later (allSessions
 * lists each key's sessions oldest first).
 * Reads every archive's header (JSON era) or the windows and archive rows (SQLite): only on this fallback path, never
 * when the id is a key's current one.
 */
export async function findArchivedSession(state: ReadableState, sessionId: string, agent?: string): Promise<ResolvedArchive | undefined> {
  const agents = agent ? [state.requireAgent(agent)] : state.allAgentIds()
  const seen = new Set<string>()
  let best: {at: number; hit: ResolvedArchive} | undefined
  for (const agentId of agents) {
    const ref = state.sessionStoreRef(agentId)
    if (seen.has(ref.path)) continue
    seen.add(ref.path)
    const store = state.storeFor(ref)
    for (const s of await store.allSessions()) {
      if (s.sessionId !== sessionId || s.ended === 'current') continue
      const at = s.endedAt ? Date.parse(s.endedAt) : Number.NEGATIVE_INFINITY
      if (best && (Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at) < best.at) continue
      // A store several agents share: the key names the agent (unscoped keys belong to the store's own agent).
      const owner = s.key ? parseAgentSessionKey(s.key) : undefined
      best = {
        at: Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at,
        hit: {agentId: owner ? normalizeAgentId(owner.agentId) : agentId, ref, store, key: s.key, session: s, archived: {sessionId: s.sessionId, where: s.where, ended: s.ended, endedAt: s.endedAt ?? null}},
      }
    }
  }
  return best?.hit
}

/**
 * The one session whose key starts with `raw`, or with the head and ends with the tail of a key cut as `head…tail`
 * (clawkit's terminal tables) or `head...tail` (OpenClaw's sessions table), searched in
 * --agent's store, the agent the prefix names, or every agent's store when the prefix stops before the agent id.
 * Undefined when no key matches; an error listing the candidates when several do.
 */
async function resolveKeyPrefix(state: ReadableState, raw: string, agentOpt: string | undefined): Promise<ResolvedSession | undefined> {
  // `head…tail` (clawkit's terminal cut), `head...tail` (OpenClaw's sessions table) or a bare prefix.
  const lower = normalizeSessionKey(raw)
  const cut = /\u2026|\.\.\./.exec(lower)
  const head = cut ? lower.slice(0, cut.index) : lower
  const tail = cut ? lower.slice(cut.index + cut[0].length) : ''
  if (head === '') return undefined
  const agentId = agentOpt ?? state.activeAgentId
  const prefix = head.startsWith('agent:') || 'agent:'.startsWith(head) ? head : `agent:${agentId}:${head}`
  const fits = (key: string) => key.startsWith(prefix) && key.endsWith(tail) && key.length >= prefix.length + tail.length
  const named = /^agent:([^:]+):/.exec(prefix)?.[1]
  const agents = agentOpt ? [agentOpt] : named ? state.allAgentIds().filter((id) => id === normalizeAgentId(named)) : state.allAgentIds()
  const matches: {id: string; ref: StoreRef; key: string; data: SessionStoreData}[] = []
  const seen = new Set<string>()
  for (const id of agents) {
    // A SQLite-era agent's legacy sessions.json is not its truth: its database is searched.
    const ref = state.sessionStoreRef(id)
    if (seen.has(ref.path)) continue
    seen.add(ref.path)
    const data = await state.storeFor(ref).read()
    const keys = new Set<string>()
    for (const [storedKey, entry] of Object.entries(data)) {
      const key = normalizeSessionKey(storedKey)
      if (fits(key) && entry && typeof entry === 'object') keys.add(key)
    }
    for (const key of keys) matches.push({id, ref, key, data})
  }
  if (matches.length === 0) return undefined
  if (matches.length === 1) {
    const {id, ref, key, data} = matches[0]
    // Mixed-case spellings of one key fold to the newest, as an exact lookup does.
    const hit = findEntryIn(data, key)!
    const owner = parseAgentSessionKey(key)
    return {ref, key, storedKey: hit.storedKey, entry: hit.entry, agentId: owner ? normalizeAgentId(owner.agentId) : id}
  }
  const names = matches.map((m) => m.key).sort()
  const shown = names.slice(0, MAX_CANDIDATES).join(', ') + (names.length > MAX_CANDIDATES ? `, … (${names.length - MAX_CANDIDATES} more)` : '')
  throw new UsageError(`Session key "${raw}" matches ${names.length} sessions: ${shown}. Give more of the key.`, 'E_AMBIGUOUS_SESSION')
}
