// The vocabulary of spend budgets and runaway sessions (budget.ts, runaway.ts), apart so that the usage document
// (usage.ts) can name them without importing the modules that compute them.
import type {Period} from '../util/zoned-time.js'

export type BudgetPeriod = Exclude<Period, 'hour'>
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['day', 'week', 'month']

/** One limit as checked. */
export interface Budget {
  maxCostUsd: number
  per: BudgetPeriod
  /** Only this agent's spend (default: every agent the limit covers). */
  agent?: string
  /** Only this model's spend: `provider/model`, or a model id of any provider. */
  model?: string
  /** `flag`: --max-cost (over the agents the command reads); `settings`: clawkit's settings (over every agent). */
  source: 'flag' | 'settings'
}

export interface BudgetStatus extends Budget {
  /** The period's label (`2026-11-28`, the week's Monday, `2026-11`) and its first instant. */
  period: string
  periodStart: string
  spentUsd: number
  /** Part of the spend was priced from openclaw.json. */
  estimated: boolean
  /** Spent more than the limit. */
  over: boolean
}

export interface BudgetAlert {
  /** Which limit and period it is about (`budgets[i]`), or the runaway session's key. */
  about: string
  channel: string
  target: string
  /** `sent` now, `already` sent in this period before (not sent again), or `failed` (tried again on the next check). */
  status: 'sent' | 'already' | 'failed'
  error?: string
}

/** `sessions usage --max-cost` / `--check`: the document's `budget`. */
export interface BudgetCheck {
  timezone: string
  budgets: BudgetStatus[]
  /** Limits passed (each counts once); with `runaways`, what makes the exit code 7. */
  over: number
  /** Sessions spending far above their own usual rate in the last hour (runaway.ts says the rule). */
  runaways: Runaway[]
  alerts: BudgetAlert[]
}

export interface Runaway {
  agentId: string
  key: string
  sessionId: string
  /** Spend in the last hour. */
  lastHourUsd: number
  /** Spend per active hour (an hour with at least one call) in the 7 days before; null with fewer than 3 such hours. */
  usualHourUsd: number | null
  /** Calls in the last hour. */
  lastHourCalls: number
}
