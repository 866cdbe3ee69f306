// `sessions usage --statusline`: one short line for a shell prompt or tmux, today's spend, this month's, and the most
// expensive session active in the last hour, from one report of this month by day and session (the catalog's ledger
// answers it without reading transcripts that have no call this month).
import type {ReadableState} from '../store/state.js'
import {periodLabel, periodStart} from '../util/zoned-time.js'
import {sessionsUsage, type UsageLedger} from './usage.js'

export interface UsageStatusLine {
  timezone: string
  todayUsd: number
  monthUsd: number
  /** The session with the most spend today among those with a call in the last hour. */
  top: {agentId: string; key: string; sessionId: string; todayUsd: number} | null
  /** Part of a figure was priced from openclaw.json. */
  estimated: boolean
}

/** A session counts as active for the status line while its last call is this recent. */
export const ACTIVE_MS = 3_600_000

export async function usageStatusLine(state: ReadableState, o: {agent?: string; timezone: string; now: Date; ledger?: UsageLedger}): Promise<UsageStatusLine> {
  const now = o.now.getTime()
  const since = periodStart(now, 'month', o.timezone)
  const r = await sessionsUsage(state, {by: 'day,session', since: new Date(since).toISOString(), timezone: o.timezone, now: o.now, ...(o.agent ? {agent: o.agent} : {allAgents: true}), ...(o.ledger ? {ledger: o.ledger} : {scan: true})})
  const today = periodLabel(now, 'day', o.timezone)
  let todayUsd = 0
  let top: UsageStatusLine['top'] = null
  for (const row of r.rows) {
    if (row.values?.[0] !== today) continue
    todayUsd += row.costUsd
    const active = row.lastCallAt !== null && now - Date.parse(row.lastCallAt) <= ACTIVE_MS
    if (active && (!top || row.costUsd > top.todayUsd)) top = {agentId: row.agentId ?? '', key: row.key ?? '', sessionId: row.sessionId ?? '', todayUsd: row.costUsd}
  }
  return {timezone: o.timezone, todayUsd: Math.round(todayUsd * 1e9) / 1e9, monthUsd: r.total.costUsd, top, estimated: r.total.estimated}
}
