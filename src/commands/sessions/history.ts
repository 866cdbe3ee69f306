// `clawkit sessions history`: the last messages of a session, read from the end of its transcript; with --follow, then
// every entry as it lands (`sessions tail -f`).
import {Args, Flags} from '@oclif/core'

import {BaseCommand, pagerFlags} from '../../cli/base-command.js'
import {startLive} from '../../cli/live.js'
import {UsageError} from '../../errors.js'
import {durationFlag, nonNegativeIntegerFlag, positiveIntegerFlag} from '../../flags.js'
import {hostFlags, storeUrlFlag} from '../../fleet/flags.js'
import {colorEnabled} from '../../render/color.js'
import {renderFollowLine} from '../../render/sessions/follow.js'
import {renderHistory} from '../../render/sessions/history.js'
import {followSessions, type SessionsFollowLine, startLines} from '../../sessions/follow.js'
import {sessionHistory, type SessionsHistoryResult} from '../../sessions/history.js'

export type {HistoryEntry, HistorySession, SessionsHistoryResult} from '../../sessions/history.js'
export type {FollowEntryLine, FollowSessionLine, FollowUnreadableLine, SessionsFollowLine} from '../../sessions/follow.js'

export default class SessionsHistory extends BaseCommand<typeof SessionsHistory> {
  static override summary = 'Show the last messages of a session'
  static override description =
    'The session is a key (agent:main:main, or "main" for the agent\'s main session) or a sessionId: a key\'s current one, else an archived session\'s (read-only). Only the end of the transcript is read, so large transcripts stay fast. ' +
    'With --follow (alias: sessions tail -f), every entry is printed as it lands, across resets, until Ctrl-C (exit 130) or --until-idle; a key that does not exist yet is waited for; --all (or --agent without a session) follows every session, each line labelled with its key.'
  static override aliases = ['sessions:tail']
  static override examples = [
    '<%= config.bin %> sessions history agent:main:main',
    '<%= config.bin %> sessions history --session "agent:main:main" --limit 10',
    '<%= config.bin %> sessions history 0caed29d-8df6-4457-a9cd-00bb9d2b22e3 --json',
    '<%= config.bin %> sessions history main --raw --limit 5',
    '<%= config.bin %> sessions history main --include-archived --limit 50',
    '<%= config.bin %> sessions history main --limit 50 --offset 50',
    '<%= config.bin %> sessions history main --follow',
    '<%= config.bin %> sessions tail -f agent:main:main --json',
    '<%= config.bin %> sessions history --follow --all --agent work',
  ]
  static override args = {
    session: Args.string({description: 'session key or sessionId'}),
  }
  static override flags = {
    session: Flags.string({description: 'session key or sessionId (same as the argument)', helpValue: '<key>'}),
    agent: Flags.string({description: 'agent whose store to search', helpValue: '<id>'}),
    limit: Flags.string({description: 'last N messages (default 20)', helpValue: '<n>'}),
    offset: Flags.string({description: 'skip the newest N messages first: with --limit, the next page back through a long session', helpValue: '<n>'}),
    raw: Flags.boolean({description: 'print the JSONL lines exactly as stored'}),
    'include-archived': Flags.boolean({description: 'also the sessions the key had before its resets (archives, earlier windows), with a boundary at each'}),
    follow: Flags.boolean({char: 'f', description: 'then print every entry as it lands, across resets, until Ctrl-C; with --json one line per entry (schemas/sessions-follow.schema.json)'}),
    'until-idle': Flags.string({description: 'with --follow: stop (exit 0) once nothing has landed for this long (30s, 5m, 500ms)', helpValue: '<duration>'}),
    all: Flags.boolean({description: 'with --follow: every session of --agent, or of every agent, each line labelled with its key (only what lands from now on)'}),
    'store-url': storeUrlFlag,
    host: hostFlags.host,
    ...pagerFlags,
  }

  async run(): Promise<SessionsHistoryResult | undefined> {
    const target = this.args.session ?? this.flags.session
    if (this.args.session && this.flags.session && this.args.session !== this.flags.session) {
      throw new UsageError('Give the session once: either as an argument or with --session', 'E_FLAG_CONFLICT')
    }
    if (this.flags.follow) return this.follow(target)
    for (const flag of ['until-idle', 'all'] as const) if (this.flags[flag]) throw new UsageError(`--${flag} goes with --follow: add --follow`, 'E_FLAG_CONFLICT')
    if (!target) throw new UsageError('Pass a session key or id: clawkit sessions history <key|sessionId> (or --session <key>)', 'E_MISSING_SESSION')
    const limit = positiveIntegerFlag('--limit', this.flags.limit ?? '20', {example: 10}) as number
    const offset = this.flags.offset === undefined ? 0 : nonNegativeIntegerFlag('--offset', this.flags.offset)
    const host = await this.fleetHostFor(target)
    const opts = {agent: this.flags.agent, limit, offset, raw: this.flags.raw, includeArchived: this.flags['include-archived']}
    const result: SessionsHistoryResult = host ? {host: host.host, ...(await sessionHistory(host, target, opts))} : await sessionHistory(this.openState(), target, opts)
    if (!this.jsonEnabled()) {
      await this.page(this.flags.raw ? (result.raw && result.raw.length > 0 ? `${result.raw.join('\n')}\n` : '') : renderHistory(result))
    }
    return result
  }

  /** --follow: the tail, then every entry as it lands; nothing is returned (under --json each line was printed). */
  private async follow(target: string | undefined): Promise<undefined> {
    const f = this.flags
    const json = this.jsonEnabled()
    this.jsonLines = json
    // --agent without a session follows that agent's every session, as --all --agent does.
    const all = f.all || (target === undefined && f.agent !== undefined)
    const conflict = f['store-url'] !== undefined ? ['--store-url', 'the fleet replica changes only when a host syncs: run it on the host']
      : f.host !== undefined ? ['--host', 'the fleet replica changes only when a host syncs: run it on the host']
        : f['include-archived'] ? ['--include-archived', 'archives never change: read them without --follow']
          : f.offset !== undefined ? ['--offset', 'it pages back through what is there: read it without --follow']
          : all && target !== undefined ? ['a session', '--all follows every session: give no session, or drop --all']
            : all && f.limit !== undefined ? ['--limit', 'with --all only what lands from now on is shown']
              : all && f.raw ? ['--raw', 'with --all raw lines could not say which session they are from: use --json']
                : undefined
    if (conflict) throw new UsageError(`--follow does not take ${conflict[0]}: ${conflict[1]}.`, 'E_FLAG_CONFLICT')
    if (!all && !target) throw new UsageError('Pass a session key or id to follow (clawkit sessions history <key> --follow), or --all for every session', 'E_MISSING_SESSION')
    const limit = all ? undefined : (positiveIntegerFlag('--limit', f.limit ?? '20', {example: 10}) as number)
    const untilIdleMs = f['until-idle'] === undefined ? undefined : durationFlag('--until-idle', f['until-idle'])
    const state = this.openState()
    const color = colorEnabled()
    const live = startLive()
    const print = (line: SessionsFollowLine) => {
      if (json) return live.write(`${JSON.stringify(line)}\n`)
      if (f.raw) return line.kind === 'entry' && line.raw !== undefined ? live.write(`${line.raw}\n`) : Promise.resolve()
      const text = renderFollowLine(line, {label: all, color})
      return text ? live.write(text) : Promise.resolve()
    }
    try {
      const end = await followSessions(state, all ? undefined : target, {
        agent: f.agent,
        limit,
        raw: f.raw,
        all,
        untilIdleMs,
        signal: live.signal,
        onStart: async (h) => {
          if (json) for (const line of startLines(h)) await print(line)
          else await live.write(f.raw ? (h.raw && h.raw.length > 0 ? `${h.raw.join('\n')}\n` : '') : renderHistory(h))
          if (!json && process.stderr.isTTY) process.stderr.write('Following: new entries appear below as they land (Ctrl-C to stop).\n')
        },
        onLine: print,
        onNote: (text) => process.stderr.write(`${text}\n`),
        // --all prints nothing until something lands: say that it runs (on one key, the tail says it).
        onReady: ({sessions, stores}) => {
          if (all) process.stderr.write(`Following ${sessions} session${sessions === 1 ? '' : 's'} in ${stores} store${stores === 1 ? '' : 's'}: new entries appear as they land (Ctrl-C to stop).\n`)
        },
      })
      if (end === 'idle' && !json) process.stderr.write(`Nothing new for ${f['until-idle']}: stopped.\n`)
    } finally {
      live.done()
    }
    return undefined
  }
}
