// Spend budgets: limits per day, week or month (total, or for one agent or model), from clawkit's settings and from
// `sessions usage --max-cost`, checked against the spend of the current period in the report's time zone; the runaway
// sessions (runaway.ts) beside them; and one alert per limit and period through `message send`'s path, remembered in
// clawkit's data dir so that a cron job checking every few minutes alerts once.
import fs from 'node:fs'
import path from 'node:path'

import {messageSend} from '../channels/send.js'
import {UsageError} from '../errors.js'
import type {ClawkitBudget} from '../settings.js'
import type {OpenClawState, ReadableState} from '../store/state.js'
import {periodLabel, periodStart} from '../util/zoned-time.js'
import type {Budget, BudgetAlert, BudgetCheck, BudgetPeriod, BudgetStatus} from './budget-types.js'
import {findRunaways} from './runaway.js'
import {sessionsUsage, type UsageLedger} from './usage.js'

export {BUDGET_PERIODS} from './budget-types.js'
export type {Budget, BudgetAlert, BudgetCheck, BudgetPeriod, BudgetStatus} from './budget-types.js'


/** `--max-cost` checked: a positive number of dollars. */
export function parseMaxCost(raw: string): number {
  const n = Number(raw.trim().replace(/^\$/, ''))
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--max-cost "${raw}" must be a positive number of dollars (e.g. 25 or 2.50)`, 'E_BAD_FLAG')
  return n
}

/** `--notify <channel>:<target>` split: `discord:channel:123` is channel discord, target channel:123. */
export function parseNotify(raw: string): {channel: string; target: string} {
  const i = raw.indexOf(':')
  const channel = i > 0 ? raw.slice(0, i).trim().toLowerCase() : ''
  const target = i > 0 ? raw.slice(i + 1).trim() : ''
  if (!channel || !target) throw new UsageError(`--notify "${raw}" must be <channel>:<target>, e.g. discord:channel:123456789012345678, telegram:123456789, slack:channel:C0123ABCD, webhook:https://example.com/hook`, 'E_BAD_FLAG')
  return {channel, target}
}

const sameModel = (rowModel: string, want: string) => rowModel === want || rowModel.split('/').slice(1).join('/') === want

/** Every limit's spend in its current period. `agents`: what --max-cost covers (the command's agents). */
export async function checkBudgets(state: ReadableState, o: {budgets: Budget[]; agents: string[]; timezone: string; now: Date; ledger?: UsageLedger}): Promise<BudgetStatus[]> {
  const out: BudgetStatus[] = []
  // One report per period and agent set, split by agent and model: each limit sums the rows it covers.
  const reports = new Map<string, Awaited<ReturnType<typeof sessionsUsage>>>()
  for (const b of o.budgets) {
    const start = periodStart(o.now.getTime(), b.per, o.timezone)
    const agents = b.agent ? [state.requireAgent(b.agent)] : b.source === 'flag' ? o.agents : state.allAgentIds()
    const k = `${b.per}\u0000${agents.join(',')}`
    let r = reports.get(k)
    if (!r) {
      r = await sessionsUsage(state, {by: 'agent,model', since: new Date(start).toISOString(), timezone: o.timezone, now: o.now, ...(agents.length === 1 ? {agent: agents[0]} : {allAgents: true}), ...(o.ledger ? {ledger: o.ledger} : {scan: true})})
      reports.set(k, r)
    }
    let spent = 0
    let estimated = false
    for (const row of r.rows) {
      const [agent, model] = row.values ?? []
      if (!agents.includes(agent)) continue
      if (b.model && !sameModel(model, b.model)) continue
      spent += row.costUsd
      if (row.estimated) estimated = true
    }
    spent = Math.round(spent * 1e9) / 1e9
    out.push({...b, period: periodLabel(o.now.getTime(), b.per, o.timezone), periodStart: new Date(start).toISOString(), spentUsd: spent, estimated, over: spent > b.maxCostUsd})
  }
  return out
}

/** A limit's name in an alert and in the memory of alerts sent. */
export function budgetName(b: Budget): string {
  const scope = [b.agent ? `agent ${b.agent}` : undefined, b.model ? `model ${b.model}` : undefined].filter(Boolean).join(', ') || 'total'
  return `$${b.maxCostUsd} per ${b.per} (${scope})`
}

/** The file that remembers which alerts were sent (per state dir, limit and period). */
export function alertsFile(dataDir: string): string {
  return path.join(dataDir, 'budget-alerts.json')
}

type Sent = Record<string, string>

function readSent(file: string): Sent {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8'))
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Sent) : {}
  } catch {
    // Missing or unreadable: nothing remembered, so an alert may go twice, never be lost.
    return {}
  }
}

function writeSent(file: string, sent: Sent, now: number): void {
  // Only the last 400 days are kept: a month's alert is never asked about after its month.
  const kept = Object.fromEntries(Object.entries(sent).filter(([, at]) => now - Date.parse(at) < 400 * 86_400_000))
  fs.mkdirSync(path.dirname(file), {recursive: true, mode: 0o700})
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, `${JSON.stringify(kept, null, 2)}\n`, {mode: 0o600})
  fs.renameSync(tmp, file)
}

const money = (n: number) => `$${n.toFixed(2)}`

/**
 * Sends one alert per limit passed and per runaway session, unless this state dir's alert for that limit (or session)
 * and period was sent before. A failed send is reported and not remembered: the next check tries again.
 */
export async function sendAlerts(state: OpenClawState, o: {check: Omit<BudgetCheck, 'alerts'>; notify: {channel: string; target: string}; dataDir: string; now: Date}): Promise<BudgetAlert[]> {
  const file = alertsFile(o.dataDir)
  const sent = readSent(file)
  const out: BudgetAlert[] = []
  const stateDir = state.stateDir
  const items: {id: string; about: string; text: string}[] = []
  for (const b of o.check.budgets) {
    if (!b.over) continue
    const name = budgetName(b)
    items.push({id: `${stateDir}\u0000${b.source}:${name}\u0000${b.period}`, about: name, text: `clawkit: spend ${money(b.spentUsd)}${b.estimated ? ' (partly estimated)' : ''} passed the budget of ${name} for ${b.period} (${o.check.timezone}) in ${stateDir}.`})
  }
  for (const r of o.check.runaways) {
    // One alert per runaway session and hour.
    const hour = periodLabel(o.now.getTime(), 'hour', o.check.timezone)
    items.push({id: `${stateDir}\u0000runaway:${r.agentId}/${r.sessionId}\u0000${hour}`, about: r.key, text: `clawkit: runaway session ${r.key} (agent ${r.agentId}) spent ${money(r.lastHourUsd)} in the last hour, ${r.usualHourUsd === null ? 'with no usual rate yet' : `${Math.round(r.lastHourUsd / Math.max(r.usualHourUsd, 1e-9))}x its usual ${money(r.usualHourUsd)} per active hour`}, in ${stateDir}.`})
  }
  for (const it of items) {
    const base = {about: it.about, channel: o.notify.channel, target: o.notify.target}
    if (sent[it.id]) {
      out.push({...base, status: 'already'})
      continue
    }
    try {
      await messageSend(state, {channel: o.notify.channel, target: o.notify.target, message: it.text, mirror: false})
      sent[it.id] = o.now.toISOString()
      writeSent(file, sent, o.now.getTime())
      out.push({...base, status: 'sent'})
    } catch (error) {
      out.push({...base, status: 'failed', error: (error as Error).message})
    }
  }
  return out
}

/** The limits of the settings and of the flags, as checked. */
export function budgetsOf(settings: readonly ClawkitBudget[] | undefined, flag: {maxCost?: string; per?: string}): Budget[] {
  const out: Budget[] = (settings ?? []).map((b) => ({maxCostUsd: b.maxCostUsd, per: b.per, ...(b.agent ? {agent: b.agent} : {}), ...(b.model ? {model: b.model} : {}), source: 'settings' as const}))
  if (flag.maxCost !== undefined) out.push({maxCostUsd: parseMaxCost(flag.maxCost), per: (flag.per ?? 'day') as BudgetPeriod, source: 'flag'})
  return out
}

/** The whole check: limits, runaways (over every agent the limits cover), and the alerts when asked. */
export async function budgetCheck(state: ReadableState, o: {budgets: Budget[]; agents: string[]; timezone: string; now: Date; ledger?: UsageLedger}): Promise<Omit<BudgetCheck, 'alerts'>> {
  const budgets = await checkBudgets(state, o)
  const runaways = await findRunaways(state, {agents: state.allAgentIds(), now: o.now})
  return {timezone: o.timezone, budgets, over: budgets.filter((b) => b.over).length, runaways}
}
