// Finds the session a user means by a key or a sessionId, across the agents' stores.
import {normalizeAgentId} from '../config/agent-id.js'
import {NotFoundError, UsageError} from '../errors.js'
import {normalizeSessionKey, parseAgentSessionKey, toAgentStoreSessionKey} from '../store/session-key.js'
import type {OpenClawState} from '../store/state.js'
import {isSafeSessionId} from '../store/transcript.js'
import type {SessionEntry, StoreRef} from '../store/types.js'

export interface ResolvedSession {
  ref: StoreRef
  key: string
  /** The key as spelled in the file (OpenClaw folds mixed-case spellings to the lowercase key). */
  storedKey: string
  entry: SessionEntry
  agentId: string
}

function looksLikeKey(s: string): boolean {
  return s.includes(':') || ['main', 'global', 'unknown'].includes(s.toLowerCase())
}

export async function resolveSession(state: OpenClawState, target: string, opts: {agent?: string} = {}): Promise<ResolvedSession> {
  const raw = target.trim()
  if (!raw) throw new UsageError('Pass a session key or session id (for example "agent:main:main").', 'E_MISSING_SESSION')
  if (raw.includes('\0') || raw.length > 512) throw new UsageError('Invalid session key or id.', 'E_BAD_SESSION')
  state.requireStateDir()
  const agentOpt = opts.agent ? state.requireAgent(opts.agent) : undefined

  if (looksLikeKey(raw)) {
    const key = toAgentStoreSessionKey(agentOpt ?? state.activeAgentId, raw)
    const parsed = parseAgentSessionKey(key)
    const agentId = parsed ? normalizeAgentId(parsed.agentId) : (agentOpt ?? state.activeAgentId)
    const ref = state.storeRef(agentId)
    const store = state.store(agentId)
    const hit = await store.findEntry(key)
    if (hit) return {ref, key, storedKey: hit.storedKey, entry: hit.entry, agentId}
  } else if (isSafeSessionId(raw)) {
    const agents = agentOpt ? [agentOpt] : state.allAgentIds()
    const seen = new Set<string>()
    for (const agentId of agents) {
      const ref = state.storeRef(agentId)
      if (seen.has(ref.path)) continue
      seen.add(ref.path)
      const data = await state.store(agentId).read()
      const matches = Object.entries(data).filter(([, e]) => e && typeof e === 'object' && e.sessionId === raw)
      if (matches.length > 0) {
        // Several keys can share an id (a cron job row and its run row); the newest wins, as in OpenClaw.
        matches.sort((a, b) => (b[1].updatedAt ?? 0) - (a[1].updatedAt ?? 0))
        const [storedKey, entry] = matches[0]
        return {ref, key: normalizeSessionKey(storedKey), storedKey, entry, agentId}
      }
    }
  } else {
    throw new UsageError(`Invalid session key or id: ${JSON.stringify(raw).slice(0, 140)}`, 'E_BAD_SESSION')
  }
  throw new NotFoundError(`Session not found: ${raw}`, 'E_SESSION_NOT_FOUND', ['List sessions with "clawkit sessions list --all-agents".'])
}
