// Rebuilds the model-facing message list from transcript entries the way pi's buildSessionContext does (store-format.md section 6.6).
import type {AgentMessage, CompactionEntry, ContentBlock, CustomMessageEntry, MessageEntry, TranscriptEntry} from './transcript-types.js'

export const COMPACTION_SUMMARY_PREFIX = 'The conversation history before this point was compacted into the following summary:\n\n<summary>\n'
export const COMPACTION_SUMMARY_SUFFIX = '\n</summary>'
export const BRANCH_SUMMARY_PREFIX = 'The following is a summary of a branch that this conversation came back from:\n\n<summary>\n'
export const BRANCH_SUMMARY_SUFFIX = '</summary>'

export type ContextMessage =
  | AgentMessage
  | {role: 'compactionSummary'; summary: string; tokensBefore: number; timestamp: number}
  | {role: 'branchSummary'; summary: string; fromId: string; timestamp: number}
  | {role: 'custom'; customType: string; content: string | ContentBlock[]; display: boolean; details?: unknown; timestamp: number}

export interface SessionContext {
  messages: ContextMessage[]
  /** Entry id each message came from (parallel to messages). */
  entryIds: string[]
  thinkingLevel: string
  model?: {provider: string; modelId: string}
  /** The compaction in effect, if any. */
  compaction?: CompactionEntry
  leafId: string | null
}

/** Root-to-leaf path for `leafId` (default: the last entry), following parentId. */
export function pathToLeaf(entries: TranscriptEntry[], leafId?: string | null): TranscriptEntry[] {
  if (leafId === null || entries.length === 0) return []
  const byId = new Map<string, TranscriptEntry>()
  for (const e of entries) byId.set(e.id, e)
  const leaf = (leafId && byId.get(leafId)) || entries.at(-1)!
  const path: TranscriptEntry[] = []
  const seen = new Set<string>()
  for (let cur: TranscriptEntry | undefined = leaf; cur && !seen.has(cur.id); cur = cur.parentId ? byId.get(cur.parentId) : undefined) {
    seen.add(cur.id)
    path.push(cur)
  }
  return path.reverse()
}

function ms(iso: string): number {
  const t = Date.parse(iso)
  return Number.isFinite(t) ? t : 0
}

function toContextMessage(e: TranscriptEntry): ContextMessage | undefined {
  if (e.type === 'message') return (e as MessageEntry).message
  if (e.type === 'custom_message') {
    const c = e as CustomMessageEntry
    return {role: 'custom', customType: c.customType, content: c.content, display: c.display, details: c.details, timestamp: ms(c.timestamp)}
  }
  if (e.type === 'branch_summary' && typeof e.summary === 'string' && e.summary) {
    return {role: 'branchSummary', summary: e.summary, fromId: String(e.fromId), timestamp: ms(e.timestamp)}
  }
  return undefined
}

export function buildSessionContext(entries: TranscriptEntry[], leafId?: string | null): SessionContext {
  return contextFromPath(pathToLeaf(entries, leafId))
}

/** buildSessionContext for a root-to-leaf path already at hand (a writer that only ever appends to its leaf). */
export function contextFromPath(path: TranscriptEntry[]): SessionContext {
  let thinkingLevel = 'off'
  let model: SessionContext['model']
  let compaction: CompactionEntry | undefined
  let compactionIdx = -1
  path.forEach((e, i) => {
    if (e.type === 'thinking_level_change' && typeof e.thinkingLevel === 'string') thinkingLevel = e.thinkingLevel
    else if (e.type === 'model_change' && typeof e.provider === 'string') model = {provider: e.provider, modelId: String(e.modelId)}
    else if (e.type === 'message' && (e as MessageEntry).message?.role === 'assistant') {
      const m = (e as MessageEntry).message as {provider?: string; model?: string}
      if (m.provider && m.model) model = {provider: m.provider, modelId: m.model}
    } else if (e.type === 'compaction') {
      compaction = e as CompactionEntry
      compactionIdx = i
    }
  })
  const messages: ContextMessage[] = []
  const entryIds: string[] = []
  const emit = (e: TranscriptEntry) => {
    const m = toContextMessage(e)
    if (m) {
      messages.push(m)
      entryIds.push(e.id)
    }
  }
  if (compaction) {
    messages.push({role: 'compactionSummary', summary: compaction.summary, tokensBefore: compaction.tokensBefore, timestamp: ms(compaction.timestamp)})
    entryIds.push(compaction.id)
    const keptStart = path.findIndex((e, i) => i < compactionIdx && e.id === compaction!.firstKeptEntryId)
    if (keptStart >= 0) for (let i = keptStart; i < compactionIdx; i++) emit(path[i])
    for (let i = compactionIdx + 1; i < path.length; i++) emit(path[i])
  } else {
    for (const e of path) emit(e)
  }
  return {messages, entryIds, thinkingLevel, model, compaction, leafId: path.at(-1)?.id ?? null}
}

/** pi's convertToLlm: summaries and custom messages become user text; user/assistant/toolResult pass through. */
export function toLlmMessages(messages: ContextMessage[]): AgentMessage[] {
  const out: AgentMessage[] = []
  for (const m of messages) {
    switch (m.role) {
      case 'compactionSummary':
        out.push({role: 'user', content: [{type: 'text', text: COMPACTION_SUMMARY_PREFIX + (m as {summary: string}).summary + COMPACTION_SUMMARY_SUFFIX}], timestamp: m.timestamp as number})
        break
      case 'branchSummary':
        out.push({role: 'user', content: [{type: 'text', text: BRANCH_SUMMARY_PREFIX + (m as {summary: string}).summary + BRANCH_SUMMARY_SUFFIX}], timestamp: m.timestamp as number})
        break
      case 'custom': {
        const c = (m as {content: string | ContentBlock[]}).content
        out.push({role: 'user', content: typeof c === 'string' ? [{type: 'text', text: c}] : c, timestamp: m.timestamp as number})
        break
      }
      case 'bashExecution':
        if (!(m as {excludeFromContext?: boolean}).excludeFromContext) {
          const b = m as {command?: string; output?: string}
          out.push({role: 'user', content: [{type: 'text', text: `Ran \`${b.command ?? ''}\`\n\`\`\`\n${b.output ?? ''}\n\`\`\``}], timestamp: m.timestamp as number})
        }
        break
      case 'user':
      case 'assistant':
      case 'toolResult':
        out.push(m as AgentMessage)
        break
      default:
        break
    }
  }
  return out
}
