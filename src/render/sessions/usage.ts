// The human output of `clawkit sessions usage`: its result as text (the command chooses when to print it).
import {groupDigits, localTime} from '../../sessions/format.js'
import type {UsageStatusLine} from '../../sessions/statusline.js'
import type {SessionsUsageResult, UsageBy, UsageRow} from '../../sessions/usage.js'
import {colorEnabled, paint} from '../color.js'
import {cutToWidth, type FitCell, type FitColumn, hiddenNote, keyCutter, renderFitted, wrapHanging} from '../fit.js'
import {hintInContext, printable} from '../safe.js'

const usd = (n: number, estimated: boolean) => `$${n.toFixed(4)}${estimated ? '*' : ''}`
const when = (iso: string | null) => (iso ? printable(localTime(iso)) : '-')

/** Where a session was found, in the fewest words that still tell the rows of one key apart. */
const SHORT_WHERE: Record<string, string> = {'reset-archive': 'reset', 'deleted-archive': 'deleted'}

/** Enough of a session id to tell sessions apart by eye (git's short hashes are 7). */
const SHORT_ID = 8

/**
 * A session cell, `<sessionId>` or `<sessionId> (<where>)`, cut by shortening the id to its first characters and
 * keeping where it was found (in short if need be): the rows of one key, its live session and its reset archives,
 * still tell apart.
 */
function cutSession(text: string, width: number): string {
  const m = /^(\S+)(?: \((.+)\))?$/.exec(text)
  const id = m?.[1] ?? text
  const where = m?.[2]
  for (const w of where ? [where, SHORT_WHERE[where] ?? where] : ['']) {
    const tag = w ? ` (${w})` : ''
    const room = width - tag.length - 1
    if (room >= SHORT_ID) return `${id.slice(0, room)}…${tag}`
  }
  return cutToWidth(text, width)
}

/** The narrowest a session cell is cut to: the short id and the short where. */
const sessionFloor = (where: string | undefined) => SHORT_ID + 1 + (where && where !== 'live' ? ` (${SHORT_WHERE[where] ?? where})`.length : 0)

/**
 * `width`: the terminal's (undefined when piped or with --wide: every column in full). On a terminal the table fits it
 * as ccusage's does, compact on a narrow one: the columns a cost review can do without are left out first (first
 * call, largest call, cache writes and reads, last call, calls) and named under the table, then the session id is
 * shortened and the key cut to the prefix that names it. Key (or the group), Input, Output and Cost always stay.
 */
export function renderUsage(r: SessionsUsageResult, opts: {width?: number; bars?: boolean} = {}): string {
  const c = colorEnabled()
  const width = opts.width ?? Number.POSITIVE_INFINITY
  const fits = Number.isFinite(width)
  const out: string[] = []
  const prose = (text: string, style?: 'cyan' | 'yellow') => {
    const lines = fits ? wrapHanging('', '  ', text, width) : [text]
    out.push(...lines.map((l) => (style ? paint(c, style, l) : l)))
  }
  const dims = r.dims ?? [r.by]
  prose(`Usage by ${dims.join(', ')} (${printable(r.timezone)}): ${plural(r.count, 'row')}, ${plural(r.total.calls, 'call')} in ${plural(r.transcripts, 'transcript')} (${r.agents.map(printable).join(', ')}${r.includeArchived ? ', archives included' : ', live sessions only'})${r.hosts ? ` on ${r.hosts.length} host(s) of the fleet replica` : ''}`, 'cyan')
  if (r.since || r.until) prose(`Calls ${r.since ? `from ${when(r.since)} ` : ''}${r.until ? `until ${when(r.until)}` : ''}`.trimEnd())

  // A breakdown (several dimensions): one column per dimension, each row's values.
  if (dims.length > 1) return renderBreakdown(r, dims, out, opts, prose, width)
  const session = r.by === 'session'
  const removedAny = (r.total.removedCostUsd ?? 0) !== 0 || r.rows.some((x) => x.removedCostUsd)
  // Several hosts of the replica: a session's or key's row names its host (agent:main:main is on every host).
  const hostColumn = Boolean(r.hosts && r.hosts.length > 1 && (session || r.by === 'key'))
  const keyed = session || r.by === 'key'
  const groupOf = (x: UsageRow) => printable(session ? (x.key ?? '(no key)') : r.by === 'key' ? (x.key ?? x.group) : x.group)
  const groups = r.rows.map(groupOf)
  const keys = keyed ? keyCutter(groups.filter((g) => g.startsWith('agent:'))) : undefined
  const num = (header: string, rank?: number): FitColumn => ({header, align: 'right', ...(rank === undefined ? {} : {shrink: [{rank, drop: true}]})})
  const columns: FitColumn[] = [
    ...(hostColumn ? [{header: 'Host'}] : []),
    session
      ? {header: 'Key', shrink: [{rank: 7, floor: keys!.floor}], cut: keys!.cut}
      : {header: r.by === 'key' ? 'Key' : DIM_HEADER[r.by], ...(keys ? {shrink: [{rank: 7, floor: keys.floor}], cut: keys.cut} : {shrink: [{rank: 7, floor: 12}]})},
    ...(session ? [{header: 'Session', shrink: [{rank: 5, floor: Math.max(7, ...r.rows.map((x) => sessionFloor(x.where)))}, {rank: 8, drop: true}], cut: cutSession}] : []),
    num('Calls', 6.5),
    num('Input'),
    num('Output'),
    num('Cache read', 4),
    num('Cache write', 3),
    num('Cost'),
    // The spend of removed transcripts the catalog kept: a column only when there is any.
    ...(removedAny ? [num('Removed', 3.5)] : []),
    ...(session ? [{header: 'First call', shrink: [{rank: 1, drop: true}]}, {header: 'Last call', shrink: [{rank: 6, drop: true}]}, {header: 'Largest call', shrink: [{rank: 2, drop: true}]}] : []),
  ]
  const cells = (x: Omit<UsageRow, 'group'>, group: string, sessionCell: string, host: string): (string | FitCell)[] => {
    const row: (string | FitCell)[] = [
      ...(hostColumn ? [host] : []),
      group,
      ...(session ? [sessionCell] : []),
      groupDigits(x.calls),
      groupDigits(x.input),
      groupDigits(x.output),
      groupDigits(x.cacheRead),
      groupDigits(x.cacheWrite),
      usd(x.costUsd, x.estimated),
      ...(removedAny ? [x.removedCostUsd ? usd(x.removedCostUsd, false) : '-'] : []),
    ]
    if (session) row.push(when(x.firstCallAt), when(x.lastCallAt), x.largestCall ? `${groupDigits(x.largestCall.totalTokens)} tok ${usd(x.largestCall.costUsd, false)}` : '-')
    return row
  }
  const rows = r.rows.map((x, i) => cells(x, groups[i], printable(`${x.sessionId ?? ''}${x.removed ? ' (removed)' : x.where && x.where !== 'live' ? ` (${x.where})` : ''}`), printable(x.host ?? '')))
  // "Total" opens the row, in the Host column when there is one.
  rows.push(hostColumn ? cells(r.total, '', '', 'Total') : cells(r.total, 'Total', '', ''))
  const hidden: string[] = []
  out.push(renderFitted(columns, rows, {width, color: c, hidden}))
  out.push(...hiddenNote(hidden, width))
  notes(r, prose)
  if (opts.bars && (r.by === 'day' || r.by === 'week' || r.by === 'month') && r.rows.length > 0) {
    const max = Math.max(...r.rows.map((x) => x.costUsd))
    const label = Math.max(...r.rows.map((x) => x.group.length))
    const cost = Math.max(...r.rows.map((x) => usd(x.costUsd, x.estimated).length))
    // 40 cells, or what the terminal leaves beside the date and the cost; too narrow a bar says nothing.
    const bar = Math.min(40, width - label - cost - 2)
    if (bar >= 10) {
      out.push('')
      for (const x of r.rows) out.push(`${printable(x.group)} ${'#'.repeat(max > 0 ? Math.max(x.costUsd > 0 ? 1 : 0, Math.round((x.costUsd / max) * bar)) : 0).padEnd(bar)} ${usd(x.costUsd, x.estimated)}`)
    }
  }
  return `${out.join('\n')}\n`
}

const plural = (n: number, one: string) => `${groupDigits(n)} ${one}${n === 1 ? '' : 's'}`

/** The header of each --by dimension's column. */
const DIM_HEADER: Record<UsageBy, string> = {session: 'Session', key: 'Key', agent: 'Agent', model: 'Model', provider: 'Provider', channel: 'Channel', kind: 'Kind', cron: 'Cron job', hour: 'Hour', day: 'Day', week: 'Week of', month: 'Month', host: 'Host'}

/** What is said under every table: estimates, removed spend, and what could not be counted. */
function notes(r: SessionsUsageResult, prose: (text: string, style?: 'cyan' | 'yellow') => void): void {
  if (r.total.estimated || r.rows.some((x) => x.estimated)) prose('* estimated from the model prices in openclaw.json (the messages recorded no cost)')
  if (r.removed && r.removed.transcripts > 0) {
    prose(`Removed: ${usd(r.removed.costUsd, false)} of the total was spent in ${plural(r.removed.transcripts, 'transcript')} OpenClaw has since removed (${plural(r.removed.calls, 'call')}, kept by clawkit's catalog; --scan leaves them out).`)
  }
  if (r.unpricedCalls > 0) prose(`! ${r.unpricedCalls} call(s) recorded no cost and their model has no price in openclaw.json: counted as $0.`, 'yellow')
  if (r.badLines > 0) prose(`! ${r.badLines} unreadable line(s) skipped; ${hintInContext('run "clawkit doctor"')}.`, 'yellow')
  if (r.badValues > 0) prose(`! ${r.badValues} token or cost figure(s) were not plausible numbers (negative, not finite, not a number, or over 1e9 tokens or $100000 for one call): counted as 0.`, 'yellow')
  const b = r.budget
  if (!b) return
  for (const x of b.budgets) {
    const scope = [x.agent ? `agent ${printable(x.agent)}` : undefined, x.model ? `model ${printable(x.model)}` : undefined].filter(Boolean).join(', ') || 'total'
    const line = `Budget $${x.maxCostUsd} per ${x.per} (${scope}${x.source === 'flag' ? ', --max-cost' : ''}): ${usd(x.spentUsd, x.estimated)} spent in ${x.period} (${printable(b.timezone)}), ${x.over ? 'OVER' : 'within'}`
    prose(x.over ? `! ${line}` : line, x.over ? 'yellow' : undefined)
  }
  for (const x of b.runaways) {
    prose(`! Runaway: ${printable(x.key)} (agent ${printable(x.agentId)}) spent ${usd(x.lastHourUsd, false)} in the last hour (${groupDigits(x.lastHourCalls)} call(s)); ${x.usualHourUsd === null ? 'no usual rate yet' : `its usual rate is ${usd(x.usualHourUsd, false)} per active hour`}.`, 'yellow')
  }
  for (const a of b.alerts) prose(`Alert about ${printable(a.about)} to ${printable(a.channel)}:${printable(a.target)}: ${a.status === 'sent' ? 'sent' : a.status === 'already' ? 'already sent in this period' : `FAILED (${printable(a.error ?? '')})`}`)
}

/**
 * A breakdown (`--by day,model`): a column per dimension, a period's value printed on its first row only (as ccusage's
 * --breakdown indents), then the same figures as a one-dimension table. On a narrow terminal cache columns and calls go
 * first, then the values are cut, then output and input tokens go; the values and the cost always stay.
 */
function renderBreakdown(r: SessionsUsageResult, dims: UsageBy[], out: string[], opts: {width?: number}, prose: (text: string, style?: 'cyan' | 'yellow') => void, width: number): string {
  const c = colorEnabled()
  const num = (header: string, rank?: number): FitColumn => ({header, align: 'right', ...(rank === undefined ? {} : {shrink: [{rank, drop: true}]})})
  const columns: FitColumn[] = [
    // The first dimension keeps more room: it is what the rows are grouped under.
    // Then the others are cut to a few letters; the token counts go only when the dimensions still do not fit.
    ...dims.map((d, i): FitColumn => ({header: DIM_HEADER[d], shrink: [{rank: i === 0 ? 7 : 6.8, floor: i === 0 ? 10 : 6}]})),
    num('Calls', 6.5),
    num('Input', 9),
    num('Output', 8),
    num('Cache read', 4),
    num('Cache write', 3),
    num('Cost'),
  ]
  const rows: string[][] = []
  let previous: string | undefined
  for (const x of r.rows) {
    const values = (x.values ?? [x.group]).map(printable)
    const shown = values.map((v, i) => (i === 0 && v === previous ? '' : v))
    previous = values[0]
    rows.push([...shown, groupDigits(x.calls), groupDigits(x.input), groupDigits(x.output), groupDigits(x.cacheRead), groupDigits(x.cacheWrite), usd(x.costUsd, x.estimated)])
  }
  const t = r.total
  rows.push(['Total', ...dims.slice(1).map(() => ''), groupDigits(t.calls), groupDigits(t.input), groupDigits(t.output), groupDigits(t.cacheRead), groupDigits(t.cacheWrite), usd(t.costUsd, t.estimated)])
  const hidden: string[] = []
  out.push(renderFitted(columns, rows, {width, color: c, hidden}))
  out.push(...hiddenNote(hidden, width))
  notes(r, prose)
  void opts
  return `${out.join('\n')}\n`
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
const csvField = (v: string | number | boolean | null | undefined): string => {
  const s = v === null || v === undefined ? '' : String(v)
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s
}

/**
 * `sessions usage --csv`: a header line, then one line per row (no total line: a spreadsheet sums the columns). A
 * column per --by dimension, then agent, key, sessionId and where with --by session, then the figures; cost in dollars
 * with up to nine decimals, `estimated` true where part of it was priced from openclaw.json.
 */
export function usageCsv(r: SessionsUsageResult): string {
  const dims = r.dims ?? [r.by]
  const session = dims.includes('session')
  const head = [...dims, ...(session ? ['agent', 'key', 'sessionId', 'where'] : []), 'calls', 'input', 'output', 'cacheRead', 'cacheWrite', 'totalTokens', 'costUsd', 'estimated', 'removedCostUsd', 'firstCallAt', 'lastCallAt']
  const lines = [head.join(',')]
  for (const x of r.rows) {
    const values = x.values ?? [x.group]
    lines.push([...values, ...(session ? [x.agentId, x.key, x.sessionId, x.removed ? 'removed' : x.where] : []), x.calls, x.input, x.output, x.cacheRead, x.cacheWrite, x.totalTokens, Number(x.costUsd.toFixed(9)), x.estimated, x.removedCostUsd ?? 0, x.firstCallAt, x.lastCallAt].map(csvField).join(','))
  }
  return `${lines.join('\n')}\n`
}

/**
 * The status line: `$1.23 today · $45.67 this month · agent:main:main $0.80`, dollars to the cent (`*`: partly
 * estimated), the active session's key cut to 32 characters; no colour, no line break but the last.
 */
export function renderStatusLine(s: UsageStatusLine): string {
  const d = (n: number) => `$${n.toFixed(2)}${s.estimated ? '*' : ''}`
  const parts = [`${d(s.todayUsd)} today`, `${d(s.monthUsd)} this month`]
  if (s.top) parts.push(`${cutToWidth(printable(s.top.key), 32)} ${d(s.top.todayUsd)}`)
  return `${parts.join(' \u00B7 ')}\n`
}
