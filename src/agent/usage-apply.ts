// What a finished turn writes into its session's index entry, with OpenClaw's token semantics (store-format §5.4, §7).
import type {SessionEntry} from '../store/types.js'
import type {ResolvedModel} from './model.js'

// Token counts of one model call, or summed over a turn's calls (`total` = all four). A line comment, not JSDoc: the type
// is part of `agent --json`, and JSDoc would become a description in schemas/agent.schema.json.
export interface TurnUsage {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  total: number
}

export function zeroUsage(): TurnUsage {
  return {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0}
}

/** Everything about a turn that the index entry records; gathered by the tool loop, whatever way the turn ended. */
export interface RunFacts {
  /** The session the turn ran in; an entry that meanwhile names another one is not touched. */
  sessionId: string
  /** Its transcript's locator (the entry's sessionFile). */
  sessionFile: string
  model: Pick<ResolvedModel, 'provider' | 'model' | 'contextWindow'>
  aborted: boolean
  /** Summed over the turn's model calls (summary calls excluded). */
  usage: TurnUsage
  /** The turn's last successful call, when there was one. */
  lastCall?: TurnUsage
  /** Set by a compaction with no successful call after it: the estimated size of the compacted context. */
  postCompactionTokens?: number
  /** USD of every call of the turn, summary calls included. */
  costUsd: number
  /** Compactions written during the turn. */
  compactions: number
  /** The time of the update (taken under the store lock). */
  now: number
}

/**
 * The prompt size of the context as it now is: the last call's input side. Undefined when no call succeeded, or when a
 * compaction came after it, since that prompt described the context before the compaction.
 */
export function promptTokensOf(lastCall: TurnUsage | undefined, postCompactionTokens: number | undefined): number | undefined {
  return lastCall && postCompactionTokens === undefined ? lastCall.input + lastCall.cacheRead + lastCall.cacheWrite : undefined
}

/**
 * The index entry after a turn: `entry` is the row as it is under the store lock (undefined when the row is gone), the
 * result is the row to store. Pure: `entry` is not modified; fields the turn does not own are kept, in their order.
 */
export function applyRunUsage(entry: SessionEntry | undefined, run: RunFacts): SessionEntry {
  // Someone reset the session while we ran: their new id wins and our counters are dropped.
  if (entry && entry.sessionId !== run.sessionId) return entry
  const e: SessionEntry = entry ? {...entry} : {sessionId: run.sessionId, updatedAt: run.now}
  e.sessionId = run.sessionId
  e.updatedAt = run.now
  // OpenClaw stamps every run's interaction time too (see the fixtures' entries).
  e.lastInteractionAt = e.updatedAt
  e.sessionFile = run.sessionFile
  e.contextTokens = run.model.contextWindow
  e.modelProvider = run.model.provider
  e.model = run.model.model
  e.abortedLastRun = run.aborted
  const {usage, lastCall, postCompactionTokens} = run
  const hasUsage = usage.input + usage.output + usage.cacheRead + usage.cacheWrite > 0
  if (hasUsage) {
    // §7: input and output are sums over the run's calls; the cache counters come from the last call when known.
    e.inputTokens = usage.input
    e.outputTokens = usage.output
    e.cacheRead = lastCall?.cacheRead ?? usage.cacheRead
    e.cacheWrite = lastCall?.cacheWrite ?? usage.cacheWrite
  } else if (postCompactionTokens !== undefined) {
    // §5.4: a compaction clears the counters that described the old context.
    delete e.inputTokens
    delete e.outputTokens
    delete e.cacheRead
    delete e.cacheWrite
  }
  const promptTokens = promptTokensOf(lastCall, postCompactionTokens)
  if (promptTokens && promptTokens > 0) {
    e.totalTokens = promptTokens
    e.totalTokensFresh = true
  } else if (postCompactionTokens !== undefined) {
    e.totalTokens = postCompactionTokens
    e.totalTokensFresh = true
  } else if (hasUsage) {
    // §7: tokens were spent but no prompt size could be derived, so the old total is dropped and marked stale.
    delete e.totalTokens
    e.totalTokensFresh = false
  }
  // §7: the only counter that accumulates across runs; kept to 9 decimals so repeated sums leave no float noise.
  if (hasUsage || run.costUsd > 0) e.estimatedCostUsd = Math.round(((typeof e.estimatedCostUsd === 'number' ? e.estimatedCostUsd : 0) + run.costUsd) * 1e9) / 1e9
  if (run.compactions > 0) e.compactionCount = (typeof e.compactionCount === 'number' ? e.compactionCount : 0) + run.compactions
  return e
}
