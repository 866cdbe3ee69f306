// `message send` core: validate, pick channel/target/session, apply the send policy, deliver, then mirror the send.
import {normalizeAgentId} from '../config/agent-id.js'
import {ClawkitError, UsageError} from '../errors.js'
import {randomUUID} from '../store/random-id.js'
import {type DmScope, parseAgentSessionKey, toAgentStoreSessionKey} from '../store/session-key.js'
import type {OpenClawState} from '../store/state.js'
import type {SessionEntry, TranscriptRef} from '../store/types.js'
import {redactText, registerSecrets} from '../text/redact.js'
import {resolveChannelAccount, selectChannel} from './config.js'
import {sendDiscord, discordRetryAfter} from './discord.js'
import type {SendHttpOptions} from './http.js'
import {ChannelIO} from './io.js'
import {resolveMedia} from './media.js'
import {findPriorMirror, lookupSession, type MessageMeta, mirrorDelivery, type MirrorResult} from './mirror.js'
import {resolveSendPolicy, type SendPolicyResult} from './policy.js'
import {resolveSlackConversationType, sendSlack, type SlackConversationType} from './slack.js'
import {type OutboundRoute, parseTarget, resolveOutboundRoute} from './targets.js'
import {sendTelegram, telegramRetryAfter} from './telegram.js'
import {CHANNEL_LABELS, type ChannelAccount, type ChannelId, type ChannelSendResult, type MediaRef, type ParsedTarget, type RequestPreview, type SendParams} from './types.js'
import {displayWebhookUrl, sendWebhook} from './webhook.js'

export interface MessageSendOptions {
  channel?: string
  target: string
  message?: string
  media?: string
  replyTo?: string
  threadId?: string
  silent?: boolean
  account?: string
  agent?: string
  sessionKey?: string
  mirror?: boolean
  dryRun?: boolean
  idempotencyKey?: string
  /** Test seam for waiting on retry-after; real sends sleep. */
  sleep?: (ms: number) => Promise<void>
}

export interface MessageSendResult {
  action: 'send'
  channel: ChannelId
  dryRun: boolean
  handledBy: 'core'
  payload: {
    channel: ChannelId
    to: string
    via: 'direct'
    mediaUrl: string | null
    /** What the platform answered (null in a dry run). */
    result: {messageId: string; chatId?: string; channelId?: string; messageIds: string[]; parts: number} | null
    /** Where the send was copied; null with --no-mirror, in a dry run, or when there was nothing to copy. */
    mirrored: {agentId: string; sessionKey: string; sessionId: string; entryId: string; created: boolean; duplicate: boolean} | null
    /** The message was delivered but its copy could not be written to the session (exit code stays 0). */
    mirrorError?: {code: string; message: string}
    /** The session the send maps to and the send policy that allowed it. */
    session: {agentId: string; sessionKey: string; exists: boolean; policy: SendPolicyResult['source']}
    idempotencyKey: string
    /** True when --idempotency-key was already mirrored: nothing was sent again. */
    duplicate?: true
    dryRun?: true
    /** --dry-run only: the exact requests, token redacted. */
    requests?: RequestPreview[]
    /** --dry-run only: what a real send would still need (e.g. the channel token is missing). */
    warnings?: string[]
  }
}

export interface ResolvedSend {
  channel: ChannelId
  account: ChannelAccount
  target: ParsedTarget
  media?: MediaRef
  agentId: string
  route: OutboundRoute
  sessionKey: string
  entry?: SessionEntry
  transcript?: TranscriptRef
  policy: SendPolicyResult
}

const DM_SCOPES = new Set(['main', 'per-peer', 'per-channel-peer', 'per-account-channel-peer'])

/** session.dmScope, with anything OpenClaw would reject read as the default `main`. */
export function dmScopeOf(state: OpenClawState): DmScope {
  const raw = state.config.session?.dmScope
  return typeof raw === 'string' && DM_SCOPES.has(raw) ? (raw as DmScope) : 'main'
}

/**
 * For a Slack `G…` id, what OpenClaw finds it to be (a group DM gets another session key); undefined otherwise. A dry
 * run asks nothing, as OpenClaw's dry run resolves no mirror route: it must not call the platform at all.
 */
export async function slackTypeOf(state: OpenClawState, target: ParsedTarget, account: ChannelAccount, dryRun = false): Promise<SlackConversationType | undefined> {
  if (dryRun || target.channel !== 'slack' || target.kind === 'user' || !/^G/i.test(target.id)) return undefined
  return resolveSlackConversationType(state.config, account, target.id)
}

function checkId(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined
  const v = value.trim()
  if (!v || v.length > 128 || /[\s\0]/.test(v)) throw new UsageError(`Invalid ${flag}: "${value.slice(0, 60)}"`, 'E_BAD_FLAG')
  return v
}

/** Resolve everything a send needs and check the policy; throws before anything is sent or written. */
export async function resolveSend(state: OpenClawState, o: {channel: string | undefined; target: string; hasContent: boolean; media?: string; replyTo?: string; threadId?: string; account?: string; agent?: string; sessionKey?: string; dryRun?: boolean}): Promise<ResolvedSend> {
  if (!o.hasContent) throw new UsageError('send requires text or media', 'E_EMPTY_MESSAGE')
  const channel = selectChannel(state.config, state.env, o.channel)
  const target = parseTarget(channel, o.target)
  const media = o.media === undefined ? undefined : resolveMedia(o.media)
  let agentId = o.agent ? state.requireAgent(o.agent) : state.activeAgentId
  const account = resolveChannelAccount(state.config, state.env, channel, o.account, {dryRun: o.dryRun})
  const slackType = await slackTypeOf(state, target, account, o.dryRun)
  const route = resolveOutboundRoute({agentId, target, dmScope: dmScopeOf(state), identityLinks: state.config.session?.identityLinks, accountId: account.accountId, threadId: o.threadId, replyTo: o.replyTo, slackType})
  let sessionKey = route.sessionKey
  if (o.sessionKey !== undefined) {
    const raw = o.sessionKey.trim()
    if (!raw || raw.length > 512 || raw.includes('\0')) throw new UsageError(`Invalid --session-key: "${o.sessionKey.slice(0, 60)}"`, 'E_BAD_SESSION')
    sessionKey = toAgentStoreSessionKey(agentId, raw)
    const keyAgent = parseAgentSessionKey(sessionKey)?.agentId
    if (keyAgent && normalizeAgentId(keyAgent) !== agentId) {
      if (o.agent) throw new UsageError(`--session-key ${sessionKey} belongs to agent "${keyAgent}", not "${agentId}"`, 'E_FLAG_CONFLICT')
      agentId = state.requireAgent(keyAgent)
    }
  }
  const {entry, transcript} = await lookupSession(state, agentId, sessionKey)
  const policy = resolveSendPolicy({config: state.config, entry, sessionKey, channel, chatType: route.chatType})
  if (policy.decision === 'deny') {
    const why = policy.source === 'entry' ? `the session entry ${sessionKey} has sendPolicy "deny"` : policy.source === 'rule' ? `session.sendPolicy.rules[${policy.rule}] denies ${sessionKey}` : `session.sendPolicy.default is "deny"`
    throw new ClawkitError('send blocked by session policy', {code: 'E_SEND_BLOCKED', suggestions: [why]})
  }
  return {channel, account, target, media, agentId, route, sessionKey, entry, transcript, policy}
}

export function retryAfterFor(channel: ChannelId): SendHttpOptions['retryAfter'] {
  if (channel === 'telegram') return telegramRetryAfter
  if (channel === 'discord') return discordRetryAfter
  return () => undefined
}

/** Run the platform client. */
export async function deliver(r: ResolvedSend, params: SendParams, io: ChannelIO, idempotencyKey: string): Promise<ChannelSendResult> {
  try {
    return await deliverOnce(r, params, io, idempotencyKey)
  } catch (error) {
    if (io.delivered > 0 && error instanceof ClawkitError) {
      throw new ClawkitError(`${error.message} (${io.delivered} earlier part(s) of this message were delivered; nothing was mirrored)`, {code: error.code, exitCode: error.exitCode, suggestions: error.suggestions, cause: error})
    }
    throw error
  }
}

async function deliverOnce(r: ResolvedSend, params: SendParams, io: ChannelIO, idempotencyKey: string): Promise<ChannelSendResult> {
  switch (r.channel) {
    case 'telegram':
      return sendTelegram(r.account, params, io)
    case 'discord':
      return sendDiscord(r.account, params, io)
    case 'slack':
      return sendSlack(r.account, params, io)
    case 'webhook':
      return sendWebhook(r.account, params, io, idempotencyKey)
  }
}

export function makeIO(r: ResolvedSend, dryRun: boolean, sleep?: (ms: number) => Promise<void>): ChannelIO {
  // A dry run's placeholder token is no secret: the preview shows it so the user sees where the token goes.
  const secrets = [r.account.tokenMissing ? undefined : r.account.token, ...Object.values(r.account.headers ?? {}), ...webhookUrlSecrets(r.target)]
  // Also known to the redaction of error output (a webhook that echoes its own URL with the key in the query).
  registerSecrets(secrets)
  return new ChannelIO(dryRun, {label: CHANNEL_LABELS[r.channel], secrets, retryAfter: retryAfterFor(r.channel), sleep})
}

/** Webhook URLs often carry their secret in the query string or userinfo; treat those parts as tokens. */
function webhookUrlSecrets(t: ParsedTarget): string[] {
  if (t.channel !== 'webhook') return []
  try {
    const u = new URL(t.id)
    return [u.search.slice(1), u.password, u.username].filter((s) => s.length >= 4)
  } catch {
    return []
  }
}

export function messageMeta(r: ResolvedSend, res: ChannelSendResult, threadId?: string): MessageMeta {
  const meta: MessageMeta = {channel: r.channel, accountId: r.account.accountId, chatType: r.route.chatType, providerMessageId: res.messageId}
  const chat = res.chatId ?? res.channelId
  if (chat && r.channel !== 'webhook') meta.chatId = chat
  if (res.messageIds.length > 1) meta.providerMessageIds = res.messageIds
  const thread = r.route.threadId ?? threadId
  if (thread !== undefined && thread !== '') meta.threadId = thread
  return meta
}

function shownTarget(t: ParsedTarget): string {
  return t.channel === 'webhook' ? displayWebhookUrl(t.id) : t.raw
}

export function resultFields(channel: ChannelId, res: ChannelSendResult): NonNullable<MessageSendResult['payload']['result']> {
  const out: NonNullable<MessageSendResult['payload']['result']> = {messageId: res.messageId, messageIds: res.messageIds, parts: res.parts}
  if (channel === 'telegram' && res.chatId) out.chatId = res.chatId
  if ((channel === 'discord' || channel === 'slack') && res.channelId) out.channelId = res.channelId
  return out
}

export async function messageSend(state: OpenClawState, o: MessageSendOptions): Promise<MessageSendResult> {
  // A mistyped --state-dir would otherwise send with no channel config and mirror into a brand-new state dir.
  state.requireStateDir()
  const text = o.message ?? ''
  const replyTo = checkId(o.replyTo, '--reply-to')
  const threadId = checkId(o.threadId, '--thread-id')
  if (o.idempotencyKey !== undefined && !/^[\w.:-]{1,128}$/.test(o.idempotencyKey)) throw new UsageError('--idempotency-key must be 1-128 characters of letters, digits, "_", "-", ".", ":"', 'E_BAD_FLAG')
  const r = await resolveSend(state, {channel: o.channel, target: o.target, hasContent: text.trim() !== '' || o.media !== undefined, media: o.media, replyTo, threadId, account: o.account, agent: o.agent, sessionKey: o.sessionKey, dryRun: o.dryRun})
  const mirror = o.mirror !== false
  // Checked before anything is sent (a dry run too, so it previews what the real send does): a copy that could not be
  // recorded afterwards (Node without node:sqlite, or a gateway owning a SQLite-era state dir) would leave the send
  // silently unrecorded, which is what the mirror exists to prevent. --no-mirror sends without the copy.
  if (mirror) state.assertWritable(r.agentId)
  const idempotencyKey = o.idempotencyKey ?? `clawkit-send-${randomUUID()}`
  const params: SendParams = {target: r.target, text, media: r.media, replyTo, threadId, silent: o.silent}
  const base: MessageSendResult = {
    action: 'send',
    channel: r.channel,
    dryRun: Boolean(o.dryRun),
    handledBy: 'core',
    payload: {
      channel: r.channel,
      to: shownTarget(r.target),
      via: 'direct',
      mediaUrl: r.media?.source ?? null,
      result: null,
      mirrored: null,
      session: {agentId: r.agentId, sessionKey: r.sessionKey, exists: Boolean(r.entry), policy: r.policy.source},
      idempotencyKey,
    },
  }
  // A key the target session already holds means this exact send was delivered and recorded before.
  if (o.idempotencyKey && mirror && r.transcript) {
    const prior = await findPriorMirror(state, r.agentId, r.transcript, o.idempotencyKey)
    if (prior) {
      const meta = prior.meta
      base.payload.duplicate = true
      base.payload.result = {messageId: meta?.providerMessageId ?? 'unknown', messageIds: meta?.providerMessageIds ?? [meta?.providerMessageId ?? 'unknown'], parts: meta?.providerMessageIds?.length ?? 1}
      if (meta?.chatId) base.payload.result[r.channel === 'telegram' ? 'chatId' : 'channelId'] = meta.chatId
      base.payload.mirrored = {agentId: r.agentId, sessionKey: r.sessionKey, sessionId: r.entry!.sessionId, entryId: prior.entryId, created: false, duplicate: true}
      if (o.dryRun) base.payload.dryRun = true
      return base
    }
  }
  const io = makeIO(r, Boolean(o.dryRun), o.sleep)
  if (o.dryRun) {
    await deliver(r, params, io, idempotencyKey)
    base.payload.dryRun = true
    base.payload.requests = io.previews
    if (r.account.tokenMissing) base.payload.warnings = [r.account.tokenMissing]
    return base
  }
  const res = await deliver(r, params, io, idempotencyKey)
  base.payload.result = resultFields(r.channel, res)
  if (mirror) {
    // The message is out. A mirror that cannot be written (a running turn holds the transcript lock past the
    // timeout, a damaged transcript) must not turn that into a reported failure: a script would retry and the chat
    // would get the message twice. The send succeeds, with mirrorError saying what was not recorded.
    try {
      const m: MirrorResult | undefined = await mirrorDelivery({
        state,
        agentId: r.agentId,
        sessionKey: r.sessionKey,
        channel: r.channel,
        route: r.route,
        text,
        mediaUrls: r.media ? [r.media.kind === 'file' ? r.media.path! : r.media.source] : [],
        idempotencyKey,
        meta: messageMeta(r, res, threadId),
      })
      if (m) base.payload.mirrored = {agentId: m.agentId, sessionKey: m.sessionKey, sessionId: m.sessionId, entryId: m.entryId, created: m.created, duplicate: m.duplicate}
    } catch (error) {
      base.payload.mirrorError = mirrorErrorOf(error)
    }
  }
  return base
}

export function mirrorErrorOf(error: unknown): {code: string; message: string} {
  const e = error as {code?: unknown; message?: unknown}
  return {code: typeof e?.code === 'string' ? (e.code.startsWith('E_') ? e.code : `E_${e.code}`) : 'E_MIRROR_FAILED', message: redactText(String(e?.message ?? error))}
}

/** OpenClaw's success line: `✅ Sent via <Label>. Message ID: <id>` plus ` (chat <id>)` / ` (channel <id>)`. */
export function formatSendLine(r: MessageSendResult): string {
  const label = CHANNEL_LABELS[r.channel]
  const res = r.payload.result
  if (!res) return `✅ Sent via ${label}. Message ID: unknown`
  const suffix = res.chatId ? ` (chat ${res.chatId})` : res.channelId ? ` (channel ${res.channelId})` : ''
  return `✅ Sent via ${label}. Message ID: ${res.messageId}${suffix}`
}
