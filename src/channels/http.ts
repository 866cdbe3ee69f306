// HTTP for channel clients: fetch with bounded retry on 429 (retry-after honoured), secret redaction, request previews.
import {ClawkitError} from '../errors.js'
import {networkCause} from '../text/net-error.js'
import {REDACTED} from '../text/redact.js'
import type {RequestPreview} from './types.js'

/** Longest retry-after clawkit waits before giving up on a rate limit (seconds), and how many times it retries. */
export const MAX_RETRY_AFTER_SECONDS = 30
export const MAX_RATE_LIMIT_RETRIES = 3
const REQUEST_TIMEOUT_MS = 30_000

// One placeholder for every redaction (previews here, error output in text/redact.ts).
export {REDACTED}

/** Replace every occurrence of each secret in a string (URLs carry the Telegram token in the path). */
export function redact(text: string, secrets: (string | undefined)[]): string {
  let out = text
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join(REDACTED)
  return out
}

export interface HttpRequest {
  method: 'GET' | 'POST'
  url: string
  headers?: Record<string, string>
  json?: unknown
  form?: FormData
  urlencoded?: Record<string, string>
  binary?: Uint8Array
  /** What the multipart form holds, for previews (file parts described, not dumped). */
  formPreview?: Record<string, unknown>
  note?: string
}

export interface HttpResponse {
  status: number
  headers: Headers
  text: string
  json?: unknown
}

export function preview(req: HttpRequest, secrets: (string | undefined)[]): RequestPreview {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k] = /authorization/i.test(k) ? v.replace(/^(\S+\s+)?.*$/, (_m, scheme: string | undefined) => `${scheme ?? ''}${REDACTED}`) : redact(v, secrets)
  const p: RequestPreview = {method: req.method, url: redact(req.url, secrets), headers}
  if (req.json !== undefined) {
    p.body = JSON.parse(redact(JSON.stringify(req.json), secrets))
    p.bodyType = 'json'
    headers['content-type'] = 'application/json'
  } else if (req.form) {
    p.body = req.formPreview
    p.bodyType = 'multipart'
    headers['content-type'] = 'multipart/form-data'
  } else if (req.urlencoded) {
    p.body = req.urlencoded
    p.bodyType = 'form'
    headers['content-type'] = 'application/x-www-form-urlencoded'
  } else if (req.binary) {
    p.body = `<${req.binary.byteLength} bytes>`
    p.bodyType = 'binary'
  }
  if (req.note) p.note = req.note
  return p
}

/** A failed platform call; the message is already user-facing and free of secrets. */
export class ChannelError extends ClawkitError {
  readonly status?: number
  constructor(message: string, opts: {code: string; status?: number; suggestions?: string[]}) {
    super(message, {code: opts.code, suggestions: opts.suggestions})
    this.status = opts.status
  }
}

export interface SendHttpOptions {
  label: string
  secrets: (string | undefined)[]
  /** Seconds to wait before retrying a 429, read from the platform's body or headers. */
  retryAfter: (res: HttpResponse) => number | undefined
  sleep?: (ms: number) => Promise<void>
}

function parseRetryAfterHeader(res: HttpResponse): number | undefined {
  const h = res.headers.get('retry-after')
  if (!h) return undefined
  const n = Number(h)
  if (Number.isFinite(n)) return Math.max(0, n)
  const date = Date.parse(h)
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000)
}

export async function sendHttp(req: HttpRequest, opts: SendHttpOptions): Promise<HttpResponse> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)))
  for (let attempt = 0; ; attempt++) {
    const res = await once(req, opts)
    if (res.status !== 429) return res
    const after = opts.retryAfter(res) ?? parseRetryAfterHeader(res) ?? 1
    if (after > MAX_RETRY_AFTER_SECONDS) {
      throw new ChannelError(`${opts.label} rate limit: asked to retry after ${Math.ceil(after)}s, longer than clawkit waits (${MAX_RETRY_AFTER_SECONDS}s). Nothing was sent; try again later.`, {code: 'E_RATE_LIMITED', status: 429})
    }
    if (attempt >= MAX_RATE_LIMIT_RETRIES) {
      throw new ChannelError(`${opts.label} rate limit: still limited after ${MAX_RATE_LIMIT_RETRIES} retries. Nothing was sent; try again later.`, {code: 'E_RATE_LIMITED', status: 429})
    }
    await sleep(Math.ceil(after * 1000))
  }
}

async function once(req: HttpRequest, opts: SendHttpOptions): Promise<HttpResponse> {
  const headers: Record<string, string> = {...req.headers}
  let body: RequestInit["body"]
  if (req.json !== undefined) {
    headers['content-type'] = 'application/json; charset=utf-8'
    body = JSON.stringify(req.json)
  } else if (req.form) body = req.form
  else if (req.urlencoded) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(req.urlencoded).toString()
  } else if (req.binary) body = req.binary as unknown as RequestInit["body"]
  let res: Response
  try {
    res = await fetch(req.url, {method: req.method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS), redirect: 'error'})
  } catch (error) {
    const cause = (error as {cause?: {code?: string; message?: string}}).cause
    const detail = networkCause(error) ?? cause?.message ?? (error as Error).message
    throw new ChannelError(`${opts.label} request failed: ${redact(String(detail), opts.secrets)} at ${redact(new URL(req.url).origin, opts.secrets)}`, {code: 'E_CHANNEL_NETWORK', suggestions: ['check the network, or the API base URL if you set one']})
  }
  const text = await res.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return {status: res.status, headers: res.headers, text, json}
}

/**
 * Split text at the platform limit, preferring paragraph, line, then word boundaries. Lengths are UTF-16 code units
 * (what Telegram counts, and never less than what Discord and Slack count); a surrogate pair is never cut.
 */
export function splitText(text: string, limit: number): string[] {
  const parts: string[] = []
  let rest = text
  while (rest.length > limit) {
    let window = rest.slice(0, limit)
    if (/[\uD800-\uDBFF]$/.test(window)) window = window.slice(0, -1)
    let cut = window.lastIndexOf('\n\n')
    if (cut < limit * 0.5) cut = window.lastIndexOf('\n')
    if (cut < limit * 0.5) cut = window.lastIndexOf(' ')
    if (cut < limit * 0.5) cut = window.length
    parts.push(window.slice(0, cut).replace(/\s+$/, ''))
    rest = rest.slice(cut).replace(/^\s+/, '')
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest)
  return parts
}

/**
 * A platform's error field as text. Strings stay as they are; an object gives `code: message` when it has them, else
 * compact JSON (shortened): never "[object Object]", whatever a platform or a proxy in front of it answers.
 */
export function errorText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined
  if (typeof value === 'string') return value
  if (typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>
    const code = typeof o.code === 'string' ? o.code : typeof o.error === 'string' ? o.error : undefined
    const msg = typeof o.message === 'string' ? o.message : typeof o.description === 'string' ? o.description : undefined
    if (code && msg) return `${code}: ${msg}`
    if (code || msg) return code ?? msg
  }
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 300 ? `${text.slice(0, 300)}…` : text
}

export function shortBody(res: HttpResponse, secrets: (string | undefined)[]): string {
  const t = res.text.length > 300 ? `${res.text.slice(0, 300)}…` : res.text
  return redact(t, secrets)
}
