// Delivery of an agent's final reply (`agent --deliver`): OpenClaw's delivery plan, the send policy, the shared
// channel clients, and the delivery mirror.
import type {Env} from '../config/paths.js'
import {ClawkitError, UsageError} from '../errors.js'
import {randomUUID} from '../store/random-id.js'
import {normalizeSessionKey} from '../store/session-key.js'
import type {OpenClawState} from '../store/state.js'
import type {SessionEntry} from '../store/types.js'
import {resolveChannelAccount, selectChannel} from './config.js'
import {mirrorDelivery} from './mirror.js'
import {resolveSendPolicy} from './policy.js'
import {deliver, dmScopeOf, makeIO, messageMeta, mirrorErrorOf, resultFields, type ResolvedSend, slackTypeOf} from './send.js'
import {parseTarget, resolveOutboundRoute} from './targets.js'
import type {ChannelId} from './types.js'

export const DELIVERY_CHANNEL_REQUIRED = 'delivery channel is required: pass --channel/--reply-channel or use a main session with a previous channel'

export interface DeliverAgentReplyParams {
  state: OpenClawState
  agentId: string
  /** The session the turn ran in (its entry supplies the last route). */
  sessionKey: string
  text: string
  /** --channel / --reply-channel; omitted or "last" means the session's lastChannel. */
  channel?: string
  /** --reply-to / --to: the delivery target; omitted means the session's lastTo (same channel only). */
  replyTo?: string
  /** --reply-account */
  accountId?: string
  env?: Env
  idempotencyKey?: string
  sleep?: (ms: number) => Promise<void>
}

export interface AgentDeliveryResult {
  channel: ChannelId
  to: string
  /** implicit: taken from the session's last route; explicit: given by the caller. */
  targetMode: 'explicit' | 'implicit'
  accountId: string
  threadId?: string
  result: {messageId: string; chatId?: string; channelId?: string; messageIds: string[]; parts: number}
  /**
   * The copy in the session the target maps to. null when that is the session the turn ran in (the reply is already
   * its last assistant message) or the text was empty.
   */
  mirrored: {agentId: string; sessionKey: string; sessionId: string; entryId: string; created: boolean; duplicate: boolean} | null
  /** Delivered, but the copy could not be written. */
  mirrorError?: {code: string; message: string}
  idempotencyKey: string
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined
}

/** resolveAgentDeliveryPlan: channel = explicit, else lastChannel; target = explicit, else lastTo when the channel matches. */
export function planAgentDelivery(entry: SessionEntry | undefined, channelOpt: string | undefined, replyTo: string | undefined, accountOpt: string | undefined) {
  const lastChannel = str(entry?.deliveryContext?.channel) ?? str(entry?.lastChannel)
  const lastTo = str(entry?.deliveryContext?.to) ?? str(entry?.lastTo)
  const lastAccount = str(entry?.deliveryContext?.accountId) ?? str(entry?.lastAccountId)
  const lastThreadRaw = entry?.deliveryContext?.threadId ?? entry?.lastThreadId
  const lastThread = lastThreadRaw === undefined || lastThreadRaw === null || lastThreadRaw === '' ? undefined : String(lastThreadRaw)
  const requested = channelOpt?.trim().toLowerCase()
  const channel = !requested || requested === 'last' ? lastChannel?.toLowerCase() : requested
  const explicitTo = str(replyTo)
  const implicit = !explicitTo && Boolean(channel) && channel === lastChannel?.toLowerCase()
  return {
    channel,
    to: explicitTo ?? (implicit ? lastTo : undefined),
    targetMode: (explicitTo ? 'explicit' : 'implicit') as 'explicit' | 'implicit',
    accountId: str(accountOpt) ?? (implicit ? lastAccount : undefined),
    threadId: implicit ? lastThread : undefined,
  }
}

export async function deliverAgentReply(p: DeliverAgentReplyParams): Promise<AgentDeliveryResult> {
  const {state, agentId} = p
  const env = p.env ?? state.env
  const sessionKey = normalizeSessionKey(p.sessionKey)
  const entry = (await state.store(agentId).findEntry(sessionKey))?.entry
  const plan = planAgentDelivery(entry, p.channel, p.replyTo, p.accountId)
  if (!plan.channel || plan.channel === 'webchat') throw new ClawkitError(DELIVERY_CHANNEL_REQUIRED, {code: 'E_DELIVERY_CHANNEL_REQUIRED'})
  const channel = selectChannel(state.config, env, plan.channel)
  if (!plan.to) {
    throw new ClawkitError(`delivery target is required for ${channel}: pass --to/--reply-to or configure a default target`, {code: 'E_DELIVERY_TARGET_REQUIRED'})
  }
  if (!p.text.trim()) throw new UsageError('send requires text or media', 'E_EMPTY_MESSAGE')
  const target = parseTarget(channel, plan.to)
  const account = resolveChannelAccount(state.config, env, channel, plan.accountId)
  const slackType = await slackTypeOf(state, target, account)
  const route = resolveOutboundRoute({agentId, target, dmScope: dmScopeOf(state), identityLinks: state.config.session?.identityLinks, accountId: account.accountId, threadId: plan.threadId, slackType})
  // The policy is the one of the session the reply comes from (OpenClaw checks the run's session entry).
  const policy = resolveSendPolicy({config: state.config, entry, sessionKey, channel, chatType: entry?.chatType ?? route.chatType})
  if (policy.decision === 'deny') throw new ClawkitError('send blocked by session policy', {code: 'E_SEND_BLOCKED'})
  const r: ResolvedSend = {channel, account, target, agentId, route, sessionKey: route.sessionKey, policy}
  const idempotencyKey = p.idempotencyKey ?? `clawkit-deliver-${randomUUID()}`
  const io = makeIO(r, false, p.sleep)
  let res
  try {
    res = await deliver(r, {target, text: p.text, threadId: plan.threadId}, io, idempotencyKey)
  } catch (error) {
    if (error instanceof ClawkitError) {
      throw new ClawkitError(`Delivery failed (${channel} to ${plan.to}): ${error.message}`, {code: error.code, exitCode: error.exitCode, suggestions: error.suggestions, cause: error})
    }
    throw error
  }
  let mirrored: AgentDeliveryResult['mirrored'] = null
  let mirrorError: AgentDeliveryResult['mirrorError']
  if (route.sessionKey !== sessionKey) {
    // Delivered already: a mirror failure is reported, not turned into a failed delivery (a retry would resend).
    try {
      const m = await mirrorDelivery({state, agentId, sessionKey: route.sessionKey, channel, route, text: p.text, mediaUrls: [], idempotencyKey, meta: messageMeta(r, res, plan.threadId)})
      if (m) mirrored = {agentId: m.agentId, sessionKey: m.sessionKey, sessionId: m.sessionId, entryId: m.entryId, created: m.created, duplicate: m.duplicate}
    } catch (error) {
      mirrorError = mirrorErrorOf(error)
    }
  }
  return {channel, to: plan.to, targetMode: plan.targetMode, accountId: account.accountId, threadId: plan.threadId, result: resultFields(channel, res), mirrored, ...(mirrorError ? {mirrorError} : {}), idempotencyKey}
}
