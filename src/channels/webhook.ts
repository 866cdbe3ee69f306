// Generic JSON webhook: one POST of {channel, to, text, mediaUrl, ...} to the target URL.
import {UsageError} from '../errors.js'
import {ChannelError, shortBody} from './http.js'
import type {ChannelIO} from './io.js'
import type {ChannelAccount, ChannelSendResult, SendParams} from './types.js'

/** The URL as shown in output: credentials and query string (often a secret) removed. */
export function displayWebhookUrl(raw: string): string {
  try {
    const u = new URL(raw)
    const masked = `${u.protocol}//${u.host}${u.pathname}`
    return u.search || u.username || u.password ? `${masked}${u.search ? '?<redacted>' : ''}` : masked
  } catch {
    return '<invalid url>'
  }
}

export async function sendWebhook(account: ChannelAccount, p: SendParams, io: ChannelIO, idempotencyKey: string): Promise<ChannelSendResult> {
  if (p.media?.kind === 'file') throw new UsageError('The webhook channel sends JSON only: pass --media as an http(s) URL', 'E_BAD_MEDIA')
  const headers: Record<string, string> = {...account.headers, 'idempotency-key': idempotencyKey}
  if (account.token) headers.authorization = `Bearer ${account.token}`
  const body = {
    channel: 'webhook',
    to: p.target.id,
    text: p.text,
    mediaUrl: p.media?.source ?? null,
    replyTo: p.replyTo ?? null,
    threadId: p.threadId ?? null,
    silent: Boolean(p.silent),
    idempotencyKey,
  }
  const res = await io.call({method: 'POST', url: p.target.id, headers, json: body})
  if (!res) return {messageId: 'unknown', messageIds: ['unknown'], parts: 1}
  if (res.status === 401 || res.status === 403) throw new ChannelError(`Webhook refused the request (HTTP ${res.status})`, {code: 'E_CHANNEL_AUTH', status: res.status, suggestions: ['check channels.webhook.token / channels.webhook.headers in openclaw.json']})
  if (res.status === 404) throw new ChannelError(`Webhook URL not found (HTTP 404): ${displayWebhookUrl(p.target.id)}`, {code: 'E_CHANNEL_TARGET_NOT_FOUND', status: 404})
  if (res.status < 200 || res.status >= 300) throw new ChannelError(`Webhook error HTTP ${res.status}: ${shortBody(res, io.secrets)}`, {code: res.status >= 500 ? 'E_CHANNEL_SERVER' : 'E_CHANNEL_REJECTED', status: res.status})
  const j = (res.json ?? {}) as {messageId?: unknown; id?: unknown}
  const id = j.messageId ?? j.id
  const messageId = typeof id === 'string' || typeof id === 'number' ? String(id) : 'unknown'
  return {messageId, messageIds: [messageId], parts: 1}
}
