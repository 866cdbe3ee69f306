// `clawkit sessions delete`: OpenClaw's delete of sessions, without a gateway, journaled.
import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {refusedStoreUrlFlag, refuseReplicaWrite} from '../../fleet/flags.js'
import {colorEnabled} from '../../render/color.js'
import {renderDelete, renderDeletePlan} from '../../render/sessions/lifecycle.js'
import {deleteSessions, type SessionsDeleteResult} from '../../sessions/lifecycle.js'

export type {SessionsDeleteResult} from '../../sessions/lifecycle.js'

export default class SessionsDelete extends BaseCommand<typeof SessionsDelete> {
  static override summary = 'Delete sessions as OpenClaw does (transcript kept as an archive), without a gateway'
  static override description =
    'As OpenClaw\'s sessions delete: JSON era, the index entry removed and the transcript renamed to <file>.deleted.<time>; SQLite era, the transcript kept as a session_transcript_archives row (published as sessions/<name>) and the session\'s rows removed. The main session is refused, as OpenClaw refuses it. Journaled: clawkit undo reverses it, clawkit sessions restore brings a deleted session back.'
  static override examples = ['<%= config.bin %> sessions delete agent:main:scratch', '<%= config.bin %> sessions delete scratch-1 scratch-2 --dry-run', '<%= config.bin %> sessions delete scratch-1 scratch-2 --json']
  static override strict = false
  static override args = {
    keys: Args.string({description: 'session keys (or sessionIds), one or more'}),
  }
  static override flags = {
    'store-url': refusedStoreUrlFlag,
    agent: Flags.string({description: 'agent whose store to search', helpValue: '<id>'}),
    'no-journal': Flags.boolean({description: 'do not record the change in the journal (it then cannot be undone with clawkit undo)'}),
    'dry-run': Flags.boolean({description: 'show what would be deleted (and where each transcript would be kept); change nothing'}),
  }

  async run(): Promise<SessionsDeleteResult> {
    refuseReplicaWrite(this.flags, 'clawkit sessions delete')
    const dryRun = this.flags['dry-run']
    if (this.flags['no-journal'] && !dryRun) this.warnLine('--no-journal: this change is not recorded, so "clawkit undo" cannot reverse it.')
    const r = await deleteSessions(this.openState(), this.positionals, {agent: this.flags.agent, noJournal: this.flags['no-journal'], dryRun})
    for (const line of dryRun ? await renderDeletePlan(r, colorEnabled()) : renderDelete(r)) this.out(line)
    return r
  }
}
