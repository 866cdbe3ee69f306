// `clawkit sessions archive`: OpenClaw's manual archive of sessions, without a gateway, journaled.
import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {refusedStoreUrlFlag, refuseReplicaWrite} from '../../fleet/flags.js'
import {colorEnabled} from '../../render/color.js'
import {renderArchive, renderArchivePlan} from '../../render/sessions/lifecycle.js'
import {archiveSessions, type SessionsArchiveResult} from '../../sessions/lifecycle.js'

export type {SessionsArchiveResult} from '../../sessions/lifecycle.js'

export default class SessionsArchive extends BaseCommand<typeof SessionsArchive> {
  static override summary = 'Archive sessions as OpenClaw does (they stay, marked archived), without a gateway'
  static override description =
    'As OpenClaw 2026.9.6\'s sessions archive: the entry gets archivedAt and archiveReason "manual"; its transcript and rows stay. Journaled: clawkit undo reverses it, clawkit sessions restore <key> un-archives.'
  static override examples = ['<%= config.bin %> sessions archive agent:main:scratch', '<%= config.bin %> sessions archive scratch-1 scratch-2 --dry-run', '<%= config.bin %> sessions archive scratch-1 scratch-2 --json']
  static override strict = false
  static override args = {
    keys: Args.string({description: 'session keys (or sessionIds), one or more'}),
  }
  static override flags = {
    'store-url': refusedStoreUrlFlag,
    agent: Flags.string({description: 'agent whose store to search', helpValue: '<id>'}),
    'no-journal': Flags.boolean({description: 'do not record the change in the journal (it then cannot be undone with clawkit undo)'}),
    'dry-run': Flags.boolean({description: 'show what would be archived; change nothing'}),
  }

  async run(): Promise<SessionsArchiveResult> {
    refuseReplicaWrite(this.flags, 'clawkit sessions archive')
    const dryRun = this.flags['dry-run']
    if (this.flags['no-journal'] && !dryRun) this.warnLine('--no-journal: this change is not recorded, so "clawkit undo" cannot reverse it.')
    const r = await archiveSessions(this.openState(), this.positionals, {agent: this.flags.agent, noJournal: this.flags['no-journal'], dryRun})
    for (const line of dryRun ? await renderArchivePlan(r, colorEnabled()) : renderArchive(r)) this.out(line)
    return r
  }
}
