// `clawkit sessions lineage`: every session a key has had across resets, oldest first.
import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {UsageError} from '../../errors.js'
import {hostFlags, requireStoreUrlFor, storeUrlFlag} from '../../fleet/flags.js'
import {colorEnabled, paint} from '../../render/color.js'
import {printable} from '../../render/safe.js'
import {type LineageSession, sessionLineage, type SessionsLineageResult, WHERE_TEXT} from '../../sessions/lineage.js'
import {localTime} from '../../sessions/format.js'

export type {LineageSession, SessionsLineageResult, UsageTotals} from '../../sessions/lineage.js'

export default class SessionsLineage extends BaseCommand<typeof SessionsLineage> {
  static override summary = 'Show every session a key has had across resets'
  static override description =
    'Oldest first: the .reset. and .deleted. archives of the JSON era (found by what they hold, not only their names), the earlier windows of a SQLite store, and the parts of a transcript split by reset events. For each: where it is, its first and last message, message count, token and cost totals, and how it ended.'
  static override examples = ['<%= config.bin %> sessions lineage agent:main:main', '<%= config.bin %> sessions lineage main --agent work --json']
  static override args = {
    session: Args.string({description: 'session key (or the sessionId of its current session)'}),
  }
  static override flags = {
    agent: Flags.string({description: 'agent whose store to search', helpValue: '<id>'}),
    'store-url': storeUrlFlag,
    host: hostFlags.host,
  }

  async run(): Promise<SessionsLineageResult> {
    const target = this.args.session
    if (!target) throw new UsageError('Pass a session key: clawkit sessions lineage <key>', 'E_MISSING_SESSION')
    requireStoreUrlFor(this.flags)
    let result: SessionsLineageResult
    if (this.flags['store-url']) {
      const host = await (await import('../../fleet/pick.js')).pickHost(await this.openFleet(this.flags['store-url']), {host: this.flags.host, agent: this.flags.agent}, target)
      result = {host: host.host, ...(await sessionLineage(host, target, {agent: this.flags.agent}))}
    } else {
      result = await sessionLineage(this.openState(), target, {agent: this.flags.agent})
    }
    if (!this.jsonEnabled()) process.stdout.write(renderLineage(result))
    return result
  }
}

function ended(s: LineageSession): string {
  switch (s.ended) {
    case 'current':
      return 'still current'
    case 'reset-event':
      return `reset event${s.resetReason ? ` (${printable(s.resetReason)})` : ''}${s.endedAt ? ` at ${printable(localTime(s.endedAt))}` : ''}`
    default:
      return `${s.ended}${s.endedAt ? ` at ${printable(localTime(s.endedAt))}` : ''}`
  }
}

export function renderLineage(r: SessionsLineageResult): string {
  const c = colorEnabled()
  const out = [paint(c, 'cyan', `Lineage of ${printable(r.key)}${r.host === undefined ? '' : ` on host ${printable(r.host)}`}: ${r.sessions.length} session${r.sessions.length === 1 ? '' : 's'}, oldest first`)]
  r.sessions.forEach((s, i) => {
    out.push('')
    out.push(`${paint(c, 'bold', `${i + 1}. ${printable(s.sessionId)}${s.part ? ` part ${s.part}` : ''}`)}  ${paint(c, 'dim', WHERE_TEXT[s.where] ?? s.where)}`)
    out.push(`   transcript: ${printable(s.transcript)}${s.transcriptExists ? '' : ' (missing)'}`)
    out.push(`   messages:   ${s.messages}${s.firstMessageAt ? `, ${printable(localTime(s.firstMessageAt))} \u2192 ${printable(localTime(s.lastMessageAt))}` : ''}`)
    const u = s.usage
    out.push(`   tokens:     ${u.input} in, ${u.output} out, ${u.cacheRead} cache read, ${u.cacheWrite} cache write; cost $${u.costUsd.toFixed(4)}`)
    out.push(`   ended:      ${ended(s)}`)
    if (s.badLines > 0) out.push(paint(c, 'yellow', `   ! ${s.badLines} unreadable line(s); run "clawkit doctor".`))
  })
  return `${out.join('\n')}\n`
}
