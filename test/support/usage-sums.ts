// The tests' own reading of usage, independent of clawkit's store code: every assistant message's `usage` in raw
// transcript lines (JSON text or already parsed), summed. The usage tests of both eras and of deleted archives compare
// `sessions usage` with it.

export interface UsageSums {
  calls: number
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  totalTokens: number
  cost: number
  /** Token and cost figures skipped as implausible (negative, not finite, not a number, over the per-call bounds). */
  badValues: number
  /** Each call's entry timestamp, in the order read. */
  times: string[]
}

/** The bounds sessions usage documents for one call: a billion tokens per figure, $100 000. */
export const MAX_CALL_TOKENS = 1e9
export const MAX_CALL_COST = 1e5

export const emptySums = (): UsageSums => ({calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0, badValues: 0, times: []})

/**
 * Adds the calls of `lines` (JSON text, skipped when it does not parse, or parsed values) to `into`. A call without a
 * recorded `usage.cost.total` costs `price(usage)` when given, else 0. Returns whether any line was a call.
 */
export function addUsage(into: UsageSums, lines: Iterable<unknown>, price?: (u: any) => number): boolean {
  let any = false
  for (const line of lines) {
    let e: any = line
    if (typeof line === 'string') {
      try {
        e = JSON.parse(line)
      } catch {
        continue
      }
    }
    const u = e?.type === 'message' && e.message?.role === 'assistant' ? e.message.usage : undefined
    // A `usage` that is not an object (a number, a string) records no call.
    if (!u || typeof u !== 'object') continue
    any = true
    into.calls++
    // The rule sessions usage documents: a figure that is not a plausible number is skipped (0) and counted.
    const tok = (v: unknown) => {
      if (v === undefined || v === null) return 0
      if (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_CALL_TOKENS) return v
      into.badValues++
      return 0
    }
    into.input += tok(u.input)
    into.output += tok(u.output)
    into.cacheRead += tok(u.cacheRead)
    into.cacheWrite += tok(u.cacheWrite)
    into.totalTokens += tok(u.totalTokens)
    const cost = u.cost?.total
    if (cost === undefined || cost === null) into.cost += price ? price(u) : 0
    else if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 && cost <= MAX_CALL_COST) into.cost += cost
    else into.badValues++
    into.times.push(e.timestamp)
  }
  return any
}

/**
 * The assistant calls of a transcript's text with hostile usage figures: call 1 costs -5, call 2 costs 1e308, call 3
 * has -1000 input tokens and 1e300 output tokens, call 4 a string totalTokens and a cost of Infinity's JSON (null is
 * "not recorded", so 1e999, which JSON.parse reads as Infinity). Six figures in all are not plausible.
 */
export function poisonUsage(text: string): string {
  let n = 0
  const out = text.split('\n').map((l) => {
    if (!l.includes('"usage"')) return l
    const e = JSON.parse(l)
    if (e.type !== 'message' || e.message?.role !== 'assistant' || !e.message.usage) return l
    const u = e.message.usage
    n++
    if (n === 1) u.cost = {...u.cost, total: -5}
    if (n === 2) u.cost = {...u.cost, total: 1e308}
    if (n === 3) Object.assign(u, {input: -1000, output: 1e300})
    if (n === 4) {
      u.totalTokens = '12'
      u.cost = {...u.cost, total: 'INF'}
    }
    return JSON.stringify(e).replace('"total":"INF"', '"total":1e999')
  })
  if (n < 4) throw new Error(`only ${n} calls to poison`)
  return out.join('\n')
}
