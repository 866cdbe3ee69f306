// Test support: fake Telegram Bot API, Discord REST, Slack Web API and a JSON webhook on one real HTTP server
// (127.0.0.1, random port). They check tokens, paths and bodies like the real APIs, record every request, and can be
// scripted to fail (401, 404, 429 with retry-after, 500).
import http from 'node:http'
import type {AddressInfo} from 'node:net'

export const TELEGRAM_TOKEN = '123456:TEST-telegram-secret-token'
export const DISCORD_TOKEN = 'DISCORD.secret-bot-token'
export const SLACK_TOKEN = 'xoxb-slack-secret-token'

/** A Telegram chat id / Discord channel id / Slack channel the fakes answer with "not found". */
export const MISSING_TELEGRAM_CHAT = '404000'
export const MISSING_DISCORD_CHANNEL = '404000000000000000'
export const MISSING_SLACK_CHANNEL = 'C404NOTFOUND'

export type Platform = 'telegram' | 'discord' | 'slack' | 'webhook'

export interface RecordedRequest {
  platform: Platform
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  /** Parsed JSON, url-encoded form fields, or multipart fields (files as {fileName, size, type, text}). */
  body: any
  contentType: string
  raw: Buffer
}

export interface ScriptedReply {
  status: number
  /** A function of the request path and query: a server that echoes what it was sent (the Telegram token is in the path). */
  body?: unknown | ((path: string) => unknown)
  headers?: Record<string, string>
}

export interface FakeChannels {
  telegramBase: string
  discordBase: string
  slackBase: string
  webhookUrl: string
  requests: RecordedRequest[]
  /** Requests that reached a platform (upload and DM-open calls included). */
  of(platform: Platform): RecordedRequest[]
  /** The next `times` requests to `platform` (optionally only those whose path ends with `pathEnds`) get this reply. */
  script(platform: Platform, reply: ScriptedReply, opts?: {times?: number; pathEnds?: string; after?: number}): void
  close(): Promise<void>
}

interface Script extends ScriptedReply {
  platform: Platform
  times: number
  pathEnds?: string
  /** Let this many matching requests through first. */
  after: number
}

async function parseBody(req: http.IncomingMessage, raw: Buffer): Promise<any> {
  const type = req.headers['content-type'] ?? ''
  if (raw.length === 0) return undefined
  if (type.startsWith('application/json')) return JSON.parse(raw.toString('utf8'))
  if (type.startsWith('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw.toString('utf8')))
  if (type.startsWith('multipart/form-data')) {
    const form = await new Request('http://x/', {method: 'POST', headers: {'content-type': type}, body: raw}).formData()
    const out: Record<string, unknown> = {}
    for (const [k, v] of form.entries()) {
      if (typeof v === 'string') out[k] = v
      else out[k] = {fileName: (v as File).name, size: v.size, type: v.type, text: Buffer.from(await v.arrayBuffer()).toString('utf8')}
    }
    return out
  }
  return raw.toString('utf8')
}

export async function startFakeChannels(): Promise<FakeChannels> {
  const requests: RecordedRequest[] = []
  const scripts: Script[] = []
  const uploads = new Map<string, {length: number; received?: number}>()
  let nextId = 100
  let base = ''

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const raw = Buffer.concat(chunks)
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      const [, prefix] = url.pathname.split('/')
      const platform: Platform = prefix === 'tg' ? 'telegram' : prefix === 'discord' ? 'discord' : prefix === 'slack' ? 'slack' : 'webhook'
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, {'content-type': 'application/json', ...headers})
        res.end(body === undefined ? '' : JSON.stringify(body))
      }
      let body: any
      try {
        body = await parseBody(req, raw)
      } catch (error) {
        send(400, {error: `unparseable body: ${(error as Error).message}`})
        return
      }
      requests.push({platform, method: req.method ?? '', path: url.pathname, headers: req.headers, body, contentType: req.headers['content-type'] ?? '', raw})
      const script = scripts.find((s) => s.platform === platform && s.times > 0 && (!s.pathEnds || url.pathname.endsWith(s.pathEnds)))
      if (script && script.after > 0) script.after--
      else if (script) {
        script.times--
        send(script.status, typeof script.body === 'function' ? (script.body as (p: string) => unknown)(url.pathname + url.search) : script.body, script.headers)
        return
      }
      try {
        if (platform === 'telegram') telegram(url.pathname.slice('/tg'.length), body, send)
        else if (platform === 'discord') discord(req, url.pathname.slice('/discord'.length), body, send)
        else if (platform === 'slack') slack(req, url.pathname.slice('/slack'.length), body, raw, send)
        else send(200, {ok: true, id: `wh-${nextId++}`})
      } catch (error) {
        send(500, {error: String(error)})
      }
    })
  })

  type Send = (status: number, body: unknown, headers?: Record<string, string>) => void

  function telegram(path: string, body: any, send: Send): void {
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(path)
    if (!m) return send(404, {ok: false, error_code: 404, description: 'Not Found'})
    if (decodeURIComponent(m[1]) !== TELEGRAM_TOKEN) return send(401, {ok: false, error_code: 401, description: 'Unauthorized'})
    const method = m[2]
    if (!['sendMessage', 'sendPhoto', 'sendDocument'].includes(method)) return send(404, {ok: false, error_code: 404, description: 'Not Found: method not found'})
    const bad = (d: string) => send(400, {ok: false, error_code: 400, description: `Bad Request: ${d}`})
    if (!body || body.chat_id === undefined || body.chat_id === '') return bad('chat_id is empty')
    if (String(body.chat_id) === MISSING_TELEGRAM_CHAT) return bad('chat not found')
    for (const f of ['message_thread_id']) if (body[f] !== undefined && !/^\d+$/.test(String(body[f]))) return bad(`invalid ${f}`)
    const reply = typeof body.reply_parameters === 'string' ? JSON.parse(body.reply_parameters) : body.reply_parameters
    if (reply !== undefined && typeof reply?.message_id !== 'number') return bad('invalid reply_parameters')
    if (method === 'sendMessage') {
      if (typeof body.text !== 'string' || !body.text) return bad('message text is empty')
      if ([...body.text].length > 4096) return bad('message is too long')
    } else {
      const field = method === 'sendPhoto' ? 'photo' : 'document'
      if (!body[field]) return bad(`there is no ${field} in the request`)
      if (body.caption && [...body.caption].length > 1024) return bad('message caption is too long')
    }
    send(200, {ok: true, result: {message_id: nextId++, date: Math.floor(Date.now() / 1000), chat: {id: /^-?\d+$/.test(String(body.chat_id)) ? Number(body.chat_id) : 777, type: String(body.chat_id).startsWith('-') ? 'supergroup' : 'private'}, text: body.text}})
  }

  function discord(req: http.IncomingMessage, path: string, body: any, send: Send): void {
    if (req.headers.authorization !== `Bot ${DISCORD_TOKEN}`) return send(401, {message: '401: Unauthorized', code: 0})
    if (path === '/users/@me/channels' && req.method === 'POST') {
      if (!/^\d+$/.test(String(body?.recipient_id ?? ''))) return send(400, {message: 'Invalid Form Body', code: 50035})
      return send(200, {id: String(BigInt(body.recipient_id) + 1n), type: 1, recipients: [{id: body.recipient_id}]})
    }
    const m = /^\/channels\/(\d+)\/messages$/.exec(path)
    if (!m || req.method !== 'POST') return send(404, {message: '404: Not Found', code: 0})
    if (m[1] === MISSING_DISCORD_CHANNEL) return send(404, {message: 'Unknown Channel', code: 10003})
    const payload = body?.payload_json ? JSON.parse(body.payload_json) : body
    const files = Object.keys(body ?? {}).filter((k) => /^files\[\d+\]$/.test(k))
    if (!payload?.content && files.length === 0) return send(400, {message: 'Cannot send an empty message', code: 50006})
    if (payload.content && [...payload.content].length > 2000) return send(400, {message: 'Invalid Form Body', code: 50035, errors: {content: {_errors: [{code: 'BASE_TYPE_MAX_LENGTH'}]}}})
    if (payload.message_reference && !/^\d+$/.test(String(payload.message_reference.message_id))) return send(400, {message: 'Invalid Form Body', code: 50035})
    send(200, {id: String(1_200_000_000_000_000_000n + BigInt(nextId++)), channel_id: m[1], content: payload.content ?? '', attachments: files.map((f) => ({filename: body[f].fileName}))})
  }

  function slack(req: http.IncomingMessage, path: string, body: any, raw: Buffer, send: Send): void {
    const upload = /^\/upload\/(F\w+)$/.exec(path)
    if (upload) {
      const slot = uploads.get(upload[1])
      if (!slot) return send(404, {ok: false})
      slot.received = raw.length
      res200Text(send)
      return
    }
    if (req.headers.authorization !== `Bearer ${SLACK_TOKEN}`) return send(200, {ok: false, error: 'invalid_auth'})
    const method = path.slice(1)
    if (method === 'chat.postMessage') {
      if (!body?.channel) return send(200, {ok: false, error: 'channel_not_found'})
      if (body.channel === MISSING_SLACK_CHANNEL) return send(200, {ok: false, error: 'channel_not_found'})
      if (!body.text) return send(200, {ok: false, error: 'no_text'})
      if (body.text.length > 40_000) return send(200, {ok: false, error: 'msg_too_long'})
      return send(200, {ok: true, channel: body.channel, ts: `1700000000.${String(nextId++).padStart(6, '0')}`, message: {text: body.text, thread_ts: body.thread_ts}})
    }
    if (method === 'conversations.info') {
      // Slack sends form fields; an id with MPIM in it is a group DM, G…MISSING does not exist, the rest are channels.
      const id = String(body?.channel ?? '')
      if (!id || id.endsWith('MISSING')) return send(200, {ok: false, error: 'channel_not_found'})
      const mpim = id.includes('MPIM')
      return send(200, {ok: true, channel: {id, is_channel: !mpim && !id.startsWith('G'), is_group: id.startsWith('G'), is_im: false, is_mpim: mpim, is_private: id.startsWith('G')}})
    }
    if (method === 'conversations.open') {
      if (!body?.users) return send(200, {ok: false, error: 'users_list_not_supplied'})
      return send(200, {ok: true, channel: {id: `D${body.users}`}})
    }
    if (method === 'files.getUploadURLExternal') {
      // Slack requires form encoding here; a JSON body arrives without the arguments.
      if (!body?.filename || !body?.length) return send(200, {ok: false, error: 'invalid_arguments'})
      const id = `F${nextId++}`
      uploads.set(id, {length: Number(body.length)})
      return send(200, {ok: true, upload_url: `${base}/slack/upload/${id}`, file_id: id})
    }
    if (method === 'files.completeUploadExternal') {
      const file = body?.files?.[0]
      const slot = file ? uploads.get(file.id) : undefined
      if (!slot || slot.received !== slot.length) return send(200, {ok: false, error: 'file_upload_incomplete'})
      if (body.channel_id === MISSING_SLACK_CHANNEL) return send(200, {ok: false, error: 'channel_not_found'})
      return send(200, {ok: true, files: [{id: file.id, title: file.title}]})
    }
    send(200, {ok: false, error: 'unknown_method'})
  }

  function res200Text(send: Send): void {
    send(200, undefined, {'content-type': 'text/plain'})
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  base = `http://127.0.0.1:${port}`
  return {
    telegramBase: `${base}/tg`,
    discordBase: `${base}/discord`,
    slackBase: `${base}/slack`,
    webhookUrl: `${base}/hook`,
    requests,
    of: (p) => requests.filter((r) => r.platform === p),
    script(platform, reply, opts = {}) {
      scripts.push({...reply, platform, times: opts.times ?? 1, pathEnds: opts.pathEnds, after: opts.after ?? 0})
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.()
        server.close(() => resolve())
      }),
  }
}

/** Env pointing every channel at the fakes, with tokens set (extra entries override). */
export function channelEnv(fake: FakeChannels): Record<string, string> {
  return {
    TELEGRAM_API_BASE: fake.telegramBase,
    DISCORD_API_BASE: fake.discordBase,
    SLACK_API_BASE: fake.slackBase,
    TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
    DISCORD_BOT_TOKEN: DISCORD_TOKEN,
    SLACK_BOT_TOKEN: SLACK_TOKEN,
  }
}
