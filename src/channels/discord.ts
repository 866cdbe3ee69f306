// Discord REST client: channel messages, DM channels for user targets, replies, silent flag, attachments, splitting.
import {UsageError} from '../errors.js'
import {ChannelError, errorText, type HttpRequest, type HttpResponse, shortBody, splitText} from './http.js'
import type {ChannelIO} from './io.js'
import {describeFile, readMedia} from './media.js'
import type {ChannelAccount, ChannelSendResult, SendParams} from './types.js'

export const DISCORD_TEXT_LIMIT = 2000
/** MessageFlags.SUPPRESS_NOTIFICATIONS */
const SUPPRESS_NOTIFICATIONS = 1 << 12

interface DcError {
  message?: unknown
  code?: number
  retry_after?: number
}

export function discordRetryAfter(res: HttpResponse): number | undefined {
  const n = (res.json as DcError | undefined)?.retry_after
  return typeof n === 'number' ? n : undefined
}

function check(res: HttpResponse, io: ChannelIO, what: string): Record<string, unknown> {
  if (res.status >= 200 && res.status < 300) return (res.json ?? {}) as Record<string, unknown>
  const body = (res.json ?? {}) as DcError
  const desc = errorText(body.message) ?? shortBody(res, io.secrets)
  if (res.status === 401) {
    throw new ChannelError(`Discord rejected the bot token (401 ${desc})`, {code: 'E_CHANNEL_AUTH', status: 401, suggestions: ['check channels.discord.token in openclaw.json or DISCORD_BOT_TOKEN']})
  }
  if (res.status === 404) throw new ChannelError(`Discord ${what} not found (${desc})`, {code: 'E_CHANNEL_TARGET_NOT_FOUND', status: 404, suggestions: ['check the id; the bot must share a server with the channel or user']})
  if (res.status === 403) throw new ChannelError(`Discord refused access to ${what} (${desc})`, {code: 'E_CHANNEL_FORBIDDEN', status: 403, suggestions: ['give the bot View Channel and Send Messages permissions']})
  throw new ChannelError(`Discord API error ${res.status}: ${desc}${body.code ? ` (code ${body.code})` : ''}`, {code: res.status >= 500 ? 'E_CHANNEL_SERVER' : 'E_CHANNEL_REJECTED', status: res.status})
}

export async function sendDiscord(account: ChannelAccount, p: SendParams, io: ChannelIO): Promise<ChannelSendResult> {
  if (p.replyTo !== undefined && !/^\d{1,25}$/.test(p.replyTo)) throw new UsageError(`Discord --reply-to must be a numeric message id (got "${p.replyTo.slice(0, 40)}")`, 'E_BAD_REPLY_TO')
  if (p.threadId !== undefined && !/^\d{1,25}$/.test(p.threadId)) throw new UsageError(`Discord --thread-id must be the thread's numeric channel id (got "${p.threadId.slice(0, 40)}")`, 'E_BAD_THREAD_ID')
  const headers = {authorization: `Bot ${account.token}`}
  let channelId = p.target.id
  let what = `channel ${p.target.id}`
  if (p.target.kind === 'user') {
    what = `user ${p.target.id}`
    const res = await io.call({method: 'POST', url: `${account.baseUrl}/users/@me/channels`, headers, json: {recipient_id: p.target.id}, note: 'open the DM channel with the user'})
    channelId = res ? String(check(res, io, what).id ?? '') : `<dm channel of user ${p.target.id}>`
    what = `DM channel ${channelId}`
  }
  // A Discord thread is a channel of its own: posting to it puts the message in the thread.
  if (p.threadId) {
    channelId = p.threadId
    what = `thread ${p.threadId}`
  }
  const url = `${account.baseUrl}/channels/${channelId}/messages`
  let text = p.text
  if (p.media?.kind === 'url') text = text ? `${text}\n${p.media.source}` : p.media.source
  const chunks = text ? splitText(text, DISCORD_TEXT_LIMIT) : ['']
  const ids: string[] = []
  let resultChannel: string | undefined
  for (const [i, chunk] of chunks.entries()) {
    const payload: Record<string, unknown> = {}
    if (chunk) payload.content = chunk
    if (i === 0 && p.replyTo) payload.message_reference = {message_id: p.replyTo, fail_if_not_exists: false}
    if (p.silent) payload.flags = SUPPRESS_NOTIFICATIONS
    let req: HttpRequest
    if (i === 0 && p.media?.kind === 'file') {
      payload.attachments = [{id: 0, filename: p.media.fileName}]
      const form = new FormData()
      form.append('payload_json', JSON.stringify(payload))
      if (!io.dryRun) form.append('files[0]', readMedia(p.media), p.media.fileName)
      req = {method: 'POST', url, headers, form, formPreview: {payload_json: payload, 'files[0]': describeFile(p.media)}}
    } else req = {method: 'POST', url, headers, json: payload}
    const res = await io.call(req)
    if (res) {
      const body = check(res, io, what)
      ids.push(String(body.id ?? 'unknown'))
      io.delivered++
      if (body.channel_id) resultChannel = String(body.channel_id)
    } else ids.push('unknown')
  }
  return {messageId: ids.at(-1) ?? 'unknown', messageIds: ids, channelId: resultChannel ?? channelId, parts: ids.length}
}
