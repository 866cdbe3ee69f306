// Slack Web API client: chat.postMessage (thread_ts), conversations.open for users, external file upload for media.
import type {OpenClawConfig} from '../config/config.js'
import {channelSection} from './config.js'
import {ChannelError, errorText, type HttpResponse, sendHttp, shortBody, splitText} from './http.js'
import type {ChannelIO} from './io.js'
import {readMedia} from './media.js'
import type {ChannelAccount, ChannelSendResult, SendParams} from './types.js'

/** Slack truncates past 40 000 characters and advises 4 000; clawkit splits at 4 000 like OpenClaw's chunker. */
export const SLACK_TEXT_LIMIT = 4000

interface SlackResponse {
  ok?: boolean
  error?: unknown
  ts?: string
  channel?: string | {id?: string}
  upload_url?: string
  file_id?: string
  files?: {id?: string}[]
}

const AUTH_ERRORS = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'no_permission', 'missing_scope'])
const NOT_FOUND = new Set(['channel_not_found', 'user_not_found', 'users_not_found', 'thread_not_found', 'message_not_found'])

function check(res: HttpResponse, io: ChannelIO, what: string): SlackResponse {
  const body = (res.json ?? {}) as SlackResponse
  if (res.status >= 200 && res.status < 300 && body.ok) return body
  const err = errorText(body.error) ?? `HTTP ${res.status} ${shortBody(res, io.secrets)}`
  if (res.status === 401 || AUTH_ERRORS.has(err)) {
    throw new ChannelError(`Slack rejected the bot token (${err})`, {code: 'E_CHANNEL_AUTH', status: res.status, suggestions: ['check channels.slack.botToken in openclaw.json or SLACK_BOT_TOKEN (xoxb-…) and its scopes (chat:write, files:write, im:write)']})
  }
  if (NOT_FOUND.has(err) || res.status === 404) throw new ChannelError(`Slack ${what} not found (${err})`, {code: 'E_CHANNEL_TARGET_NOT_FOUND', status: res.status, suggestions: ['use the channel id (C…) or user id (U…), not the name']})
  if (err === 'not_in_channel' || err === 'is_archived' || err === 'restricted_action') {
    throw new ChannelError(`Slack refused to post in ${what} (${err})`, {code: 'E_CHANNEL_FORBIDDEN', status: res.status, suggestions: ['invite the bot to the channel (/invite @bot)']})
  }
  throw new ChannelError(`Slack API error: ${err}`, {code: res.status >= 500 ? 'E_CHANNEL_SERVER' : 'E_CHANNEL_REJECTED', status: res.status})
}

const THREAD_TS_RE = /^\d+\.\d+$/

/**
 * OpenClaw's resolveSlackThreadTsValue: the thread a message goes into is --reply-to, else --thread-id, each only when
 * it looks like a Slack `ts` (digits.digits); anything else posts at the top level.
 */
export function slackThreadTs(replyTo: string | undefined, threadId: string | undefined): string | undefined {
  for (const v of [replyTo, threadId]) {
    const t = v?.trim()
    if (t && THREAD_TS_RE.test(t)) return t
  }
  return undefined
}

export async function sendSlack(account: ChannelAccount, p: SendParams, io: ChannelIO): Promise<ChannelSendResult> {
  const headers = {authorization: `Bearer ${account.token}`}
  const api = (method: string) => `${account.baseUrl}/${method}`
  let channelId = p.target.id
  let what = `channel ${p.target.id}`
  if (p.target.kind === 'user') {
    what = `user ${p.target.id}`
    const res = await io.call({method: 'POST', url: api('conversations.open'), headers, json: {users: p.target.id}, note: 'open the DM with the user'})
    const ch = res ? check(res, io, what).channel : undefined
    channelId = res ? String(typeof ch === 'object' ? ch?.id : ch) : `<dm channel of user ${p.target.id}>`
  }
  // Slack has no reply-to: a reply is a message in the parent's thread.
  const threadTs = slackThreadTs(p.replyTo, p.threadId)
  let text = p.text
  const ids: string[] = []
  let resultChannel: string | undefined
  if (p.media?.kind === 'url') text = text ? `${text}\n${p.media.source}` : p.media.source
  const chunks = text ? splitText(text, SLACK_TEXT_LIMIT) : []
  if (p.media?.kind === 'file') {
    const m = p.media
    const got = await io.call({method: 'POST', url: api('files.getUploadURLExternal'), headers, urlencoded: {filename: m.fileName, length: String(m.size)}, note: 'reserve an upload URL'})
    const slot = got ? check(got, io, what) : {upload_url: '<upload_url>', file_id: '<file_id>'}
    const up = await io.call({method: 'POST', url: slot.upload_url!, binary: io.dryRun ? new Uint8Array(m.size ?? 0) : new Uint8Array(await readMedia(m).arrayBuffer()), note: 'upload the file bytes'})
    if (up && (up.status < 200 || up.status >= 300)) throw new ChannelError(`Slack file upload failed: HTTP ${up.status}`, {code: 'E_CHANNEL_SERVER', status: up.status})
    const complete: Record<string, unknown> = {files: [{id: slot.file_id, title: m.fileName}], channel_id: channelId}
    const first = chunks.shift()
    if (first) complete.initial_comment = first
    if (threadTs) complete.thread_ts = threadTs
    const done = await io.call({method: 'POST', url: api('files.completeUploadExternal'), headers, json: complete})
    if (done) {
      const body = check(done, io, what)
      ids.push(String(body.files?.[0]?.id ?? slot.file_id))
      io.delivered++
    } else ids.push('unknown')
  }
  for (const chunk of chunks) {
    const body: Record<string, unknown> = {channel: channelId, text: chunk}
    if (threadTs) body.thread_ts = threadTs
    const res = await io.call({method: 'POST', url: api('chat.postMessage'), headers, json: body})
    if (res) {
      const b = check(res, io, what)
      ids.push(String(b.ts ?? 'unknown'))
      io.delivered++
      if (typeof b.channel === 'string') resultChannel = b.channel
    } else ids.push('unknown')
  }
  return {messageId: ids.at(-1) ?? 'unknown', messageIds: ids, channelId: resultChannel ?? channelId, parts: ids.length}
}

/** What a Slack conversation id is, as OpenClaw classifies it for the outbound session route. */
export type SlackConversationType = 'channel' | 'group' | 'dm' | 'unknown'

function lowerList(v: unknown): string[] {
  return Array.isArray(v) ? v.map((x) => String(x).trim().toLowerCase()).filter(Boolean) : []
}

/**
 * OpenClaw's resolveSlackChannelType (2026.4.27): a `G…` id may be a private channel or a group DM (mpim), and the
 * two get different session keys. In order: the account's `dm.groupChannels` (as `id`, `slack:`, `channel:`, `group:`
 * or `mpim:` + id) says group; a key of its `channels` map (`id`, `channel:id`, `#id`) says channel; else Slack's
 * conversations.info (is_im: dm, is_mpim: group, else channel). Any failure of that read is 'unknown', as in OpenClaw,
 * and the id then stays a channel.
 */
export async function resolveSlackConversationType(config: OpenClawConfig, account: ChannelAccount, channelId: string): Promise<SlackConversationType> {
  const id = channelId.trim().toLowerCase()
  if (!id) return 'unknown'
  const section = channelSection(config, 'slack') ?? {}
  const accounts = section.accounts as Record<string, unknown> | undefined
  const own = accounts && typeof accounts === 'object' ? (accounts[account.accountId] as Record<string, unknown> | undefined) : undefined
  // OpenClaw merges the account over the channel's top level, one level deep.
  const merged: Record<string, unknown> = {...section, ...(own && typeof own === 'object' ? own : {})}
  const groupChannels = lowerList((merged.dm as {groupChannels?: unknown} | undefined)?.groupChannels)
  if ([id, `slack:${id}`, `channel:${id}`, `group:${id}`, `mpim:${id}`].some((k) => groupChannels.includes(k))) return 'group'
  const channels = merged.channels && typeof merged.channels === 'object' ? Object.keys(merged.channels) : []
  if (channels.some((key) => {
    const k = key.trim().toLowerCase()
    return k === id || k === `channel:${id}` || k.replace(/^#/, '') === id
  })) return 'channel'
  if (!account.token) return 'unknown'
  // OpenClaw's Slack client retries network errors and 5xx twice (after ~0.5 s and ~1 s); a lookup given up too early
  // would file a group DM under the channel key.
  for (let attempt = 0; ; attempt++) {
    let res: HttpResponse | undefined
    try {
      res = await sendHttp(
        {method: 'POST', url: `${account.baseUrl}/conversations.info`, headers: {authorization: `Bearer ${account.token}`}, urlencoded: {channel: channelId.trim()}},
        {label: 'Slack', secrets: [account.token], retryAfter: () => undefined},
      )
    } catch {
      res = undefined
    }
    if ((res === undefined || res.status >= 500) && attempt < 2) {
      await new Promise((r) => setTimeout(r, 500 * 2 ** attempt))
      continue
    }
    const body = res?.json as {ok?: boolean; channel?: {is_im?: boolean; is_mpim?: boolean}} | undefined
    if (!res || res.status < 200 || res.status >= 300 || !body?.ok) return 'unknown'
    return body.channel?.is_im ? 'dm' : body.channel?.is_mpim ? 'group' : 'channel'
  }
}
