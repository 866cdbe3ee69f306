// The body of a turn: call the model, run the tools it asks for, compact when the context outgrows the window, until it answers.
import {ClawkitError} from '../errors.js'
import {toLlmMessages} from '../store/context.js'
import {networkCause} from '../text/net-error.js'
import {redactText} from '../text/redact.js'
import {apiLocation, apiMessageOf, connectionError, ContextOverflowError, describeApiError, isOverflowError, type SdkError} from './api-errors.js'
import {buildSummaryPrompt, compactionSettings, finishSummary, planCompaction, SUMMARIZATION_SYSTEM_PROMPT} from './compaction.js'
import {type ApiMessage, estimateTokens, mapStopReason, textOf, toApiMessages} from './convert.js'
import type {ModelClient} from './model-client.js'
import {assistantMessage, type CallResult, type CallUsage, emptyCall} from './model-stream.js'
import {costOf, type ResolvedModel} from './model.js'
import {buildSystemPrompt} from './prompt.js'
import {THINKING_BUDGETS, type ThinkingLevel} from './thinking.js'
import {runTool, type ToolPolicy, toolSpecs} from './tools.js'
import type {TranscriptWriter} from './transcript-writer.js'
import {type TurnUsage, zeroUsage} from './usage-apply.js'

/** Model calls per turn before the tool loop is cut off (each tool round trip is one call). */
export const MAX_MODEL_CALLS = 24
/** OpenClaw allows three compact-and-retry attempts on overflow. */
export const MAX_OVERFLOW_COMPACTIONS = 3

export type TurnStatus = 'waiting' | 'streaming' | 'tool' | 'compacting'

export interface ToolLoopArgs {
  /** The session's transcript, locked by the caller; the user message is already in it. */
  writer: TranscriptWriter
  client: ModelClient
  model: ResolvedModel
  policy: ToolPolicy
  workspaceDir: string
  thinking: ThinkingLevel
  /** Aborted by --timeout or Ctrl-C; `abortReason` says which. */
  signal: AbortSignal
  abortReason: () => 'timeout' | 'interrupted' | undefined
  onText?: (delta: string) => void
  onStatus?: (status: TurnStatus) => void
}

/** How the loop ended, and what the index entry and the result need to know about it. */
export interface ToolLoopOutcome {
  /** The text of the last assistant message. */
  finalText: string
  stopReason: string
  aborted: boolean
  usage: TurnUsage
  lastCall?: TurnUsage
  costUsd: number
  compactions: number
  /** Set by a compaction, cleared by the next successful call: the prompt size to record when no call followed. */
  postCompactionTokens?: number
  toolCalls: number
  /** A failure of the model API, recorded in the transcript; the caller stores the run, then throws it. */
  failure?: ClawkitError
  /** Anything else (disk, bug): the caller still stores the run, then rethrows it. */
  unexpected?: unknown
}

/** Cap tool results in the outgoing request only (OpenClaw: 30 % of the window in chars, at most 400k). */
export function capToolResults(messages: ApiMessage[], maxChars: number): {messages: ApiMessage[]; changed: boolean} {
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
 * Runs the loop to its end and reports how it ended. Every call, reply, tool result, compaction and failure is appended
 * to the transcript as it happens; a failure of the API is returned, not thrown, so the caller can store the run first.
 */
export async function runToolLoop(a: ToolLoopArgs): Promise<ToolLoopOutcome> {
  const {writer, client, model, policy, workspaceDir, thinking, signal} = a
  const tools = toolSpecs(policy)
  const system = buildSystemPrompt({workspaceDir, toolNames: tools.map((t) => t.name)})
  const {reserveTokens, keepRecentTokens} = compactionSettings(model.contextWindow)
  const budget = thinking === 'off' ? 0 : THINKING_BUDGETS[thinking]
  const maxTokens = budget > 0 && model.maxTokens <= budget ? budget + 4096 : model.maxTokens
  const toolResultMaxChars = Math.min(Math.floor(model.contextWindow * 0.3 * 4), 400_000)
  const streamHooks = {onBlockStart: () => a.onStatus?.('streaming')}

  const out: ToolLoopOutcome = {finalText: '', stopReason: 'stop', aborted: false, usage: zeroUsage(), costUsd: 0, compactions: 0, toolCalls: 0}
  const runUsage = out.usage

  const addUsage = (u: CallUsage) => {
    runUsage.input += u.input
    runUsage.output += u.output
    runUsage.cacheRead += u.cacheRead
    runUsage.cacheWrite += u.cacheWrite
    runUsage.total += u.input + u.output + u.cacheRead + u.cacheWrite
    out.lastCall = {...u, total: u.input + u.output + u.cacheRead + u.cacheWrite}
    out.costUsd += costOf(model.cost, u).total
  }
  const addUsageIfAny = (c: CallResult) => {
    if (c.usage.input + c.usage.output + c.usage.cacheRead + c.usage.cacheWrite > 0) addUsage(c.usage)
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
    a.onStatus?.('compacting')
    const ctx = writer.context()
    const tokensBefore = estimateTokens(requestFor(currentApiMessages()))
    const plan = planCompaction(ctx, keepRecentTokens, tokensBefore)
    if (!plan) return false
    const prompt = buildSummaryPrompt(plan, Math.floor(model.contextWindow * 4 * 0.5))
    let call: CallResult
    try {
      call = await client.call({model: model.model, max_tokens: Math.max(256, Math.min(model.maxTokens, Math.floor(0.8 * reserveTokens))), system: SUMMARIZATION_SYSTEM_PROMPT, messages: [{role: 'user', content: [{type: 'text', text: prompt}]}]}, streamHooks)
    } catch (error) {
      // An abort or an overflow of the summary request itself just means "could not compact"; the caller decides.
      if (signal.aborted || isOverflowError(error)) return false
      throw describeApiError(error, model)
    }
    // Summary calls are not turn calls (store-format §7/§5.4): they cost money but are neither lastCallUsage nor
    // part of inputTokens/outputTokens.
    out.costUsd += costOf(model.cost, call.usage).total
    const summary = finishSummary(textOf(call.content), plan)
    await writer.append([{type: 'compaction', summary, firstKeptEntryId: plan.firstKeptEntryId, tokensBefore: plan.tokensBefore, details: {readFiles: plan.readFiles, modifiedFiles: plan.modifiedFiles}, fromHook: false}])
    out.compactions++
    out.postCompactionTokens = estimateTokens(requestFor(currentApiMessages()))
    return true
  }

  const finishAborted = async (call: CallResult | undefined, startedAt: number) => {
    out.aborted = true
    out.stopReason = 'aborted'
    const reason = a.abortReason() ?? 'interrupted'
    const c: CallResult = call ?? emptyCall()
    addUsageIfAny(c)
    out.finalText = textOf(c.content, '')
    await writer.append([{type: 'message', message: assistantMessage(model, c, startedAt, {stopReason: 'aborted', errorMessage: reason === 'timeout' ? 'Request timed out.' : 'Request was aborted'})}])
  }

  try {
    let overflowCompactions = 0
    // Entry count at the last guard compaction: a compaction that did not help is not repeated for the same context.
    let guardedAt = -1
    let truncatedHard = false
    for (let calls = 0; calls < MAX_MODEL_CALLS; ) {
      if (signal.aborted) {
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
      a.onStatus?.('waiting')
      let call: CallResult
      try {
        call = await client.call(requestFor(apiMessages), {...streamHooks, onText: a.onText})
      } catch (error) {
        const partial = (error as {partial?: CallResult}).partial
        // --timeout during the SDK's retries of a connection that never worked: not a timed-out reply but an
        // unreachable API, reported as such (Ctrl-C stays an interruption).
        const transportFailure = client.transportFailure()
        const cause = transportFailure === undefined ? undefined : networkCause(transportFailure)
        const unreachable = cause !== undefined && a.abortReason() === 'timeout' && !partial?.content.length
        if (signal.aborted && !unreachable) {
          await finishAborted(partial, startedAt)
          break
        }
        if (unreachable) {
          out.failure = connectionError(apiLocation(model), cause, '; --timeout ran out while retrying, and no reply was received.')
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
          if (signal.aborted) {
            await finishAborted(undefined, Date.now())
            break
          }
          out.failure = new ContextOverflowError(apiMessageOf(error as SdkError))
        } else out.failure = describeApiError(error, model)
        out.stopReason = 'error'
        // The error text may quote what the server echoed (request headers with the key): redacted before it is stored.
        await writer.append([{type: 'message', message: assistantMessage(model, partial ?? emptyCall(), startedAt, {stopReason: 'error', errorMessage: redactText(out.failure.message)})}])
        break
      }
      calls++
      addUsage(call.usage)
      out.postCompactionTokens = undefined
      out.stopReason = mapStopReason(call.stopReason)
      // The reply's text first: it has been streamed to the user, and a turn whose store refuses it still returns it.
      out.finalText = textOf(call.content, '')
      await writer.append([{type: 'message', message: assistantMessage(model, call, startedAt, {stopReason: out.stopReason})}])
      const pending = call.content.filter((b) => b.type === 'toolCall') as Array<{id: string; name: string; arguments: Record<string, unknown>}>
      if (out.stopReason !== 'toolUse' || pending.length === 0) break
      // Every call gets a result entry, even when aborted mid-way, so no tool call is ever left unpaired.
      a.onStatus?.('tool')
      for (const tc of pending) {
        const outcome = signal.aborted ? {text: 'Tool execution aborted.', isError: true} : await runTool(tc.name, tc.arguments, {workspaceDir, signal}, policy)
        out.toolCalls++
        await writer.append([{type: 'message', message: {role: 'toolResult', toolCallId: tc.id, toolName: tc.name, content: [{type: 'text', text: outcome.text}], ...('details' in outcome && outcome.details ? {details: outcome.details} : {}), isError: outcome.isError, timestamp: Date.now()}}])
      }
      if (signal.aborted) {
        await finishAborted(undefined, Date.now())
        break
      }
      if (calls >= MAX_MODEL_CALLS) out.stopReason = 'toolUse'
    }
  } catch (error) {
    if (error instanceof ClawkitError) {
      // A failed summary call during compaction: record it like any failed call.
      out.failure = error
      out.stopReason = 'error'
      await writer.append([{type: 'message', message: assistantMessage(model, emptyCall(), Date.now(), {stopReason: 'error', errorMessage: redactText(error.message)})}]).catch(() => {})
    } else {
      // Unexpected (disk, bug): still record the run, then rethrow.
      out.unexpected = error
    }
  }
  return out
}
