// `sessions usage`: token and cost totals from every assistant message's `usage`, across keys, resets and archives,
// read only through the store interface (the agent's allSessions(), each transcript streamed by grepLines()).
import {normalizeAgentId} from '../config/agent-id.js'
import {findModelDefinition, type OpenClawConfig} from '../config/config.js'
import {UsageError} from '../errors.js'
import {parseSessionKey} from '../store/session-key.js'
import type {ReadableState} from '../store/state.js'
import type {RawLineFilter, SessionReader, SessionWhere, TranscriptLine, TranscriptRef} from '../store/types.js'
import {modelPrice} from '../util/values.js'
import {canonicalTimeZone, localTimeZone, type Period, PeriodLabeler, periodStart, zonedInstant} from '../util/zoned-time.js'
import type {BudgetCheck} from './budget-types.js'
import {addCost, emptyUsage, MAX_CALL_COST_USD, readUsage, type UsageTotals} from './lineage.js'

/**
 * Only a line whose stored text holds `"usage"` can be a call: the others (user and tool messages, most of a
 * transcript) are not used. JSON writers never escape the ASCII letters of a key. Every line that cannot be read is
 * yielded too, whatever it holds (`unreadable`): any of them may have been a call, and each backend counts the same ones.
 */
export const USAGE_LINES: RawLineFilter = {needles: ['"usage"'], ignoreCase: false, unreadable: true}

/** The key a row shows for a transcript that no key claims any more (a deleted key's archive without a sidecar). */
export const UNKNOWN_KEY = '(unknown)'

/**
 * What a report groups by. Who: session, key, agent, channel (the chat platform the key names), kind (the key's shape:
 * main, direct, group, channel, cron, heartbeat, subagent...), cron (the cron job id of a cron key), host (only on the
 * fleet replica, --store-url). What: model (`provider/model`), provider. When: hour, day, week (ISO, from Monday),
 * month, in the report's time zone.
 */
export type UsageBy = 'session' | 'key' | 'agent' | 'model' | 'provider' | 'channel' | 'kind' | 'cron' | 'hour' | 'day' | 'week' | 'month' | 'host'
export const USAGE_BY: readonly UsageBy[] = ['session', 'key', 'agent', 'model', 'provider', 'channel', 'kind', 'cron', 'hour', 'day', 'week', 'month', 'host']

/** The groupings by time: each is a calendar period of the report's time zone. */
export const TIME_BY: readonly UsageBy[] = ['hour', 'day', 'week', 'month']
const isTime = (by: UsageBy): by is Period => TIME_BY.includes(by)
/** The groupings a transcript's context alone decides (not its calls' model or time): a catalog partial can stand for its calls. */
const WHO_BY: readonly UsageBy[] = ['session', 'key', 'agent', 'host', 'channel', 'kind', 'cron']

/** The row value of a key that names no channel (main, cron, subagent keys), and of --by cron for keys of no cron job. */
export const NO_CHANNEL = '(none)'
export const NOT_CRON = '(not cron)'

/** The --by channel, kind and cron values of a key (UNKNOWN_KEY: a transcript no key claims any more). */
export function keyFacets(key: string): {channel: string; kind: string; cron: string} {
  if (key === UNKNOWN_KEY) return {channel: UNKNOWN_KEY, kind: UNKNOWN_KEY, cron: NOT_CRON}
  const p = parseSessionKey(key)
  const cron = p.shape === 'cron' || p.shape === 'cron-run' ? (p.rest ?? '').split(':')[1] || NOT_CRON : NOT_CRON
  // A cron run's key is its job's: one kind for both.
  const kind = p.shape === 'cron-run' ? 'cron' : p.shape
  return {channel: p.channel ?? NO_CHANNEL, kind, cron}
}

/** The biggest single model call of a row (by total tokens). */
export interface LargestCall {
  at: string | null
  totalTokens: number
  costUsd: number
  model: string | null
}

export interface UsageRow extends UsageTotals {
  /**
   * The value grouped by: `agent/sessionId`, the key, the agent id, `provider/model`, the provider, the channel, the
   * kind, the cron job id, `YYYY-MM-DD HH:00` (hour), `YYYY-MM-DD` (day; week: its Monday) or `YYYY-MM` (month) in the
   * report's time zone, or the host. On the fleet replica without --host, session, key and agent groups start with
   * `<host>/`. With several --by dimensions, their values joined by ` · ` (each in `values`).
   */
  group: string
  /** With several --by dimensions (a breakdown): the row's value of each, in the order of `dims`. */
  values?: string[]
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
  /**
   * Of `costUsd`, what was spent in transcripts OpenClaw has since removed (pruned archives, deleted files): the local
   * catalog's ledger kept their calls. Absent when none.
   */
  removedCostUsd?: number
  /** With --by session: the session's transcript is gone from the store; its calls come from the catalog's ledger. */
  removed?: boolean
}

/** The `sessions usage --json` document. */
export interface SessionsUsageResult {
  /** The first --by dimension (`dims` holds them all). */
  by: UsageBy
  /** Every --by dimension, in order: `--by day,model` gives each day's rows by model. */
  dims: UsageBy[]
  /** The IANA time zone of the day, week and month groups, of bare dates in --since/--until and of --last. */
  timezone: string
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
  /**
   * Where the figures came from: `catalog` (clawkit's local catalog, brought up to date with the store first, and
   * remembering the calls of transcripts OpenClaw removed since), `scan` (every transcript read: --scan, or no catalog),
   * or `replica` (--store-url).
   */
  source: UsageSource
  /** With the catalog: spend of transcripts removed from the store since the catalog read them (in `rows` and `total` too). */
  removed?: {transcripts: number; calls: number; costUsd: number}
  /** With --max-cost or --check: each limit's spend in its current period, runaway sessions, and the alerts sent. */
  budget?: BudgetCheck
}

export interface UsageOptions {
  /** One grouping or a comma list of them (a breakdown). */
  by?: string
  /** IANA zone for calendar groups and bare dates (default: the process's local zone). */
  timezone?: string
  /** Only the last N periods of the first time grouping (or of `lastPer`), the current one included. */
  last?: string
  /** The period --last counts when --by has no time grouping. */
  lastPer?: Period
  since?: string
  until?: string
  agent?: string
  allAgents?: boolean
  includeArchived?: boolean
  limit?: string
  now?: Date
  /** Never use the local catalog: read every transcript. */
  scan?: boolean
  /** The local catalog's ledger, when the command has one. */
  ledger?: UsageLedger
  /** With the ledger: count the spend of transcripts OpenClaw removed (default); false leaves it out, as a scan must. */
  removedSpend?: boolean
}

const DURATION = /^(\d+)\s*(m|h|d|w)$/i
const UNIT_MS: Record<string, number> = {m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000}

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/

/**
 * `7d`, `12h`, `30m`, `2w` back from now, or an ISO date/time. A date or date-time without a zone is a wall-clock
 * time of `tz` when given (the report's --timezone), else as Date.parse reads it (a bare date: UTC midnight).
 */
export function parseWhen(flag: string, raw: string, now: Date, tz?: string): number {
  const d = DURATION.exec(raw.trim())
  if (d) return now.getTime() - Number(d[1]) * UNIT_MS[d[2].toLowerCase()]
  const local = tz ? LOCAL_DATE_TIME.exec(raw.trim()) : null
  if (local) {
    const [y, mo, da, h, mi, se] = local.slice(1).map((x) => (x === undefined ? 0 : Number(x)))
    if (mo >= 1 && mo <= 12 && da >= 1 && da <= 31 && h <= 23 && mi <= 59 && se <= 59) return zonedInstant(tz!, y, mo, da, h, mi, se)
  }
  const t = Date.parse(raw.trim())
  if (!Number.isFinite(t)) throw new UsageError(`--${flag} "${raw}" is neither a date (2026-11-01, 2026-11-01T12:00Z) nor a duration (30m, 12h, 7d, 2w)`, 'E_BAD_FLAG')
  return t
}

function emptyRow(group: string): UsageRow {
  return {group, ...emptyUsage(), estimated: false, calls: 0, firstCallAt: null, lastCallAt: null, largestCall: null}
}

export interface Call extends UsageTotals {
  at: string | null
  estimated: boolean
  model: string | null
  provider: string | null
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
  // A finite number past Date's range (±8.64e15 ms, a hand-edited or corrupted line) is no time either: new Date(t) of
  // it is an Invalid Date, whose toISOString throws.
  return Number.isFinite(new Date(t).getTime()) ? new Date(t).toISOString() : null
}

/** Cost from openclaw.json's per-million prices for the call's model; undefined when the model has no price. */
function estimate(config: OpenClawConfig, provider: string | undefined, model: string | undefined, u: {input: number; output: number; cacheRead: number; cacheWrite: number}): number | undefined {
  const cost = (findModelDefinition(config, model, provider) ?? (provider ? findModelDefinition(config, model) : undefined))?.model.cost
  if (!cost) return undefined
  // A price that is not a plausible number (negative, not finite) counts as none for that kind of token.
  return Math.round(((u.input * modelPrice(cost.input) + u.output * modelPrice(cost.output) + u.cacheRead * modelPrice(cost.cacheRead) + u.cacheWrite * modelPrice(cost.cacheWrite)) / 1e6) * 1e9) / 1e9
}

/**
 * What a transcript line says of one model call, before openclaw.json's prices are applied: an assistant message with
 * `usage`; undefined for any other line. The local catalog keeps exactly this per call (its ledger), so that usage from
 * the catalog prices and sums the same figures a scan reads.
 */
export interface CallFields {
  /** readUsage's reading: the figures, its recorded cost, and its figures that were not plausible numbers. */
  usage: NonNullable<ReturnType<typeof readUsage>>
  /** The call's time (ms), when it records one. */
  t?: number
  provider?: string
  model?: string
  /** The entry's id (the ledger's key for a call seen again under another transcript name). */
  entryId?: string
}

export function callFieldsOf(e: Record<string, unknown> | undefined): CallFields | undefined {
  if (!e || e.type !== 'message') return undefined
  const msg = e.message as Record<string, unknown> | undefined
  if (!msg || msg.role !== 'assistant') return undefined
  const usage = readUsage(msg.usage)
  if (!usage) return undefined
  const at = callTime(e, msg)
  return {
    usage,
    ...(at === null ? {} : {t: Date.parse(at)}),
    ...(typeof msg.provider === 'string' ? {provider: msg.provider} : {}),
    ...(typeof msg.model === 'string' ? {model: msg.model} : {}),
    ...(typeof e.id === 'string' ? {entryId: e.id} : {}),
  }
}

/** A call as usage adds it: priced, its time, whether it found no price, and its figures that were not plausible. */
export interface PricedCall {
  call: Call
  t?: number
  unpriced: boolean
  badValues: number
}

/**
 * A call's figures priced: its recorded cost, else openclaw.json's price for its model (estimated), else unpriced. A
 * recorded cost that is not plausible counts as 0 (in badValues), never as an estimate; an estimate past
 * MAX_CALL_COST_USD counts as 0 too.
 */
export function priceCall(config: OpenClawConfig, f: CallFields): PricedCall {
  const u = f.usage
  const at = f.t === undefined ? null : new Date(f.t).toISOString()
  const {provider, model} = f
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
  const call: Call = {...tokens, at, costUsd: addCost(0, costUsd ?? 0), estimated, model: model ? (provider ? `${provider}/${model}` : model) : null, provider: provider ?? null}
  return {call, t: f.t, unpriced: costUsd === undefined && !u.badCost, badValues}
}

/**
 * One model call read from a transcript line: an assistant message with `usage`; undefined for any other line.
 * `badValues`: its figures that were not plausible numbers (readUsage), an estimate past MAX_CALL_COST_USD included.
 */
function callOf(config: OpenClawConfig, e: Record<string, unknown> | undefined): PricedCall | undefined {
  const f = callFieldsOf(e)
  return f && priceCall(config, f)
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
export async function currentSessionCost(config: OpenClawConfig, store: SessionReader, key: string, ledger?: {agentId: string; calls: TranscriptCalls}): Promise<SessionCost> {
  const out: SessionCost = {costUsd: 0, calls: 0, estimated: false}
  const found = await store.findEntry(key)
  let ref = found ? store.transcriptOf(found.entry, found.storedKey) : undefined
  if (!ref?.exists) ref = (await store.sessionsOf(key)).find((s) => s.ended === 'current' && s.transcript.exists)?.transcript
  if (!ref) return out
  const add = (c: {call: Call} | undefined) => {
    if (!c) return
    out.costUsd = addCost(out.costUsd, c.call.costUsd)
    out.calls++
    if (c.call.estimated) out.estimated = true
  }
  const kept = ledger ? await ledger.calls.calls(store, ledger.agentId, ref) : undefined
  if (kept) {
    for (const f of kept.calls) add(priceCall(config, f))
    if (kept.tail) for await (const line of kept.tail) add(line.bad ? undefined : callOf(config, line.value))
    return out
  }
  for await (const line of store.grepLines(ref, USAGE_LINES)) add(line.bad ? undefined : callOf(config, line.value))
  return out
}

/**
 * Where `sessions list --usage` finds a transcript's calls without reading it (the local catalog's ledger): its calls in
 * line order and, when its last line is unterminated, that line's lines as grepLines reads them; undefined: read it.
 */
export interface TranscriptCalls {
  calls(store: SessionReader, agentId: string, t: TranscriptRef): Promise<{calls: CallFields[]; tail?: AsyncIterable<TranscriptLine>} | undefined>
}

export async function sessionsUsage(state: ReadableState, opts: UsageOptions = {}): Promise<SessionsUsageResult> {
  if (parseBy(opts.by).includes('host')) throw new UsageError('--by host groups the hosts of the fleet replica: add --store-url <url>', 'E_BAD_FLAG')
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

/**
 * A transcript's calls summed beforehand (the local catalog keeps one per transcript): only calls that record their cost
 * (as whole nanodollars, addCost's grid) with whole-number token counts and a time within years 0-9999, so that adding
 * the partial gives exactly what adding its calls one by one gives. `largest` is its first call of the most tokens.
 */
export interface CallsPartial {
  calls: number
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  totalTokens: number
  costNano: number
  firstT: number | null
  lastT: number | null
  largest: {t: number | null; totalTokens: number; costNano: number; model: string | null} | null
}

/** Who a call belongs to, as a scan of `allSessions()` knows it. */
export interface UsageCtx {
  agentId: string
  host?: string
  sessionId: string
  where: SessionWhere
  /** The key, or UNKNOWN_KEY. */
  key: string
  /** The transcript is gone from the store; the local catalog's ledger kept its calls. */
  removed?: boolean
}

/**
 * The totals `sessions usage` prints, built call by call in the order a scan reads them (agents, then allSessions()
 * order, then line order), whatever read them: the scan below, or the local catalog (src/catalog/ledger.ts), which
 * hands over a transcript's simple calls as one CallsPartial where the grouping allows.
 */
export class UsageBuilder {
  readonly rows = new Map<string, UsageRow>()
  readonly total = emptyRow('total')
  unpricedCalls = 0
  badLines = 0
  badValues = 0
  transcripts = 0
  removed = {transcripts: 0, calls: 0, costUsd: 0}
  readonly dims: UsageBy[]
  private readonly labelers = new Map<Period, PeriodLabeler>()
  private readonly facets = new WeakMap<UsageCtx, ReturnType<typeof keyFacets>>()

  constructor(
    by: UsageBy | readonly UsageBy[],
    readonly window: {since?: number; until?: number},
    readonly prefixHost = false,
    /** The zone of the time groupings. */
    readonly timezone = 'UTC',
  ) {
    this.dims = typeof by === 'string' ? [by] : [...by]
    for (const d of this.dims) if (isTime(d)) this.labelers.set(d, new PeriodLabeler(d, timezone))
  }

  get by(): UsageBy {
    return this.dims[0]
  }

  /** Whether a transcript's partial can stand for its calls: no time window, and groupings by who (not by what or when). */
  get takesPartials(): boolean {
    return this.window.since === undefined && this.window.until === undefined && this.dims.every((d) => WHO_BY.includes(d))
  }

  private facetsOf(ctx: UsageCtx): ReturnType<typeof keyFacets> {
    let f = this.facets.get(ctx)
    if (!f) {
      f = keyFacets(ctx.key)
      this.facets.set(ctx, f)
    }
    return f
  }

  /** `t`: the call's time (ms), as its `at` says (passed as a number: parsing `at` again per call costs more than the rest). */
  private value(by: UsageBy, ctx: UsageCtx, call: {model: string | null; provider: string | null} | undefined, t: number | undefined): string {
    const onHost = (g: string) => (this.prefixHost && ctx.host !== undefined ? `${ctx.host}/${g}` : g)
    switch (by) {
      case 'session':
        return onHost(`${ctx.agentId}/${ctx.sessionId}`)
      case 'key':
        return onHost(ctx.key)
      case 'agent':
        return onHost(ctx.agentId)
      case 'host':
        return String(ctx.host)
      case 'channel':
      case 'kind':
      case 'cron':
        return this.facetsOf(ctx)[by]
      case 'model':
        return call?.model ?? 'unknown'
      case 'provider':
        return call?.provider ?? 'unknown'
      case 'hour':
      case 'day':
      case 'week':
      case 'month':
        return t === undefined ? 'unknown' : this.labelers.get(by)!.label(t)
    }
  }

  private row(ctx: UsageCtx, call: {model: string | null; provider: string | null} | undefined, t?: number): UsageRow {
    const values = this.dims.length === 1 ? [this.value(this.dims[0], ctx, call, t)] : this.dims.map((d) => this.value(d, ctx, call, t))
    const group = values.length === 1 ? values[0] : values.join(' \u00B7 ')
    let row = this.rows.get(group)
    if (!row) {
      row = emptyRow(group)
      if (values.length > 1) row.values = values
      const dims = this.dims
      if (ctx.host !== undefined && dims.some((d) => d === 'session' || d === 'key' || d === 'agent' || d === 'host')) row.host = ctx.host
      if (dims.includes('session')) Object.assign(row, {agentId: ctx.agentId, key: ctx.key, sessionId: ctx.sessionId, where: ctx.where}, ctx.removed ? {removed: true} : {})
      this.rows.set(group, row)
    } else if (row.removed && !ctx.removed) delete row.removed
    return row
  }

  /** One call, if it falls in the window. */
  addCall(ctx: UsageCtx, c: PricedCall): void {
    const {since, until} = this.window
    if ((since !== undefined || until !== undefined) && c.t === undefined) return
    if (since !== undefined && c.t! < since) return
    if (until !== undefined && c.t! > until) return
    if (c.unpriced) this.unpricedCalls++
    this.badValues += c.badValues
    // A call's time is `t` exactly when its `at` is set (priceCall makes one from the other).
    const row = this.row(ctx, c.call, c.call.at === null ? undefined : c.t)
    addCall(row, c.call)
    addCall(this.total, c.call)
    if (ctx.removed) this.addRemoved(row, c.call.costUsd, 1)
  }

  /** A transcript's simple calls at once (takesPartials must hold). */
  addPartial(ctx: UsageCtx, p: CallsPartial): void {
    if (p.calls === 0) return
    const row = this.row(ctx, undefined)
    // Each time made into a string once per transcript, not once per row it is added to (a warm usage of 1901
    // transcripts spent ~10 ms in toISOString).
    const first = p.firstT === null ? null : new Date(p.firstT).toISOString()
    const last = p.lastT === null ? null : new Date(p.lastT).toISOString()
    const big = p.largest
    // One object for the row and the total: rows' largest calls are replaced, never changed in place.
    let largest: LargestCall | undefined
    for (const r of [row, this.total]) {
      r.input += p.input
      r.output += p.output
      r.cacheRead += p.cacheRead
      r.cacheWrite += p.cacheWrite
      r.totalTokens += p.totalTokens
      r.costUsd = addCost(r.costUsd, p.costNano / 1e9)
      r.calls += p.calls
      if (first && (!r.firstCallAt || first < r.firstCallAt)) r.firstCallAt = first
      if (last && (!r.lastCallAt || last > r.lastCallAt)) r.lastCallAt = last
      if (big && (!r.largestCall || big.totalTokens > r.largestCall.totalTokens)) {
        r.largestCall = largest ??= {at: big.t === null ? null : new Date(big.t).toISOString(), totalTokens: big.totalTokens, costUsd: big.costNano / 1e9, model: big.model}
      }
    }
    if (ctx.removed) this.addRemoved(row, p.costNano / 1e9, p.calls)
  }

  private addRemoved(row: UsageRow, costUsd: number, calls: number): void {
    row.removedCostUsd = addCost(row.removedCostUsd ?? 0, costUsd)
    this.total.removedCostUsd = addCost(this.total.removedCostUsd ?? 0, costUsd)
    this.removed.calls += calls
    this.removed.costUsd = addCost(this.removed.costUsd, costUsd)
  }

  result(meta: {since?: number; until?: number; agents: string[]; includeArchived: boolean; limit?: number; source: UsageSource}): SessionsUsageResult {
    const {by, limit} = {by: this.by, limit: meta.limit}
    let out = [...this.rows.values()]
    // Time groupings read oldest first; the others most expensive first. --limit always keeps the top N by cost. A
    // breakdown keeps the order of its first dimension: a time first, each period's rows by cost within it.
    const byCost = (a: UsageRow, b: UsageRow) => b.costUsd - a.costUsd || b.totalTokens - a.totalTokens || a.group.localeCompare(b.group)
    out.sort(byCost)
    if (limit !== undefined) out = out.slice(0, limit)
    const first = (x: UsageRow) => x.values?.[0] ?? x.group
    // 'unknown' (calls without a time) sorts after every date.
    if (isTime(by)) out.sort((a, b) => (first(a) === 'unknown' ? 1 : 0) - (first(b) === 'unknown' ? 1 : 0) || first(a).localeCompare(first(b)))
    const {group: _g, ...totalFields} = this.total
    return {
      by,
      dims: this.dims,
      timezone: this.timezone,
      since: meta.since === undefined ? null : new Date(meta.since).toISOString(),
      until: meta.until === undefined ? null : new Date(meta.until).toISOString(),
      agents: meta.agents,
      includeArchived: meta.includeArchived,
      transcripts: this.transcripts,
      count: this.rows.size,
      rows: out,
      total: totalFields,
      unpricedCalls: this.unpricedCalls,
      badLines: this.badLines,
      badValues: this.badValues,
      source: meta.source,
      ...(meta.source === 'catalog' ? {removed: this.removed} : {}),
    }
  }
}

/** What `sessions usage` read: the local catalog (kept fresh with the store), the store itself, or the fleet replica. */
export type UsageSource = 'catalog' | 'scan' | 'replica'

/** The options of usageOver, parsed once (the catalog's ledger takes the same). */
export interface UsageQuery {
  /** The first of `dims`. */
  by: UsageBy
  dims: UsageBy[]
  timezone: string
  since?: number
  until?: number
  limit?: number
  includeArchived: boolean
  /** Count the ledger's removed spend (UsageOptions.removedSpend). */
  removedSpend: boolean
}

/** `--by day,model`: each name checked, none twice. */
export function parseBy(raw: string | undefined): UsageBy[] {
  const dims = (raw ?? 'session').split(',').map((x) => x.trim().toLowerCase()).filter(Boolean)
  if (dims.length === 0) dims.push('session')
  for (const d of dims) if (!USAGE_BY.includes(d as UsageBy)) throw new UsageError(`--by "${d}" is not one of ${USAGE_BY.join(', ')} (a comma list breaks down: --by day,model)`, 'E_BAD_FLAG')
  const twice = dims.find((d, i) => dims.indexOf(d) !== i)
  if (twice) throw new UsageError(`--by names "${twice}" twice`, 'E_BAD_FLAG')
  return dims as UsageBy[]
}

/** --timezone checked (default: the local zone). */
export function usageTimeZone(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return localTimeZone()
  const tz = canonicalTimeZone(raw)
  if (!tz) throw new UsageError(`--timezone "${raw}" is not an IANA time zone (UTC, Europe/Berlin, America/New_York, ...)`, 'E_BAD_FLAG')
  return tz
}

export function usageQuery(opts: UsageOptions): UsageQuery {
  const now = opts.now ?? new Date()
  const dims = parseBy(opts.by)
  const timezone = usageTimeZone(opts.timezone)
  let since = opts.since ? parseWhen('since', opts.since, now, timezone) : undefined
  // A bare date as --until means the whole of that day (in the report's zone), as a reader of `--until 2026-11-26` expects.
  let until: number | undefined
  if (opts.until) {
    const raw = opts.until.trim()
    const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw)
    until = day ? zonedInstant(timezone, Number(day[1]), Number(day[2]), Number(day[3]) + 1) - 1 : parseWhen('until', raw, now, timezone)
  }
  if (opts.last !== undefined) {
    const n = Number(opts.last)
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--last "${opts.last}" must be a positive whole number of periods`, 'E_BAD_FLAG')
    if (opts.since !== undefined) throw new UsageError('--last and --since both set where the report starts: use one', 'E_FLAG_CONFLICT')
    const per = (dims.find((d) => isTime(d)) as Period | undefined) ?? opts.lastPer
    if (!per) throw new UsageError('--last counts periods of a time grouping: add one to --by (day, week, month, hour) or give --per', 'E_BAD_FLAG')
    since = periodStart(now.getTime(), per, timezone, n - 1)
  }
  let limit: number | undefined
  if (opts.limit !== undefined && opts.limit !== 'all') {
    limit = Number(opts.limit)
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit "${opts.limit}" must be a positive whole number or "all"`, 'E_BAD_FLAG')
  }
  return {by: dims[0], dims, timezone, since, until, limit, includeArchived: opts.includeArchived ?? true, removedSpend: opts.removedSpend ?? true}
}

/** Reads one transcript's calls as a scan does (grepLines for `"usage"`), into the builder. */
export async function scanTranscriptUsage(b: UsageBuilder, config: OpenClawConfig, store: SessionReader, ctx: UsageCtx, lines: AsyncIterable<TranscriptLine>): Promise<void> {
  for await (const line of lines) {
    if (line.bad) {
      b.badLines++
      continue
    }
    const c = callOf(config, line.value)
    if (c) b.addCall(ctx, c)
  }
}

async function usageOver(sources: readonly {state: ReadableState; agents: string[]; host?: string}[], opts: UsageOptions & {prefixHost?: boolean; ledger?: UsageLedger}): Promise<SessionsUsageResult> {
  const q = usageQuery(opts)
  const agents = [...new Set(sources.flatMap((s) => s.agents))]
  const builder = () => new UsageBuilder(q.dims, {since: q.since, until: q.until}, opts.prefixHost, q.timezone)
  let b = builder()
  // The local catalog answers for a local state dir (it refreshes each agent first); false: it could not, scan (into a
  // builder of its own: the ledger may have added to this one before it found it could not).
  const fromLedger = !opts.scan && opts.ledger && sources.length === 1 && sources[0].host === undefined ? await opts.ledger.usage(b, sources[0].state, agents, q) : false
  if (!fromLedger) {
    b = builder()
    for (const {state, host, agentId} of sources.flatMap((src) => src.agents.map((agentId) => ({...src, agentId})))) {
      const store = state.store(agentId)
      for (const s of await store.allSessions()) {
        if (!q.includeArchived && s.ended !== 'current') continue
        if (!s.transcript.exists) continue
        // A transcript no key claims any more (a deleted key's archive without a sidecar) still cost money.
        b.transcripts++
        await scanTranscriptUsage(b, state.config, store, {agentId, ...(host === undefined ? {} : {host}), sessionId: s.sessionId, where: s.where, key: s.key ?? UNKNOWN_KEY}, store.grepLines(s.transcript, USAGE_LINES))
      }
    }
  }
  return b.result({since: q.since, until: q.until, agents, includeArchived: q.includeArchived, limit: q.limit, source: fromLedger ? 'catalog' : sources.some((s) => s.host !== undefined) ? 'replica' : 'scan'})
}

/** The local catalog's ledger as `sessions usage` asks it (src/catalog/ledger.ts); false: it cannot answer (what it added to the builder is dropped), scan. */
export interface UsageLedger {
  usage(b: UsageBuilder, state: ReadableState, agents: string[], q: UsageQuery): Promise<boolean>
}
