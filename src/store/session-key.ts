// Session keys: parse, build, normalize and classify every shape OpenClaw 2026.4.x writes (store-format.md section 4).
import {DEFAULT_ACCOUNT_ID, DEFAULT_AGENT_ID, normalizeAccountId, normalizeAgentId} from '../config/agent-id.js'

export type DmScope = 'main' | 'per-peer' | 'per-channel-peer' | 'per-account-channel-peer'
export type PeerKind = 'direct' | 'group' | 'channel'
/** The `kind` column of `openclaw sessions`. */
export type SessionKind = 'direct' | 'group' | 'global' | 'unknown'

export type KeyShape =
  | 'main'
  | 'direct'
  | 'group'
  | 'channel'
  | 'subagent'
  | 'acp'
  | 'cron'
  | 'cron-run'
  | 'hook'
  | 'explicit'
  | 'heartbeat'
  | 'global'
  | 'unknown'
  | 'legacy'
  | 'other'

export interface ParsedSessionKey {
  /** The normalized key (trimmed, lowercased). */
  key: string
  agentId?: string
  /** Everything after `agent:<id>:`. */
  rest?: string
  shape: KeyShape
  channel?: string
  accountId?: string
  peerKind?: PeerKind
  peerId?: string
  threadId?: string
  topicId?: string
  /** True for keys written before 2026-02-08 with `:dm:` instead of `:direct:`. */
  legacyDm?: boolean
}

export const MAIN_KEY = 'main'

/** OpenClaw lowercases and trims store keys (baseline `normalizeStoreSessionKey`). */
export function normalizeSessionKey(key: string): string {
  return key.trim().toLowerCase()
}

/** `parseAgentSessionKey`: `agent:<id>:<rest>` with at least three non-empty parts. */
export function parseAgentSessionKey(key: string): {agentId: string; rest: string} | undefined {
  const parts = normalizeSessionKey(key).split(':').filter(Boolean)
  if (parts.length < 3 || parts[0] !== 'agent') return undefined
  return {agentId: parts[1], rest: parts.slice(2).join(':')}
}

/** Split at the last `:thread:` (case-insensitive), as `parseThreadSessionSuffix` does. */
export function parseThreadSuffix(key: string): {baseKey: string; threadId?: string} {
  const lower = key.toLowerCase()
  const idx = lower.lastIndexOf(':thread:')
  if (idx < 0) return {baseKey: key}
  const threadId = key.slice(idx + ':thread:'.length)
  return threadId ? {baseKey: key.slice(0, idx), threadId} : {baseKey: key}
}

export function parseSessionKey(raw: string): ParsedSessionKey {
  const key = normalizeSessionKey(raw)
  if (key === 'global') return {key, shape: 'global'}
  if (key === 'unknown') return {key, shape: 'unknown'}
  const agent = parseAgentSessionKey(key)
  if (!agent) return {key, shape: 'legacy'}
  const {agentId, rest} = agent
  const base: ParsedSessionKey = {key, agentId, rest, shape: 'other'}
  const {baseKey: restBase, threadId} = parseThreadSuffix(rest)
  if (threadId) base.threadId = threadId
  const parts = restBase.split(':')

  if (rest === MAIN_KEY) return {...base, shape: 'main'}
  if (rest.endsWith(':heartbeat')) return {...base, shape: 'heartbeat'}
  if (parts[0] === 'subagent') return {...base, shape: 'subagent'}
  if (parts[0] === 'acp') return {...base, shape: 'acp'}
  if (parts[0] === 'cron') return {...base, shape: /^cron:[^:]+:run:[^:]+$/.test(rest) ? 'cron-run' : 'cron'}
  if (parts[0] === 'hook') return {...base, shape: 'hook'}
  if (parts[0] === 'explicit') return {...base, shape: 'explicit'}
  // per-peer DM: agent:<a>:direct:<peer> (or legacy :dm:)
  if ((parts[0] === 'direct' || parts[0] === 'dm') && parts.length >= 2) {
    return {...base, shape: 'direct', peerKind: 'direct', peerId: parts.slice(1).join(':'), legacyDm: parts[0] === 'dm' || undefined}
  }

  // <channel>:[<account>:]<direct|dm|group|channel>:<peer>[:topic:<id>]
  const kindIdx = parts.findIndex((p, i) => i > 0 && i <= 2 && ['direct', 'dm', 'group', 'channel'].includes(p))
  if (kindIdx > 0 && kindIdx < parts.length - 1) {
    const marker = parts[kindIdx]
    const peerKind: PeerKind = marker === 'dm' ? 'direct' : (marker as PeerKind)
    let peerId = parts.slice(kindIdx + 1).join(':')
    let topicId: string | undefined
    const topicIdx = peerId.lastIndexOf(':topic:')
    if (topicIdx >= 0) {
      topicId = peerId.slice(topicIdx + ':topic:'.length)
      // Telegram keeps `<chatId>:topic:<id>` as the peer id; the topic is also exposed for file naming.
    }
    if (peerKind === 'direct') peerId = peerId || 'unknown'
    return {
      ...base,
      shape: peerKind,
      channel: parts[0],
      accountId: kindIdx === 2 ? parts[1] : undefined,
      peerKind,
      peerId,
      topicId,
      legacyDm: marker === 'dm' || undefined,
    }
  }
  return base
}

/**
 * The `kind` OpenClaw 2026.4.27 prints in `sessions` (cli-surface.md section 3.2): the literal keys `global` and `unknown`,
 * `group` when chatType is group/channel or the key has `:group:`/`:channel:`, otherwise `direct`.
 */
export function classifySessionKind(key: string, entry?: {chatType?: unknown}): SessionKind {
  if (key === 'global') return 'global'
  if (key === 'unknown') return 'unknown'
  const chatType = entry?.chatType
  if (chatType === 'group' || chatType === 'channel') return 'group'
  if (key.includes(':group:') || key.includes(':channel:')) return 'group'
  return 'direct'
}

const CANONICAL_AGENT_KEY_RE = /^agent:([a-z0-9][a-z0-9_-]{0,63}):[^:\s]/
const CANONICAL_AGENT_ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/

/** The agent that owns a key, falling back to the store's agent for legacy/global keys. */
export function resolveAgentIdFromKey(key: string, fallback: string = DEFAULT_AGENT_ID): string {
  // Fastest path, a key of the store's own agent, `agent:<fallback>:…` (nearly every key of a per-agent store): no
  // regex and no new string, ~5 ms of a 10k-row list. Whatever follows, every rule below then answers the fallback
  // (normalized, or as the fallback), which a canonical id already is.
  if (key.charCodeAt(6 + fallback.length) === 58 /* : */ && key.startsWith('agent:') && key.startsWith(fallback, 6) && CANONICAL_AGENT_ID_RE.test(fallback)) return fallback
  // Fast path for the form OpenClaw writes, lowercase `agent:<valid id>:<rest>`: a 10k-row list asks once per row,
  // and the general parse (trim, lowercase, split, filter, join) was a tenth of the list's own time. Such an id is
  // already normalized; anything else (case, spaces, empty segments) takes the general path.
  const fast = CANONICAL_AGENT_KEY_RE.exec(key)
  if (fast) return fast[1]
  const parsed = parseAgentSessionKey(key)
  return parsed ? normalizeAgentId(parsed.agentId) : fallback
}

export function buildMainSessionKey(agentId: string): string {
  return `agent:${normalizeAgentId(agentId)}:${MAIN_KEY}`
}

export function buildExplicitSessionKey(agentId: string, sessionId: string): string {
  return `agent:${normalizeAgentId(agentId)}:explicit:${sessionId.trim().toLowerCase()}`
}

export interface PeerKeyParams {
  agentId: string
  channel: string
  peerKind: PeerKind
  peerId: string
  accountId?: string
  dmScope?: DmScope
  /** Telegram forum topic; becomes part of the peer id as `<chatId>:topic:<id>`. */
  topicId?: string | number
  threadId?: string | number
  /** `session.identityLinks`: canonical name -> ids (`<peerId>` or `<channel>:<peerId>`) of the same person. */
  identityLinks?: unknown
}

/**
 * `resolveLinkedPeerId`: the canonical name whose id list holds `<peerId>` or `<channel>:<peerId>` (trimmed,
 * lowercased on both sides), first match in config order; only for DMs outside the `main` scope.
 */
export function resolveLinkedPeerId(identityLinks: unknown, channel: string, peerId: string): string | undefined {
  if (!identityLinks || typeof identityLinks !== 'object' || Array.isArray(identityLinks)) return undefined
  const raw = peerId.trim()
  if (!raw) return undefined
  const candidates = new Set([raw.toLowerCase()])
  const ch = channel.trim().toLowerCase()
  if (ch) candidates.add(`${ch}:${raw}`.toLowerCase())
  for (const [canonical, ids] of Object.entries(identityLinks as Record<string, unknown>)) {
    const name = canonical.trim()
    if (!name || !Array.isArray(ids)) continue
    for (const id of ids) {
      const candidate = typeof id === 'string' ? id.trim().toLowerCase() : ''
      if (candidate && candidates.has(candidate)) return name
    }
  }
  return undefined
}

/** `buildAgentPeerSessionKey` + thread suffix: DMs honour dmScope, groups and channels never collapse. */
export function buildPeerSessionKey(p: PeerKeyParams): string {
  const agentId = normalizeAgentId(p.agentId)
  const channel = (p.channel.trim() || 'unknown').toLowerCase()
  let peerId = (p.peerId.trim() || 'unknown').toLowerCase()
  let key: string
  if (p.peerKind === 'direct') {
    const scope = p.dmScope ?? 'main'
    const dmPeer = p.peerId.trim()
    if (scope !== 'main' && dmPeer) peerId = (resolveLinkedPeerId(p.identityLinks, p.channel, dmPeer) ?? dmPeer).toLowerCase()
    // OpenClaw falls back to the main key for a DM without a peer id, whatever the scope.
    if (scope === 'main' || !dmPeer) key = buildMainSessionKey(agentId)
    else if (scope === 'per-peer') key = `agent:${agentId}:direct:${peerId}`
    else if (scope === 'per-channel-peer') key = `agent:${agentId}:${channel}:direct:${peerId}`
    else key = `agent:${agentId}:${channel}:${normalizeAccountId(p.accountId ?? DEFAULT_ACCOUNT_ID)}:direct:${peerId}`
  } else {
    if (p.topicId !== undefined && p.topicId !== '') peerId = `${peerId}:topic:${String(p.topicId).toLowerCase()}`
    key = `agent:${agentId}:${channel}:${p.peerKind}:${peerId}`
  }
  if (p.threadId !== undefined && p.threadId !== '') key = `${key}:thread:${String(p.threadId).toLowerCase()}`
  return key
}

/**
 * `toAgentStoreSessionKey`: what a user-supplied key means for a given agent. Empty or `main` is the main key,
 * `agent:…` keys are kept (lowercased), anything else is scoped under the agent.
 */
export function toAgentStoreSessionKey(agentId: string, requestKey: string | undefined): string {
  const raw = (requestKey ?? '').trim()
  if (!raw || raw.toLowerCase() === MAIN_KEY) return buildMainSessionKey(agentId)
  const lower = raw.toLowerCase()
  if (lower === 'global' || lower === 'unknown') return lower
  const parsed = parseAgentSessionKey(lower)
  if (parsed) return `agent:${normalizeAgentId(parsed.agentId)}:${parsed.rest}`
  if (lower.startsWith('agent:')) return lower
  return `agent:${normalizeAgentId(agentId)}:${lower}`
}

/**
 * `canonicalizeSessionKeyForAgent` for pre-multi-agent stores (section 4.6): bare `main`, `subagent:X`, `group:X`,
 * E.164 numbers and the like become `agent:<id>:…`.
 */
export function canonicalizeLegacyKey(agentId: string, key: string): string {
  const lower = normalizeSessionKey(key)
  if (lower === 'global' || lower === 'unknown') return lower
  if (parseAgentSessionKey(lower)) return toAgentStoreSessionKey(agentId, lower)
  if (lower === MAIN_KEY) return buildMainSessionKey(agentId)
  if (lower.startsWith('group:') || lower.startsWith('channel:')) {
    const id = lower.slice(lower.indexOf(':') + 1)
    if (id.endsWith('@g.us')) return `agent:${normalizeAgentId(agentId)}:whatsapp:${lower}`
    return `agent:${normalizeAgentId(agentId)}:unknown:${lower}`
  }
  return `agent:${normalizeAgentId(agentId)}:${lower}`
}

/** The topic/thread id used in a `-topic-<id>` transcript name, if the key carries one. */
export function transcriptTopicId(key: string): string | undefined {
  // Nearly no key has a thread or topic, and the full parse below (trim, lowercase, splits, object spreads) was ~11 ms
  // of `status` on 1.9k sessions, one call per entry. Both ids come only from a `:thread:` or `:topic:` in the
  // normalized (lowercased) key, so a key whose lowercase form holds neither has none.
  const lower = key.toLowerCase()
  if (!lower.includes(':thread:') && !lower.includes(':topic:')) return undefined
  const parsed = parseSessionKey(key)
  return parsed.threadId ?? parsed.topicId
}

export function isSubagentKey(key: string): boolean {
  const k = normalizeSessionKey(key)
  return k.startsWith('subagent:') || (parseAgentSessionKey(k)?.rest.startsWith('subagent:') ?? false)
}

export function subagentDepth(key: string): number {
  return normalizeSessionKey(key).split(':subagent:').length - 1
}
