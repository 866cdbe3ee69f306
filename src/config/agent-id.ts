// Agent and account id normalization, byte-for-byte OpenClaw's normalizeAgentId (store-format.md §1.6).

export const DEFAULT_AGENT_ID = 'main'
export const DEFAULT_ACCOUNT_ID = 'default'

const VALID_ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/i
const INVALID_CHARS_RE = /[^a-z0-9_-]+/g

export function normalizeAgentId(raw: string | undefined | null): string {
  const trimmed = (raw ?? '').trim()
  if (!trimmed) return DEFAULT_AGENT_ID
  if (VALID_ID_RE.test(trimmed)) return trimmed.toLowerCase()
  const cleaned = trimmed.toLowerCase().replace(INVALID_CHARS_RE, '-').replace(/^-+/, '').replace(/-+$/, '').slice(0, 64)
  return cleaned || DEFAULT_AGENT_ID
}

const BLOCKED_ACCOUNT_IDS = new Set(['__proto__', 'constructor', 'prototype'])

export function normalizeAccountId(raw: string | undefined | null): string {
  if (!(raw ?? '').trim()) return DEFAULT_ACCOUNT_ID
  const id = normalizeAgentId(raw)
  return BLOCKED_ACCOUNT_IDS.has(id) ? DEFAULT_ACCOUNT_ID : id
}

/** An agent id that is safe to use as a single path segment (it already went through normalizeAgentId). */
export function isSafeAgentDirName(id: string): boolean {
  return VALID_ID_RE.test(id) && id !== '.' && id !== '..'
}
