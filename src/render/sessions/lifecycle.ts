// The human output of `sessions archive`, `sessions delete` and `sessions restore`.
import type {SessionsArchiveResult, SessionsDeleteResult, SessionsRestoreResult} from '../../sessions/lifecycle.js'
import {journalLine} from '../journal.js'
import {printable} from '../safe.js'
import {renderTable} from '../table.js'

const DRY_RUN = 'Dry run: nothing was changed. Run it without --dry-run to apply (journaled: "clawkit undo" reverses it).'

/** `sessions archive --dry-run`: what each named session would become, as a table. */
export async function renderArchivePlan(r: SessionsArchiveResult, color: boolean): Promise<string[]> {
  const rows = r.sessions.map((s) => [printable(s.key), s.sessionId, s.changed ? 'archive (archivedAt now, archiveReason "manual"); transcript stays' : `nothing: archived already at ${s.archivedAt}`])
  return [(await renderTable([{header: 'Key'}, {header: 'Session'}, {header: 'Would'}], rows, color)).trimEnd(), '', DRY_RUN]
}

/** `sessions delete --dry-run`: what each named session's delete would do, as a table. */
export async function renderDeletePlan(r: SessionsDeleteResult, color: boolean): Promise<string[]> {
  const rows = r.sessions.map((s) => [printable(s.key), s.sessionId, s.archived.length > 0 ? s.archived.map((a) => printable(a)).join('\n') : 'no transcript to keep'])
  return [(await renderTable([{header: 'Key'}, {header: 'Session'}, {header: 'Transcript would be kept as'}], rows, color)).trimEnd(), '', DRY_RUN]
}

export function renderArchive(r: SessionsArchiveResult): string[] {
  return [
    ...r.sessions.map((s) => (s.changed ? `Archived ${s.key} (session ${s.sessionId}); OpenClaw 2026.9.6 shows it as archived, its transcript stays.` : `${s.key} was archived already (at ${s.archivedAt}); nothing changed.`)),
    ...(r.sessions.some((s) => s.changed) ? [journalLine(r.journal)] : []),
  ]
}

export function renderDelete(r: SessionsDeleteResult): string[] {
  return [
    ...r.sessions.flatMap((s) => [`Deleted ${s.key} (session ${s.sessionId}).`, ...(s.archived.length > 0 ? s.archived.map((a) => `  transcript kept as ${a}`) : ['  it had no transcript to keep'])]),
    ...(r.reclaimedBytes > 0 ? [`The database gave ${r.reclaimedBytes} bytes back to the disk.`] : []),
    journalLine(r.journal),
  ]
}

export function renderRestore(r: SessionsRestoreResult): string[] {
  return [
    r.how === 'unarchived' ? `Restored ${r.key}: no longer archived.` : `Restored session ${r.sessionId} as the live session of ${r.key}, from ${r.from}.`,
    journalLine(r.journal),
  ]
}
