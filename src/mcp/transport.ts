// MCP over stdio, one JSON-RPC message per line, as the SDK's StdioServerTransport reads it, but a line that is not a
// JSON-RPC message is answered (JSON-RPC 2.0: -32700 parse error, -32600 invalid request, with the request's id when it
// has one) instead of only reported out of band: the client learns why it got no answer, and the server reads on.
import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js'
import {CallToolRequestSchema, ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema, ListToolsRequestSchema} from '@modelcontextprotocol/sdk/types.js'

/**
 * Requests whose params are checked here: the SDK parses a request against its handler's schema before anything else,
 * and a failure there is answered as an internal error (-32603), not as the invalid params (-32602) it is.
 */
const PARAMS: Record<string, {safeParse(v: unknown): {success: boolean; error?: {message: string}}}> = {
  'tools/call': CallToolRequestSchema,
  'tools/list': ListToolsRequestSchema,
}

/** One line longer than this (UTF-8 bytes) is answered as invalid and dropped, never buffered without end. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024

export class LineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private pending: Buffer[] = []
  private pendingBytes = 0
  private dropping = false
  private closed = false

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {}

  private readonly onData = (chunk: Buffer) => {
    let from = 0
    for (;;) {
      const nl = chunk.indexOf(10, from)
      if (nl < 0) break
      const part = chunk.subarray(from, nl)
      from = nl + 1
      if (this.dropping) {
        this.dropping = false
        continue
      }
      const line = this.pending.length === 0 ? part : Buffer.concat([...this.pending, part])
      this.pending = []
      this.pendingBytes = 0
      this.line(line.toString('utf8').replace(/\r$/, ''))
    }
    const rest = chunk.subarray(from)
    if (rest.length === 0 || this.dropping) return
    this.pendingBytes += rest.length
    if (this.pendingBytes > MAX_LINE_BYTES) {
      this.pending = []
      this.pendingBytes = 0
      this.dropping = true
      void this.reply(null, ErrorCode.InvalidRequest, `A message longer than ${MAX_LINE_BYTES} bytes was dropped.`)
      return
    }
    this.pending.push(Buffer.from(rest))
  }

  private readonly onEnd = () => void this.close()

  private line(text: string): void {
    if (text.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      void this.reply(null, ErrorCode.ParseError, `Parse error: the line is not JSON (${(error as Error).message}).`)
      return
    }
    const parsed = JSONRPCMessageSchema.safeParse(value)
    if (!parsed.success) {
      const id = (value as {id?: unknown} | null)?.id
      void this.reply(typeof id === 'string' || typeof id === 'number' ? id : null, ErrorCode.InvalidRequest, 'Invalid request: not a JSON-RPC 2.0 request, notification or response.')
      return
    }
    const m = parsed.data as {id?: string | number; method?: string}
    const schema = m.method !== undefined && m.id !== undefined ? PARAMS[m.method] : undefined
    const check = schema?.safeParse(parsed.data)
    if (check && !check.success) {
      void this.reply(m.id!, ErrorCode.InvalidParams, `Invalid params for ${m.method}: ${check.error?.message ?? 'they do not match its schema'}`)
      return
    }
    this.onmessage?.(parsed.data)
  }

  private reply(id: string | number | null, code: number, message: string): Promise<void> {
    // A JSON-RPC error whose id is null, which the SDK's message type cannot express: written as it is.
    return this.write(`${JSON.stringify({jsonrpc: '2.0', id, error: {code, message}})}\n`)
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return resolve()
      if (this.output.write(text)) resolve()
      else this.output.once('drain', resolve)
    })
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData)
    this.input.on('end', this.onEnd)
    this.input.on('error', (error: Error) => this.onerror?.(error))
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.input.off('data', this.onData)
    this.input.off('end', this.onEnd)
    this.onclose?.()
  }
}
