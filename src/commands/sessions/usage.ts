// `clawkit sessions usage`: token and cost totals across keys, resets and archives, grouped as asked.
import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {hostFlags, requireStoreUrlFor, storeUrlFlag} from '../../fleet/flags.js'
import {colorEnabled, paint} from '../../render/color.js'
import {printable} from '../../render/safe.js'
import {renderTable} from '../../render/table.js'
import {localTime} from '../../sessions/format.js'
import {fleetUsage, sessionsUsage, USAGE_BY, type SessionsUsageResult, type UsageRow} from '../../sessions/usage.js'

export type {LargestCall, SessionsUsageResult, UsageBy, UsageRow} from '../../sessions/usage.js'

export default class SessionsUsage extends BaseCommand<typeof SessionsUsage> {
  static override summary = 'Total tokens and cost by session, key, agent, model, day or month'
  static override description =
    'Sums the usage OpenClaw records on every assistant message, in live transcripts and (by default) in .reset./.deleted. archives and earlier SQLite windows, so a reset never makes cost disappear. Where a message recorded no cost, it is computed from the model prices in openclaw.json and the row is marked estimated.'
  static override examples = [
    '<%= config.bin %> sessions usage',
    '<%= config.bin %> sessions usage --by day --since 7d',
    '<%= config.bin %> sessions usage --all-agents --by model --json',
    '<%= config.bin %> sessions usage --limit 10',
    '<%= config.bin %> sessions usage --store-url postgres://reader@db.example/fleet --by host',
  ]
  static override flags = {
    by: Flags.string({description: 'group by (host: on the fleet replica, with --store-url)', options: [...USAGE_BY], default: 'session'}),
    since: Flags.string({description: 'only calls at or after this date/time or duration ago (2026-11-01, 7d, 12h)', helpValue: '<when>'}),
    until: Flags.string({description: 'only calls at or before this date/time or duration ago', helpValue: '<when>'}),
    agent: Flags.string({description: 'agent id (default: the configured default agent)', helpValue: '<id>'}),
    'all-agents': Flags.boolean({description: 'every agent (configured or found on disk)'}),
    'include-archived': Flags.boolean({description: 'count .reset./.deleted. archives and earlier windows (on by default)', default: true, allowNo: true}),
    limit: Flags.string({description: 'show the top N rows by cost (the total still counts every call)', helpValue: '<n|all>'}),
    'store-url': storeUrlFlag,
    ...hostFlags,
  }

  async run(): Promise<SessionsUsageResult> {
    const f = this.flags
    requireStoreUrlFor(f)
    const opts = {by: f.by, since: f.since, until: f.until, agent: f.agent, allAgents: f['all-agents'], includeArchived: f['include-archived'], limit: f.limit}
    let result: SessionsUsageResult
    if (f['store-url']) {
      const fleet = await this.openFleet(f['store-url'])
      result = await fleetUsage(fleet.select({host: f.host, allHosts: f['all-hosts']}).map((state) => ({host: state.host, state})), {...opts, prefixHost: f.host === undefined})
    } else {
      result = await sessionsUsage(this.openState(), opts)
    }
    if (!this.jsonEnabled()) process.stdout.write(await renderUsage(result, {bars: Boolean(process.stdout.isTTY)}))
    return result
  }
}

const usd = (n: number, estimated: boolean) => `$${n.toFixed(4)}${estimated ? '*' : ''}`
const when = (iso: string | null) => (iso ? printable(localTime(iso)) : '-')

export async function renderUsage(r: SessionsUsageResult, opts: {bars?: boolean} = {}): Promise<string> {
  const c = colorEnabled()
  const out: string[] = [paint(c, 'cyan', `Usage by ${r.by}: ${r.count} row${r.count === 1 ? '' : 's'}, ${r.total.calls} call${r.total.calls === 1 ? '' : 's'} in ${r.transcripts} transcript${r.transcripts === 1 ? '' : 's'} (${r.agents.map(printable).join(', ')}${r.includeArchived ? ', archives included' : ', live sessions only'})${r.hosts ? ` on ${r.hosts.length} host(s) of the fleet replica` : ''}`)]
  if (r.since || r.until) out.push(`Calls ${r.since ? `from ${when(r.since)} ` : ''}${r.until ? `until ${when(r.until)}` : ''}`.trimEnd())
  const session = r.by === 'session'
  const head = [session ? 'Session' : r.by[0].toUpperCase() + r.by.slice(1), 'Calls', 'Input', 'Output', 'Cache read', 'Cache write', 'Cost']
  if (session) head.push('First call', 'Last call', 'Largest call')
  const cells = (x: Omit<UsageRow, 'group'>, group: string) => {
    const row = [group, String(x.calls), String(x.input), String(x.output), String(x.cacheRead), String(x.cacheWrite), usd(x.costUsd, x.estimated)]
    if (session) row.push(when(x.firstCallAt), when(x.lastCallAt), x.largestCall ? `${x.largestCall.totalTokens} tok ${usd(x.largestCall.costUsd, false)}` : '-')
    return row
  }
  // Several hosts of the replica: a session's row names its host too (agent:main:main is on every host).
  const onHost = (x: UsageRow) => (r.hosts && r.hosts.length > 1 && x.host !== undefined ? `${x.host} ` : '')
  const rows = r.rows.map((x) => cells(x, printable(session ? `${onHost(x)}${x.key ?? ''} ${x.sessionId}${x.where && x.where !== 'live' ? ` (${x.where})` : ''}`.trim() : x.group)))
  rows.push(cells(r.total, 'Total'))
  out.push(await renderTable(head.map((h) => ({header: h})), rows, c))
  if (r.total.estimated || r.rows.some((x) => x.estimated)) out.push('* estimated from the model prices in openclaw.json (the messages recorded no cost)')
  if (r.unpricedCalls > 0) out.push(paint(c, 'yellow', `! ${r.unpricedCalls} call(s) recorded no cost and their model has no price in openclaw.json: counted as $0.`))
  if (r.badLines > 0) out.push(paint(c, 'yellow', `! ${r.badLines} unreadable line(s) skipped; run "clawkit doctor".`))
  if (opts.bars && (r.by === 'day' || r.by === 'month') && r.rows.length > 0) {
    const max = Math.max(...r.rows.map((x) => x.costUsd))
    out.push('')
    for (const x of r.rows) out.push(`${printable(x.group)} ${'#'.repeat(max > 0 ? Math.max(x.costUsd > 0 ? 1 : 0, Math.round((x.costUsd / max) * 40)) : 0).padEnd(40)} ${usd(x.costUsd, x.estimated)}`)
  }
  return `${out.join('\n')}\n`
}
