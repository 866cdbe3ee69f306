// Crash trials: SIGKILL writers at seeded random points and prove the store is the old or the new state, never a third.
// npm test runs one trial per writer and one more; `npm run test:deep` (CI) 40; `npm run test:crash` the full set
// (CLAWKIT_CRASH_TRIALS, CLAWKIT_SEED).

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {calibrateWindow, disposeTrialContext, newTrialContext, runTrial, summarize, type TrialRecord, writeResults} from './support/crash.js'
import {closeCrashWriterServers, CRASH_WRITERS} from './support/crash-writers.js'
import {intFromEnv, Rng, seedFromEnv} from './support/prng.js'

const TRIALS = intFromEnv('CLAWKIT_CRASH_TRIALS', 8)
const SEED = seedFromEnv(20_261_125)

describe(`crash trials (SIGKILL mid-write): ${TRIALS} seeded kills over index rewrites, transcript appends, CLI resets, agent turns and message sends`, () => {
  afterAll(closeCrashWriterServers)

  const rng = new Rng(SEED)
  const windows = new Map<string, number>()
  const records: TrialRecord[] = []
  let started = 0

  beforeAll(async () => {
    started = Date.now()
    for (const w of CRASH_WRITERS) if (w.maxDelayMs === 'calibrated') windows.set(w.name, await calibrateWindow(w))
    process.stderr.write(`crash trials: kill windows ${JSON.stringify(Object.fromEntries([...windows].map(([k, v]) => [k, Math.round(v)])))}\n`)
  })

  // The trials in tests of CHUNK each, one seeded sequence in order (40 trials in one test took 71 s on a busy machine
  // and held a worker to itself at the end of the run); the figures and their checks are the last test.
  const CHUNK = 5
  for (let from = 0; from < TRIALS; from += CHUNK) {
    const to = Math.min(from + CHUNK, TRIALS)
    it(`trials ${from + 1}-${to}: 0 corruptions, dead locks reclaimed, torn tails fenced, doctor --fix leaves no fixable finding`, async () => {
      // Every writer gets at least its share: the first rounds cycle through the table, the rest are drawn by weight.
      for (let t = from; t < to; t++) {
        const writer = t < CRASH_WRITERS.length ? CRASH_WRITERS[t] : rng.weighted(CRASH_WRITERS)
        const ctx = newTrialContext(t, new Rng(rng.int(1, 2 ** 31)))
        const record = await runTrial(writer, ctx, windows.get(writer.name))
        records.push(record)
        // Keep failing trials on disk for inspection; clean the rest so 240 trials do not litter /tmp.
        if (record.problems.length === 0) disposeTrialContext(ctx)
        else record.problems.push(`state kept at ${ctx.stateDir}`)
      }
      const failures = records.slice(from).filter((r) => r.problems.length > 0)
      expect(failures.map((f) => ({trial: f.trial, writer: f.writer, delayMs: f.delayMs, outcome: f.outcome, problems: f.problems}))).toEqual([])
    })
  }

  it('the figures of every trial are written, and the kills landed mid-run', () => {
    const summary = summarize(SEED, records, Date.now() - started)
    const file = writeResults(TRIALS >= 200 ? 'crash-full' : 'crash', {summary, records})
    const {failures, ...figures} = summary
    process.stderr.write(`crash trials: ${JSON.stringify(figures)}\n(details: ${file})\n`)
    expect(summary.trials).toBe(TRIALS)
    expect(failures).toHaveLength(0)
    // The kills must actually land mid-run, or the trials prove nothing.
    expect(summary.killed).toBeGreaterThanOrEqual(Math.floor(TRIALS * 0.6))
  })
})
