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
  /** The abandoned leaf, or "root". */
  fromId: string
  summary: string
  details?: unknown
  fromHook?: boolean
}
/** Extension state (`openclaw.cache-ttl`, `model-snapshot`, ...): not part of the model context. */
export interface CustomEntry extends EntryBase {
  type: 'custom'
  customType: string
  data?: unknown
}
export interface CustomMessageEntry extends EntryBase {
  type: 'custom_message'
  customType: string
  content: string | ContentBlock[]
  display: boolean
  details?: unknown
}
/** A bookmark on another entry; a cleared label is written without the `label` key. */
export interface LabelEntry extends EntryBase {
  type: 'label'
  targetId: string
  label?: string
}
/**
 * SQLite era (OpenClaw 2026.7+): `/new` and `/reset` keep the sessionId and append this (store-sqlite.md section 5);
 * `firstKeptEntryId` only in preserve-tail mode.
 */
export interface ResetEntry extends EntryBase {
  type: 'reset'
  reason?: string
  firstKeptEntryId?: string
}
/** SQLite era: an opaque leaf marker (store-sqlite.md section 3.5); readers keep it and skip it. */
export interface LeafEntry extends EntryBase {
  type: 'leaf'
}
/** The session's display name (the latest entry with a name wins). */
export interface SessionInfoEntry extends EntryBase {
  type: 'session_info'
  name?: string
}

/** Every entry type OpenClaw writes after the header: pi's v3 (store-format.md section 6.4) and the SQLite era's. */
export const ENTRY_TYPES = ['message', 'model_change', 'thinking_level_change', 'compaction', 'branch_summary', 'custom', 'custom_message', 'label', 'session_info', 'reset', 'leaf'] as const
export type EntryType = (typeof ENTRY_TYPES)[number]

/**
 * A transcript entry: one closed union, discriminated by `type`, a variant per type OpenClaw writes. A line of a type
 * none of them names (a newer OpenClaw's) is still kept and chained by readers, as an EntryBase, but never narrows
 * into one of these; `isKnownEntry` tells them apart.
 */
export type TranscriptEntry = MessageEntry | ModelChangeEntry | ThinkingLevelChangeEntry | CompactionEntry | BranchSummaryEntry | CustomEntry | CustomMessageEntry | LabelEntry | SessionInfoEntry | ResetEntry | LeafEntry

const ENTRY_TYPE_SET: ReadonlySet<string> = new Set(ENTRY_TYPES)

export function isKnownEntry(e: EntryBase): e is TranscriptEntry {
  return ENTRY_TYPE_SET.has(e.type)
}

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
