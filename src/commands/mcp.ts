// `clawkit mcp`: a read-only Model Context Protocol server on stdio for agents (list, history, lineage, search, usage,
// export), on the local state dir or the fleet replica (src/mcp/).
import {Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {startLive} from '../cli/live.js'
import {UsageError} from '../errors.js'
import {checkStoreUrl, storeUrlFlag} from '../fleet/flags.js'
import {FleetState} from '../fleet/state.js'
import {serveMcp} from '../mcp/server.js'
import {OpenClawState} from '../store/state.js'

export type {McpExportResult} from '../mcp/tools.js'

export default class Mcp extends BaseCommand<typeof Mcp> {
  static override summary = 'Serve the sessions to MCP clients (agents) over stdio, read-only'
  static override description =
    'A Model Context Protocol server on stdin/stdout for an MCP client (Claude Desktop, Claude Code, any other) to start: tools sessions_list, sessions_history, sessions_lineage, sessions_search, sessions_usage and sessions_export, each with its command\'s options and --json document as output schema. Nothing is written; credentials are masked; results are capped. Transcript text is returned as data, never as instructions. Runs until the client closes stdin (or Ctrl-C).'
  static override examples = ['<%= config.bin %> mcp', '<%= config.bin %> mcp --state-dir /srv/openclaw', '<%= config.bin %> mcp --store-url postgres://reader@db.example/fleet']
  static override flags = {
    'store-url': storeUrlFlag,
  }

  async run(): Promise<void> {
    const f = this.flags
    const url = f['store-url']
    if (url !== undefined) {
      if (!url.trim()) throw new UsageError('--store-url needs a PostgreSQL URL, for example --store-url postgres://reader@db.example/fleet', 'E_BAD_STORE_URL')
      checkStoreUrl(url)
      const local = f['state-dir'] !== undefined ? '--state-dir' : f.profile !== undefined ? '--profile' : f.dev ? '--dev' : undefined
      if (local) throw new UsageError(`--store-url reads the fleet replica; ${local} names a local state dir: give one or the other`, 'E_FLAG_CONFLICT')
    } else {
      // A state dir that does not exist is said now, once, rather than on every call.
      this.openState()
    }
    const live = startLive()
    process.stderr.write(`clawkit mcp: serving ${url === undefined ? 'the local state dir' : 'the fleet replica'} on stdio (read-only)\n`)
    try {
      await serveMcp({
        root: this.config.root,
        version: this.config.version,
        signal: live.signal,
        // Each call opens what it reads and closes it: the config, a database, the replica's connection are as they are now.
        open: async () => {
          if (url !== undefined) {
            const fleet = await FleetState.open(url.trim())
            return {fleet, close: () => fleet.close()}
          }
          const state = OpenClawState.open({stateDir: f['state-dir'], profile: f.profile, dev: f.dev})
          state.requireStateDir()
          // The local catalog, as the commands use it (its notices on stderr; stdout is the protocol's).
          const catalog = await this.unlistedCatalog(state)
          return {
            state,
            catalog,
            close: () => {
              catalog.close()
              state.close()
            },
          }
        },
      })
    } finally {
      live.done()
    }
  }
}
