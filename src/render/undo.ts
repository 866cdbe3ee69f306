// The human output of `clawkit undo`: the undo done, its plan, the journal listing and a prune.
import {formatBytes} from '../text/bytes.js'
import type {JournalListItem, UndoListResult, UndoPlan, UndoPruneResult, UndoResult} from '../sessions/undo.js'
import {journalLine} from './journal.js'
import {printable} from './safe.js'

function line(e: JournalListItem): string {
  const status = e.status === 'undone' ? `undone${e.undoneBy ? ` by ${e.undoneBy}` : ''}` : e.status === 'pending' ? 'INTERRUPTED (pending)' : 'applied'
  return `${e.id}  ${e.createdAt.slice(0, 19).replace('T', ' ')}  ${status.padEnd(12)}  ${printable(e.command)}  (${formatBytes(e.bytes)})`
}

export function renderJournalList(r: UndoListResult): string[] {
  if (r.entries.length === 0) return [`The journal (${printable(r.journalDir)}) has no changes to ${printable(r.stateDir)}.`]
  return [
    `Journal of ${printable(r.stateDir)}, newest first (${formatBytes(r.bytes)} in ${printable(r.journalDir)}; kept ${Math.round(r.retentionMs / 86_400_000)} day(s)):`,
    ...r.entries.map(line),
  ]
}

export function renderUndo(r: UndoResult): string[] {
  return [
    `${r.redo ? 'Applied again' : 'Undone'}: ${r.undone.id} (${printable(r.undone.command)}), ${r.steps.length} step(s).`,
    ...r.steps.map((s) => `  ${printable(s.label)}`),
    journalLine(r.journal),
  ]
}

export function renderUndoPlan(p: UndoPlan): string[] {
  return [
    `[dry-run] would undo ${p.target.id} (${printable(p.target.command)}), ${p.steps.length} step(s):`,
    ...p.steps.map((s) => `  ${printable(s.label)}`),
    ...(p.conflicts.length > 0 ? ['It would be refused now:', ...p.conflicts.map((c) => `  ${printable(c)}`)] : []),
    'Nothing was changed.',
  ]
}

export function renderPrune(r: UndoPruneResult): string[] {
  return [`Pruned ${r.pruned.length} journal entr${r.pruned.length === 1 ? 'y' : 'ies'}, ${formatBytes(r.bytes)} freed.`]
}
