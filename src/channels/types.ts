// Shared types of the channel delivery core: channel ids, parsed targets, send requests and results.

/** Channels clawkit can deliver to itself (no gateway). */
export const SUPPORTED_CHANNELS = ['telegram', 'discord', 'slack', 'webhook'] as const
export type ChannelId = (typeof SUPPORTED_CHANNELS)[number]

/** OpenClaw's built-in channel ids (cli-surface.md §6.2): known names that clawkit cannot deliver to directly. */
export const OPENCLAW_CHANNELS = ['telegram', 'whatsapp', 'discord', 'irc', 'googlechat', 'slack', 'signal', 'imessage', 'line'] as const

export const CHANNEL_LABELS: Record<ChannelId, string> = {telegram: 'Telegram', discord: 'Discord', slack: 'Slack', webhook: 'Webhook'}

export type ChatType = 'direct' | 'group' | 'channel'

/** A target after per-channel parsing: what the API is called with and how the session key is derived. */
export interface ParsedTarget {
  channel: ChannelId
  /** The target as the user gave it. */
  raw: string
  /** user -> a DM, group/channel -> a shared conversation. */
  kind: 'user' | 'group' | 'channel'
  /** The platform id (Telegram chat id or @username, Discord/Slack channel or user id, webhook URL). */
  id: string
  /** Telegram topic from a `<chatId>:topic:<id>` target. */
  threadId?: string
}

/** Credentials and endpoint for one channel account; the token never leaves this object except in an HTTP header/path. */
export interface ChannelAccount {
  channel: ChannelId
  accountId: string
  token?: string
  /** Where the token came from, for error hints (never the token itself). */
  tokenSource?: string
  baseUrl: string
  /** Extra headers for the webhook channel. */
  headers?: Record<string, string>
  /** --dry-run without a token: `token` is a placeholder and this says what to set (a real send would fail). */
  tokenMissing?: string
}

export interface MediaRef {
  /** As given on the command line. */
  source: string
  kind: 'url' | 'file'
  /** Absolute path for files. */
  path?: string
  fileName: string
  /** Size in bytes for files. */
  size?: number
  isImage: boolean
  contentType: string
}

export interface SendParams {
  target: ParsedTarget
  text: string
  media?: MediaRef
  replyTo?: string
  threadId?: string
  silent?: boolean
}

/** One HTTP request as clawkit would send it, with the token redacted (the --dry-run output). */
export interface RequestPreview {
  method: string
  url: string
  headers: Record<string, string>
  /** JSON body, or a description of multipart fields ({field: value | "<file name, N bytes>"}). */
  body?: unknown
  bodyType?: 'json' | 'multipart' | 'form' | 'binary'
  /** Why this request is needed, when it is not the message itself. */
  note?: string
}

export interface ChannelSendResult {
  messageId: string
  /** All message ids when the text was split over several messages. */
  messageIds: string[]
  chatId?: string
  channelId?: string
  /** Message parts sent (1 unless the text was split). */
  parts: number
}
