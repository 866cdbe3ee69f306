// `clawkit undo`: reverse a journaled change (the store's undo.ts does it), list the journal, prune it.
import {ClawkitError, ExitCode} from '../errors.js'
import {Journal, journalRetentionMs, type JournalEntryMeta, journalRoot, journalStateDir} from '../store/journal.js'
import type {OpenClawState} from '../store/state.js'
import {planUndo, undoChange} from '../store/undo.js'

/** One journal entry as `undo --list` shows it. */
export interface JournalListItem {
  id: string
  createdAt: string
  /** cleanup, archive, delete, restore, reset, doctor-fix or undo. */
  action: JournalEntryMeta['action']
  command: string
  summary: string
  /** pending (interrupted, or being made), applied, or undone. */
  status: JournalEntryMeta['status']
  /** For an undo: the entry it reversed. */
  undoes: string | null
  /** For an undone entry: the undo that reversed it ("no-journal" when that undo was not journaled). */
  undoneBy: string | null
  /** Bytes the entry keeps in clawkit's data dir (removed files, the index before a rewrite, database rows). */
  bytes: number
  /** When the retention setting prunes it. */
  expiresAt: string
}

/** The `undo --list --json` document. */
export interface UndoListResult {
  stateDir: string
  journalDir: string
  /** Newest first. */
  entries: JournalListItem[]
  /** Bytes all listed entries keep. */
  bytes: number
  /** The retention in milliseconds (clawkit's journalRetention setting; 30 days by default). */
  retentionMs: number
}

/** The `undo --json` document: what was undone. */
export interface UndoResult {
  dryRun: false
  /** The entry reversed. */
  undone: JournalListItem
  /** True when the entry reversed was an undo: the change it had reversed is applied again. */
  redo: boolean
  /** Steps replayed, newest first. */
  steps: {n: number; label: string}[]
  /** The journal entry recording this undo (`clawkit undo <id>` applies the change again); null with --no-journal. */
  journal: string | null
}

/** The `undo --dry-run --json` document: what undo would do now, and why it would refuse. */
export interface UndoPlan {
  dryRun: true
  target: JournalListItem
  steps: {n: number; label: string}[]
  /** Why undo would be refused now (empty: it would go ahead). */
  conflicts: string[]
}

/** The `undo --prune --json` document. */
export interface UndoPruneResult {
  pruned: JournalListItem[]
  /** Bytes freed in clawkit's data dir. */
  bytes: number
  olderThanMs: number
}

function item(m: JournalEntryMeta, retentionMs: number): JournalListItem {
  return {
    id: m.id,
    createdAt: m.createdAt,
    action: m.action,
    command: m.command,
    summary: m.summary,
    status: m.status,
    undoes: m.undoes ?? null,
    undoneBy: m.undoneBy ?? null,
    bytes: m.bytes ?? 0,
    expiresAt: new Date(Date.parse(m.createdAt) + retentionMs).toISOString(),
  }
}

export async function listJournal(state: OpenClawState, opts: {all?: boolean} = {}): Promise<UndoListResult> {
  const journal = Journal.open(state.env)
  const retentionMs = journalRetentionMs(state.env)
  const entries = (await journal.list(opts.all ? {} : {stateDir: state.stateDir})).map((m) => item(m, retentionMs))
  return {stateDir: journalStateDir(state.stateDir), journalDir: journal.root, entries, bytes: entries.reduce((n, e) => n + e.bytes, 0), retentionMs}
}

export async function undo(state: OpenClawState, opts: {id?: string; noJournal?: boolean} = {}): Promise<UndoResult> {
  const journal = Journal.open(state.env)
  const retentionMs = journalRetentionMs(state.env)
  const out = await undoChange(state, {journal, id: opts.id, noJournal: opts.noJournal})
  return {dryRun: false, undone: item(out.undone, retentionMs), redo: out.redo, steps: out.steps, journal: out.entry?.id ?? null}
}

export async function planUndoOf(state: OpenClawState, opts: {id?: string} = {}): Promise<UndoPlan> {
  const journal = Journal.open(state.env)
  const plan = await planUndo(state, {journal, id: opts.id})
  return {dryRun: true, target: item(plan.target, journalRetentionMs(state.env)), steps: plan.steps, conflicts: plan.conflicts}
}

/** Remove journal entries older than `olderThanMs` (the retention setting by default); pending ones only with `pending`. */
export async function pruneJournal(state: OpenClawState, opts: {olderThanMs?: number; pending?: boolean} = {}): Promise<UndoPruneResult> {
  const journal = Journal.open(state.env)
  const retentionMs = journalRetentionMs(state.env)
  const olderThanMs = opts.olderThanMs ?? retentionMs
  if (!Number.isFinite(olderThanMs) || olderThanMs < 0) throw new ClawkitError('The age to prune from must be 0 or more.', {code: 'E_USAGE', exitCode: ExitCode.usage})
  const {removed, bytes} = await journal.prune(olderThanMs, {pending: opts.pending})
  return {pruned: removed.map((m) => item(m, retentionMs)), bytes, olderThanMs}
}

export {journalRoot}
