// One agent turn end to end: pick the session, lock its transcript, call the model with tools, persist like OpenClaw.
import path from 'node:path'

import {resolveWorkspaceDir} from '../config/config.js'
import type {Env} from '../config/paths.js'
import {ClawkitError, ExitCode, fileError} from '../errors.js'
import {networkCause} from '../render/net-error.js'
import {redactText} from '../render/redact.js'
import {clawkitDirs} from '../settings.js'
import {toLlmMessages} from '../store/context.js'
import {findEntryIn} from '../store/entry-lookup.js'
import {randomUUID} from '../store/random-id.js'
import type {OpenClawState} from '../store/state.js'
import type {AssistantMessage, ContentBlock, Usage} from '../store/transcript-types.js'
import type {FoundEntry, LockedTranscript, SessionEntry, StoreRef, TranscriptLockOptions} from '../store/types.js'
import {buildSummaryPrompt, compactionSettings, finishSummary, planCompaction, SUMMARIZATION_SYSTEM_PROMPT} from './compaction.js'
import {type ApiMessage, estimateTokens, fromApiContent, mapStopReason, toApiMessages} from './convert.js'
import {costOf, resolveModel, type ResolvedModel} from './model.js'
import {buildSystemPrompt} from './prompt.js'
import {type SelectedSession, selectSession, type SessionSelector} from './session-select.js'
import {normalizeThinkingLevel, THINKING_BUDGETS, type ThinkingLevel} from './thinking.js'
import {runTool, type ToolPolicy, toolSpecs} from './tools.js'
import {TranscriptWriter} from './transcript-writer.js'

/** Model calls per turn before the tool loop is cut off (each tool round trip is one call). */
export const MAX_MODEL_CALLS = 24
/** OpenClaw allows three compact-and-retry attempts on overflow. */
export const MAX_OVERFLOW_COMPACTIONS = 3
export const DEFAULT_TIMEOUT_SECONDS = 600
/**
 * Lock-then-recheck rounds when the session keeps being rotated under the turn (reset, /new) before giving up. Each
 * round means another writer finished a rotation, so this only guards against a livelock; since a reset holds the
 * lock of the transcript it rotates, a burst of resets queues on the same lock as the turn, and 5 rounds were used up
 * by 10 concurrent resets in about 1 run of 8 (test/reliability/concurrency.test.ts).
 */
export const MAX_ROTATION_RETRIES = 20


export interface AgentTurnOptions {
  state: OpenClawState
  message: string
  selector: SessionSelector
  model?: string
  thinking?: ThinkingLevel
  /** 0 = no timeout. */
  timeoutMs?: number
  /** Tool switches from flags; OR-ed with openclaw.json `tools.allow` entries `write`/`exec`. */
  allowWrite?: boolean
  allowExec?: boolean
  /** External abort (Ctrl-C). */
  signal?: AbortSignal
  onText?: (delta: string) => void
  /** Called once the session is chosen and the model checked, before anything is written. */
  onSession?: (selected: SelectedSession) => void
  onStatus?: (status: 'waiting' | 'streaming' | 'tool' | 'compacting') => void
  /** The session's transcript lock is held by another writer and the turn starts waiting for it. */
  onLockWait?: TranscriptLockOptions['onWait']
  env?: Env
}

export interface TurnUsage {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  total: number
}

export interface AgentTurnResult {
  /** The final reply: text blocks of the last assistant message. */
  text: string
  agentId: string
  sessionKey: string
  sessionId: string
  sessionFile: string
  storeRef: StoreRef
  provider: string
  model: string
  contextTokens: number
  usage: TurnUsage
  lastCallUsage?: TurnUsage
  promptTokens?: number
  compactionCount: number
  compactionsThisRun: number
  aborted: boolean
  abortReason?: 'timeout' | 'interrupted'
  stopReason: string
  durationMs: number
  /** Wall time spent inside model HTTP calls (for the overhead benchmark). */
  modelMs: number
  toolCalls: number
}

export class ContextOverflowError extends ClawkitError {
  constructor(detail: string) {
    super(`Context overflow: the prompt is too large for the model even after compaction (${detail}). The transcript is intact.`, {
      code: 'E_CONTEXT_OVERFLOW',
      exitCode: ExitCode.failure,
      suggestions: ['Start a fresh session: clawkit sessions reset <key> (OpenClaw: /new).'],
    })
  }
}

interface CallResult {
  content: ContentBlock[]
  stopReason: string | null
  responseId?: string
  usage: {input: number; output: number; cacheRead: number; cacheWrite: number}
  complete: boolean
}

const OVERFLOW_RE = /prompt is too long|request_too_large|request exceeds the maximum size|context length exceeded|maximum context length|exceeds (the |model )?context window|too many tokens/i

type SdkError = Error & {status?: number; error?: {error?: {message?: string; type?: string}}; apiMessage?: string; type?: string}

function apiMessageOf(e: SdkError): string {
  return e.apiMessage ?? e.error?.error?.message ?? e.message
}

export function isOverflowError(error: unknown): boolean {
  const e = error as SdkError
  if (!e || typeof e !== 'object') return false
  if (e.status === 413) return true
  return (e.status === 400 || e.status === undefined) && OVERFLOW_RE.test(apiMessageOf(e) ?? '')
}

function zeroUsage(): TurnUsage {
  return {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0}
}

function describeApiError(error: unknown, model: ResolvedModel): ClawkitError {
  const e = error as SdkError & {constructor: {name: string}}
  const name = e?.constructor?.name ?? 'Error'
  const where = model.baseURL ?? 'https://api.anthropic.com'
  if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') {
    const cause = networkCause(e) ?? String(e.message).replace(/[.\s]+$/, '').toLowerCase()
    return connectionError(where, cause)
  }
  const status = e?.status
  const type = e?.error?.error?.type ?? e?.type
  const msg = apiMessageOf(e)
  const label = status ? `${status}${type ? ` ${type}` : ''}` : (type ?? 'stream error')
  if (status === 401 || status === 403) {
    return new ClawkitError(`The model API rejected the key (${label}): ${msg}`, {code: 'E_API_AUTH', suggestions: [`Check ANTHROPIC_API_KEY or models.providers.${model.provider}.apiKey.`]})
  }
  if (status === 429) return new ClawkitError(`The model API is rate limiting this key (${label}) and retries did not help: ${msg}`, {code: 'E_API_RATE_LIMIT', suggestions: ['Wait a little and run the command again.']})
  if ((status && status >= 500) || type === 'overloaded_error' || type === 'api_error') {
    return new ClawkitError(`The model API failed (${label}) and retries did not help: ${msg}`, {code: 'E_API_UNAVAILABLE', suggestions: ['Try again later.']})
  }
  return new ClawkitError(`The model API returned an error (${label}): ${msg}`, {code: 'E_API'})
}

function connectionError(where: string, cause: string, note = ''): ClawkitError {
  return new ClawkitError(`Could not reach the model API at ${where}: ${cause}${note}`, {code: 'E_API_CONNECTION', suggestions: ['Check the network and ANTHROPIC_BASE_URL / models.providers.<name>.baseUrl.']})
}

function toolPolicy(state: OpenClawState, opts: AgentTurnOptions): ToolPolicy {
  const allow = (state.config as {tools?: {allow?: unknown}}).tools?.allow
  const list = Array.isArray(allow) ? allow.map((s) => String(s).toLowerCase()) : []
  const env = opts.env ?? process.env
  return {
    write: Boolean(opts.allowWrite) || list.includes('write') || env.CLAWKIT_ALLOW_WRITE === '1',
    exec: Boolean(opts.allowExec) || list.includes('exec') || env.CLAWKIT_ALLOW_EXEC === '1',
  }
}

/** Cap tool results in the outgoing request only (OpenClaw: 30 % of the window in chars, at most 400k). */
function capToolResults(messages: ApiMessage[], maxChars: number): {messages: ApiMessage[]; changed: boolean} {
  let changed = false
  const out = messages.map((m) => ({
    role: m.role,
    content: m.content.map((b) => {
      if (b.type !== 'tool_result' || !Array.isArray(b.content)) return b
      const content = (b.content as Array<{type: string; text?: string}>).map((c) => {
        if (c.type !== 'text' || typeof c.text !== 'string' || c.text.length <= maxChars) return c
        changed = true
        const keep = Math.max(2000, maxChars)
        return {type: 'text', text: `${c.text.slice(0, keep)}\n\n[Tool result truncated: kept ${keep} of ${c.text.length} characters to fit the context window. Use offset/limit to read less at a time.]`}
      })
      return {...b, content}
    }),
  }))
  return {messages: out, changed}
}

/**
 * Import the SDK lazily. On Node 22+ Node's compile cache makes later imports cheaper: bin/run.js enables it in
 * clawkit's cache dir before anything else, so this call only takes effect when runAgentTurn is used as a library; on
 * Node 20 it does not exist and this is a plain dynamic import.
 */
async function loadSdk(env: Env): Promise<typeof import('./sdk.js')> {
  const mod = (await import('node:module')) as {enableCompileCache?: (dir?: string) => unknown}
  try {
    mod.enableCompileCache?.(path.join(clawkitDirs(env).cache, 'compile-cache'))
  } catch {
    // A cache that cannot be created only costs speed.
  }
  return import('./sdk.js')
}

export async function runAgentTurn(opts: AgentTurnOptions): Promise<AgentTurnResult> {
  const started = Date.now()
  const {state} = opts
  const env = opts.env ?? process.env
  const message = opts.message
  if (!message.trim()) throw new ClawkitError('Message (--message) is required', {code: 'E_NO_MESSAGE', exitCode: ExitCode.usage})
  // A mistyped --state-dir must not become a fresh state dir holding a paid turn with none of the history.
  state.requireStateDir()

  const selected = await selectSession(state, opts.selector)
  // Before the model is paid for or any file is written: a SQLite-era agent's conversation lives in its database.
  state.assertJsonEra(selected.agentId)
  // Everything that can fail on bad input or a missing key fails here, before anything is written.
  const model = resolveModel(state.config, selected.agentId, opts.model, env)
  opts.onSession?.(selected)
  // Start loading the SDK now (its bundled chunk, ~60 ms): the load overlaps the store and lock I/O below.
  const sdk = loadSdk(env)
  sdk.catch(() => {})
  const policy = toolPolicy(state, opts)
  const workspaceDir = resolveWorkspaceDir(state.stateDir, state.config, selected.agentId, env)
  const store = state.storeFor(selected.ref)

  // Abort wiring: the timeout and Ctrl-C share one controller; the reason says which fired.
  const controller = new AbortController()
  let abortReason: 'timeout' | 'interrupted' | undefined
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_SECONDS * 1000
  const timer = timeoutMs > 0 ? setTimeout(() => {
    abortReason ??= 'timeout'
    controller.abort()
  }, timeoutMs) : undefined
  const onExternalAbort = () => {
    abortReason ??= 'interrupted'
    controller.abort()
  }
  if (opts.signal?.aborted) onExternalAbort()
  opts.signal?.addEventListener('abort', onExternalAbort)

  try {
    // 1. Index entry first, under the store lock, as OpenClaw does: concurrent turns on a new key agree on one id.
    const pre = await store.update((data) => {
      const hit = findEntryIn(data, selected.key)
      const now = Date.now()
      if (hit) {
        const e = hit.entry
        if (selected.sessionId && e.sessionId !== selected.sessionId) {
          e.sessionId = selected.sessionId
          e.sessionFile = store.newSessionFile(selected.sessionId, selected.key)
          e.updatedAt = now
        }
        if (opts.thinking && e.thinkingLevel !== opts.thinking) e.thinkingLevel = opts.thinking
        return {storedKey: hit.storedKey, entry: {...e}}
      }
      const sessionId = selected.sessionId ?? randomUUID()
      const entry: SessionEntry = {sessionId, updatedAt: now, sessionStartedAt: now, sessionFile: store.newSessionFile(sessionId, selected.key)}
      if (opts.thinking) entry.thinkingLevel = opts.thinking
      data[selected.key] = entry
      return {storedKey: selected.key, entry: {...entry}}
    })
    // 2. The transcript lock is held for the whole turn, so a concurrent turn waits and then continues from ours.
    // Whoever held it before us may have rotated the session (sessions reset, OpenClaw /new: file renamed, new
    // sessionId), so the entry is re-read once the lock is ours and the turn follows the rotation.
    let entry = pre.entry
    let storedKey = pre.storedKey
    for (let attempt = 0; ; attempt++) {
      const sessionId = entry.sessionId
      const transcript = store.transcriptOf(entry, selected.key)
      const thinking: ThinkingLevel = opts.thinking ?? normalizeThinkingLevel(typeof entry.thinkingLevel === 'string' ? entry.thinkingLevel : undefined) ?? 'off'
      // OpenClaw's rule for its session write lock: wait up to the acquire timeout (10 s, or
      // OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS), then fail naming the holder; a shorter --timeout ends it first.
      let locked = false
      const outcome = await store
        .withTranscript(
          transcript,
          async (tx): Promise<{result: AgentTurnResult} | {rotatedTo: FoundEntry}> => {
            locked = true
            const current = findEntryIn(await store.read(), selected.key)
            const rotated = current !== undefined && (current.entry.sessionId !== sessionId || store.transcriptOf(current.entry, selected.key).locator !== transcript.locator)
            if (rotated) {
              if (attempt + 1 >= MAX_ROTATION_RETRIES) {
                throw new ClawkitError(`Session ${selected.key} changed ${MAX_ROTATION_RETRIES} times while this turn waited for its transcript lock; the turn was not run.`, {
                  code: 'E_SESSION_ROTATING',
                  suggestions: ['Run the command again once other writers (sessions reset, OpenClaw) are done.'],
                })
              }
              return {rotatedTo: current}
            }
            return {result: await runLocked({sdk, opts, model, policy, workspaceDir, tx, transcript: transcript.locator, sessionId, thinking, selected, store, storedKey, controller, getAbortReason: () => abortReason, started})}
          },
          {signal: controller.signal, onWait: opts.onLockWait && ((w) => opts.onLockWait?.({...w, timeoutMs: timeoutMs > 0 ? Math.min(w.timeoutMs, Math.max(0, timeoutMs - (Date.now() - started))) : w.timeoutMs}))},
        )
        .catch((error: unknown) => {
          // Ctrl-C or --timeout while another writer holds the session: nothing ran, nothing was written.
          if (locked || (error as {code?: string}).code !== 'E_LOCK_WAIT_ABORTED') throw error
          const timedOut = abortReason === 'timeout'
          throw new ClawkitError(`${timedOut ? 'Timed out' : 'Interrupted'} while waiting for another writer of ${selected.key}; the turn was not run and nothing was written.`, {
            code: 'E_LOCK_WAIT_ABORTED',
            // The caller aborts with the signal's name as the reason: SIGTERM exits 143 like a turn it interrupts.
            exitCode: timedOut ? ExitCode.timeout : opts.signal?.reason === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted,
          })
        })
      if ('result' in outcome) return outcome.result
      entry = {...outcome.rotatedTo.entry}
      storedKey = outcome.rotatedTo.storedKey
    }
  } finally {
    if (timer) clearTimeout(timer)
    opts.signal?.removeEventListener('abort', onExternalAbort)
  }
}

/**
 * JSON.parse reads values nested hundreds of thousands deep, but JSON.stringify (every request body, every token
 * estimate) gives up after a few thousand levels. A transcript entry like that (tool-call arguments, say) would fail
 * the turn half-way with "Maximum call stack size exceeded"; it is named before anything is written or sent.
 */
function assertSendable(writer: TranscriptWriter, file: string, key: string): void {
  try {
    JSON.stringify(toApiMessages(toLlmMessages(writer.context().messages)))
    return
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
  }
  let id: string | undefined
  for (const e of writer.entries) {
    try {
      JSON.stringify(e)
    } catch {
      id = e.id
      break
    }
  }
  throw new ClawkitError(
    `Transcript ${file} holds an entry${id ? ` (id ${JSON.stringify(id)})` : ''} nested too deeply (thousands of levels) to be sent to the model as JSON. Nothing was sent or written. Remove that line from the transcript by hand, or start over with "clawkit sessions reset ${key}".`,
    {code: 'E_TRANSCRIPT_TOO_DEEP'},
  )
}

interface LockedArgs {
  sdk: Promise<typeof import('./sdk.js')>
  opts: AgentTurnOptions
  model: ResolvedModel
  policy: ToolPolicy
  workspaceDir: string
  /** The transcript, locked for the whole turn. */
  tx: LockedTranscript
  /** Its locator, as errors and the result show it. */
  transcript: string
  sessionId: string
  thinking: ThinkingLevel
  selected: Awaited<ReturnType<typeof selectSession>>
  store: ReturnType<OpenClawState['store']>
  storedKey: string
  controller: AbortController
  getAbortReason: () => 'timeout' | 'interrupted' | undefined
  started: number
}

async function runLocked(a: LockedArgs): Promise<AgentTurnResult> {
  const {opts, model, policy, workspaceDir, transcript, sessionId, thinking, controller} = a
  const writer = await TranscriptWriter.open(a.tx, sessionId, workspaceDir)
  const before = writer.context()
  assertSendable(writer, transcript, a.selected.key)

  // Settings entries: always for a new file (as OpenClaw starts every transcript), else only on change.
  const settings: Array<{type: string; [k: string]: unknown}> = []
  if (writer.isNew || before.model?.provider !== model.provider || before.model?.modelId !== model.model) settings.push({type: 'model_change', provider: model.provider, modelId: model.model})
  if (writer.isNew || before.thinkingLevel !== thinking) settings.push({type: 'thinking_level_change', thinkingLevel: thinking})
  if (writer.isNew) settings.push({type: 'custom', customType: 'model-snapshot', data: {timestamp: Date.now(), provider: model.provider, modelApi: model.api, modelId: model.model}})
  await writer.append([...settings, {type: 'message', message: {role: 'user', content: [{type: 'text', text: opts.message}], timestamp: Date.now()}}])

  // http-fetch loads node:http and node:https (~10 ms), which no other command needs: lazily, like the SDK.
  const [{MessagesClient}, {chooseFetch}] = await Promise.all([a.sdk, import('./http-fetch.js')])
  // The SDK retries a refused or failed connection and, when --timeout or Ctrl-C cuts those retries short, reports only
  // the abort. The last transport failure of the current call is kept so that an abort with no reply yet can name the
  // real cause (connection refused, DNS, TLS) instead of a timeout that kept a reply there never was.
  let transportFailure: unknown
  const baseFetch = chooseFetch(opts.env ?? process.env) ?? fetch
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
  const tools = toolSpecs(policy)
  const system = buildSystemPrompt({workspaceDir, toolNames: tools.map((t) => t.name)})
  const {reserveTokens, keepRecentTokens} = compactionSettings(model.contextWindow)
  const budget = thinking === 'off' ? 0 : THINKING_BUDGETS[thinking]
  const maxTokens = budget > 0 && model.maxTokens <= budget ? budget + 4096 : model.maxTokens
  const toolResultMaxChars = Math.min(Math.floor(model.contextWindow * 0.3 * 4), 400_000)

  const runUsage = zeroUsage()
  let lastCall: TurnUsage | undefined
  let costUsd = 0
  let compactions = 0
  // Set by a compaction, cleared by the next successful call: the prompt size to record when no call followed.
  let postCompactionTokens: number | undefined
  let modelMs = 0
  let toolCalls = 0
  let finalText = ''
  let stopReason = 'stop'
  let aborted = false

  const stream = async (body: Record<string, unknown>, onText?: (d: string) => void): Promise<CallResult> => {
    const t0 = Date.now()
    transportFailure = undefined
    const acc: CallResult = {content: [], stopReason: null, usage: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0}, complete: false}
    const blocks: Array<Record<string, unknown>> = []
    const partialJson: string[] = []
    const sync = () => {
      acc.content = fromApiContent(blocks.filter(Boolean))
    }
    try {
      const s = await client.messages.create({...body, stream: true} as never, {signal: controller.signal})
      for await (const ev of s as unknown as AsyncIterable<Record<string, any>>) {
        switch (ev.type) {
          case 'message_start': {
            acc.responseId = ev.message?.id
            const u = ev.message?.usage ?? {}
            acc.usage = {input: u.input_tokens ?? 0, output: u.output_tokens ?? 0, cacheRead: u.cache_read_input_tokens ?? 0, cacheWrite: u.cache_creation_input_tokens ?? 0}
            break
          }
          case 'content_block_start':
            blocks[ev.index] = {...ev.content_block, ...(ev.content_block?.type === 'tool_use' ? {input: {}} : {})}
            partialJson[ev.index] = ''
            opts.onStatus?.('streaming')
            break
          case 'content_block_delta': {
            const b = blocks[ev.index]
            const d = ev.delta ?? {}
            if (!b) break
            if (d.type === 'text_delta') {
              b.text = String(b.text ?? '') + d.text
              onText?.(d.text)
            } else if (d.type === 'input_json_delta') partialJson[ev.index] += d.partial_json ?? ''
            else if (d.type === 'thinking_delta') b.thinking = String(b.thinking ?? '') + d.thinking
            else if (d.type === 'signature_delta') b.signature = String(b.signature ?? '') + d.signature
            break
          }
          case 'content_block_stop': {
            const b = blocks[ev.index]
            if (b?.type === 'tool_use') {
              try {
                b.input = partialJson[ev.index] ? JSON.parse(partialJson[ev.index]) : {}
              } catch {
                b.input = {}
              }
            }
            break
          }
          case 'message_delta': {
            if (ev.delta?.stop_reason !== undefined) acc.stopReason = ev.delta.stop_reason
            const u = ev.usage ?? {}
            if (typeof u.output_tokens === 'number') acc.usage.output = u.output_tokens
            if (typeof u.input_tokens === 'number') acc.usage.input = u.input_tokens
            if (typeof u.cache_read_input_tokens === 'number') acc.usage.cacheRead = u.cache_read_input_tokens
            if (typeof u.cache_creation_input_tokens === 'number') acc.usage.cacheWrite = u.cache_creation_input_tokens
            break
          }
          case 'message_stop':
            acc.complete = true
            break
          default:
            break
        }
      }
      sync()
      // The SDK may end the iteration quietly on abort; a stream cut short by us is an abort, not a reply.
      if (!acc.complete && controller.signal.aborted) throw new Error('Request was aborted.')
      if (!acc.complete) {
        const e = new Error('The model stream ended before message_stop (connection dropped).') as SdkError
        throw Object.assign(e, {partial: acc})
      }
      return acc
    } catch (error) {
      sync()
      throw Object.assign(error as object, {partial: acc})
    } finally {
      modelMs += Date.now() - t0
    }
  }

  const addUsage = (u: CallResult['usage']) => {
    runUsage.input += u.input
    runUsage.output += u.output
    runUsage.cacheRead += u.cacheRead
    runUsage.cacheWrite += u.cacheWrite
    runUsage.total += u.input + u.output + u.cacheRead + u.cacheWrite
    lastCall = {...u, total: u.input + u.output + u.cacheRead + u.cacheWrite}
    costUsd += costOf(model.cost, u).total
  }

  const assistantMessage = (call: CallResult, startedAt: number, extra: {stopReason: string; errorMessage?: string}): AssistantMessage => {
    const u = call.usage
    const msg: AssistantMessage = {
      role: 'assistant',
      content: call.content,
      api: model.api,
      provider: model.provider,
      model: model.model,
      usage: {...u, totalTokens: u.input + u.output + u.cacheRead + u.cacheWrite, cost: costOf(model.cost, u)} as Usage,
      stopReason: extra.stopReason,
      ...(extra.errorMessage ? {errorMessage: extra.errorMessage} : {}),
      timestamp: startedAt,
    }
    if (call.responseId) msg.responseId = call.responseId
    return msg
  }

  const requestFor = (ctxMessages: ApiMessage[]) => {
    const messages = ctxMessages.map((m) => ({role: m.role, content: m.content.map((b) => ({...b}))}))
    // Prompt caching as pi-ai does it: the system prompt and the last user block.
    const lastUser = [...messages].reverse().find((m) => m.role === 'user')
    const lastBlock = lastUser?.content.at(-1)
    if (lastBlock && (lastBlock.type === 'text' || lastBlock.type === 'tool_result')) lastBlock.cache_control = {type: 'ephemeral'}
    const body: Record<string, unknown> = {model: model.model, max_tokens: maxTokens, system: [{type: 'text', text: system.prompt, cache_control: {type: 'ephemeral'}}], messages, tools}
    if (budget > 0) body.thinking = {type: 'enabled', budget_tokens: budget}
    return body
  }

  const currentApiMessages = (): ApiMessage[] => capToolResults(toApiMessages(toLlmMessages(writer.context().messages)), toolResultMaxChars).messages

  const compact = async (): Promise<boolean> => {
    opts.onStatus?.('compacting')
    const ctx = writer.context()
    const tokensBefore = estimateTokens(requestFor(currentApiMessages()))
    const plan = planCompaction(ctx, keepRecentTokens, tokensBefore)
    if (!plan) return false
    const prompt = buildSummaryPrompt(plan, Math.floor(model.contextWindow * 4 * 0.5))
    let call: CallResult
    try {
      call = await stream({model: model.model, max_tokens: Math.max(256, Math.min(model.maxTokens, Math.floor(0.8 * reserveTokens))), system: SUMMARIZATION_SYSTEM_PROMPT, messages: [{role: 'user', content: [{type: 'text', text: prompt}]}]})
    } catch (error) {
      // An abort or an overflow of the summary request itself just means "could not compact"; the caller decides.
      if (controller.signal.aborted || isOverflowError(error)) return false
      throw describeApiError(error, model)
    }
    // Summary calls are not turn calls (store-format §7/§5.4): they cost money but are neither lastCallUsage nor
    // part of inputTokens/outputTokens.
    costUsd += costOf(model.cost, call.usage).total
    const summary = finishSummary(
      call.content
        .filter((b) => b.type === 'text')
        .map((b) => String((b as {text: string}).text))
        .join('\n'),
      plan,
    )
    await writer.append([{type: 'compaction', summary, firstKeptEntryId: plan.firstKeptEntryId, tokensBefore: plan.tokensBefore, details: {readFiles: plan.readFiles, modifiedFiles: plan.modifiedFiles}, fromHook: false}])
    compactions++
    postCompactionTokens = estimateTokens(requestFor(currentApiMessages()))
    return true
  }

  const finishAborted = async (call: CallResult | undefined, startedAt: number) => {
    aborted = true
    stopReason = 'aborted'
    const reason = a.getAbortReason() ?? 'interrupted'
    const c: CallResult = call ?? {content: [], stopReason: null, usage: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0}, complete: false}
    addUsageIfAny(c)
    finalText = textOf(c.content)
    await writer.append([{type: 'message', message: assistantMessage(c, startedAt, {stopReason: 'aborted', errorMessage: reason === 'timeout' ? 'Request timed out.' : 'Request was aborted'})}])
  }
  const addUsageIfAny = (c: CallResult) => {
    if (c.usage.input + c.usage.output + c.usage.cacheRead + c.usage.cacheWrite > 0) addUsage(c.usage)
  }

  let failure: ClawkitError | undefined
  let unexpected: unknown
  try {
    let overflowCompactions = 0
    // Entry count at the last guard compaction: a compaction that did not help is not repeated for the same context.
    let guardedAt = -1
    let truncatedHard = false
    for (let calls = 0; calls < MAX_MODEL_CALLS; ) {
      if (controller.signal.aborted) {
        await finishAborted(undefined, Date.now())
        break
      }
      // Guard before each call: compact first when the estimate is past the window minus the reserve.
      if (guardedAt !== writer.entries.length && estimateTokens(requestFor(currentApiMessages())) > model.contextWindow - reserveTokens) {
        await compact()
        guardedAt = writer.entries.length
      }
      let apiMessages = currentApiMessages()
      if (truncatedHard) apiMessages = capToolResults(apiMessages, 2000).messages
      const startedAt = Date.now()
      opts.onStatus?.('waiting')
      let call: CallResult
      try {
        call = await stream(requestFor(apiMessages), opts.onText)
      } catch (error) {
        const partial = (error as {partial?: CallResult}).partial
        // --timeout during the SDK's retries of a connection that never worked: not a timed-out reply but an
        // unreachable API, reported as such (Ctrl-C stays an interruption).
        const cause = transportFailure === undefined ? undefined : networkCause(transportFailure)
        const unreachable = cause !== undefined && a.getAbortReason() === 'timeout' && !partial?.content.length
        if (controller.signal.aborted && !unreachable) {
          await finishAborted(partial, startedAt)
          break
        }
        if (unreachable) {
          failure = connectionError(model.baseURL ?? 'https://api.anthropic.com', cause, '; --timeout ran out while retrying, and no reply was received.')
        } else if (isOverflowError(error)) {
          // (1) shorten oversized tool results in the request, (2) compact and retry, (3) give up with the transcript intact.
          if (!truncatedHard && capToolResults(apiMessages, 2000).changed) {
            truncatedHard = true
            continue
          }
          if (overflowCompactions < MAX_OVERFLOW_COMPACTIONS && (await compact())) {
            overflowCompactions++
            continue
          }
          if (controller.signal.aborted) {
            await finishAborted(undefined, Date.now())
            break
          }
          failure = new ContextOverflowError(apiMessageOf(error as SdkError))
        } else failure = describeApiError(error, model)
        stopReason = 'error'
        // The error text may quote what the server echoed (request headers with the key): redacted before it is stored.
        await writer.append([{type: 'message', message: assistantMessage(partial ?? {content: [], stopReason: null, usage: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0}, complete: false}, startedAt, {stopReason: 'error', errorMessage: redactText(failure.message)})}])
        break
      }
      calls++
      addUsage(call.usage)
      postCompactionTokens = undefined
      stopReason = mapStopReason(call.stopReason)
      await writer.append([{type: 'message', message: assistantMessage(call, startedAt, {stopReason})}])
      finalText = textOf(call.content)
      const pending = call.content.filter((b) => b.type === 'toolCall') as Array<{id: string; name: string; arguments: Record<string, unknown>}>
      if (stopReason !== 'toolUse' || pending.length === 0) break
      // Every call gets a result entry, even when aborted mid-way, so no tool call is ever left unpaired.
      opts.onStatus?.('tool')
      for (const tc of pending) {
        const outcome = controller.signal.aborted ? {text: 'Tool execution aborted.', isError: true} : await runTool(tc.name, tc.arguments, {workspaceDir, signal: controller.signal}, policy)
        toolCalls++
        await writer.append([{type: 'message', message: {role: 'toolResult', toolCallId: tc.id, toolName: tc.name, content: [{type: 'text', text: outcome.text}], ...('details' in outcome && outcome.details ? {details: outcome.details} : {}), isError: outcome.isError, timestamp: Date.now()}}])
      }
      if (controller.signal.aborted) {
        await finishAborted(undefined, Date.now())
        break
      }
      if (calls >= MAX_MODEL_CALLS) stopReason = 'toolUse'
    }
  } catch (error) {
    if (error instanceof ClawkitError) {
      // A failed summary call during compaction: record it like any failed call.
      failure = error
      stopReason = 'error'
      await writer
        .append([{type: 'message', message: assistantMessage({content: [], stopReason: null, usage: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0}, complete: false}, Date.now(), {stopReason: 'error', errorMessage: redactText(error.message)})}])
        .catch(() => {})
    } else {
      // Unexpected (disk, bug): still record the run below, then rethrow.
      unexpected = error
    }
  }
  {
    // 3. Index update under the store lock with OpenClaw's token semantics, whatever happened above.
    // A compaction with no successful call after it: the last call's prompt size describes the pre-compaction context.
    const promptTokens = lastCall && postCompactionTokens === undefined ? lastCall.input + lastCall.cacheRead + lastCall.cacheWrite : undefined
    const indexUpdate = a.store.update((data) => {
      const hit = findEntryIn(data, a.selected.key)
      // Someone reset the session while we ran: their new id wins and our counters are dropped.
      if (hit && hit.entry.sessionId !== sessionId) return hit.entry
      const e: SessionEntry = hit?.entry ?? {sessionId, updatedAt: Date.now()}
      e.sessionId = sessionId
      e.updatedAt = Date.now()
      // OpenClaw stamps every run's interaction time too (see the fixtures' entries).
      e.lastInteractionAt = e.updatedAt
      e.sessionFile = transcript
      e.contextTokens = model.contextWindow
      e.modelProvider = model.provider
      e.model = model.model
      e.abortedLastRun = aborted
      const hasUsage = runUsage.input + runUsage.output + runUsage.cacheRead + runUsage.cacheWrite > 0
      if (hasUsage) {
        e.inputTokens = runUsage.input
        e.outputTokens = runUsage.output
        e.cacheRead = lastCall?.cacheRead ?? runUsage.cacheRead
        e.cacheWrite = lastCall?.cacheWrite ?? runUsage.cacheWrite
      } else if (postCompactionTokens !== undefined) {
        // §5.4: a compaction clears the counters that described the old context.
        delete e.inputTokens
        delete e.outputTokens
        delete e.cacheRead
        delete e.cacheWrite
      }
      if (promptTokens && promptTokens > 0) {
        e.totalTokens = promptTokens
        e.totalTokensFresh = true
      } else if (postCompactionTokens !== undefined) {
        e.totalTokens = postCompactionTokens
        e.totalTokensFresh = true
      } else if (hasUsage) {
        delete e.totalTokens
        e.totalTokensFresh = false
      }
      if (hasUsage || costUsd > 0) e.estimatedCostUsd = Math.round(((typeof e.estimatedCostUsd === 'number' ? e.estimatedCostUsd : 0) + costUsd) * 1e9) / 1e9
      if (compactions > 0) e.compactionCount = (typeof e.compactionCount === 'number' ? e.compactionCount : 0) + compactions
      if (!hit) data[a.selected.key] = e
      return e
    })
    let result: SessionEntry | undefined
    let indexError: unknown
    try {
      result = await indexUpdate
    } catch (error) {
      if (unexpected || failure) throw unexpected ?? failure
      indexError = error
    }
    if (unexpected) throw unexpected
    if (failure) throw failure
    const turn: AgentTurnResult = {
      text: finalText,
      agentId: a.selected.agentId,
      sessionKey: a.selected.key,
      sessionId,
      sessionFile: transcript,
      storeRef: a.selected.ref,
      provider: model.provider,
      model: model.model,
      contextTokens: model.contextWindow,
      usage: runUsage,
      lastCallUsage: lastCall,
      promptTokens,
      compactionCount: typeof result?.compactionCount === 'number' ? result.compactionCount : compactions,
      compactionsThisRun: compactions,
      aborted,
      abortReason: aborted ? (a.getAbortReason() ?? 'interrupted') : undefined,
      stopReason,
      durationMs: Date.now() - a.started,
      modelMs,
      toolCalls,
    }
    // The whole turn is in the transcript; only the index (its counters, model, updatedAt) is behind. The error says
    // which file failed and where the turn is, and carries the turn so that --json can still print the reply.
    if (indexError !== undefined) throw new TurnStoredError(turn, a.store.ref.path, indexError)
    return turn
  }
}

/** The turn is stored in its transcript, but the index update after it failed (a full disk). */
export class TurnStoredError extends ClawkitError {
  readonly turn: AgentTurnResult

  constructor(turn: AgentTurnResult, storePath: string, cause: unknown) {
    const inner = describeCause(cause, storePath)
    super(`The turn is stored in ${turn.sessionFile}, but the session index could not be updated: ${inner.message}`, {
      code: inner.code,
      cause,
      suggestions: [`${inner.full ? 'free disk space; ' : ''}do not send the message again: the reply is stored, and the next turn brings ${storePath} up to date`],
    })
    this.turn = turn
  }
}

function describeCause(cause: unknown, storePath: string): {message: string; code: string; full: boolean} {
  const e = fileError(cause, storePath, 'write')
  const message = e instanceof Error ? e.message : String(e)
  const code = e instanceof ClawkitError ? e.code : 'E_UNEXPECTED'
  return {message, code, full: code === 'E_ENOSPC' || code === 'E_EDQUOT'}
}

function textOf(content: ContentBlock[]): string {
  return content
    .filter((b) => b.type === 'text')
    .map((b) => String((b as {text: string}).text))
    .join('')
}
