// `clawkit sessions` with no subcommand lists, as `openclaw sessions` does.
import {BaseCommand} from '../../base-command.js'
import {listSessions, type SessionsListResult} from '../../sessions/list.js'
import {listFlags, renderSessionsList} from './list.js'

export default class Sessions extends BaseCommand<typeof Sessions> {
  static override summary = 'List sessions (same as "sessions list")'
  static override examples = ['<%= config.bin %> sessions', '<%= config.bin %> sessions --json --active 30']
  static override flags = listFlags

  async run(): Promise<SessionsListResult> {
    const f = this.flags
    const result = await listSessions(this.openState(), {agent: f.agent, allAgents: f['all-agents'], store: f.store, active: f.active, limit: f.limit})
    if (!this.jsonEnabled()) process.stdout.write(renderSessionsList(result))
    return result
  }
}
