// Shapes of pi-coding-agent JSONL v3 transcript lines as OpenClaw writes them (store-format.md section 6).

export const CURRENT_TRANSCRIPT_VERSION = 3

export interface TranscriptHeader {
  type: 'session'
  version?: number
  id: string
  timestamp: string
  cwd?: string
  parentSession?: string
  [k: string]: unknown
}

export interface TextBlock {
  type: 'text'
  text: string
  textSignature?: string
}
export interface ThinkingBlock {
  type: 'thinking'
  thinking: string
  thinkingSignature?: string
  redacted?: boolean
}
export interface ImageBlock {
  type: 'image'
  data: string
  mimeType: string
}
export interface ToolCallBlock {
  type: 'toolCall'
  id: string
  name: string
  arguments: Record<string, unknown>
  thoughtSignature?: string
}
export type ContentBlock = TextBlock | ThinkingBlock | ImageBlock | ToolCallBlock | {type: string; [k: string]: unknown}

export interface Usage {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  totalTokens: number
  cost: {input: number; output: number; cacheRead: number; cacheWrite: number; total: number}
}

export type StopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted'

export interface UserMessage {
  role: 'user'
  content: string | ContentBlock[]
  timestamp: number
  [k: string]: unknown
}
export interface AssistantMessage {
  role: 'assistant'
  content: ContentBlock[]
  api: string
  provider: string
  model: string
  usage: Usage
  stopReason: StopReason | string
  errorMessage?: string
  timestamp: number
  idempotencyKey?: string
  [k: string]: unknown
}
export interface ToolResultMessage {
  role: 'toolResult'
  toolCallId: string
  toolName: string
  content: ContentBlock[]
  details?: unknown
  isError: boolean
  timestamp: number
  [k: string]: unknown
}
export type AgentMessage = UserMessage | AssistantMessage | ToolResultMessage | {role: string; timestamp?: number; [k: string]: unknown}

export interface EntryBase {
  type: string
  id: string
  parentId: string | null
  timestamp: string
  [k: string]: unknown
}
export interface MessageEntry extends EntryBase {
  type: 'message'
  message: AgentMessage
}
export interface CompactionEntry extends EntryBase {
  type: 'compaction'
  summary: string
  firstKeptEntryId: string
  tokensBefore: number
  details?: {readFiles?: string[]; modifiedFiles?: string[]}
  fromHook?: boolean
}
export interface ModelChangeEntry extends EntryBase {
  type: 'model_change'
  provider: string
  modelId: string
}
export interface ThinkingLevelChangeEntry extends EntryBase {
  type: 'thinking_level_change'
  thinkingLevel: string
}
export interface BranchSummaryEntry extends EntryBase {
  type: 'branch_summary'
  fromId: string
  summary: string
}
export interface CustomMessageEntry extends EntryBase {
  type: 'custom_message'
  customType: string
  content: string | ContentBlock[]
  display: boolean
  details?: unknown
}
export type TranscriptEntry = MessageEntry | CompactionEntry | ModelChangeEntry | ThinkingLevelChangeEntry | BranchSummaryEntry | CustomMessageEntry | EntryBase

/** A line that could not be used, kept so tools can report (and doctor can preserve) it. */
export interface BadLine {
  /** 1-based line number in the file (for tail reads: counted from the end, negative). */
  line: number
  /** Byte offset of the line start in the file. */
  offset: number
  reason: 'torn' | 'invalid-json' | 'not-an-object' | 'missing-id' | 'invalid-utf8' | 'undecodable'
  /** First 200 characters of the line, for messages. */
  preview: string
}
