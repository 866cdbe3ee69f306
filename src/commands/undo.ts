// `clawkit undo`: reverse the last journaled change (or one by id), list the journal, or prune it.
import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {parseDurationMs} from '../config/units.js'
import {UsageError} from '../errors.js'
import {refusedStoreUrlFlag, refuseReplicaWrite} from '../fleet/flags.js'
import {renderJournalList, renderPrune, renderUndo, renderUndoPlan} from '../render/undo.js'
import {listJournal, planUndoOf, pruneJournal, undo, type UndoListResult, type UndoPlan, type UndoPruneResult, type UndoResult} from '../sessions/undo.js'

export type {JournalListItem, UndoListResult, UndoPlan, UndoPruneResult, UndoResult} from '../sessions/undo.js'

/** The `undo --json` document: an undo done, its plan (--dry-run), the journal (--list) or what was pruned (--prune). */
export type UndoOutput = UndoResult | UndoPlan | UndoListResult | UndoPruneResult

export default class Undo extends BaseCommand<typeof Undo> {
  static override summary = 'Reverse a change clawkit made to a store (cleanup, archive, delete, restore, reset, doctor --fix)'
  static override description =
    'Every change clawkit makes to a session store is journaled in clawkit\'s data dir before it is made. undo reverses the newest change to this state dir that is not undone yet, or the one named by id, and refuses (changing nothing) when the store has moved on in a way that conflicts, such as a newer turn on a session the undo would replace. The undo is journaled too: undoing it applies the change again. --list shows the journal, --prune removes entries past the retention (clawkit setting journalRetention, 30 days by default).'
  static override examples = ['<%= config.bin %> undo', '<%= config.bin %> undo --list', '<%= config.bin %> undo 20261128-044500-a1b2 --dry-run', '<%= config.bin %> undo --prune --older-than 7d']
  static override args = {
    id: Args.string({description: 'the journal entry to undo (default: the newest change not undone yet)'}),
  }
  static override flags = {
    'store-url': refusedStoreUrlFlag,
    list: Flags.boolean({description: 'list the journal of this state dir, newest first, and change nothing'}),
    all: Flags.boolean({description: 'with --list: every state dir\'s entries'}),
    prune: Flags.boolean({description: 'remove journal entries older than the retention (or --older-than)'}),
    'older-than': Flags.string({description: 'with --prune: the age to prune from (30d, 12h, 0 for all)', helpValue: '<duration>'}),
    pending: Flags.boolean({description: 'with --prune: remove interrupted (pending) entries too'}),
    'dry-run': Flags.boolean({description: 'show what would be undone and whether it would be refused; change nothing'}),
    'no-journal': Flags.boolean({description: 'do not journal the undo (it then cannot be undone in turn)'}),
  }

  async run(): Promise<UndoOutput> {
    refuseReplicaWrite(this.flags, 'clawkit undo')
    const f = this.flags
    const modes = [f.list && '--list', f.prune && '--prune'].filter(Boolean)
    if (modes.length > 1) throw new UsageError('--list and --prune do different things; give one.', 'E_FLAG_CONFLICT')
    if ((f.list || f.prune) && this.args.id) throw new UsageError(`${modes[0]} takes no journal id.`, 'E_FLAG_CONFLICT')
    if (f.all && !f.list) throw new UsageError('--all goes with --list.', 'E_FLAG_CONFLICT')
    if ((f['older-than'] !== undefined || f.pending) && !f.prune) throw new UsageError('--older-than and --pending go with --prune.', 'E_FLAG_CONFLICT')
    const state = this.openState()
    if (f.list) {
      const r = await listJournal(state, {all: f.all})
      for (const line of renderJournalList(r)) this.out(line)
      return r
    }
    if (f.prune) {
      let olderThanMs: number | undefined
      if (f['older-than'] !== undefined) {
        try {
          olderThanMs = parseDurationMs(f['older-than'], 'd')
        } catch (error) {
          throw new UsageError(`--older-than: ${(error as Error).message}`, 'E_BAD_OLDER_THAN')
        }
      }
      const r = await pruneJournal(state, {olderThanMs, pending: f.pending})
      for (const line of renderPrune(r)) this.out(line)
      return r
    }
    if (f['dry-run']) {
      const plan = await planUndoOf(state, {id: this.args.id})
      for (const line of renderUndoPlan(plan)) this.out(line)
      return plan
    }
    if (f['no-journal']) this.warnLine('--no-journal: this undo is not recorded, so it cannot be undone in turn.')
    const r = await undo(state, {id: this.args.id, noJournal: f['no-journal']})
    for (const line of renderUndo(r)) this.out(line)
    return r
  }
}
