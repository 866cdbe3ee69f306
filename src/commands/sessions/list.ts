// `clawkit sessions list`: the sessions of one agent, several agents or an explicit store, newest first.
import {Flags} from '@oclif/core'

import {BaseCommand, pagerFlags} from '../../cli/base-command.js'
import {ExitCode} from '../../errors.js'
import {hostFlags, storeUrlFlag} from '../../fleet/flags.js'
import {terminalWidth} from '../../render/fit.js'
import {hintInContext, printable} from '../../render/safe.js'
import {renderSessionsList} from '../../render/sessions/list.js'
import {listSessions, type SessionsListResult} from '../../sessions/list.js'

export type {SessionRow, SessionsListResult, UnreadableStore} from '../../sessions/list.js'

export default class SessionsList extends BaseCommand<typeof SessionsList> {
  static override summary = 'List sessions with their age, model and token use'
  static override description =
    'Reads sessions.json without taking a lock. Same columns and --json shape as `openclaw sessions`; `count` is the true number of matching sessions.'
  static override examples = [
    '<%= config.bin %> sessions list',
    '<%= config.bin %> sessions list --all-agents --active 60',
    '<%= config.bin %> sessions list --agent work --json',
    '<%= config.bin %> sessions list --store ~/backup/sessions.json --limit 20',
    '<%= config.bin %> sessions list --store-url postgres://reader@db.example/fleet --all-hosts --limit 100',
  ]
  static override flags = {
    active: Flags.string({description: 'only sessions updated within the last N minutes', helpValue: '<minutes>'}),
    agent: Flags.string({description: 'agent id (default: the configured default agent)', helpValue: '<id>'}),
    'all-agents': Flags.boolean({description: 'list the sessions of every agent (configured or found on disk)'}),
    store: Flags.string({description: 'read this sessions.json (or openclaw-agent.sqlite) instead of the agent store', helpValue: '<path>'}),
    limit: Flags.string({description: 'show at most N rows (count still reports every match)', helpValue: '<n|all>', default: 'all'}),
    usage: Flags.boolean({description: 'add each shown session\'s cost so far, read from its transcript (slower: see `sessions usage`)'}),
    wide: Flags.boolean({description: 'print every key, model and flag in full (on a terminal, rows are otherwise cut to its width)'}),
    'store-url': storeUrlFlag,
    ...hostFlags,
    ...pagerFlags,
  }

  async run(): Promise<SessionsListResult> {
    const f = this.flags
    // Only a table needs them (to cut keys); --json skips collecting them.
    const allKeys: string[] | undefined = this.jsonEnabled() ? undefined : []
    const fleet = await this.fleetFromFlags()
    const opts = {agent: f.agent, allAgents: f['all-agents'], store: f.store, active: f.active, limit: f.limit, allKeys, usage: f.usage}
    const result = fleet ? await (await import('../../fleet/list.js')).listFleetSessions(fleet, {...opts, host: f.host, allHosts: f['all-hosts']}) : await this.listLocal(opts)
    // One line per agent left out, even under --json (the document names them in `unreadable`); exit 1: the list is partial.
    for (const u of result.unreadable ?? []) {
      process.stderr.write(`Warning: agent ${printable(u.agentId)} was left out: ${printable(u.message.replace(/\s+$/, ''))}; ${hintInContext('run "clawkit doctor"')} for what to do.\n`)
    }
    if (result.unreadable) process.exitCode = ExitCode.failure
    if (!this.jsonEnabled()) await this.page(renderSessionsList(result, {width: f.wide ? Number.POSITIVE_INFINITY : terminalWidth(), allKeys}))
    return result
  }

  /** The local list; with --usage, the costs come from the catalog's ledger where it already holds the agent. */
  private async listLocal(opts: NonNullable<Parameters<typeof listSessions>[1]>): Promise<SessionsListResult> {
    const state = this.openState()
    if (!opts.usage || opts.store) return listSessions(state, opts)
    const {catalogTranscriptCalls} = await import('../../catalog/ledger.js')
    return listSessions(state, {...opts, usageCalls: catalogTranscriptCalls(await this.catalog(state))})
  }
}
