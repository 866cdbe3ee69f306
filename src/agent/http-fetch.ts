// A minimal fetch over node:http(s) for the Anthropic SDK: Node's built-in fetch (undici) holds the process for
// 100-150 ms after the last response before it can exit, which is a third of a one-shot turn's overhead budget.
import http from 'node:http'
import https from 'node:https'
import {Readable} from 'node:stream'

const NULL_BODY_STATUS = new Set([101, 204, 205, 304])

function toBuffer(body: unknown): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string') return body
  if (body instanceof ArrayBuffer) return Buffer.from(body)
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  if (body instanceof URLSearchParams) return body.toString()
  // The Messages API only ever sends JSON text; anything else goes through the built-in fetch.
  return undefined
}

/** fetch(url, init) for the SDK: JSON bodies, streamed responses, AbortSignal, no compression (identity encoding). */
export async function nodeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const body = init.body
  const payload = toBuffer(body)
  if ((body !== undefined && body !== null && payload === undefined) || input instanceof Request) return fetch(input, init)
  const url = new URL(String(input))
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fetch(input, init)
  const headers: Record<string, string> = {}
  new Headers(init.headers).forEach((value, key) => {
    headers[key] = value
  })
  // Ask for an uncompressed body so the stream needs no decoding.
  delete headers['accept-encoding']
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload))
  const signal = init.signal ?? undefined
  return new Promise<Response>((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http
    const req = mod.request(url, {method: init.method ?? 'GET', headers, signal}, (res) => {
      const h = new Headers()
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) h.append(res.rawHeaders[i], res.rawHeaders[i + 1])
      const status = res.statusCode ?? 0
      const stream = NULL_BODY_STATUS.has(status) || init.method === 'HEAD' ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>)
      if (!stream) res.resume()
      resolve(new Response(stream, {status, statusText: res.statusMessage, headers: h}))
    })
    req.on('error', reject)
    req.end(payload)
  })
}

/** Proxies are the built-in fetch's business (Node 24 honours them with NODE_USE_ENV_PROXY); this one goes direct. */
export function chooseFetch(env: Record<string, string | undefined>): typeof fetch | undefined {
  const proxied = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((k) => env[k])
  return proxied || env.CLAWKIT_BUILTIN_FETCH === '1' ? undefined : (nodeFetch as typeof fetch)
}
