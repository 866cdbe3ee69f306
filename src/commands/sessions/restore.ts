// `clawkit sessions restore`: an archived or deleted session back as a live one, journaled.
import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {refusedStoreUrlFlag, refuseReplicaWrite} from '../../fleet/flags.js'
import {renderRestore} from '../../render/sessions/lifecycle.js'
import {restoreSession, type SessionsRestoreResult} from '../../sessions/lifecycle.js'

export type {SessionsRestoreResult} from '../../sessions/lifecycle.js'

export default class SessionsRestore extends BaseCommand<typeof SessionsRestore> {
  static override summary = 'Bring an archived or deleted session back as a live session'
  static override description =
    'A key whose entry is archived is un-archived. A key with no entry gets its newest deleted session back, and an archived session\'s id names that archive: a .deleted./.reset. file renamed back with a new index entry (JSON era), or a session_transcript_archives row written back as the key\'s session (SQLite era). Refused when the key has a live session (restore under another with --as). Journaled.'
  static override examples = ['<%= config.bin %> sessions restore agent:main:scratch', '<%= config.bin %> sessions restore ddfebd8b-b803-4493-b99d-22be141b040c --as scratch-old']
  static override args = {
    session: Args.string({description: 'a session key, or an archived session\'s id', required: true}),
  }
  static override flags = {
    'store-url': refusedStoreUrlFlag,
    agent: Flags.string({description: 'agent whose store to search', helpValue: '<id>'}),
    as: Flags.string({description: 'restore under this key instead of the one the archive served', helpValue: '<key>'}),
    'no-journal': Flags.boolean({description: 'do not record the change in the journal (it then cannot be undone with clawkit undo)'}),
  }

  async run(): Promise<SessionsRestoreResult> {
    refuseReplicaWrite(this.flags, 'clawkit sessions restore')
    if (this.flags['no-journal']) this.warnLine('--no-journal: this change is not recorded, so "clawkit undo" cannot reverse it.')
    const r = await restoreSession(this.openState(), this.args.session, {agent: this.flags.agent, as: this.flags.as, noJournal: this.flags['no-journal']})
    for (const line of renderRestore(r)) this.out(line)
    return r
  }
}
