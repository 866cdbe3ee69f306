// The --json document of `clawkit agent`, shaped like OpenClaw's embedded (`openclaw agent --local --json`) output.
import fsp from 'node:fs/promises'

import {UsageError} from '../errors.js'
import type {AgentDeliveryResult} from '../channels/agent-delivery.js'
import type {AgentTurnResult} from './turn.js'
import type {TurnUsage} from './usage-apply.js'

export interface AgentRunResult {
  payloads: Array<{text: string; mediaUrl: string | null}>
  meta: {
    durationMs: number
    agentMeta: {
      sessionId: string
      sessionKey: string
      sessionFile: string
      agentId: string
      provider: string
      model: string
      contextTokens: number
      usage: TurnUsage
      lastCallUsage?: TurnUsage
      promptTokens?: number
      compactionCount: number
    }
    aborted: boolean
    stopReason: string
  }
  /** With --deliver, after a successful delivery. */
  delivery?: AgentDeliveryResult
  /** With --deliver, when delivery failed (the turn itself is stored; exit code 1). */
  deliveryError?: {code: string; message: string}
  /**
   * The reply came back but a later step failed, beside the reply: the index update on a full disk (the turn is
   * stored), or the transcript refused part of the turn (a database locked past the wait, a session another writer
   * moved on): the message then says what is stored and names the file in clawkit's data dir that holds the rest.
   * The error envelope's fields; the exit code is error.exitCode.
   */
  error?: {code: string; message: string; exitCode: number; suggestions?: string[]}
}

export function toAgentRunResult(r: AgentTurnResult): AgentRunResult {
  const text = r.text.trimEnd()
  return {
    payloads: text ? [{text, mediaUrl: null}] : [],
    meta: {
      durationMs: r.durationMs,
      agentMeta: {
        sessionId: r.sessionId,
        sessionKey: r.sessionKey,
        sessionFile: r.sessionFile,
        agentId: r.agentId,
        provider: r.provider,
        model: r.model,
        contextTokens: r.contextTokens,
        usage: r.usage,
        ...(r.lastCallUsage ? {lastCallUsage: r.lastCallUsage} : {}),
        ...(r.promptTokens === undefined ? {} : {promptTokens: r.promptTokens}),
        compactionCount: r.compactionCount,
      },
      aborted: r.aborted,
      stopReason: r.stopReason,
    },
  }
}

export const MAX_MESSAGE_FILE_BYTES = 4 * 1024 * 1024

/** The prompt from -m or --message-file (UTF-8, at most 4 MiB); exactly one of the two. */
export async function readMessageInput(message: string | undefined, file: string | undefined): Promise<string> {
  if (message !== undefined && file !== undefined) throw new UsageError('Pass either --message or --message-file, not both.', 'E_USAGE')
  if (file !== undefined) {
    let buf: Buffer
    try {
      const st = await fsp.stat(file)
      if (!st.isFile()) throw new UsageError(`--message-file ${file} is not a regular file.`, 'E_BAD_MESSAGE_FILE')
      if (st.size > MAX_MESSAGE_FILE_BYTES) throw new UsageError(`--message-file ${file} is ${st.size} bytes; the limit is 4 MiB.`, 'E_MESSAGE_TOO_LARGE')
      buf = await fsp.readFile(file)
    } catch (error) {
      if (error instanceof UsageError) throw error
      throw new UsageError(`Cannot read --message-file ${file}: ${(error as Error).message}`, 'E_BAD_MESSAGE_FILE')
    }
    const text = new TextDecoder('utf-8', {fatal: false}).decode(buf)
    if (text.includes('\uFFFD') && !buf.includes(Buffer.from('\uFFFD'))) throw new UsageError(`--message-file ${file} is not valid UTF-8.`, 'E_BAD_MESSAGE_FILE')
    if (!text.trim()) throw new UsageError('Message (--message) is required', 'E_NO_MESSAGE')
    return text
  }
  if (message === undefined || !message.trim()) throw new UsageError('Message (--message) is required', 'E_NO_MESSAGE')
  return message
}
