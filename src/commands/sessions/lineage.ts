// `clawkit sessions lineage`: every session a key has had across resets, oldest first.
import {Args, Flags} from '@oclif/core'

import {BaseCommand, pagerFlags} from '../../cli/base-command.js'
import {UsageError} from '../../errors.js'
import {hostFlags, storeUrlFlag} from '../../fleet/flags.js'
import {renderLineage} from '../../render/sessions/lineage.js'
import {sessionLineage, type SessionsLineageResult} from '../../sessions/lineage.js'

export type {LineageSession, SessionsLineageResult, UsageTotals} from '../../sessions/lineage.js'

export default class SessionsLineage extends BaseCommand<typeof SessionsLineage> {
  static override summary = 'Show every session a key has had across resets'
  static override description =
    'Oldest first: the .reset. and .deleted. archives of the JSON era (found by what they hold, not only their names), the earlier windows of a SQLite store, and the parts of a transcript split by reset events. For each: where it is, its first and last message, message count, token and cost totals, and how it ended.'
  static override examples = ['<%= config.bin %> sessions lineage agent:main:main', '<%= config.bin %> sessions lineage main --agent work --json']
  static override args = {
    session: Args.string({description: 'session key, or a sessionId (current or archived) standing for its key'}),
  }
  static override flags = {
    agent: Flags.string({description: 'agent whose store to search', helpValue: '<id>'}),
    'store-url': storeUrlFlag,
    host: hostFlags.host,
    ...pagerFlags,
  }

  async run(): Promise<SessionsLineageResult> {
    const target = this.args.session
    if (!target) throw new UsageError('Pass a session key or id: clawkit sessions lineage <key|sessionId>', 'E_MISSING_SESSION')
    const host = await this.fleetHostFor(target)
    const result: SessionsLineageResult = host ? {host: host.host, ...(await sessionLineage(host, target, {agent: this.flags.agent}))} : await sessionLineage(this.openState(), target, {agent: this.flags.agent})
    if (!this.jsonEnabled()) await this.page(renderLineage(result))
    return result
  }
}
