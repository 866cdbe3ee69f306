// Which session a turn runs in: OpenClaw 2026.4.x's rules for --agent, --to, --session-id and --session-key.
import {normalizeAgentId} from '../config/agent-id.js'
import {UsageError} from '../errors.js'
import {assertSafeSessionId} from '../store/session-id.js'
import {buildExplicitSessionKey, buildMainSessionKey, normalizeSessionKey, parseAgentSessionKey, toAgentStoreSessionKey} from '../store/session-key.js'
import type {OpenClawState} from '../store/state.js'
import type {StoreRef} from '../store/types.js'

export interface SessionSelector {
  to?: string
  sessionId?: string
  sessionKey?: string
  agent?: string
}

export interface SelectedSession {
  agentId: string
  key: string
  ref: StoreRef
  /** An explicit --session-id: used as the session id whatever the entry holds. */
  sessionId?: string
  how: 'session-key' | 'session-id' | 'session-id-match' | 'agent' | 'to' | 'default'
  /** With `how: 'default'`: why this agent (clawkit's `agent` setting, or OpenClaw's default agent). */
  defaultReason?: 'clawkit-settings' | 'default-agent'
}

/** A `--to` that names a group rather than a person (WhatsApp group JIDs, `group:`/`channel:` targets). */
function groupLike(to: string): boolean {
  return /^(group|channel):/i.test(to) || /@g\.us$/i.test(to)
}

export async function selectSession(state: OpenClawState, sel: SessionSelector): Promise<SelectedSession> {
  const agentOpt = sel.agent === undefined ? undefined : state.requireAgent(sel.agent)
  if (sel.sessionKey !== undefined) {
    const raw = sel.sessionKey.trim()
    if (!raw || raw.includes('\0') || raw.length > 512 || /\s/.test(raw)) throw new UsageError(`Invalid session key: ${JSON.stringify(sel.sessionKey).slice(0, 140)}`, 'E_BAD_SESSION_KEY')
    const key = toAgentStoreSessionKey(agentOpt ?? state.defaultAgentId, raw)
    const parsed = parseAgentSessionKey(key)
    const agentId = parsed ? normalizeAgentId(parsed.agentId) : (agentOpt ?? state.defaultAgentId)
    if (agentOpt && agentId !== agentOpt) {
      throw new UsageError(`--session-key ${key} belongs to agent "${agentId}", not "${agentOpt}".`, 'E_AGENT_MISMATCH')
    }
    if (parsed) state.requireAgent(agentId)
    const sessionId = sel.sessionId === undefined ? undefined : assertSafeSessionId(sel.sessionId)
    return {agentId, key, ref: state.sessionStoreRef(agentId), sessionId, how: 'session-key'}
  }
  if (sel.sessionId !== undefined) {
    const id = assertSafeSessionId(sel.sessionId)
    const agents = agentOpt ? [agentOpt] : state.allAgentIds()
    const seen = new Set<string>()
    let best: {agentId: string; key: string; updatedAt: number} | undefined
    for (const agentId of agents) {
      const ref = state.sessionStoreRef(agentId)
      if (seen.has(ref.path)) continue
      seen.add(ref.path)
      const data = await state.store(agentId).read()
      for (const [k, e] of Object.entries(data)) {
        if (!e || typeof e !== 'object' || e.sessionId !== id) continue
        const updatedAt = typeof e.updatedAt === 'number' ? e.updatedAt : 0
        if (!best || updatedAt > best.updatedAt) best = {agentId: parseAgentSessionKey(normalizeSessionKey(k)) ? normalizeAgentId(parseAgentSessionKey(normalizeSessionKey(k))!.agentId) : agentId, key: normalizeSessionKey(k), updatedAt}
      }
    }
    if (best) return {agentId: best.agentId, key: best.key, ref: state.sessionStoreRef(best.agentId), sessionId: id, how: 'session-id-match'}
    const agentId = agentOpt ?? 'main'
    return {agentId, key: buildExplicitSessionKey(agentId, id), ref: state.sessionStoreRef(agentId), sessionId: id, how: 'session-id'}
  }
  if (agentOpt) return {agentId: agentOpt, key: buildMainSessionKey(agentOpt), ref: state.sessionStoreRef(agentOpt), how: 'agent'}
  if (sel.to !== undefined && !sel.to.trim()) throw new UsageError('--to is empty. Pass an E.164 number, or leave --to out to use the default agent\'s main session.', 'E_BAD_TO')
  if (sel.to !== undefined) {
    const to = sel.to.trim()
    // OpenClaw hard-codes agent "main" here (resolveAgentIdFromSessionKey(undefined)), not the default agent.
    // With session.scope "global" every sender shares the literal key `global`, still in main's store.
    if (state.config.session?.scope === 'global') return {agentId: 'main', key: 'global', ref: state.sessionStoreRef('main'), how: 'to'}
    const key = groupLike(to) ? `agent:main:${normalizeSessionKey(to.replace(/^(group|channel):/i, (m) => m.toLowerCase()))}` : buildMainSessionKey('main')
    return {agentId: 'main', key, ref: state.sessionStoreRef('main'), how: 'to'}
  }
  // No selector at all: the README's `clawkit agent -m "..."`. clawkit's own `agent` setting, else OpenClaw's default
  // agent, and that agent's main session (session.mainKey is ignored by OpenClaw 2026.4.x: the key is always `main`).
  const fromSettings = state.preferredAgent !== undefined
  if (fromSettings && !state.allAgentIds().includes(state.preferredAgent!)) {
    throw new UsageError(`clawkit's "agent" setting names an unknown agent "${state.preferredAgent}". Pass --agent, --session-key, --session-id or --to to choose a session, or fix the setting.`, 'E_NO_SESSION_SELECTOR')
  }
  const agentId = state.activeAgentId
  return {agentId, key: buildMainSessionKey(agentId), ref: state.sessionStoreRef(agentId), how: 'default', defaultReason: fromSettings ? 'clawkit-settings' : 'default-agent'}
}

/** The stderr line that says which session a selector-less turn used (humans only; --json carries the key). */
export function describeDefaultSession(sel: SelectedSession, settingsFile?: string): string | undefined {
  if (sel.how !== 'default') return undefined
  const why = sel.defaultReason === 'clawkit-settings' ? `clawkit's "agent" setting${settingsFile ? ` in ${settingsFile}` : ''}` : 'the default agent'
  return `Using session ${sel.key} (${why}); pass --agent, --session-key, --session-id or --to to choose another.`
}
