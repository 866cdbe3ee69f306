// `clawkit sessions reset`: start a fresh transcript for a session, archiving the old one.
import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {refusedStoreUrlFlag, refuseReplicaWrite} from '../../fleet/flags.js'
import {UsageError} from '../../errors.js'
import {renderReset, renderResetPlan} from '../../render/sessions/reset.js'
import {planReset, resetSession, type SessionsResetPlan, type SessionsResetResult} from '../../sessions/reset.js'

export type {SessionsResetPlan, SessionsResetResult} from '../../sessions/reset.js'

/** The `sessions reset --json` document: the reset done, or with --dry-run the plan (`dryRun: true`). */
export type SessionsResetOutput = SessionsResetResult | SessionsResetPlan

export default class SessionsReset extends BaseCommand<typeof SessionsReset> {
  static override summary = 'Reset a session: new sessionId, old transcript archived'
  static override description =
    'Like OpenClaw\'s reset: the old transcript is renamed to <file>.reset.<time>, labels, routing and overrides are kept, token counters are cleared. Works under the store and transcript locks.'
  static override examples = ['<%= config.bin %> sessions reset agent:main:main', '<%= config.bin %> sessions reset --session agent:work:main --json', '<%= config.bin %> sessions reset main --dry-run']
  static override args = {
    session: Args.string({description: 'session key (or sessionId)'}),
  }
  static override flags = {
    'store-url': refusedStoreUrlFlag,
    session: Flags.string({description: 'session key (same as the argument)', helpValue: '<key>'}),
    agent: Flags.string({description: 'agent whose store to search', helpValue: '<id>'}),
    'dry-run': Flags.boolean({description: 'show what would be reset and archived; change nothing'}),
    'no-journal': Flags.boolean({description: 'do not record the reset in the journal (it then cannot be undone with clawkit undo)'}),
  }

  async run(): Promise<SessionsResetOutput> {
    refuseReplicaWrite(this.flags, 'clawkit sessions reset ...')
    const target = this.args.session ?? this.flags.session
    if (!target) throw new UsageError('Pass a session key: clawkit sessions reset <key> (or --session <key>)', 'E_MISSING_SESSION')
    if (this.flags['dry-run']) {
      const plan = await planReset(this.openState(), target, {agent: this.flags.agent})
      for (const line of renderResetPlan(plan)) this.out(line)
      return plan
    }
    if (this.flags['no-journal']) this.warnLine('--no-journal: this reset is not recorded, so "clawkit undo" cannot reverse it.')
    const result = await resetSession(this.openState(), target, {agent: this.flags.agent, noJournal: this.flags['no-journal']})
    for (const line of renderReset(result)) this.out(line)
    return result
  }
}
