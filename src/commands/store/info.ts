// `clawkit store info`: per agent, the era of its session store, the database's schema, counts and sizes, legacy
// leftovers, and OpenClaw's import archives and migration runs.
import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {storeInfo, type StoreInfoResult} from '../../store/bridge/info.js'
import {renderStoreInfo} from '../../render/store/info.js'

export type {AgentStoreInfo, StoreDbInfo, StoreInfoResult, StoreInfoRun} from '../../store/bridge/info.js'

export default class StoreInfo extends BaseCommand<typeof StoreInfo> {
  static override summary = 'Show which era each agent\'s session store is in (JSON, SQLite or mixed) and what it holds'
  static override description =
    'Read-only. For each agent: the era, the SQLite database (schema version, sessions, windows, events, file and WAL size), JSON-era files never imported, ' +
    'OpenClaw\'s import archive, and the migration runs of "openclaw doctor --fix" (completed or failed). A database needs Node 22.15 or later.'
  static override examples = ['<%= config.bin %> store info', '<%= config.bin %> store info --agent work --json']
  static override flags = {
    agent: Flags.string({description: 'only this agent (default: every agent, configured or found on disk)', helpValue: '<id>'}),
  }

  async run(): Promise<StoreInfoResult> {
    const state = this.openState({tolerateConfigError: true})
    state.requireStateDir()
    const agents = this.flags.agent ? [state.requireAgent(this.flags.agent)] : state.allAgentIds()
    const result = storeInfo(state, agents)
    this.out(renderStoreInfo(result))
    return result
  }
}
