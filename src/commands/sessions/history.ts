// `clawkit sessions history`: the last messages of a session, read from the end of its transcript.
import {Args, Flags} from '@oclif/core'

import {BaseCommand, pagerFlags} from '../../cli/base-command.js'
import {UsageError} from '../../errors.js'
import {positiveIntegerFlag} from '../../flags.js'
import {hostFlags, storeUrlFlag} from '../../fleet/flags.js'
import {renderHistory} from '../../render/sessions/history.js'
import {sessionHistory, type SessionsHistoryResult} from '../../sessions/history.js'

export type {HistoryEntry, HistorySession, SessionsHistoryResult} from '../../sessions/history.js'

export default class SessionsHistory extends BaseCommand<typeof SessionsHistory> {
  static override summary = 'Show the last messages of a session'
  static override description =
    'The session is a key (agent:main:main, or "main" for the agent\'s main session) or a sessionId: a key\'s current one, else an archived session\'s (read-only). Only the end of the transcript is read, so large transcripts stay fast.'
  static override examples = [
    '<%= config.bin %> sessions history agent:main:main',
    '<%= config.bin %> sessions history --session "agent:main:main" --limit 10',
    '<%= config.bin %> sessions history 0caed29d-8df6-4457-a9cd-00bb9d2b22e3 --json',
    '<%= config.bin %> sessions history main --raw --limit 5',
    '<%= config.bin %> sessions history main --include-archived --limit 50',
  ]
  static override args = {
    session: Args.string({description: 'session key or sessionId'}),
  }
  static override flags = {
    session: Flags.string({description: 'session key or sessionId (same as the argument)', helpValue: '<key>'}),
    agent: Flags.string({description: 'agent whose store to search', helpValue: '<id>'}),
    limit: Flags.string({description: 'last N messages', default: '20', helpValue: '<n>'}),
    raw: Flags.boolean({description: 'print the JSONL lines exactly as stored'}),
    'include-archived': Flags.boolean({description: 'also the sessions the key had before its resets (archives, earlier windows), with a boundary at each'}),
    'store-url': storeUrlFlag,
    host: hostFlags.host,
    ...pagerFlags,
  }

  async run(): Promise<SessionsHistoryResult> {
    const target = this.args.session ?? this.flags.session
    if (!target) throw new UsageError('Pass a session key or id: clawkit sessions history <key|sessionId> (or --session <key>)', 'E_MISSING_SESSION')
    if (this.args.session && this.flags.session && this.args.session !== this.flags.session) {
      throw new UsageError('Give the session once: either as an argument or with --session', 'E_FLAG_CONFLICT')
    }
    const limit = positiveIntegerFlag('--limit', this.flags.limit, {example: 10}) as number
    const host = await this.fleetHostFor(target)
    const opts = {agent: this.flags.agent, limit, raw: this.flags.raw, includeArchived: this.flags['include-archived']}
    const result: SessionsHistoryResult = host ? {host: host.host, ...(await sessionHistory(host, target, opts))} : await sessionHistory(this.openState(), target, opts)
    if (!this.jsonEnabled()) {
      await this.page(this.flags.raw ? (result.raw && result.raw.length > 0 ? `${result.raw.join('\n')}\n` : '') : renderHistory(result))
    }
    return result
  }
}
