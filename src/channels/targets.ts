// Per-channel target parsing (OpenClaw's formats) and the session route a target maps to (outbound-session.ts).
import {DEFAULT_ACCOUNT_ID} from '../config/agent-id.js'
import {UsageError} from '../errors.js'
import {buildMainSessionKey, buildPeerSessionKey, type DmScope} from '../store/session-key.js'
import type {SlackConversationType} from './slack.js'
import type {ChannelId, ChatType, ParsedTarget} from './types.js'

function stripPrefix(raw: string, prefixes: string[]): string {
  const lower = raw.toLowerCase()
  for (const p of prefixes) if (lower.startsWith(`${p}:`)) return raw.slice(p.length + 1).trim()
  return raw
}

function badTarget(channel: string, raw: string, formats: string, rule?: string): never {
  throw new UsageError(`Invalid ${channel} target "${raw.slice(0, 200)}"${rule ? `: ${rule}` : ''}. Use ${formats}.`, 'E_BAD_TARGET')
}

/** Discord ids are snowflakes: 17 to 20 digits for anything created after Discord's first weeks (and until ~2090). */
const SNOWFLAKE_RE = /^\d{17,20}$/
const SNOWFLAKE_RULE = 'Discord ids are numbers of 17 to 20 digits (e.g. 123456789012345678)'
const SLACK_ID_RE = /^[A-Z0-9][A-Z0-9_-]{1,40}$/i

export function parseTarget(channel: ChannelId, input: string): ParsedTarget {
  const raw = input.trim()
  if (!raw) throw new UsageError('Target is required (-t/--target)', 'E_MISSING_TARGET')
  if (raw.includes('\0') || raw.length > 2048) badTarget(channel, raw, 'a shorter target')
  switch (channel) {
    case 'telegram': {
      let rest = stripPrefix(raw, ['telegram', 'tg'])
      rest = stripPrefix(rest, ['group', 'chat'])
      let threadId: string | undefined
      const topic = /^(.+?):topic:(\d+)$/i.exec(rest) ?? /^(-\d+):(\d+)$/.exec(rest)
      if (topic) {
        rest = topic[1]
        threadId = topic[2]
      }
      if (/^-?\d{1,20}$/.test(rest)) return {channel, raw, kind: rest.startsWith('-') ? 'group' : 'user', id: rest, threadId}
      if (/^@[A-Za-z][A-Za-z0-9_]{3,31}$/.test(rest)) return {channel, raw, kind: 'user', id: rest, threadId}
      return badTarget('Telegram', raw, 'a numeric chat id (groups are negative, e.g. -1001234567890), -100…:topic:<id>, or @username')
    }
    case 'discord': {
      const rest = stripPrefix(raw, ['discord'])
      const mention = /^<@!?(\d+)>$/.exec(rest)
      const m = mention ? undefined : /^(channel|user):(.+)$/i.exec(rest)
      const kind = mention ? 'user' : m ? (m[1].toLowerCase() as 'channel' | 'user') : 'channel'
      const id = (mention ? mention[1] : m ? m[2] : rest).trim()
      // The message states the rule the check applies, so a number it rejects is not advertised as valid.
      if (!SNOWFLAKE_RE.test(id)) badTarget('Discord', raw, 'channel:<id>, user:<id>, <@id> or a bare channel id', SNOWFLAKE_RULE)
      return {channel, raw, kind, id}
    }
    case 'slack': {
      const rest = stripPrefix(raw, ['slack'])
      const mention = /^<@([A-Z0-9]+)>$/i.exec(rest)
      if (mention) return {channel, raw, kind: 'user', id: mention[1].toUpperCase()}
      const m = /^(channel|user):(.+)$/i.exec(rest)
      const kind = m ? (m[1].toLowerCase() as 'channel' | 'user') : 'channel'
      const id = (m ? m[2] : rest).trim()
      if (!SLACK_ID_RE.test(id)) badTarget('Slack', raw, 'channel:<id> or user:<id> (ids like C0123ABCD / U0123ABCD)')
      return {channel, raw, kind, id: id.toUpperCase()}
    }
    case 'webhook': {
      let url: URL
      try {
        url = new URL(raw)
      } catch {
        return badTarget('webhook', raw, 'an http(s) URL')
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') badTarget('webhook', raw, 'an http(s) URL')
      return {channel, raw, kind: 'channel', id: url.toString()}
    }
  }
}

/** The session a send maps to, plus the origin/delivery metadata OpenClaw writes when it creates that session. */
export interface OutboundRoute {
  sessionKey: string
  chatType: ChatType
  /** origin.from */
  from: string
  /** deliveryContext.to / lastTo / origin.to */
  to: string
  accountId: string
  /** Telegram topics are numbers (as OpenClaw stores them); Slack thread ts and Discord thread ids are strings. */
  threadId?: string | number
  /** Group fields OpenClaw writes on group/channel sessions. */
  groupId?: string
}

/**
 * OpenClaw's resolveOutboundSessionRoute for the channels clawkit sends to. DMs honour session.dmScope (so with the
 * default `main` they collapse to agent:<id>:main); groups and channels always get their own key. Slack threads add
 * `:thread:<ts>`; Discord threads are channels of their own and add nothing; Telegram topics live in the peer id.
 * Slack `G…` ids need `slackType` (resolveSlackConversationType): a group DM is keyed `slack:group:`, not `channel:`.
 */
export function resolveOutboundRoute(p: {agentId: string; target: ParsedTarget; dmScope?: DmScope; identityLinks?: unknown; accountId?: string; threadId?: string; replyTo?: string; slackType?: SlackConversationType}): OutboundRoute {
  const {target, agentId, identityLinks} = p
  const accountId = p.accountId ?? DEFAULT_ACCOUNT_ID
  const dmScope = p.dmScope ?? 'main'
  switch (target.channel) {
    case 'telegram': {
      const isGroup = target.kind === 'group'
      const thread = target.threadId ?? (p.threadId && /^\d+$/.test(p.threadId) ? p.threadId : undefined)
      const sessionKey = isGroup
        ? buildPeerSessionKey({agentId, channel: 'telegram', peerKind: 'group', peerId: target.id, topicId: thread})
        : buildPeerSessionKey({agentId, channel: 'telegram', peerKind: 'direct', peerId: target.id, accountId, dmScope, identityLinks})
      const peerId = isGroup && thread ? `${target.id}:topic:${thread}` : target.id
      return {
        sessionKey,
        chatType: isGroup ? 'group' : 'direct',
        from: isGroup ? `telegram:group:${peerId}` : `telegram:${target.id}`,
        to: `telegram:${target.id}`,
        accountId,
        threadId: thread === undefined ? undefined : Number(thread),
        groupId: isGroup ? peerId.toLowerCase() : undefined,
      }
    }
    case 'discord': {
      const isDm = target.kind === 'user'
      // Discord threads are channels with their own id; OpenClaw adds no :thread: suffix.
      const sessionKey = buildPeerSessionKey({agentId, channel: 'discord', peerKind: isDm ? 'direct' : 'channel', peerId: target.id, accountId, dmScope, identityLinks})
      return {
        sessionKey,
        chatType: isDm ? 'direct' : 'channel',
        from: isDm ? `discord:${target.id}` : `discord:channel:${target.id}`,
        to: isDm ? `user:${target.id}` : `channel:${target.id}`,
        accountId,
        threadId: p.threadId,
        groupId: isDm ? undefined : target.id.toLowerCase(),
      }
    }
    case 'slack': {
      // A G… id is a private channel or a group DM; the caller asked Slack (resolveSlackConversationType).
      const type = target.kind !== 'user' && /^G/i.test(target.id) ? p.slackType : undefined
      const peerKind = target.kind === 'user' || type === 'dm' ? 'direct' : type === 'group' ? 'group' : 'channel'
      const isDm = peerKind === 'direct'
      // OpenClaw's thread-aware route takes --reply-to before --thread-id (buildThreadAwareOutboundSessionRoute).
      const thread = p.replyTo ?? p.threadId
      const sessionKey = buildPeerSessionKey({agentId, channel: 'slack', peerKind, peerId: target.id, accountId, dmScope, identityLinks, threadId: thread})
      return {
        sessionKey,
        // OpenClaw records a group DM's chatType as channel too; only its key and `from` say group.
        chatType: isDm ? 'direct' : 'channel',
        from: isDm ? `slack:${target.id}` : peerKind === 'group' ? `slack:group:${target.id}` : `slack:channel:${target.id}`,
        to: isDm ? `user:${target.id}` : `channel:${target.id}`,
        accountId,
        threadId: thread,
        groupId: isDm ? undefined : target.id.toLowerCase(),
      }
    }
    case 'webhook':
      // Not an OpenClaw channel: OpenClaw's fallback route treats an unknown peer as a DM, which is the main session.
      return {sessionKey: buildMainSessionKey(agentId), chatType: 'direct', from: 'webhook', to: target.id, accountId}
  }
}
