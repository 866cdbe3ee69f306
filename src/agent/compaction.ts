// Context compaction: choose a cut that never separates a tool call from its result, and build pi's summary request.
import type {ContextMessage, SessionContext} from '../store/context.js'
import type {AssistantMessage, ToolResultMessage} from '../store/transcript-types.js'
import {estimateTokens, textOf} from './convert.js'
import {capText} from './prompt.js'

/** pi's defaults, scaled down for small windows so a 48k model still keeps something and still has room to answer. */
export function compactionSettings(contextWindow: number): {reserveTokens: number; keepRecentTokens: number} {
  return {reserveTokens: Math.min(20_000, Math.floor(contextWindow * 0.25)), keepRecentTokens: Math.min(20_000, Math.floor(contextWindow * 0.3))}
}

export interface CompactionPlan {
  firstKeptEntryId: string
  /** Messages to fold into the summary (oldest first), excluding an earlier summary. */
  toSummarize: ContextMessage[]
  previousSummary?: string
  tokensBefore: number
  readFiles: string[]
  modifiedFiles: string[]
}

function isCutPoint(m: ContextMessage): boolean {
  // A toolResult is never a cut point, so results always stay with the call that produced them (pi's rule).
  return m.role === 'user' || m.role === 'assistant' || m.role === 'custom' || m.role === 'branchSummary'
}

/**
 * Plan a compaction of the current context. Walks back from the newest message until `keepRecentTokens` are kept,
 * then moves forward to the nearest valid cut point. Undefined when there is nothing before the cut to summarize.
 */
export function planCompaction(ctx: SessionContext, keepRecentTokens: number, tokensBefore: number): CompactionPlan | undefined {
  const msgs = ctx.messages
  const start = msgs[0]?.role === 'compactionSummary' ? 1 : 0
  if (msgs.length - start < 2) return undefined
  let acc = 0
  let at = msgs.length - 1
  for (let i = msgs.length - 1; i >= start; i--) {
    acc += estimateTokens(msgs[i])
    at = i
    if (acc >= keepRecentTokens) break
  }
  let cut = -1
  for (let i = Math.max(at, start + 1); i < msgs.length; i++) {
    if (isCutPoint(msgs[i])) {
      cut = i
      break
    }
  }
  // The newest message (this turn's prompt) is always kept; nothing earlier than start+1 would leave anything to fold.
  if (cut <= start) return undefined
  const toSummarize = msgs.slice(start, cut)
  if (toSummarize.length === 0) return undefined
  const readFiles = new Set<string>(ctx.compaction?.details?.readFiles ?? [])
  const modifiedFiles = new Set<string>(ctx.compaction?.details?.modifiedFiles ?? [])
  for (const m of toSummarize) {
    if (m.role !== 'assistant') continue
    for (const b of (m as AssistantMessage).content ?? []) {
      if (b.type !== 'toolCall') continue
      const p = (b as {arguments?: {path?: unknown}}).arguments?.path
      if (typeof p !== 'string') continue
      const name = (b as {name?: string}).name
      if (name === 'read') readFiles.add(p)
      else if (name === 'write' || name === 'edit') modifiedFiles.add(p)
    }
  }
  for (const f of modifiedFiles) readFiles.delete(f)
  return {
    firstKeptEntryId: ctx.entryIds[cut],
    toSummarize,
    previousSummary: start === 1 ? (msgs[0] as {summary: string}).summary : undefined,
    tokensBefore,
    readFiles: [...readFiles].sort(),
    modifiedFiles: [...modifiedFiles].sort(),
  }
}

const TOOL_RESULT_SUMMARY_CHARS = 2000

/** pi's serialization: plain tagged lines, so the summarizer reads a record instead of continuing a chat. */
export function serializeConversation(messages: ContextMessage[]): string {
  const lines: string[] = []
  for (const m of messages) {
    if (m.role === 'user' || m.role === 'custom') lines.push(`[User]: ${textOf((m as {content: unknown}).content)}`)
    else if (m.role === 'branchSummary') lines.push(`[Branch summary]: ${(m as {summary: string}).summary}`)
    else if (m.role === 'assistant') {
      const a = m as AssistantMessage
      const thinking = a.content.filter((b) => b.type === 'thinking').map((b) => String((b as {thinking?: string}).thinking ?? ''))
      if (thinking.join('').trim()) lines.push(`[Assistant thinking]: ${thinking.join('\n')}`)
      const text = textOf(a.content)
      if (text.trim()) lines.push(`[Assistant]: ${text}`)
      const calls = a.content
        .filter((b) => b.type === 'toolCall')
        .map((b) => {
          const c = b as {name: string; arguments?: Record<string, unknown>}
          return `${c.name}(${Object.entries(c.arguments ?? {})
            .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
            .join(', ')})`
        })
      if (calls.length > 0) lines.push(`[Assistant tool calls]: ${calls.join('; ')}`)
    } else if (m.role === 'toolResult') {
      const t = textOf((m as ToolResultMessage).content)
      const cut = t.length > TOOL_RESULT_SUMMARY_CHARS ? `${t.slice(0, TOOL_RESULT_SUMMARY_CHARS)}\n[... ${t.length - TOOL_RESULT_SUMMARY_CHARS} more characters truncated]` : t
      lines.push(`[Tool result]: ${cut}`)
    }
  }
  return lines.join('\n\n')
}

export const SUMMARIZATION_SYSTEM_PROMPT =
  'You are a context summarization assistant. Your task is to read a conversation between a user and an AI coding assistant, then produce a structured summary following the exact format specified.\n\nDo NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the structured summary.'

const SUMMARY_FORMAT = `Use this EXACT format:

## Goal
[What is the user trying to accomplish?]

## Constraints & Preferences
- [Requirements or preferences the user stated]

## Progress
### Done
- [x] [Completed tasks]

### In Progress
- [ ] [Current work]

### Blocked
- [Issues, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [What should happen next]

## Critical Context
- [Data, file paths, function names or error messages needed to continue]

Keep each section concise. Preserve exact file paths, function names, and error messages.`

/** The user message of the summary request: the conversation, any previous summary, then the instructions. */
export function buildSummaryPrompt(plan: CompactionPlan, maxChars: number): string {
  const conversation = capText(serializeConversation(plan.toSummarize), maxChars).text
  const parts = [`<conversation>\n${conversation}\n</conversation>`]
  if (plan.previousSummary) {
    parts.push(`<previous-summary>\n${plan.previousSummary}\n</previous-summary>`)
    parts.push(`The messages above are NEW conversation messages to incorporate into the existing summary provided in <previous-summary> tags.\nUpdate the existing structured summary with new information: keep all existing information, add new progress, decisions and context, move completed items from "In Progress" to "Done", and update "Next Steps".\n\n${SUMMARY_FORMAT}`)
  } else {
    parts.push(`The messages above are a conversation to summarize. Create a structured context checkpoint summary that another LLM will use to continue the work.\n\n${SUMMARY_FORMAT}`)
  }
  return parts.join('\n\n')
}

/** pi appends the file lists to the summary text. */
export function finishSummary(summary: string, plan: CompactionPlan): string {
  let out = summary.trim() || 'Summary unavailable: the summarizer returned no text.'
  if (plan.readFiles.length > 0) out += `\n\n<read-files>\n${plan.readFiles.join('\n')}\n</read-files>`
  if (plan.modifiedFiles.length > 0) out += `\n\n<modified-files>\n${plan.modifiedFiles.join('\n')}\n</modified-files>`
  return out
}
