// Send policy: OpenClaw's resolveSendPolicy (entry override, then session.sendPolicy rules, then default, then allow).
import type {OpenClawConfig} from '../config/config.js'
import type {SessionEntry} from '../store/types.js'

export type SendPolicyDecision = 'allow' | 'deny'

interface SendPolicyRule {
  action?: string
  match?: {channel?: string; chatType?: string; keyPrefix?: string}
}

export function normalizeSendPolicy(raw: unknown): SendPolicyDecision | undefined {
  const v = typeof raw === 'string' ? raw.trim().toLowerCase() : ''
  return v === 'allow' || v === 'deny' ? v : undefined
}

function norm(raw: unknown): string | undefined {
  const v = typeof raw === 'string' ? raw.trim().toLowerCase() : ''
  return v || undefined
}

function normChatType(raw: unknown): string | undefined {
  const v = norm(raw)
  if (v === 'dm') return 'direct'
  return v === 'direct' || v === 'group' || v === 'channel' ? v : undefined
}

function channelFromKey(key?: string): string | undefined {
  const parts = (key ?? '').split(':').filter(Boolean)
  return parts.length >= 3 && (parts[1] === 'group' || parts[1] === 'channel') ? norm(parts[0]) : undefined
}

function chatTypeFromKey(key?: string): string | undefined {
  if (!key) return undefined
  if (key.includes(':group:')) return 'group'
  if (key.includes(':channel:')) return 'channel'
  return undefined
}

export interface SendPolicyResult {
  decision: SendPolicyDecision
  /** What decided: the entry's override, the index of a matching rule, the configured default, or nothing. */
  source: 'entry' | 'rule' | 'default' | 'none'
  rule?: number
}

/**
 * A deny rule that matches wins even after an earlier allow rule (OpenClaw returns on deny, only remembers allows);
 * when no rule matches, `default` applies, else allow.
 */
export function resolveSendPolicy(p: {config: OpenClawConfig; entry?: SessionEntry; sessionKey?: string; channel?: string; chatType?: string}): SendPolicyResult {
  const override = normalizeSendPolicy(p.entry?.sendPolicy)
  if (override) return {decision: override, source: 'entry'}
  const policy = (p.config.session as {sendPolicy?: {rules?: SendPolicyRule[]; default?: string}} | undefined)?.sendPolicy
  if (!policy || typeof policy !== 'object') return {decision: 'allow', source: 'none'}
  const channel = norm(p.channel) ?? norm(p.entry?.channel) ?? norm(p.entry?.lastChannel) ?? channelFromKey(p.sessionKey)
  const chatType = normChatType(p.chatType ?? p.entry?.chatType) ?? normChatType(chatTypeFromKey(p.sessionKey))
  const key = p.sessionKey ?? ''
  let allowedAt: number | undefined
  const rules = Array.isArray(policy.rules) ? policy.rules : []
  for (const [i, rule] of rules.entries()) {
    if (!rule || typeof rule !== 'object') continue
    const action = normalizeSendPolicy(rule.action) ?? 'allow'
    const match = rule.match ?? {}
    const mChannel = norm(match.channel)
    const mChatType = normChatType(match.chatType)
    const mPrefix = norm(match.keyPrefix)
    if (mChannel && mChannel !== channel) continue
    if (mChatType && mChatType !== chatType) continue
    if (mPrefix && !key.startsWith(mPrefix)) continue
    if (action === 'deny') return {decision: 'deny', source: 'rule', rule: i}
    allowedAt ??= i
  }
  if (allowedAt !== undefined) return {decision: 'allow', source: 'rule', rule: allowedAt}
  const fallback = normalizeSendPolicy(policy.default)
  return fallback ? {decision: fallback, source: 'default'} : {decision: 'allow', source: 'none'}
}
