// Thinking levels: OpenClaw's names and aliases, and the extended-thinking budget each one asks the API for.
import {UsageError} from '../errors.js'

export const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high'] as const
export type ThinkingLevel = (typeof THINKING_LEVELS)[number]

/** pi-ai's Anthropic budgets (tokens of extended thinking per call). */
export const THINKING_BUDGETS: Record<Exclude<ThinkingLevel, 'off'>, number> = {minimal: 1024, low: 2048, medium: 8192, high: 16_384}

const ALIASES: Record<string, ThinkingLevel> = {
  off: 'off',
  none: 'off',
  minimal: 'minimal',
  min: 'minimal',
  think: 'minimal',
  low: 'low',
  on: 'low',
  enable: 'low',
  enabled: 'low',
  thinkhard: 'low',
  medium: 'medium',
  mid: 'medium',
  med: 'medium',
  thinkharder: 'medium',
  harder: 'medium',
  high: 'high',
  ultra: 'high',
  ultrathink: 'high',
  thinkhardest: 'high',
  highest: 'high',
  max: 'high',
}

/** Normalize a level as OpenClaw does (case, spaces, "-" and "_" ignored); undefined when unknown. */
export function normalizeThinkingLevel(raw: string | undefined): ThinkingLevel | undefined {
  if (raw === undefined) return undefined
  return ALIASES[raw.trim().toLowerCase().replace(/[\s_-]+/g, '')]
}

export function parseThinkingFlag(raw: string): ThinkingLevel {
  const level = normalizeThinkingLevel(raw)
  if (!level) throw new UsageError(`Invalid thinking level. Use one of: ${THINKING_LEVELS.join(', ')}.`, 'E_BAD_THINKING_LEVEL')
  return level
}
