// One model call's event stream read into the assistant message: content blocks, usage, stop reason, and what a broken stream left.
import type {AssistantMessage, ContentBlock, Usage} from '../store/transcript-types.js'
import {fromApiContent} from './convert.js'
import {costOf, type ResolvedModel} from './model.js'

export interface CallUsage {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
}

/** What one call produced; `complete` only once message_stop arrived. */
export interface CallResult {
  content: ContentBlock[]
  stopReason: string | null
  responseId?: string
  usage: CallUsage
  complete: boolean
}

/** A call that produced nothing: what is recorded for a call that failed or was aborted before any event. */
export function emptyCall(): CallResult {
  return {content: [], stopReason: null, usage: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0}, complete: false}
}

export interface StreamHooks {
  /** Each text delta as it arrives (the reply streamed to stdout). */
  onText?: (delta: string) => void
  /** A content block started: the model is answering, no longer just waiting. */
  onBlockStart?: () => void
}

/**
 * Opens the stream and reads it to the end. Whatever way it fails (the request, a dropped connection, an abort), the
 * error thrown carries `partial`: the blocks and usage received so far, which the turn still records.
 */
export async function readModelStream(open: () => Promise<unknown>, signal: AbortSignal, hooks: StreamHooks = {}): Promise<CallResult> {
  const acc = emptyCall()
  // Raw API blocks by index as they build up; converted to transcript blocks at the end or on failure.
  const blocks: Array<Record<string, unknown>> = []
  const partialJson: string[] = []
  const sync = () => {
    acc.content = fromApiContent(blocks.filter(Boolean))
  }
  try {
    const s = await open()
    for await (const ev of s as AsyncIterable<Record<string, any>>) {
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
          hooks.onBlockStart?.()
          break
        case 'content_block_delta': {
          const b = blocks[ev.index]
          const d = ev.delta ?? {}
          if (!b) break
          if (d.type === 'text_delta') {
            b.text = String(b.text ?? '') + d.text
            hooks.onText?.(d.text)
          } else if (d.type === 'input_json_delta') partialJson[ev.index] += d.partial_json ?? ''
          else if (d.type === 'thinking_delta') b.thinking = String(b.thinking ?? '') + d.thinking
          else if (d.type === 'signature_delta') b.signature = String(b.signature ?? '') + d.signature
          break
        }
        case 'content_block_stop': {
          const b = blocks[ev.index]
          if (b?.type === 'tool_use') {
            // Arguments that do not parse become none: the tool answers with an error result instead of the turn failing.
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
          // message_delta carries the final counts; message_start's were only the opening ones.
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
    if (!acc.complete && signal.aborted) throw new Error('Request was aborted.')
    if (!acc.complete) throw new Error('The model stream ended before message_stop (connection dropped).')
    return acc
  } catch (error) {
    sync()
    throw Object.assign(error as object, {partial: acc})
  }
}

/** The transcript's assistant message for a call, in pi-ai's shape, priced with the model's configured costs. */
export function assistantMessage(model: ResolvedModel, call: CallResult, startedAt: number, extra: {stopReason: string; errorMessage?: string}): AssistantMessage {
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
