// `sessions usage`: token and cost totals from every assistant message's `usage`, across keys, resets and archives,
// read only through the store interface (the agent's allSessions(), each transcript streamed by grepLines()).
import {normalizeAgentId} from '../config/agent-id.js'
import {findModelDefinition, type OpenClawConfig} from '../config/config.js'
import {UsageError} from '../errors.js'
import type {ReadableState} from '../store/state.js'
import type {RawLineFilter, SessionReader, SessionWhere} from '../store/types.js'
import {modelPrice} from '../util/values.js'
import {addCost, emptyUsage, MAX_CALL_COST_USD, readUsage, type UsageTotals} from './lineage.js'

/**
 * Only a line whose stored text holds `"usage"` can be a call: the others (user and tool messages, most of a
 * transcript) are not used. JSON writers never escape the ASCII letters of a key. Every line that cannot be read is
 * yielded too, whatever it holds (`unreadable`): any of them may have been a call, and each backend counts the same ones.
 */
const USAGE_LINES: RawLineFilter = {needles: ['"usage"'], ignoreCase: false, unreadable: true}

/** The key a row shows for a transcript that no key claims any more (a deleted key's archive without a sidecar). */
export const UNKNOWN_KEY = '(unknown)'

/** `host` only on the fleet replica (--store-url). */
export type UsageBy = 'session' | 'key' | 'agent' | 'model' | 'day' | 'month' | 'host'
export const USAGE_BY: readonly UsageBy[] = ['session', 'key', 'agent', 'model', 'day', 'month', 'host']

/** The biggest single model call of a row (by total tokens). */
export interface LargestCall {
  at: string | null
  totalTokens: number
  costUsd: number
  model: string | null
}

export interface UsageRow extends UsageTotals {
  /**
   * The value grouped by: `agent/sessionId`, the key, the agent id, `provider/model`, `YYYY-MM-DD` or `YYYY-MM` (UTC),
   * or the host. On the fleet replica without --host, session, key and agent groups start with `<host>/`.
   */
  group: string
  /** Fleet reads (--store-url): the host of a session, key, agent or host row. */
  host?: string
  /** With --by session: the session's agent, key (the first key it was found under), id and where its transcript is. */
  agentId?: string
  key?: string
  sessionId?: string
  where?: SessionWhere
  /** Some of the cost was computed from the model prices in openclaw.json because the message recorded none. */
  estimated: boolean
  calls: number
  firstCallAt: string | null
  lastCallAt: string | null
  largestCall: LargestCall | null
}

/** The `sessions usage --json` document. */
export interface SessionsUsageResult {
  by: UsageBy
  since: string | null
  until: string | null
  agents: string[]
  /** Fleet reads (--store-url): the hosts read. */
  hosts?: string[]
  includeArchived: boolean
  /** Transcripts read (each counted once, also when several keys lead to it). */
  transcripts: number
  /** Rows before --limit; `rows` holds the top N by cost with --limit, else every row (sorted as documented). */
  count: number
  rows: UsageRow[]
  /** Over every call counted, not only the rows shown. */
  total: Omit<UsageRow, 'group' | 'agentId' | 'key' | 'sessionId' | 'where'>
  /** Calls with no recorded cost and no price for their model in openclaw.json: their cost counts as 0. */
  unpricedCalls: number
  /** Lines that could not be read (torn, not JSON, not an object, undecodable), whatever they hold: any may have been a call. Skipped and counted. */
  badLines: number
  /**
   * Token and cost figures of the calls counted that were not plausible numbers (negative, not finite, not a number, or
   * over a billion tokens or $100 000 for one call): each counted as 0, so every total is a finite, non-negative number.
   */
  badValues: number
}

export interface UsageOptions {
  by?: string
  since?: string
  until?: string
  agent?: string
  allAgents?: boolean
  includeArchived?: boolean
  limit?: string
  now?: Date
}

const DURATION = /^(\d+)\s*(m|h|d|w)$/i
const UNIT_MS: Record<string, number> = {m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000}

/** `7d`, `12h`, `30m`, `2w` back from now, or an ISO date/time. */
export function parseWhen(flag: string, raw: string, now: Date): number {
  const d = DURATION.exec(raw.trim())
  if (d) return now.getTime() - Number(d[1]) * UNIT_MS[d[2].toLowerCase()]
  const t = Date.parse(raw.trim())
  if (!Number.isFinite(t)) throw new UsageError(`--${flag} "${raw}" is neither a date (2026-11-01, 2026-11-01T12:00Z) nor a duration (30m, 12h, 7d, 2w)`, 'E_BAD_FLAG')
  return t
}

function emptyRow(group: string): UsageRow {
  return {group, ...emptyUsage(), estimated: false, calls: 0, firstCallAt: null, lastCallAt: null, largestCall: null}
}

interface Call extends UsageTotals {
  at: string | null
  estimated: boolean
  model: string | null
}

function addCall(r: UsageRow, c: Call): void {
  r.input += c.input
  r.output += c.output
  r.cacheRead += c.cacheRead
  r.cacheWrite += c.cacheWrite
  r.totalTokens += c.totalTokens
  r.costUsd = addCost(r.costUsd, c.costUsd)
  if (c.estimated) r.estimated = true
  r.calls++
  if (c.at) {
    if (!r.firstCallAt || c.at < r.firstCallAt) r.firstCallAt = c.at
    if (!r.lastCallAt || c.at > r.lastCallAt) r.lastCallAt = c.at
  }
  if (!r.largestCall || c.totalTokens > r.largestCall.totalTokens) r.largestCall = {at: c.at, totalTokens: c.totalTokens, costUsd: c.costUsd, model: c.model}
}

/** A call's time as an ISO string: the entry's timestamp, else the message's epoch-ms timestamp. */
function callTime(entry: Record<string, unknown>, msg: Record<string, unknown>): string | null {
  const t = typeof entry.timestamp === 'string' ? Date.parse(entry.timestamp) : typeof msg.timestamp === 'number' ? msg.timestamp : Number.NaN
  return Number.isFinite(t) ? new Date(t).toISOString() : null
}

/** Cost from openclaw.json's per-million prices for the call's model; undefined when the model has no price. */
function estimate(config: OpenClawConfig, provider: string | undefined, model: string | undefined, u: {input: number; output: number; cacheRead: number; cacheWrite: number}): number | undefined {
  const cost = (findModelDefinition(config, model, provider) ?? (provider ? findModelDefinition(config, model) : undefined))?.model.cost
  if (!cost) return undefined
  // A price that is not a plausible number (negative, not finite) counts as none for that kind of token.
  return Math.round(((u.input * modelPrice(cost.input) + u.output * modelPrice(cost.output) + u.cacheRead * modelPrice(cost.cacheRead) + u.cacheWrite * modelPrice(cost.cacheWrite)) / 1e6) * 1e9) / 1e9
}

/**
 * One model call read from a transcript line: an assistant message with `usage`; undefined for any other line.
 * `badValues`: its figures that were not plausible numbers (readUsage), an estimate past MAX_CALL_COST_USD included.
 */
function callOf(config: OpenClawConfig, e: Record<string, unknown> | undefined): {call: Call; t?: number; unpriced: boolean; badValues: number} | undefined {
  if (!e || e.type !== 'message') return undefined
  const msg = e.message as Record<string, unknown> | undefined
  if (!msg || msg.role !== 'assistant') return undefined
  const u = readUsage(msg.usage)
  if (!u) return undefined
  const at = callTime(e, msg)
  const provider = typeof msg.provider === 'string' ? msg.provider : undefined
  const model = typeof msg.model === 'string' ? msg.model : undefined
  let costUsd = u.cost
  let estimated = false
  let badValues = u.badValues
  // A recorded cost that is not plausible counts as 0 (already in badValues), never as an estimate.
  if (costUsd === undefined && !u.badCost) {
    costUsd = estimate(config, provider, model, u)
    estimated = costUsd !== undefined
    if (costUsd !== undefined && !(costUsd <= MAX_CALL_COST_USD)) {
      costUsd = 0
      badValues++
    }
  }
  const {badValues: _b, badCost: _c, cost: _d, ...tokens} = u
  const call: Call = {...tokens, at, costUsd: addCost(0, costUsd ?? 0), estimated, model: model ? (provider ? `${provider}/${model}` : model) : null}
  return {call, t: at ? Date.parse(at) : undefined, unpriced: costUsd === undefined && !u.badCost, badValues}
}

/** What `sessions list --usage` shows per row: the cost so far of the key's current session. */
export interface SessionCost {
  costUsd: number
  calls: number
  /** Part of it was priced from openclaw.json. */
  estimated: boolean
}

/**
 * The cost so far of a key's current session (its archives are `sessions usage`'s business), streamed once. The entry's
 * own transcript is read directly; only when it is gone does the key's lineage say where it went (an orphan doctor
 * would re-attach), so a long list costs one index lookup per row, not one archive walk.
 */
export async function currentSessionCost(config: OpenClawConfig, store: SessionReader, key: string): Promise<SessionCost> {
  const out: SessionCost = {costUsd: 0, calls: 0, estimated: false}
  const found = await store.findEntry(key)
  let ref = found ? store.transcriptOf(found.entry, found.storedKey) : undefined
  if (!ref?.exists) ref = (await store.sessionsOf(key)).find((s) => s.ended === 'current' && s.transcript.exists)?.transcript
  if (!ref) return out
  for await (const line of store.grepLines(ref, USAGE_LINES)) {
    const c = line.bad ? undefined : callOf(config, line.value)
    if (!c) continue
    out.costUsd = addCost(out.costUsd, c.call.costUsd)
    out.calls++
    if (c.call.estimated) out.estimated = true
  }
  return out
}

export async function sessionsUsage(state: ReadableState, opts: UsageOptions = {}): Promise<SessionsUsageResult> {
  if (opts.by === 'host') throw new UsageError('--by host groups the hosts of the fleet replica: add --store-url <url>', 'E_BAD_FLAG')
  if (opts.agent && opts.allAgents) throw new UsageError('--agent and --all-agents cannot be used together', 'E_FLAG_CONFLICT')
  // A named state dir that does not exist is an error, not zero hits or a $0 total (as for list and history).
  state.requireStateDir()
  const agents = opts.allAgents ? state.allAgentIds() : [opts.agent ? state.requireAgent(opts.agent) : state.activeAgentId]
  return usageOver([{state, agents}], opts)
}

/**
 * `sessions usage --store-url`: the same totals over hosts of the replica. Every agent unless --agent (the replica
 * holds no host's config to name a default agent), on the hosts that have it. `prefixHost` (no --host given): session,
 * key and agent groups start with `<host>/`, so that agent:main:main of two hosts stays two rows.
 */
export async function fleetUsage(hosts: readonly {host: string; state: ReadableState}[], opts: UsageOptions & {prefixHost: boolean}): Promise<SessionsUsageResult> {
  if (opts.agent && opts.allAgents) throw new UsageError('--agent and --all-agents cannot be used together', 'E_FLAG_CONFLICT')
  const sources = hosts.map(({host, state}) => ({host, state, agents: opts.agent ? state.allAgentIds().filter((id) => id === normalizeAgentId(opts.agent!)) : state.allAgentIds()}))
  if (opts.agent && sources.every((s) => s.agents.length === 0)) throw new UsageError(`Unknown agent id "${opts.agent}": no host read in the fleet replica has it.`, 'E_UNKNOWN_AGENT')
  const result = await usageOver(sources, opts)
  return {...result, hosts: hosts.map((h) => h.host)}
}

async function usageOver(sources: readonly {state: ReadableState; agents: string[]; host?: string}[], opts: UsageOptions & {prefixHost?: boolean}): Promise<SessionsUsageResult> {
  const now = opts.now ?? new Date()
  const by = (opts.by ?? 'session') as UsageBy
  if (!USAGE_BY.includes(by)) throw new UsageError(`--by "${opts.by}" is not one of ${USAGE_BY.join(', ')}`, 'E_BAD_FLAG')
  const since = opts.since ? parseWhen('since', opts.since, now) : undefined
  // A bare date as --until means the whole of that day (UTC), as a reader of `--until 2026-11-26` expects.
  const until = opts.until ? parseWhen('until', opts.until, now) + (/^\d{4}-\d{2}-\d{2}$/.test(opts.until.trim()) ? UNIT_MS.d - 1 : 0) : undefined
  let limit: number | undefined
  if (opts.limit !== undefined && opts.limit !== 'all') {
    limit = Number(opts.limit)
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit "${opts.limit}" must be a positive whole number or "all"`, 'E_BAD_FLAG')
  }
  const includeArchived = opts.includeArchived ?? true
  const agents = [...new Set(sources.flatMap((s) => s.agents))]

  const rows = new Map<string, UsageRow>()
  const total = emptyRow('total')
  let transcripts = 0
  let unpricedCalls = 0
  let badLines = 0
  let badValues = 0
  for (const {state, host, agentId} of sources.flatMap((src) => src.agents.map((agentId) => ({...src, agentId})))) {
    const store = state.store(agentId)
    const onHost = (g: string) => (opts.prefixHost && host !== undefined ? `${host}/${g}` : g)
    for (const s of await store.allSessions()) {
      if (!includeArchived && s.ended !== 'current') continue
      if (!s.transcript.exists) continue
      // A transcript no key claims any more (a deleted key's archive without a sidecar) still cost money.
      const key = s.key ?? UNKNOWN_KEY
      transcripts++
      for await (const line of store.grepLines(s.transcript, USAGE_LINES)) {
        if (line.bad) {
          badLines++
          continue
        }
        const c = callOf(state.config, line.value)
        if (!c) continue
        const {call, t} = c
        const at = call.at
        if ((since !== undefined || until !== undefined) && t === undefined) continue
        if (since !== undefined && t! < since) continue
        if (until !== undefined && t! > until) continue
        if (c.unpriced) unpricedCalls++
        badValues += c.badValues
        let group: string
        switch (by) {
          case 'session':
            group = onHost(`${agentId}/${s.sessionId}`)
            break
          case 'key':
            group = onHost(key)
            break
          case 'agent':
            group = onHost(agentId)
            break
          case 'host':
            group = String(host)
            break
          case 'model':
            group = call.model ?? 'unknown'
            break
          case 'day':
            group = at ? at.slice(0, 10) : 'unknown'
            break
          case 'month':
            group = at ? at.slice(0, 7) : 'unknown'
            break
        }
        let row = rows.get(group)
        if (!row) {
          row = emptyRow(group)
          if (host !== undefined && (by === 'session' || by === 'key' || by === 'agent' || by === 'host')) row.host = host
          if (by === 'session') Object.assign(row, {agentId, key, sessionId: s.sessionId, where: s.where})
          rows.set(group, row)
        }
        addCall(row, call)
        addCall(total, call)
      }
    }
  }
  let out = [...rows.values()]
  // Time groupings read oldest first; the others most expensive first. --limit always keeps the top N by cost.
  const byCost = (a: UsageRow, b: UsageRow) => b.costUsd - a.costUsd || b.totalTokens - a.totalTokens || a.group.localeCompare(b.group)
  out.sort(byCost)
  if (limit !== undefined) out = out.slice(0, limit)
  if (by === 'day' || by === 'month') out.sort((a, b) => a.group.localeCompare(b.group))
  const {group: _g, ...totalFields} = total
  return {
    by,
    since: since === undefined ? null : new Date(since).toISOString(),
    until: until === undefined ? null : new Date(until).toISOString(),
    agents,
    includeArchived,
    transcripts,
    count: rows.size,
    rows: out,
    total: totalFields,
    unpricedCalls,
    badLines,
    badValues,
  }
}
