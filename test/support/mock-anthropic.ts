// A real HTTP stand-in for the Anthropic Messages API on 127.0.0.1:0: SSE streams, scripted replies, recorded requests.
import {randomUUID} from 'node:crypto'
import http from 'node:http'
import type {AddressInfo} from 'node:net'

export type Reply =
  | {kind: 'text'; text: string; thinking?: string; delayMs?: number; stopReason?: string}
  | {kind: 'toolUse'; calls: Array<{name: string; input: Record<string, unknown>; id?: string}>; text?: string}
  | {kind: 'error'; status: number; type: string; message: string; headers?: Record<string, string>}
  /** 400 invalid_request_error "prompt is too long: N tokens > M maximum". */
  | {kind: 'overflow'}
  /** Sends message_start and the first text delta, then nothing more for `stallMs` (or until the client leaves). */
  | {kind: 'stall'; text: string; stallMs?: number}
  /** An in-stream `event: error` after the first block started. */
  | {kind: 'sseError'; type?: string; message?: string}
  /** A hostile or buggy gateway: a 400 whose message quotes every request header it got (API key included). */
  | {kind: 'echoHeaders'}

export interface RecordedRequest {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: any
  /** chars/4 estimate of the body, what the mock reports as input_tokens. */
  inputTokens: number
  receivedAt: number
  finishedAt?: number
}

export interface MockAnthropic {
  url: string
  requests: RecordedRequest[]
  /** Messages requests only (count_tokens excluded). */
  messageRequests(): RecordedRequest[]
  push(...replies: Reply[]): void
  /** When set, any request whose estimate exceeds it gets a 400 prompt-too-long (a model window). */
  contextWindow?: number
  close(): Promise<void>
}

export interface MockOptions {
  contextWindow?: number
  /** Reply when the script is empty (default: echo the last user text). */
  fallback?: (body: any) => Reply
  /** Delay before every scripted/fallback text reply (slow streams for lock tests). */
  delayMs?: number
}

export function lastUserText(body: any): string {
  const msgs: any[] = body?.messages ?? []
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i]
    if (m.role !== 'user') continue
    const content = typeof m.content === 'string' ? [{type: 'text', text: m.content}] : m.content
    const texts = content.filter((b: any) => b.type === 'text').map((b: any) => b.text)
    if (texts.length > 0) return texts.join('\n')
  }
  return ''
}

function estimate(body: unknown): number {
  return Math.ceil(JSON.stringify(body).length / 4)
}

function sendError(res: http.ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  const requestId = `req_${randomUUID().replaceAll('-', '')}`
  res.writeHead(status, {'content-type': 'application/json', 'request-id': requestId, ...headers})
  res.end(JSON.stringify({type: 'error', error: {type, message}, request_id: requestId}))
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function startMockAnthropic(opts: MockOptions = {}): Promise<MockAnthropic> {
  const queue: Reply[] = []
  const requests: RecordedRequest[] = []
  const sockets = new Set<import('node:net').Socket>()
  const mock = {} as MockAnthropic
  mock.contextWindow = opts.contextWindow

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      void handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error) => {
        if (!res.headersSent) sendError(res, 500, 'api_error', String(error))
        else res.destroy()
      })
    })
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost')
    let body: any
    try {
      body = raw ? JSON.parse(raw) : {}
    } catch {
      return sendError(res, 400, 'invalid_request_error', 'body is not JSON')
    }
    const rec: RecordedRequest = {method: req.method ?? '', path: url.pathname, headers: req.headers, body, inputTokens: estimate(body), receivedAt: Date.now()}
    requests.push(rec)
    res.on('close', () => (rec.finishedAt = Date.now()))
    // SDK 0.x sends x-api-key, 1.x sends Authorization: Bearer; both are real clients.
    const key = (req.headers['x-api-key'] as string | undefined) ?? /^Bearer (.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1]
    if (!key) return sendError(res, 401, 'authentication_error', 'x-api-key header is required', {'x-should-retry': 'false'})
    const version = req.headers['anthropic-version']
    if (version && version !== '2023-06-01' && version !== '2026-10-21') return sendError(res, 400, 'invalid_request_error', `unknown anthropic-version ${version}`)
    if (req.method !== 'POST') return sendError(res, 404, 'not_found_error', 'Not found')
    if (url.pathname === '/v1/messages/count_tokens') {
      res.writeHead(200, {'content-type': 'application/json', 'request-id': `req_${randomUUID()}`})
      return void res.end(JSON.stringify({input_tokens: estimate({system: body.system, messages: body.messages, tools: body.tools})}))
    }
    if (url.pathname !== '/v1/messages') return sendError(res, 404, 'not_found_error', `Not found: ${url.pathname}`)
    if (typeof body.model !== 'string' || typeof body.max_tokens !== 'number' || !Array.isArray(body.messages)) {
      return sendError(res, 400, 'invalid_request_error', 'model, max_tokens and messages are required', {'x-should-retry': 'false'})
    }
    const pairing = checkToolPairing(body.messages)
    if (pairing) return sendError(res, 400, 'invalid_request_error', pairing, {'x-should-retry': 'false'})
    const inputTokens = rec.inputTokens
    if (mock.contextWindow && inputTokens > mock.contextWindow && !queueHead('error')) {
      return sendError(res, 400, 'invalid_request_error', `prompt is too long: ${inputTokens} tokens > ${mock.contextWindow} maximum`, {'x-should-retry': 'false'})
    }
    const reply = queue.shift() ?? (opts.fallback ? opts.fallback(body) : {kind: 'text', text: `Echo: ${lastUserText(body)}`})
    if (reply.kind === 'error') return sendError(res, reply.status, reply.type, reply.message, reply.headers)
    if (reply.kind === 'echoHeaders') return sendError(res, 400, 'invalid_request_error', `bad request; headers were ${JSON.stringify(req.headers)}`, {'x-should-retry': 'false'})
    if (reply.kind === 'overflow') return sendError(res, 400, 'invalid_request_error', `prompt is too long: ${inputTokens} tokens > ${Math.max(1, inputTokens - 1)} maximum`, {'x-should-retry': 'false'})
    if (body.stream !== true) return sendJson(res, body, reply, inputTokens)
    return sendStream(req, res, body, reply, inputTokens)
  }

  function queueHead(kind: string): boolean {
    return queue[0]?.kind === kind
  }

  function contentOf(reply: Reply): any[] {
    if (reply.kind === 'text') return [...(reply.thinking ? [{type: 'thinking', thinking: reply.thinking, signature: `sig_${randomUUID()}`}] : []), {type: 'text', text: reply.text, citations: null}]
    if (reply.kind === 'toolUse') return [...(reply.text ? [{type: 'text', text: reply.text, citations: null}] : []), ...reply.calls.map((c) => ({type: 'tool_use', id: c.id ?? `toolu_${randomUUID().replaceAll('-', '').slice(0, 20)}`, name: c.name, input: c.input}))]
    return []
  }

  function stopOf(reply: Reply): string {
    if (reply.kind === 'toolUse') return 'tool_use'
    if (reply.kind === 'text') return reply.stopReason ?? 'end_turn'
    return 'end_turn'
  }

  function sendJson(res: http.ServerResponse, body: any, reply: Reply, inputTokens: number): void {
    const content = contentOf(reply)
    res.writeHead(200, {'content-type': 'application/json', 'request-id': `req_${randomUUID()}`})
    res.end(JSON.stringify({id: `msg_${randomUUID().replaceAll('-', '')}`, type: 'message', role: 'assistant', model: body.model, content, stop_reason: stopOf(reply), stop_sequence: null, usage: {input_tokens: inputTokens, output_tokens: estimate(content), cache_creation_input_tokens: 0, cache_read_input_tokens: 0}}))
  }

  async function sendStream(req: http.IncomingMessage, res: http.ServerResponse, body: any, reply: Reply, inputTokens: number): Promise<void> {
    let closed = false
    res.on('close', () => (closed = true))
    res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${randomUUID()}`})
    const send = (event: string, data: unknown) => {
      if (!closed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    }
    const id = `msg_${randomUUID().replaceAll('-', '')}`
    send('message_start', {type: 'message_start', message: {id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: {input_tokens: inputTokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0}}})
    send('ping', {type: 'ping'})
    if (reply.kind === 'stall') {
      send('content_block_start', {type: 'content_block_start', index: 0, content_block: {type: 'text', text: ''}})
      send('content_block_delta', {type: 'content_block_delta', index: 0, delta: {type: 'text_delta', text: reply.text}})
      const until = Date.now() + (reply.stallMs ?? 60_000)
      while (!closed && Date.now() < until) await sleep(20)
      return void res.end()
    }
    if (reply.kind === 'sseError') {
      send('content_block_start', {type: 'content_block_start', index: 0, content_block: {type: 'text', text: ''}})
      send('error', {type: 'error', error: {type: reply.type ?? 'overloaded_error', message: reply.message ?? 'Overloaded'}})
      return void res.end()
    }
    const delay = (reply.kind === 'text' ? reply.delayMs : undefined) ?? opts.delayMs ?? 0
    const content = contentOf(reply)
    for (const [index, block] of content.entries()) {
      if (block.type === 'text') {
        send('content_block_start', {type: 'content_block_start', index, content_block: {type: 'text', text: '', citations: null}})
        // Split the text in a few deltas so clients see real streaming.
        const parts = block.text.match(/[\s\S]{1,16}/g) ?? ['']
        for (const part of parts) {
          if (delay) await sleep(delay / parts.length)
          send('content_block_delta', {type: 'content_block_delta', index, delta: {type: 'text_delta', text: part}})
        }
      } else if (block.type === 'thinking') {
        send('content_block_start', {type: 'content_block_start', index, content_block: {type: 'thinking', thinking: '', signature: ''}})
        send('content_block_delta', {type: 'content_block_delta', index, delta: {type: 'thinking_delta', thinking: block.thinking}})
        send('content_block_delta', {type: 'content_block_delta', index, delta: {type: 'signature_delta', signature: block.signature}})
      } else if (block.type === 'tool_use') {
        send('content_block_start', {type: 'content_block_start', index, content_block: {type: 'tool_use', id: block.id, name: block.name, input: {}}})
        const json = JSON.stringify(block.input)
        const cut = Math.floor(json.length / 2)
        for (const part of ['', json.slice(0, cut), json.slice(cut)]) send('content_block_delta', {type: 'content_block_delta', index, delta: {type: 'input_json_delta', partial_json: part}})
      }
      send('content_block_stop', {type: 'content_block_stop', index})
      send('ping', {type: 'ping'})
    }
    send('message_delta', {type: 'message_delta', delta: {stop_reason: stopOf(reply), stop_sequence: null}, usage: {output_tokens: estimate(content)}})
    send('message_stop', {type: 'message_stop'})
    res.end()
    void req
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  mock.url = `http://127.0.0.1:${port}`
  mock.requests = requests
  mock.messageRequests = () => requests.filter((r) => r.path === '/v1/messages')
  mock.push = (...replies) => queue.push(...replies)
  mock.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy()
      server.close(() => resolve())
    })
  return mock
}

/** The API's pairing rules (agent-loop.md §2.1): a tool_use is answered first thing in the next user message. */
export function checkToolPairing(messages: any[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    const content = typeof m.content === 'string' ? [] : m.content
    if (m.role === 'assistant') {
      const ids = content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id)
      if (ids.length === 0) continue
      const next = messages[i + 1]
      const nextContent = next && typeof next.content !== 'string' ? next.content : []
      const lead = nextContent.slice(0, ids.length).filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id)
      if (!next || next.role !== 'user' || ids.some((id: string) => !lead.includes(id))) {
        return `messages.${i}: tool_use ids were found without tool_result blocks immediately after: ${ids.join(', ')}. Each tool_use block must have a corresponding tool_result block in the next message.`
      }
    } else if (m.role === 'user') {
      const prev = messages[i - 1]
      const prevIds = prev && typeof prev.content !== 'string' ? prev.content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id) : []
      for (const b of content) if (b.type === 'tool_result' && !prevIds.includes(b.tool_use_id)) return `messages.${i}.content: unexpected tool_use_id found in tool_result blocks: ${b.tool_use_id}`
    }
  }
  return undefined
}
