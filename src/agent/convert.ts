// Converts between the transcript's pi-ai message shapes and Anthropic Messages API params, repairing tool pairing.
import type {AgentMessage, AssistantMessage, ContentBlock, ToolResultMessage} from '../store/transcript-types.js'

export type ApiBlock = Record<string, unknown> & {type: string}
export interface ApiMessage {
  role: 'user' | 'assistant'
  content: ApiBlock[]
}

export const MISSING_TOOL_RESULT_TEXT = '[clawkit] missing tool result in session history; inserted synthetic error result for transcript repair.'

function userBlocks(content: unknown): ApiBlock[] {
  if (typeof content === 'string') return content ? [{type: 'text', text: content}] : []
  if (!Array.isArray(content)) return []
  const out: ApiBlock[] = []
  for (const b of content as ContentBlock[]) {
    if (b?.type === 'text' && typeof (b as {text?: unknown}).text === 'string') {
      if ((b as {text: string}).text) out.push({type: 'text', text: (b as {text: string}).text})
    } else if (b?.type === 'image' && typeof (b as {data?: unknown}).data === 'string') {
      out.push({type: 'image', source: {type: 'base64', media_type: (b as {mimeType?: string}).mimeType ?? 'image/png', data: (b as {data: string}).data}})
    }
  }
  return out
}

function assistantBlocks(m: AssistantMessage): ApiBlock[] {
  const out: ApiBlock[] = []
  for (const b of m.content ?? []) {
    if (b.type === 'text') {
      const text = (b as {text?: string}).text
      if (text && text.trim()) out.push({type: 'text', text})
    } else if (b.type === 'thinking') {
      const t = b as {thinking?: string; thinkingSignature?: string; redacted?: boolean}
      // Thinking is only replayable with its signature; without one it goes back as plain text (pi-ai does the same).
      if (t.redacted && t.thinkingSignature) out.push({type: 'redacted_thinking', data: t.thinkingSignature})
      else if (t.thinkingSignature && t.thinking) out.push({type: 'thinking', thinking: t.thinking, signature: t.thinkingSignature})
      else if (t.thinking && t.thinking.trim()) out.push({type: 'text', text: t.thinking})
    } else if (b.type === 'toolCall') {
      const c = b as {id?: string; name?: string; arguments?: unknown}
      if (typeof c.id !== 'string' || typeof c.name !== 'string' || !c.arguments || typeof c.arguments !== 'object') continue
      out.push({type: 'tool_use', id: c.id, name: c.name, input: c.arguments})
    }
  }
  return out
}

function toolResultBlock(m: ToolResultMessage): ApiBlock {
  const content = userBlocks(m.content)
  return {type: 'tool_result', tool_use_id: m.toolCallId, content: content.length > 0 ? content : [{type: 'text', text: '(no output)'}], is_error: Boolean(m.isError)}
}

/** OpenClaw's assistant messages that only record something in the transcript (a channel delivery, an injection). */
const TRANSCRIPT_ONLY_MODELS = new Set(['delivery-mirror', 'gateway-injected'])
const DELIVERY_MIRROR_KINDS = new Set(['channel-final', 'channel-final-suppressed', 'message-tool-source-reply', 'cron-direct-delivery-context'])

/**
 * OpenClaw never replays these to the model (2026.4.27 and 2026.9.6 `normalizeAssistantReplayContent`,
 * `isTranscriptOnlyOpenClawAssistantMessage`): a delivered copy is already the model's own earlier reply, or text the
 * model did not write. Replaying it would give the two tools different histories for one session.
 */
export function isTranscriptOnlyAssistant(m: AssistantMessage): boolean {
  const a = m as AssistantMessage & {openclawDeliveryMirror?: {kind?: unknown}}
  if (a.provider === 'openclaw' && typeof a.model === 'string' && TRANSCRIPT_ONLY_MODELS.has(a.model)) return true
  const kind = a.openclawDeliveryMirror && typeof a.openclawDeliveryMirror === 'object' ? a.openclawDeliveryMirror.kind : undefined
  return typeof kind === 'string' && DELIVERY_MIRROR_KINDS.has(kind)
}

/**
 * pi-ai's Anthropic conversion plus OpenClaw's repair (agent-loop.md §6.7): transcript-only OpenClaw messages
 * (isTranscriptOnlyAssistant) and assistant messages that failed or were aborted are skipped; each tool_use is followed by exactly its tool_results in the next user message (missing ones
 * get a synthetic error result, orphans and duplicates are dropped); consecutive same-role messages are merged.
 */
export function toApiMessages(messages: AgentMessage[]): ApiMessage[] {
  const out: ApiMessage[] = []
  const push = (role: 'user' | 'assistant', content: ApiBlock[]) => {
    if (content.length === 0) return
    const last = out.at(-1)
    if (last && last.role === role) {
      // tool_result blocks must lead a user message; merge after them, never before.
      last.content.push(...content)
    } else out.push({role, content})
  }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (m.role === 'user') push('user', userBlocks((m as {content: unknown}).content))
    else if (m.role === 'assistant') {
      const a = m as AssistantMessage
      if (a.stopReason === 'error' || a.stopReason === 'aborted' || isTranscriptOnlyAssistant(a)) continue
      const blocks = assistantBlocks(a)
      if (blocks.length === 0) continue
      const calls = blocks.filter((b) => b.type === 'tool_use')
      if (calls.length === 0) {
        push('assistant', blocks)
        continue
      }
      // Gather this assistant's results from the messages that follow, up to the next assistant message.
      const results = new Map<string, ApiBlock>()
      let j = i + 1
      const laterOthers: AgentMessage[] = []
      for (; j < messages.length && messages[j].role !== 'assistant'; j++) {
        const n = messages[j]
        if (n.role === 'toolResult') {
          const r = n as ToolResultMessage
          if (calls.some((c) => c.id === r.toolCallId) && !results.has(r.toolCallId)) results.set(r.toolCallId, toolResultBlock(r))
        } else laterOthers.push(n)
      }
      push('assistant', blocks)
      const resultBlocks = calls.map((c) => results.get(c.id as string) ?? {type: 'tool_result', tool_use_id: c.id, content: [{type: 'text', text: MISSING_TOOL_RESULT_TEXT}], is_error: true})
      out.push({role: 'user', content: resultBlocks})
      for (const n of laterOthers) if (n.role === 'user') push('user', userBlocks((n as {content: unknown}).content))
      i = j - 1
    }
    // toolResult messages outside a tool_use turn are orphans: dropped.
  }
  // The API needs the conversation to start with a user turn.
  while (out.length > 0 && out[0].role !== 'user') out.shift()
  return out
}

export type PiStopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted'

export function mapStopReason(reason: string | null | undefined): PiStopReason {
  switch (reason) {
    case 'tool_use':
      return 'toolUse'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'refusal':
      return 'error'
    default:
      return 'stop'
  }
}

/** Anthropic response content -> pi-ai assistant content blocks (text, thinking, toolCall). */
export function fromApiContent(content: Array<Record<string, unknown>>): ContentBlock[] {
  const out: ContentBlock[] = []
  for (const b of content) {
    if (b.type === 'text') out.push({type: 'text', text: String(b.text ?? '')})
    else if (b.type === 'thinking') out.push({type: 'thinking', thinking: String(b.thinking ?? ''), ...(b.signature ? {thinkingSignature: String(b.signature)} : {})})
    else if (b.type === 'redacted_thinking') out.push({type: 'thinking', thinking: '[Reasoning redacted]', thinkingSignature: String(b.data ?? ''), redacted: true})
    else if (b.type === 'tool_use') out.push({type: 'toolCall', id: String(b.id), name: String(b.name), arguments: (b.input && typeof b.input === 'object' ? b.input : {}) as Record<string, unknown>})
  }
  return out
}

/**
 * The text blocks of a message's content (a plain string is its own text), one per line: how the summarizer reads a
 * message. A reply passes `''`, so that its text is exactly what was streamed to stdout, delta by delta.
 */
export function textOf(content: unknown, separator = '\n'): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .filter((b) => b && b.type === 'text')
    .map((b) => String(b.text))
    .join(separator)
}

/** chars/4, pi's conservative estimate, over what is actually sent. */
export function estimateTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value ?? '').length / 4)
}
