// The HTTP side of a turn's model calls: the SDK client over clawkit's fetch, the time spent in calls, and why a call could not connect.
import type {Env} from '../config/paths.js'
import {networkCause} from '../text/net-error.js'
import {type CallResult, readModelStream, type StreamHooks} from './model-stream.js'
import type {ResolvedModel} from './model.js'

export interface ModelClient {
  /** One streamed Messages call; rejects with `partial` attached (model-stream.ts). */
  call(body: Record<string, unknown>, hooks?: StreamHooks): Promise<CallResult>
  /** The last transport failure of the current call (connection refused, DNS, TLS), cleared by any response. */
  transportFailure(): unknown
  /** Wall time spent inside calls so far (for the overhead benchmark). */
  elapsedMs(): number
}

/**
 * `sdk` is the lazily imported SDK slice (turn.ts starts loading it early); http-fetch loads node:http and node:https
 * (~10 ms), which no other command needs, so it is imported here, lazily as well.
 */
export async function openModelClient(sdk: Promise<typeof import('./sdk.js')>, model: ResolvedModel, env: Env, signal: AbortSignal): Promise<ModelClient> {
  const [{MessagesClient}, {chooseFetch}] = await Promise.all([sdk, import('./http-fetch.js')])
  // The SDK retries a refused or failed connection and, when --timeout or Ctrl-C cuts those retries short, reports only
  // the abort. The last transport failure of the current call is kept so that an abort with no reply yet can name the
  // real cause (connection refused, DNS, TLS) instead of a timeout that kept a reply there never was.
  let transportFailure: unknown
  let elapsed = 0
  const baseFetch = chooseFetch(env) ?? fetch
  const recordingFetch = (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    try {
      const res = await baseFetch(input, init)
      transportFailure = undefined
      return res
    } catch (error) {
      if (!init?.signal?.aborted && networkCause(error)) transportFailure = error
      throw error
    }
  }) as typeof fetch
  const client = new MessagesClient({apiKey: model.apiKey, baseURL: model.baseURL ?? null, authToken: null, maxRetries: 2, timeout: 10 * 60 * 1000, fetch: recordingFetch})
  return {
    async call(body, hooks) {
      const t0 = Date.now()
      transportFailure = undefined
      try {
        return await readModelStream(() => client.messages.create({...body, stream: true} as never, {signal}), signal, hooks)
      } finally {
        elapsed += Date.now() - t0
      }
    },
    transportFailure: () => transportFailure,
    elapsedMs: () => elapsed,
  }
}
