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
  /** Each call's entry timestamp, in the order read. */
  times: string[]
}

export const emptySums = (): UsageSums => ({calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0, times: []})

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
    if (!u) continue
    any = true
    into.calls++
    into.input += u.input ?? 0
    into.output += u.output ?? 0
    into.cacheRead += u.cacheRead ?? 0
    into.cacheWrite += u.cacheWrite ?? 0
    into.totalTokens += u.totalTokens ?? 0
    into.cost += typeof u.cost?.total === 'number' ? u.cost.total : price ? price(u) : 0
    into.times.push(e.timestamp)
  }
  return any
}
