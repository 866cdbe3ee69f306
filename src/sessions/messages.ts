// What a person calls a message in a transcript: the entry types that `--limit` counts and that history, lineage
// and export number. Its own module so that history (which reads a key's lineage) and lineage share it.
import type {TranscriptEntry} from '../store/transcript-types.js'

/** Entry types that count toward --limit: what a person calls a message. */
export const HISTORY_MESSAGE_TYPES: ReadonlySet<string> = new Set(['message', 'compaction', 'branch_summary', 'custom_message'])

export function isHistoryMessage(e: TranscriptEntry): boolean {
  return HISTORY_MESSAGE_TYPES.has(e.type)
}
