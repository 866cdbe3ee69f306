// The human output of `clawkit sessions usage`: its result as text (the command chooses when to print it).
import {colorEnabled, paint} from '../color.js'
import {printable} from '../safe.js'
import {renderTable} from '../table.js'
import {localTime} from '../../sessions/format.js'
import type {SessionsUsageResult, UsageRow} from '../../sessions/usage.js'
import {hintInContext} from '../../cli/hint-context.js'

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
  if (r.badLines > 0) out.push(paint(c, 'yellow', `! ${r.badLines} unreadable line(s) skipped; ${hintInContext('run "clawkit doctor"')}.`))
  if (opts.bars && (r.by === 'day' || r.by === 'month') && r.rows.length > 0) {
    const max = Math.max(...r.rows.map((x) => x.costUsd))
    out.push('')
    for (const x of r.rows) out.push(`${printable(x.group)} ${'#'.repeat(max > 0 ? Math.max(x.costUsd > 0 ? 1 : 0, Math.round((x.costUsd / max) * 40)) : 0).padEnd(40)} ${usd(x.costUsd, x.estimated)}`)
  }
  return `${out.join('\n')}\n`
}
