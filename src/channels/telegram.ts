// Telegram Bot API client: sendMessage / sendPhoto / sendDocument with reply_parameters, message_thread_id and splitting.
import {UsageError} from '../errors.js'
import {ChannelError, errorText, type HttpRequest, type HttpResponse, shortBody, splitText} from './http.js'
import type {ChannelIO} from './io.js'
import {describeFile, readMedia} from './media.js'
import type {ChannelAccount, ChannelSendResult, SendParams} from './types.js'

export const TELEGRAM_TEXT_LIMIT = 4096
export const TELEGRAM_CAPTION_LIMIT = 1024

interface TgResponse {
  ok?: boolean
  result?: {message_id?: number; chat?: {id?: number | string}}
  error_code?: number
  description?: unknown
  parameters?: {retry_after?: number; migrate_to_chat_id?: number}
}

export function telegramRetryAfter(res: HttpResponse): number | undefined {
  const n = (res.json as TgResponse | undefined)?.parameters?.retry_after
  return typeof n === 'number' ? n : undefined
}

function intId(value: string, flag: string): number {
  if (!/^\d{1,12}$/.test(value)) throw new UsageError(`Telegram ${flag} must be a numeric message id (got "${value.slice(0, 40)}")`, 'E_BAD_REPLY_TO')
  return Number(value)
}

function check(res: HttpResponse, io: ChannelIO, chat: string): TgResponse {
  const body = (res.json ?? {}) as TgResponse
  if (res.status >= 200 && res.status < 300 && body.ok) return body
  const desc = errorText(body.description) ?? shortBody(res, io.secrets)
  if (res.status === 401 || res.status === 404) {
    throw new ChannelError(`Telegram rejected the bot token (${res.status} ${desc})`, {code: 'E_CHANNEL_AUTH', status: res.status, suggestions: ['check channels.telegram.botToken in openclaw.json or TELEGRAM_BOT_TOKEN']})
  }
  if (/chat not found/i.test(desc)) {
    throw new ChannelError(`Telegram chat not found: ${chat}`, {code: 'E_CHANNEL_TARGET_NOT_FOUND', status: res.status, suggestions: ['use the numeric chat id; the bot must be in the group, or the user must have started the bot']})
  }
  if (res.status === 403) throw new ChannelError(`Telegram refused the message for chat ${chat}: ${desc}`, {code: 'E_CHANNEL_FORBIDDEN', status: 403})
  if (body.parameters?.migrate_to_chat_id) {
    throw new ChannelError(`Telegram group ${chat} was upgraded to a supergroup: send to ${body.parameters.migrate_to_chat_id} instead`, {code: 'E_CHANNEL_TARGET_MOVED', status: res.status})
  }
  throw new ChannelError(`Telegram API error ${res.status}: ${desc}`, {code: res.status >= 500 ? 'E_CHANNEL_SERVER' : 'E_CHANNEL_REJECTED', status: res.status})
}

export async function sendTelegram(account: ChannelAccount, p: SendParams, io: ChannelIO): Promise<ChannelSendResult> {
  const base = `${account.baseUrl}/bot${account.token}`
  const chatId: number | string = /^-?\d+$/.test(p.target.id) ? Number(p.target.id) : p.target.id
  const thread = p.threadId ?? p.target.threadId
  const common: Record<string, unknown> = {chat_id: chatId}
  if (thread !== undefined) common.message_thread_id = intId(thread, '--thread-id')
  if (p.silent) common.disable_notification = true
  const reply = p.replyTo === undefined ? undefined : {message_id: intId(p.replyTo, '--reply-to'), allow_sending_without_reply: true}

  const ids: string[] = []
  let resultChat: string | undefined
  let first = true
  const record = (body: TgResponse | undefined) => {
    const id = body?.result?.message_id
    ids.push(id === undefined ? 'unknown' : String(id))
    if (body) io.delivered++
    if (body?.result?.chat?.id !== undefined) resultChat = String(body.result.chat.id)
  }
  const withReply = (fields: Record<string, unknown>) => {
    const out = {...common, ...fields}
    if (first && reply) out.reply_parameters = reply
    first = false
    return out
  }

  let text = p.text
  if (p.media) {
    const m = p.media
    const method = m.isImage ? 'sendPhoto' : 'sendDocument'
    const field = m.isImage ? 'photo' : 'document'
    // A caption over the limit is sent as separate text messages after the media.
    const caption = text && text.length <= TELEGRAM_CAPTION_LIMIT ? text : undefined
    if (caption !== undefined) text = ''
    const fields = withReply(caption ? {caption} : {})
    let req: HttpRequest
    if (m.kind === 'url') req = {method: 'POST', url: `${base}/${method}`, json: {...fields, [field]: m.source}}
    else {
      const form = new FormData()
      const formPreview: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(fields)) {
        const s = typeof v === 'object' ? JSON.stringify(v) : String(v)
        form.append(k, s)
        formPreview[k] = s
      }
      if (!io.dryRun) form.append(field, readMedia(m), m.fileName)
      formPreview[field] = describeFile(m)
      req = {method: 'POST', url: `${base}/${method}`, form, formPreview}
    }
    const res = await io.call(req)
    record(res ? check(res, io, p.target.id) : undefined)
  }
  if (text) {
    for (const chunk of splitText(text, TELEGRAM_TEXT_LIMIT)) {
      const res = await io.call({method: 'POST', url: `${base}/sendMessage`, json: withReply({text: chunk})})
      record(res ? check(res, io, p.target.id) : undefined)
    }
  }
  return {messageId: ids.at(-1) ?? 'unknown', messageIds: ids, chatId: resultChat ?? p.target.id, parts: ids.length}
}
