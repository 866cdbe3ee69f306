// How a failed model call reads to the user: Anthropic SDK and HTTP errors mapped to clawkit's errors and exit codes.
import {ClawkitError, ExitCode} from '../errors.js'
import {networkCause} from '../text/net-error.js'
import type {ResolvedModel} from './model.js'

// The wordings Anthropic and proxies in front of it use for a prompt too large for the window (a 400, or a bare
// stream error with no status).
const OVERFLOW_RE = /prompt is too long|request_too_large|request exceeds the maximum size|context length exceeded|maximum context length|exceeds (the |model )?context window|too many tokens/i

/** What the SDK's errors (APIError and its subclasses, stream errors) carry, read structurally. */
export type SdkError = Error & {status?: number; error?: {error?: {message?: string; type?: string}}; apiMessage?: string; type?: string}

/** The API's own message, rather than the SDK's "400 {json}" summary of it. */
export function apiMessageOf(e: SdkError): string {
  return e.apiMessage ?? e.error?.error?.message ?? e.message
}

/** Whether the request failed because the prompt does not fit the window: the turn compacts and retries then. */
export function isOverflowError(error: unknown): boolean {
  const e = error as SdkError
  if (!e || typeof e !== 'object') return false
  if (e.status === 413) return true
  return (e.status === 400 || e.status === undefined) && OVERFLOW_RE.test(apiMessageOf(e) ?? '')
}

/** Where the calls went, as errors name it. */
export function apiLocation(model: ResolvedModel): string {
  return model.baseURL ?? 'https://api.anthropic.com'
}

/**
 * A model call that failed once the turn had begun: by then the user's message is in the transcript, and the tool loop
 * appends an assistant entry with `stopReason: "error"` after it (what OpenClaw leaves for a failed call). Every error
 * this module makes is one, so the command can say what was kept (keptInSession).
 */
export class ModelCallError extends ClawkitError {}

/**
 * The error as the user reads it after a failed turn: what failed, that the message stayed in the session with the
 * error after it (the next turn sends the message again as context and skips the error), and how to see or undo that.
 */
export function keptInSession(error: ModelCallError, sessionKey: string): ClawkitError {
  const message = `${error.message.replace(/\.?$/, '.')} Your message is kept in session ${sessionKey}, followed by this error (OpenClaw keeps a failed turn the same way).`
  const see = `"clawkit sessions history ${sessionKey}" shows it; "clawkit sessions reset ${sessionKey}" starts the session afresh`
  return new ClawkitError(message, {code: error.code, exitCode: error.exitCode, cause: error, suggestions: [see, ...(error.suggestions ?? []).filter((h) => !h.includes('sessions reset'))]})
}

/** One clawkit error per kind of API failure, each with what to do about it; the SDK has already retried. */
export function describeApiError(error: unknown, model: ResolvedModel): ModelCallError {
  // By class name: instanceof would need the SDK's classes here, and the SDK loads lazily (scripts/bundle.js keeps names).
  const e = error as SdkError & {constructor: {name: string}}
  const name = e?.constructor?.name ?? 'Error'
  if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') {
    const cause = networkCause(e) ?? String(e.message).replace(/[.\s]+$/, '').toLowerCase()
    return connectionError(apiLocation(model), cause)
  }
  const status = e?.status
  const type = e?.error?.error?.type ?? e?.type
  const msg = apiMessageOf(e)
  const label = status ? `${status}${type ? ` ${type}` : ''}` : (type ?? 'stream error')
  if (status === 401 || status === 403) {
    return new ModelCallError(`The model API rejected the key (${label}): ${msg}`, {code: 'E_API_AUTH', suggestions: [`Check ANTHROPIC_API_KEY or models.providers.${model.provider}.apiKey.`]})
  }
  if (status === 429) return new ModelCallError(`The model API is rate limiting this key (${label}) and retries did not help: ${msg}`, {code: 'E_API_RATE_LIMIT', suggestions: ['Wait a little and run the command again.']})
  if ((status && status >= 500) || type === 'overloaded_error' || type === 'api_error') {
    return new ModelCallError(`The model API failed (${label}) and retries did not help: ${msg}`, {code: 'E_API_UNAVAILABLE', suggestions: ['Try again later.']})
  }
  return new ModelCallError(`The model API returned an error (${label}): ${msg}`, {code: 'E_API'})
}

export function connectionError(where: string, cause: string, note = ''): ModelCallError {
  return new ModelCallError(`Could not reach the model API at ${where}: ${cause}${note}`, {code: 'E_API_CONNECTION', suggestions: ['Check the network and ANTHROPIC_BASE_URL / models.providers.<name>.baseUrl.']})
}

export class ContextOverflowError extends ModelCallError {
  constructor(detail: string) {
    super(`Context overflow: the prompt is too large for the model even after compaction (${detail}). The transcript is intact.`, {
      code: 'E_CONTEXT_OVERFLOW',
      exitCode: ExitCode.failure,
      suggestions: ['Start a fresh session: clawkit sessions reset <key> (OpenClaw: /new).'],
    })
  }
}
