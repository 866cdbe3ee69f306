// Pure-function checks of what a finished turn writes into its index entry (store-format §7, §5.4); no I/O involved.
import {describe, expect, it} from 'vitest'

import {applyRunUsage, promptTokensOf, type RunFacts, type TurnUsage} from '../../src/agent/usage-apply.js'
import type {SessionEntry} from '../../src/store/types.js'

const NOW = 1_800_000_000_000
const SID = '11111111-2222-4333-8444-555555555555'
const FILE = `/state/agents/main/sessions/${SID}.jsonl`
const MODEL = {provider: 'anthropic', model: 'claude-opus-4-6', contextWindow: 200_000}

function usage(input: number, output: number, cacheRead = 0, cacheWrite = 0): TurnUsage {
  return {input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite}
}

function run(over: Partial<RunFacts> = {}): RunFacts {
  return {sessionId: SID, sessionFile: FILE, model: MODEL, aborted: false, usage: usage(0, 0), costUsd: 0, compactions: 0, now: NOW, ...over}
}

/** A row as OpenClaw leaves it after an earlier run, with fields the turn does not own around the counters. */
function oldRow(over: Partial<SessionEntry> = {}): SessionEntry {
  return {
    sessionId: SID,
    updatedAt: NOW - 60_000,
    label: 'ops',
    sessionFile: `/old/place/${SID}.jsonl`,
    thinkingLevel: 'low',
    model: 'claude-sonnet-4-5',
    modelProvider: 'old-provider',
    contextTokens: 48_000,
    inputTokens: 900,
    outputTokens: 90,
    cacheRead: 9,
    cacheWrite: 8,
    totalTokens: 917,
    totalTokensFresh: true,
    estimatedCostUsd: 0.1,
    compactionCount: 2,
    deliveryContext: {channel: 'telegram', to: '42'},
    abortedLastRun: true,
    ...over,
  }
}

describe('applyRunUsage: a successful run', () => {
  it('a new row (no entry under the key) gets the run fields in the order OpenClaw writes them', () => {
    const last = usage(100, 20, 30, 5)
    const e = applyRunUsage(undefined, run({usage: last, lastCall: last, costUsd: 0.0125}))
    expect(e).toEqual({
      sessionId: SID,
      updatedAt: NOW,
      lastInteractionAt: NOW,
      sessionFile: FILE,
      contextTokens: 200_000,
      modelProvider: 'anthropic',
      model: 'claude-opus-4-6',
      abortedLastRun: false,
      inputTokens: 100,
      outputTokens: 20,
      cacheRead: 30,
      cacheWrite: 5,
      totalTokens: 135,
      totalTokensFresh: true,
      estimatedCostUsd: 0.0125,
    })
    expect(Object.keys(e)).toEqual(['sessionId', 'updatedAt', 'lastInteractionAt', 'sessionFile', 'contextTokens', 'modelProvider', 'model', 'abortedLastRun', 'inputTokens', 'outputTokens', 'cacheRead', 'cacheWrite', 'totalTokens', 'totalTokensFresh', 'estimatedCostUsd'])
  })

  it('an existing row keeps the fields the turn does not own, in their order, and new ones come last', () => {
    const before = oldRow()
    delete before.estimatedCostUsd
    const e = applyRunUsage(before, run({usage: usage(10, 1), lastCall: usage(10, 1)}))
    expect(e.label).toBe('ops')
    expect(e.thinkingLevel).toBe('low')
    expect(e.deliveryContext).toEqual({channel: 'telegram', to: '42'})
    expect(Object.keys(e)).toEqual([...Object.keys(before), 'lastInteractionAt', 'estimatedCostUsd'])
  })

  it('model, provider, window, sessionFile, updatedAt and abortedLastRun are overwritten with the run\'s', () => {
    const e = applyRunUsage(oldRow(), run({usage: usage(10, 1), lastCall: usage(10, 1)}))
    expect(e).toMatchObject({model: 'claude-opus-4-6', modelProvider: 'anthropic', contextTokens: 200_000, sessionFile: FILE, updatedAt: NOW, lastInteractionAt: NOW, abortedLastRun: false})
  })

  it('input and output are sums over the run (not added to the old row); cache counters come from the last call', () => {
    // Two calls (a tool round trip): 100+150 in, 20+25 out; the second prompt read 40 from the cache and wrote 3.
    const e = applyRunUsage(oldRow(), run({usage: usage(250, 45, 70, 8), lastCall: usage(150, 25, 40, 3)}))
    expect(e).toMatchObject({inputTokens: 250, outputTokens: 45, cacheRead: 40, cacheWrite: 3})
  })

  it('totalTokens is the last call\'s prompt size (input + cache read + cache write, output excluded) and fresh', () => {
    const e = applyRunUsage(oldRow({totalTokensFresh: false}), run({usage: usage(250, 45, 70, 8), lastCall: usage(150, 25, 40, 3)}))
    expect(e.totalTokens).toBe(193)
    expect(e.totalTokensFresh).toBe(true)
  })

  it('usage with no last call: cache counters fall back to the run sums and the total is dropped as stale', () => {
    const e = applyRunUsage(oldRow(), run({usage: usage(50, 5, 7, 2)}))
    expect(e).toMatchObject({inputTokens: 50, outputTokens: 5, cacheRead: 7, cacheWrite: 2, totalTokensFresh: false})
    expect('totalTokens' in e).toBe(false)
  })

  it('a last call that reported output but no prompt tokens: the total is dropped and marked stale', () => {
    const e = applyRunUsage(oldRow(), run({usage: usage(0, 12), lastCall: usage(0, 12)}))
    expect(e).toMatchObject({inputTokens: 0, outputTokens: 12, cacheRead: 0, cacheWrite: 0, totalTokensFresh: false})
    expect('totalTokens' in e).toBe(false)
  })

  it('abortedLastRun records an aborted run, its partial usage counted like any other', () => {
    const e = applyRunUsage(oldRow({abortedLastRun: false}), run({aborted: true, usage: usage(80, 4), lastCall: usage(80, 4)}))
    expect(e).toMatchObject({abortedLastRun: true, inputTokens: 80, outputTokens: 4, totalTokens: 80, totalTokensFresh: true})
  })
})

describe('applyRunUsage: a run with no usage', () => {
  it('no call succeeded and nothing was compacted: the old counters and their freshness stay as they were', () => {
    const e = applyRunUsage(oldRow(), run({aborted: true}))
    expect(e).toMatchObject({inputTokens: 900, outputTokens: 90, cacheRead: 9, cacheWrite: 8, totalTokens: 917, totalTokensFresh: true, estimatedCostUsd: 0.1, compactionCount: 2})
    expect(e).toMatchObject({abortedLastRun: true, updatedAt: NOW, model: 'claude-opus-4-6'})
  })

  it('a new row from a run with no usage has no counters and no cost at all', () => {
    const e = applyRunUsage(undefined, run())
    expect(Object.keys(e)).toEqual(['sessionId', 'updatedAt', 'lastInteractionAt', 'sessionFile', 'contextTokens', 'modelProvider', 'model', 'abortedLastRun'])
  })
})

describe('applyRunUsage: compaction', () => {
  it('a compaction with no successful call after it clears input/output/cache and stores the compacted size as fresh', () => {
    const e = applyRunUsage(oldRow({totalTokensFresh: false}), run({postCompactionTokens: 4321, compactions: 1, costUsd: 0.002}))
    for (const k of ['inputTokens', 'outputTokens', 'cacheRead', 'cacheWrite']) expect(k in e).toBe(false)
    expect(e).toMatchObject({totalTokens: 4321, totalTokensFresh: true, compactionCount: 3})
  })

  it('calls before a final compaction: their sums are kept, but the total is the compacted size, not the last prompt', () => {
    const e = applyRunUsage(oldRow(), run({usage: usage(300, 30, 0, 0), lastCall: usage(300, 30), postCompactionTokens: 1200, compactions: 1}))
    expect(e).toMatchObject({inputTokens: 300, outputTokens: 30, cacheRead: 0, cacheWrite: 0, totalTokens: 1200, totalTokensFresh: true})
  })

  it('compactionCount adds the run\'s compactions to the old count; a non-number old count counts as 0', () => {
    expect(applyRunUsage(oldRow({compactionCount: 2}), run({compactions: 3, usage: usage(1, 1), lastCall: usage(1, 1)})).compactionCount).toBe(5)
    expect(applyRunUsage(oldRow({compactionCount: 'two' as never}), run({compactions: 1, usage: usage(1, 1), lastCall: usage(1, 1)})).compactionCount).toBe(1)
    expect(applyRunUsage(undefined, run({compactions: 1, postCompactionTokens: 10})).compactionCount).toBe(1)
  })

  it('a run with no compaction leaves compactionCount alone, absent stays absent', () => {
    expect(applyRunUsage(oldRow({compactionCount: 2}), run({usage: usage(1, 1), lastCall: usage(1, 1)})).compactionCount).toBe(2)
    expect('compactionCount' in applyRunUsage(undefined, run({usage: usage(1, 1), lastCall: usage(1, 1)}))).toBe(false)
  })
})

describe('applyRunUsage: cost', () => {
  it('estimatedCostUsd accumulates across runs, rounded to 9 decimals', () => {
    expect(applyRunUsage(oldRow({estimatedCostUsd: 0.1}), run({usage: usage(1, 1), lastCall: usage(1, 1), costUsd: 0.2})).estimatedCostUsd).toBe(0.3)
    expect(applyRunUsage(oldRow({estimatedCostUsd: 1}), run({usage: usage(1, 1), lastCall: usage(1, 1), costUsd: 0.000_000_000_4})).estimatedCostUsd).toBe(1)
    expect(applyRunUsage(oldRow({estimatedCostUsd: 1}), run({usage: usage(1, 1), lastCall: usage(1, 1), costUsd: 0.000_000_000_6})).estimatedCostUsd).toBe(1.000_000_001)
  })

  it('a non-number old cost counts as 0', () => {
    expect(applyRunUsage(oldRow({estimatedCostUsd: '0.5' as never}), run({usage: usage(1, 1), lastCall: usage(1, 1), costUsd: 0.25})).estimatedCostUsd).toBe(0.25)
  })

  it('usage without prices still writes the cost field (old value, or 0 on a row without one)', () => {
    expect(applyRunUsage(oldRow({estimatedCostUsd: 0.1}), run({usage: usage(5, 5), lastCall: usage(5, 5)})).estimatedCostUsd).toBe(0.1)
    expect(applyRunUsage(undefined, run({usage: usage(5, 5), lastCall: usage(5, 5)})).estimatedCostUsd).toBe(0)
  })

  it('a cost with no turn usage (only a summary call was paid for) is still added', () => {
    expect(applyRunUsage(oldRow({estimatedCostUsd: 0.1}), run({costUsd: 0.05, postCompactionTokens: 100, compactions: 1})).estimatedCostUsd).toBe(0.15)
  })
})

describe('applyRunUsage: the row changed under the turn', () => {
  it('a row that names another session (reset while the turn ran) is returned as it is: the new id wins', () => {
    const rotated = oldRow({sessionId: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee'})
    const copy = structuredClone(rotated)
    const e = applyRunUsage(rotated, run({usage: usage(100, 20), lastCall: usage(100, 20), costUsd: 1, compactions: 1}))
    expect(e).toBe(rotated)
    expect(e).toEqual(copy)
  })

  it('does not modify the entry it is given', () => {
    const before = oldRow()
    const copy = structuredClone(before)
    applyRunUsage(before, run({usage: usage(250, 45, 70, 8), lastCall: usage(150, 25, 40, 3), postCompactionTokens: 5, compactions: 1, costUsd: 3}))
    expect(before).toEqual(copy)
  })
})

describe('promptTokensOf', () => {
  it('is the last call\'s input side, output excluded', () => {
    expect(promptTokensOf(usage(150, 25, 40, 3), undefined)).toBe(193)
  })

  it('is undefined without a successful call, or when a compaction came after it', () => {
    expect(promptTokensOf(undefined, undefined)).toBeUndefined()
    expect(promptTokensOf(usage(150, 25, 40, 3), 1000)).toBeUndefined()
  })
})
