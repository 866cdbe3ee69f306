// `clawkit status`: state dir, agents, recent sessions, a cheap doctor summary and the gateway port, on one screen.
import {Flags} from '@oclif/core'

import {BaseCommand} from '../base-command.js'
import {colorEnabled, paint} from '../render/color.js'
import {formatTimeAgo, formatTokensCell, formatTokensK} from '../sessions/format.js'
import {getStatus, type StatusResult} from '../status/status.js'

export type {AgentStatus, SessionStatusRow, StatusResult} from '../status/status.js'
export type {GatewayProbe} from '../status/gateway.js'

export default class Status extends BaseCommand<typeof Status> {
  static override summary = 'Show the state dir, agents, recent sessions, store health and whether a gateway runs'
  static override description =
    'Reads every agent\'s sessions.json and lists its sessions dir (no transcript is opened), runs doctor\'s cheap checks and probes the gateway port on 127.0.0.1. ' +
    'The --json "sessions" and "agents" objects mirror OpenClaw\'s status JSON; global/unknown keys are excluded as OpenClaw does.'
  static override examples = ['<%= config.bin %> status', '<%= config.bin %> status --all', '<%= config.bin %> status --json']
  static override flags = {
    all: Flags.boolean({description: 'add the per-agent table'}),
  }

  async run(): Promise<StatusResult> {
    const f = this.flags
    const state = this.openState({tolerateConfigError: true})
    const profile = f.dev ? 'dev' : (f.profile ?? state.env.OPENCLAW_PROFILE)
    const result = await getStatus(state, {all: f.all, profile})
    if (!this.jsonEnabled()) process.stdout.write(await renderStatus(result, colorEnabled()))
    return result
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let v = n / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`
}

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

function keyCell(key: string): string {
  return key.length > 32 ? `${key.slice(0, 31)}…` : key
}

export async function renderStatus(s: StatusResult, color: boolean): Promise<string> {
  const {renderTable} = await import('../render/table.js')
  const L: string[] = [paint(color, 'bold', 'clawkit status'), '']
  const row = (label: string, value: string) => L.push(`${paint(color, 'bold', label.padEnd(14))}${value}`)
  row('State dir', `${s.stateDir} (${s.stateDirReason})`)
  row('Config', `${s.configPath}${s.configExists ? '' : ' (not found; defaults apply)'}${s.configError ? paint(color, 'red', ' (invalid: run clawkit doctor)') : ''}`)
  const active = s.lastActivity ? `last activity ${formatTimeAgo(s.lastActivity.ageMs)} (${s.lastActivity.key})` : 'no activity'
  row('Agents', `${s.agents.agents.length} · default ${s.agents.defaultId} · sessions ${s.sessions.count} · ${active}`)
  for (const a of s.agents.agents) {
    if (a.sqliteStore) L.push(`${''.padEnd(14)}${a.id}: ${paint(color, 'yellow', `sessions in SQLite (OpenClaw 2026.7+), not readable by clawkit yet`)} · ${a.sqliteStore}`)
    else L.push(`${''.padEnd(14)}${a.id}: ${a.sessionsCount} session(s), ${a.transcripts.files} transcript(s) ${formatBytes(a.transcripts.bytes)} · ${a.sessionsPath}${a.storeError ? paint(color, 'red', ' (index unreadable)') : ''}`)
  }
  row('Transcripts', `${s.transcripts.files} file(s), ${formatBytes(s.transcripts.bytes)} on disk`)
  row('Defaults', `model ${s.sessions.defaults.model ?? 'unknown'} (${formatTokensK(s.sessions.defaults.contextTokens)} ctx)`)
  const d = s.doctor
  const health = d.errors + d.warnings === 0 ? paint(color, 'green', `ok (${d.info} info)`) : paint(color, d.errors > 0 ? 'red' : 'yellow', `${d.errors} error(s), ${d.warnings} warning(s), ${d.info} info`)
  row('Doctor', `${health} · cheap checks; run "clawkit doctor" for all${d.ids.length ? ` (${d.ids.join(', ')})` : ''}`)
  const g = s.gateway
  row('Gateway', g.reachable ? paint(color, 'yellow', `listening on ${g.host}:${g.port} (${g.connectLatencyMs} ms, port from ${g.portSource})`) : `not listening on ${g.host}:${g.port}: ${g.error} (port from ${g.portSource})`)
  if (g.warning) L.push(`${''.padEnd(14)}${paint(color, 'yellow', `warning: ${g.warning}`)}`)
  if (s.all) {
    L.push('', paint(color, 'bold', 'Agents'))
    const rows = s.agents.agents.map((a) => [a.id, a.bootstrapPending ? 'PRESENT' : 'ABSENT', a.sqliteStore ? 'SQLite' : String(a.sessionsCount), a.lastActiveAgeMs === null ? 'unknown' : formatTimeAgo(a.lastActiveAgeMs), `${a.transcripts.files} / ${formatBytes(a.transcripts.bytes)}`, a.sessionsPath])
    L.push(await renderTable([{header: 'Agent', width: 10}, {header: 'Bootstrap file', width: 14}, {header: 'Sessions', width: 8}, {header: 'Active', width: 10}, {header: 'Transcripts', width: 16}, {header: 'Store'}], rows, color))
  }
  L.push('', paint(color, 'bold', 'Sessions'))
  const sqliteAgents = s.agents.agents.filter((a) => a.sqliteStore).map((a) => a.id)
  if (s.sessions.recent.length === 0) L.push(sqliteAgents.length > 0 ? `none clawkit can read (sessions of ${sqliteAgents.join(', ')} are in SQLite)` : 'no sessions yet')
  else {
    const rows = s.sessions.recent.map((r) => [keyCell(r.key), r.kind, r.age === null ? 'no activity' : formatTimeAgo(r.age), r.model ?? 'unknown', tokensCell(r)])
    L.push(await renderTable([{header: 'Key', width: 32}, {header: 'Kind', width: 6}, {header: 'Age', width: 11}, {header: 'Model', width: 14}, {header: 'Tokens'}], rows, color))
  }
  return `${L.join('\n')}\n`
}
