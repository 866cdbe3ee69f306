// What every journaled command prints about its journal entry, and the listing of the journal (`clawkit undo --list`).

/** Where a journaled change can be undone from (every writing command prints it last). */
export function journalLine(id: string | null): string {
  return id ? `Journaled as ${id}: "clawkit undo ${id}" reverses it.` : 'Not journaled (--no-journal): this change cannot be undone.'
}
