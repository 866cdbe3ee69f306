// Session ids, which every backend names transcripts after: which ids are safe, and the JSONL file name a session's
// transcript has in OpenClaw's file layout (and in any export written as one).
import {UsageError} from '../errors.js'
import type {SessionEntry, SessionStore, TranscriptRef} from './types.js'

export const SAFE_SESSION_ID_RE = /^[a-z0-9][a-z0-9._-]{0,127}$/i

export function isSafeSessionId(id: string): boolean {
  return SAFE_SESSION_ID_RE.test(id.trim())
}

/**
 * OpenClaw 2026.9.6's own rule (validateSessionId): letters, digits and marks of any script, ".", "_" and "-", starting
 * with a letter or digit, NFC. The SQLite era may hold ids the ASCII rule above refuses; none holds "#" or "/", which
 * is what lets a database locator (`<db>#<sessionId>`, `<db>#archive/<name>`) be split back without doubt.
 */
const OPENCLAW_SESSION_ID_RE = /^[\p{L}\p{N}][\p{L}\p{N}\p{M}._-]{0,127}$/u

export function isOpenClawSessionId(id: string): boolean {
  const trimmed = id.trim()
  return trimmed === trimmed.normalize('NFC') && OPENCLAW_SESSION_ID_RE.test(trimmed)
}

export function assertSafeSessionId(id: string): string {
  const trimmed = id.trim()
  if (!SAFE_SESSION_ID_RE.test(trimmed)) {
    throw new UsageError(`Invalid session ID: ${JSON.stringify(id).slice(0, 140)}. Session ids are 1-128 characters of letters, digits, ".", "_" and "-", starting with a letter or digit.`, 'E_BAD_SESSION_ID')
  }
  return trimmed
}

/** An index entry whose sessionId cannot name a transcript (every backend names transcripts after it). */
export function badEntrySessionId(sessionId: string, key?: string): UsageError {
  return new UsageError(`Invalid session ID: ${JSON.stringify(sessionId).slice(0, 140)} (in the index entry${key ? ` ${key}` : ''}); it cannot name a transcript file. Nothing was changed; "clawkit doctor" reports the entry, and removing or renaming it in the index lets it be read.`, 'E_BAD_SESSION_ID')
}

/** `<sessionId>[-topic-<encoded topic>].jsonl`, OpenClaw's file name for a new transcript. */
export function transcriptFileName(sessionId: string, topicId?: string | number): string {
  const id = assertSafeSessionId(sessionId)
  if (topicId === undefined || topicId === '') return `${id}.jsonl`
  const topic = typeof topicId === 'number' ? String(topicId) : encodeURIComponent(topicId)
  return `${id}-topic-${topic}.jsonl`
}

/**
 * The store's transcript of an entry, or undefined when the entry's id names none (the store refuses it with
 * E_BAD_SESSION_ID): what a walk over every entry (status's runaway check, follow, cleanup) takes, so that one bad
 * entry is passed over, not the end of the walk. A command on that one session still gets the error.
 */
export function transcriptOrNone(store: Pick<SessionStore, 'transcriptOf'>, entry: Pick<SessionEntry, 'sessionId' | 'sessionFile'>, key?: string): TranscriptRef | undefined {
  try {
    return store.transcriptOf(entry, key)
  } catch (error) {
    if ((error as {code?: string}).code === 'E_BAD_SESSION_ID') return undefined
    throw error
  }
}
