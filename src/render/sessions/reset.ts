// The human output of `clawkit sessions reset`: its result as lines (the command prints each through its `out`, which
// makes them terminal-safe line by line, as before these lines moved here).
import type {SessionsResetPlan, SessionsResetResult} from '../../sessions/reset.js'
import {journalLine} from '../journal.js'

/**
 * A SQLite-era reset moves nothing: the old session keeps its window and events in the database, under the same
 * locator (`<database>#<old session id>`), so the plan names one place, not a move from it to itself.
 */
const keptInPlace = (from: string | null, to: string | null) => from !== null && from === to

/** `--dry-run`: what would be reset, archived and cleared. */
export function renderResetPlan(plan: SessionsResetPlan): string[] {
  return [
    `[dry-run] would reset ${plan.key}: ${plan.previousSessionId} → a new session id`,
    keptInPlace(plan.transcript, plan.archivedTranscript)
      ? `Would keep the old transcript in the database, as an earlier window of the key: ${plan.transcript}`
      : plan.transcript
        ? `Would archive ${plan.transcript} as ${plan.archivedTranscript}`
        : 'There is no transcript on disk to archive.',
    plan.clearedFields.length > 0 ? `Would clear: ${plan.clearedFields.join(', ')}` : 'No counters to clear.',
    'Nothing was changed.',
  ]
}

/** A reset done: the new session id and where the old transcript went. */
export function renderReset(result: SessionsResetResult): string[] {
  return [
    `Reset ${result.key}: ${result.previousSessionId} → ${result.sessionId}`,
    // A JSON-era archive ends in `.reset.<time>`; only the database's locator ends in the old session id.
    result.archivedTranscript?.endsWith(`#${result.previousSessionId}`)
      ? `Old transcript kept in the database, as an earlier window of the key: ${result.archivedTranscript}`
      : result.archivedTranscript
        ? `Old transcript archived as ${result.archivedTranscript}`
        : 'There was no transcript on disk to archive.',
    journalLine(result.journal),
  ]
}
