// The human output of `clawkit sessions reset`: its result as lines (the command prints each through its `out`, which
// makes them terminal-safe line by line, as before these lines moved here).
import type {SessionsResetPlan, SessionsResetResult} from '../../sessions/reset.js'

/** `--dry-run`: what would be reset, archived and cleared. */
export function renderResetPlan(plan: SessionsResetPlan): string[] {
  return [
    `[dry-run] would reset ${plan.key}: ${plan.previousSessionId} → a new session id`,
    plan.transcript ? `Would archive ${plan.transcript} as ${plan.archivedTranscript}` : 'There is no transcript on disk to archive.',
    plan.clearedFields.length > 0 ? `Would clear: ${plan.clearedFields.join(', ')}` : 'No counters to clear.',
    'Nothing was changed.',
  ]
}

/** A reset done: the new session id and where the old transcript went. */
export function renderReset(result: SessionsResetResult): string[] {
  return [
    `Reset ${result.key}: ${result.previousSessionId} → ${result.sessionId}`,
    result.archivedTranscript ? `Old transcript archived as ${result.archivedTranscript}` : 'There was no transcript on disk to archive.',
  ]
}
