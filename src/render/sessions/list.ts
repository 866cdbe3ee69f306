// The human output of `clawkit sessions list`: its result as text (the command chooses when to print it).

import {formatFlags, formatTimeAgo, freshTotal, formatTokensCell, percentUsed, truncateKey} from '../../sessions/format.js'
import type {SessionsListResult} from '../../sessions/list.js'
import {colorEnabled, paint, type Style} from '../color.js'
import {renderColumns} from '../columns.js'
import {displayWidth, type FitColumn, hiddenNote, keyCutter, renderFitted} from '../fit.js'
import {printable} from '../safe.js'

/**
 * `width` undefined (piped) is OpenClaw's fixed layout, unchanged. A number (a terminal, or Infinity for --wide) sizes
 * columns to their content and cuts columns to fit it (see renderFittedList); a cut key still names its session among
 * `allKeys` (every key of the stores read; default: the rows shown), so `sessions history <cut key>` finds it.
 */
export function renderSessionsList(result: SessionsListResult, opts: {width?: number; allKeys?: string[]} = {}): string {
  const color = colorEnabled()
  const lines: string[] = []
  if (result.hosts) lines.push(paint(color, 'cyan', `Fleet replica: ${result.hosts.length} host(s)${result.hosts.length > 0 ? ` (${result.hosts.map(printable).join(', ')})` : ''}, ${result.stores?.length ?? 0} session store(s)`))
  else if (result.stores) lines.push(paint(color, 'cyan', `Session stores: ${result.stores.length}${result.stores.length > 0 ? ` (${result.stores.map((s) => printable(s.agentId)).join(', ')})` : ''}`))
  else lines.push(paint(color, 'cyan', `Session store: ${printable(String(result.path))}`))
  lines.push(`Sessions listed: ${result.totalCount}${result.hasMore ? ` (showing ${result.count})` : ''}`)
  if (result.activeMinutes !== null) lines.push(`Filtered to last ${result.activeMinutes} minute(s)`)
  if (result.totalCount === 0) {
    lines.push('No sessions found.')
    return `${lines.join('\n')}\n`
  }
  const multi = Boolean(result.stores)
  const fleet = Boolean(result.hosts)
  const usage = result.sessions.some((r) => r.usage)
  const columns = [
    ...(fleet ? [{header: 'Host', width: 12}] : []),
    ...(multi ? [{header: 'Agent', width: 10}] : []),
    {header: 'Kind', width: 6},
    {header: 'Key', width: 26},
    {header: 'Age', width: 9},
    {header: 'Model', width: 14},
    {header: 'Tokens (ctx %)', width: 20},
    ...(usage ? [{header: 'Cost', width: 10}] : []),
    {header: 'Flags'},
  ]
  if (opts.width !== undefined) return `${lines.join('\n')}\n${renderFittedList(result, multi, opts.width, color, opts.allKeys, usage)}\n`
  const rows = result.sessions.map((r) => {
    const total = freshTotal(r)
    const pct = percentUsed(total, r.contextTokens)
    const style = tokensStyle(pct)
    return [
      ...(fleet ? [printable(String(r.host))] : []),
      ...(multi ? [r.agentId] : []),
      r.kind,
      truncateKey(r.key),
      formatTimeAgo(r.ageMs),
      String(r.model ?? 'unknown'),
      {text: formatTokensCell(total, r.contextTokens), style},
      ...(usage ? [costCell(r)] : []),
      formatFlags(r),
    ]
  })
  lines.push(renderColumns(columns, rows, color))
  return `${lines.join('\n')}\n`
}

function tokensStyle(pct: number | null): Style {
  return pct === null ? 'dim' : pct >= 95 ? 'red' : pct >= 80 ? 'yellow' : pct >= 60 ? 'green' : 'dim'
}

/** A row's cost so far (`*`: priced from openclaw.json), or `-` when --usage was not asked for it. */
function costCell(r: {usage?: {costUsd: number; estimated: boolean}}): string {
  return r.usage ? `$${r.usage.costUsd.toFixed(4)}${r.usage.estimated ? '*' : ''}` : '-'
}

/**
 * Flags read as whole items, never `thin…` or `id:0a1b…`: the session id goes first (a part of one names nothing, and
 * the key names the row), then the last items, marked by a closing `…`.
 */
function cutFlags(text: string, width: number): string {
  const items = text.split(' ').filter((x) => x && !x.startsWith('id:'))
  for (let n = items.length; n >= 0; n--) {
    const t = [...items.slice(0, n), ...(n < items.length ? ['…'] : [])].join(' ')
    if (displayWidth(t) <= width) return t
  }
  return ''
}

/**
 * On a terminal, what gives way first is what the row can do without: the session ids in Flags (the key names the
 * row; --wide and --json show them), a key's tail beyond OpenClaw's 26 columns, the model beyond OpenClaw's 14, then
 * Flags, Kind and Agent (the key says both) as whole columns, the key down to the prefix that still names it, and the
 * model. The key, Age and Tokens (and Host, Cost) always stay: at 50 columns a row is still a session, its age and its
 * context use.
 */
function renderFittedList(result: SessionsListResult, multi: boolean, width: number, color: boolean, allKeys: string[] | undefined, usage: boolean): string {
  const keys = result.sessions.map((r) => printable(r.key))
  const {floor: keyFloor, cut} = keyCutter(keys, allKeys?.map(printable))
  const fleet = Boolean(result.hosts)
  const flags = result.sessions.map((r) => formatFlags(r))
  const flagsFloor = Math.max(0, ...flags.map((f) => displayWidth(cutFlags(f, Number.POSITIVE_INFINITY))))
  const columns: FitColumn[] = [
    ...(fleet ? [{header: 'Host'}] : []),
    ...(multi ? [{header: 'Agent', shrink: [{rank: 5, drop: true}]}] : []),
    {header: 'Kind', shrink: [{rank: 5, drop: true}]},
    {header: 'Key', shrink: [{rank: 2, floor: Math.max(keyFloor, 26)}, {rank: 6, floor: keyFloor}], cut},
    {header: 'Age'},
    {header: 'Model', shrink: [{rank: 3, floor: 14}, {rank: 7, drop: true}]},
    {header: 'Tokens (ctx %)'},
    ...(usage ? [{header: 'Cost', align: 'right' as const}] : []),
    {header: 'Flags', shrink: flagsFloor > 0 ? [{rank: 1, floor: Math.max(flagsFloor, 5)}, {rank: 4, drop: true}] : [{rank: 1, drop: true}], cut: cutFlags, cutEvery: true},
  ]
  const rows = result.sessions.map((r, i) => {
    const total = freshTotal(r)
    return [
      ...(fleet ? [printable(String(r.host))] : []),
      ...(multi ? [r.agentId] : []),
      r.kind,
      keys[i],
      formatTimeAgo(r.ageMs),
      String(r.model ?? 'unknown'),
      {text: formatTokensCell(total, r.contextTokens), style: tokensStyle(percentUsed(total, r.contextTokens))},
      ...(usage ? [costCell(r)] : []),
      flags[i],
    ]
  })
  const hidden: string[] = []
  return [renderFitted(columns, rows, {width, color, hidden}), ...hiddenNote(hidden, width)].join('\n')
}
