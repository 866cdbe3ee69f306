// The human output of `clawkit status`: its result as text (the command chooses when to print it).
import type {FleetStatusResult} from '../fleet/status.js'
import {formatBytes, formatTimeAgo, formatTokensCell, formatTokensK} from '../sessions/format.js'
import {GATEWAY_REFUSED} from '../status/gateway.js'
import type {StatusResult} from '../status/status.js'
import {activeKey} from '../status/watch.js'
import {paint} from './color.js'
import {type FitCell, keyCutter, renderFitted, wrapHanging} from './fit.js'
import {hintInContext, printable} from './safe.js'

function tokensCell(r: StatusResult['sessions']['recent'][number]): string {
  let cell: string
  if (r.totalTokens !== null) cell = formatTokensCell(r.totalTokens, r.contextTokens)
  else cell = `unknown/${formatTokensK(r.contextTokens)} (?%)`
  if ((r.cacheRead ?? 0) > 0 && (r.inputTokens ?? 0) + (r.cacheRead ?? 0) > 0) {
    const pct = Math.round(((r.cacheRead ?? 0) / ((r.inputTokens ?? 0) + (r.cacheRead ?? 0) + (r.cacheWrite ?? 0))) * 100)
    cell += ` · ${pct}% cached`
  }
  return cell
}

/**
 * Whether a gateway answered: "not listening" already says that nothing did, so a refused connect adds only its cause
 * (the --json `error` keeps the probe's whole phrase); any other failure (no answer in time, a network error) is named.
 */
function gatewayLine(g: StatusResult['gateway'], color: boolean): string {
  const at = `${g.host}:${g.port}`
  if (g.reachable) return paint(color, 'yellow', `listening on ${at} (${g.connectLatencyMs} ms, port from ${g.portSource})`)
  if (g.error === GATEWAY_REFUSED) return `not listening on ${at} (connection refused, port from ${g.portSource})`
  return `not reachable on ${at}: ${g.error} (port from ${g.portSource})`
}

/**
 * `width` undefined (piped) keeps the fixed layout. A number (a terminal, or Infinity for --wide) word-wraps the
 * labelled lines under their label and fits the tables: Model, then Key give way, a key never below the prefix that
 * names it uniquely. Keys are cut to be unique among `allKeys` (every key of the stores read; default: the rows shown).
 */
export async function renderStatus(s: StatusResult, color: boolean, opts: {width?: number; allKeys?: string[]; active?: ReadonlySet<string>} = {}): Promise<string> {
  const fitted = opts.width !== undefined
  const width = opts.width ?? Number.POSITIVE_INFINITY
  const L: string[] = [paint(color, 'bold', 'clawkit status'), '']
  const INDENT = ''.padEnd(14)
  // Paths, keys and agent ids come from files and flags: made printable here, once, before colour is added.
  const row = (label: string, value: string) => {
    const head = `${paint(color, 'bold', label.padEnd(14))}`
    if (Number.isFinite(width)) L.push(...wrapHanging(head, INDENT, value, width))
    else L.push(`${head}${value}`)
  }
  const more = (value: string) => (Number.isFinite(width) ? L.push(...wrapHanging(INDENT, INDENT, value, width)) : L.push(`${INDENT}${value}`))
  row('State dir', `${printable(s.stateDir)} (${printable(s.stateDirReason)})`)
  row('Config', `${printable(s.configPath)}${s.configExists ? '' : ' (not found; defaults apply)'}${s.configError ? paint(color, 'red', hintInContext(' (invalid: run "clawkit doctor")')) : ''}`)
  // A store that could not be read counted nothing: its count is unknown, never 0 (nor "no activity").
  const unread = s.agents.unreadable
  const unreadNames = unread.map(printable).join(', ')
  const counted = unread.length === 0 ? `${s.sessions.count}` : unread.length === s.agents.agents.length ? `unknown (${unreadNames} unreadable)` : `at least ${s.sessions.count} (${unreadNames} unreadable)`
  const active = s.lastActivity ? `last activity ${formatTimeAgo(s.lastActivity.ageMs)} (${printable(s.lastActivity.key)})` : unread.length > 0 ? 'activity unknown' : 'no activity'
  row('Agents', `${s.agents.agents.length} · default ${printable(s.agents.defaultId)} · sessions ${counted} · ${active}`)
  for (const a of s.agents.agents) {
    if (a.sqlite) more(`${printable(a.id)}: ${sqliteLine(a.sqlite)}${a.storeError ? paint(color, 'red', ` (unreadable: ${printable(a.storeError)})`) : ''} · ${printable(a.sqlite.path)}`)
    else if (a.storeError) more(`${printable(a.id)}: ${paint(color, 'red', 'sessions unknown (index unreadable)')}, ${a.transcripts.files} transcript(s) ${formatBytes(a.transcripts.bytes)} · ${printable(a.sessionsPath)}`)
    else more(`${printable(a.id)}: ${a.sessionsCount} session(s), ${a.transcripts.files} transcript(s) ${formatBytes(a.transcripts.bytes)} · ${printable(a.sessionsPath)}`)
  }
  row('Transcripts', `${s.transcripts.files} file(s), ${formatBytes(s.transcripts.bytes)} on disk`)
  row('Catalog', catalogLine(s.catalog))
  row('Defaults', `model ${printable(s.sessions.defaults.model ?? 'unknown')} (${formatTokensK(s.sessions.defaults.contextTokens)} ctx)`)
  const d = s.doctor
  const health = d.errors + d.warnings === 0 ? paint(color, 'green', `ok (${d.info} info)`) : paint(color, d.errors > 0 ? 'red' : 'yellow', `${d.errors} error(s), ${d.warnings} warning(s), ${d.info} info`)
  row('Doctor', `${health} · cheap checks; ${hintInContext('run "clawkit doctor"')} for all${d.ids.length ? ` (${d.ids.join(', ')})` : ''}`)
  for (const r of s.runaways ?? []) {
    row('Runaway', paint(color, 'red', `${printable(r.key)} (agent ${printable(r.agentId)}) spent $${r.lastHourUsd.toFixed(2)} in the last hour (${r.lastHourCalls} call(s)); ${r.usualHourUsd === null ? 'no usual rate yet' : `usually $${r.usualHourUsd.toFixed(2)} per active hour`}`))
  }
  const g = s.gateway
  row('Gateway', gatewayLine(g, color))
  if (g.warning) more(paint(color, 'yellow', `warning: ${g.warning}`))
  if (s.all) {
    L.push('', paint(color, 'bold', 'Agents'))
    // `?`: not counted (the store could not be read). A SQLite-era agent's transcripts are rows of its database.
    const rows = s.agents.agents.map((a) => [a.id, a.bootstrapPending ? 'PRESENT' : 'ABSENT', a.storeError ? '?' : String(a.sessionsCount), a.lastActiveAgeMs === null ? 'unknown' : formatTimeAgo(a.lastActiveAgeMs), a.era === 'sqlite' ? 'in database' : `${a.transcripts.files} / ${formatBytes(a.transcripts.bytes)}`, a.sqliteStore ?? a.sessionsPath])
    if (fitted) {
      L.push(renderFitted([{header: 'Agent'}, {header: 'Bootstrap file'}, {header: 'Sessions'}, {header: 'Active'}, {header: 'Transcripts'}, {header: 'Store', shrink: [{rank: 1}]}], rows, {width, color}))
    } else {
      const {renderTable} = await import('./table.js')
      L.push(await renderTable([{header: 'Agent', width: 10}, {header: 'Bootstrap file', width: 14}, {header: 'Sessions', width: 8}, {header: 'Active', width: 10}, {header: 'Transcripts', width: 16}, {header: 'Store'}], rows.map((r) => r.map(printable)), color))
    }
  }
  L.push('', paint(color, 'bold', 'Sessions'))
  // status --watch (always on a terminal, so a fitted table): the sessions that just changed, marked in their Age cell,
  // green where there is colour.
  const ageText = (r: StatusResult['sessions']['recent'][number]) => (r.age === null ? 'no activity' : formatTimeAgo(r.age))
  const age = (r: StatusResult['sessions']['recent'][number]): FitCell => (opts.active?.has(activeKey(r.agentId, r.key)) ? {text: `${ACTIVE_MARK} ${ageText(r)}`, style: 'green'} : {text: ageText(r)})
  const notRead = `the store${unread.length > 1 ? 's' : ''} of ${unreadNames} could not be read (see Agents above)`
  if (s.sessions.recent.length === 0) L.push(unread.length > 0 ? `not read: ${notRead}` : 'no sessions yet')
  else if (fitted) {
    const keys = s.sessions.recent.map((r) => printable(r.key))
    const {floor: keyFloor, cut} = keyCutter(keys, opts.allKeys?.map(printable))
    const rows = s.sessions.recent.map((r, i) => [keys[i], r.kind, age(r), r.model ?? 'unknown', tokensCell(r)])
    const columns = [{header: 'Key', shrink: [{rank: 1, floor: Math.max(keyFloor, 32)}, {rank: 3, floor: keyFloor}], cut}, {header: 'Kind'}, {header: 'Age'}, {header: 'Model', shrink: [{rank: 2, floor: 10}]}, {header: 'Tokens'}]
    L.push(renderFitted(columns, rows, {width, color}))
  } else {
    const {renderTable} = await import('./table.js')
    // OpenClaw's 32-character Key column; a longer key is cut to 32 that still name it (a prefix and `…` when that is
    // unique, else `head…tail`), wider only in the rare case where no 32 do.
    const keys = s.sessions.recent.map((r) => printable(r.key))
    const {floorOf, cut} = keyCutter(keys, opts.allKeys?.map(printable))
    const keyCell = (k: string) => ([...k].length > 32 ? cut(k, Math.max(32, floorOf(k))) : k)
    const rows = s.sessions.recent.map((r, i) => [keyCell(keys[i]), r.kind, ageText(r), printable(r.model ?? 'unknown'), tokensCell(r)])
    L.push(await renderTable([{header: 'Key', width: 32}, {header: 'Kind', width: 6}, {header: 'Age', width: 11}, {header: 'Model', width: 14}, {header: 'Tokens'}], rows, color))
  }
  if (s.sessions.recent.length > 0 && unread.length > 0) L.push(paint(color, 'yellow', `${unread.length > 1 ? `${unreadNames}'` : `${unreadNames}'s`} sessions could not be read and are not listed.`))
  return `${L.join('\n')}\n`
}

/** What marks a session `status --watch` saw change (a black circle). */
export const ACTIVE_MARK = '\u25CF'

/** A SQLite-era agent's store: era, schema, counts by SQL and the database and WAL sizes. */
function sqliteLine(q: NonNullable<StatusResult['agents']['agents'][number]['sqlite']>): string {
  const counts = q.sessions === null ? '' : `, ${q.sessions} session(s), ${q.events} event(s)`
  return `SQLite${q.schemaVersion === null ? '' : ` schema ${q.schemaVersion}`}${counts}, database ${formatBytes(q.databaseBytes)} + WAL ${formatBytes(q.walBytes)}`
}

const ago = (ms: number | null) => (ms === null ? 'never' : ms < 60_000 ? `${Math.round(ms / 1000)}s ago` : ms < 3_600_000 ? `${Math.round(ms / 60_000)}m ago` : ms < 86_400_000 ? `${Math.round(ms / 3_600_000)}h ago` : `${Math.round(ms / 86_400_000)}d ago`)

/** `status --store-url`: the fleet replica's hosts, their last sync and lag, and their agents. */
export function renderFleetStatus(s: FleetStatusResult, color: boolean): string {
  const bold = (t: string) => (color ? `\u001B[1m${t}\u001B[22m` : t)
  // Host names, keys and paths come from the database: made printable before they reach the terminal.
  const p = printable
  const L = [bold('clawkit status: fleet replica'), '', `${bold('Database'.padEnd(14))}${p(s.storeUrl)} (clawkit schema v${s.schemaVersion})`, `${bold('Hosts'.padEnd(14))}${s.hosts.length}`]
  for (const h of s.hosts) {
    L.push('')
    L.push(`${bold(p(h.host))}: last sync ${h.lastSyncAt ? `${p(h.lastSyncAt)} (lag ${ago(h.lagMs)})` : 'never finished'}${h.syncInProgress ? ', a sync started since (running, or killed: the next one completes it)' : ''}${h.clawkitVersion ? ` \u00B7 clawkit ${p(h.clawkitVersion)}` : ''}`)
    L.push(`  sessions ${h.sessions}${h.lastActivity ? ` \u00B7 last activity ${ago(h.lastActivity.ageMs)} (${p(h.lastActivity.key)})` : ''}`)
    for (const a of h.agents) L.push(`  ${p(a.agentId)}: ${a.era === 'sqlite' ? 'SQLite era' : 'JSON era'}, ${a.sessions} session(s), ${a.transcripts} transcript(s) \u00B7 ${p(a.storePath)}`)
  }
  return `${L.join('\n')}\n`
}

/** The catalog row: its size against the text it covers, or why there is none (never an error: commands then scan). */
function catalogLine(c: StatusResult['catalog']): string {
  if (c.state === 'unavailable') return `unavailable, ${c.reason ?? 'unknown reason'}: searches and usage read every transcript`
  if (c.state === 'none') return 'none yet (the first search or usage builds it, or clawkit index)'
  const ratio = c.textBytes > 0 ? ` (${(c.bytes / c.textBytes).toFixed(2)}x of the ${formatBytes(c.textBytes)} of text it covers)` : ''
  return `${formatBytes(c.bytes)}${ratio}, ${c.transcripts} transcript(s)${c.refreshedAt ? `, updated ${formatTimeAgo(Date.now() - c.refreshedAt)}` : ''}`
}
