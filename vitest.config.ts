import path from 'node:path'

import {defineConfig} from 'vitest/config'
import {BaseSequencer, type TestSpecification} from 'vitest/node'

/**
 * The longest files, longest first: each pass's files by their wall seconds in a full `npm test` (CLAWKIT_TEST_CPU_LOG,
 * docs/development.md; measured again after npm test's smoke counts, 2026-12-08), as one list (a pass meets only its
 * own). Started first, they run beside the many short
 * ones; left to vitest's order in a fresh clone (no timings cached: largest file first), a long file started late kept
 * one worker busy after the others had finished (the crash trials for a minute; the Node 24 pass's usage reports,
 * started near its end, ~50 s). Longest first is the classic rule for packing jobs of known lengths onto workers.
 */
const LONGEST_FIRST = [
  // seconds, Node 20 pass | Node 24 pass (*.sqlite.test.ts)
  'test/e2e/fleet/read.test.ts', // 75
  'test/reliability/hostile-input.test.ts', // 72
  'test/e2e/fleet/sync.test.ts', // 56
  'test/reliability/sqlite-contention.sqlite.test.ts', // 48
  'test/reliability/special-files.test.ts', // 48
  'test/e2e/fleet/sync-crash.test.ts', // 46
  'test/e2e/message/send.test.ts', // 37
  'test/e2e/doctor/sqlite.sqlite.test.ts', // 36
  'test/schemas.test.ts', // 34
  'test/e2e/agent/failures.test.ts', // 32
  'test/e2e/sessions/export-memory.test.ts', // 31
  'test/e2e/catalog/fixtures.sqlite.test.ts', // 31
  'test/catalog/equality-sqlite-era.sqlite.test.ts', // 30
  'test/catalog/equality.sqlite.test.ts', // 29
  'test/reliability/catalog-crash.sqlite.test.ts', // 28
  'test/reliability/crash.test.ts', // 28
  'test/e2e/named-paths.test.ts', // 28
  'test/e2e/sessions/usage-reports.test.ts', // 26
  'test/reliability/paths.test.ts', // 26
  'test/e2e/sessions/usage-reports.sqlite.test.ts', // ~25
  'test/e2e/sessions/usage.test.ts', // 24
  'test/reliability/sqlite-hostile.sqlite.test.ts', // 21
  'test/e2e/sessions/lifecycle.sqlite.test.ts', // 21
  'test/reliability/journal-kill.sqlite.test.ts', // ~20
]

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.indexOf(path.relative(f.project.config.root, f.moduleId).split(path.sep).join('/'))
      return i < 0 ? LONGEST_FIRST.length : i
    }
    const sorted = await super.sort(files)
    return sorted.map((f, i) => ({f, i})).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({f}) => f)
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One run dir for the whole run: the CLI children's code cache and the one PostgreSQL cluster (docs/development.md).
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    // oclif writes straight to process.stdout; vitest must not swallow it (oclif-notes §4).
    disableConsoleIntercept: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Three on two cores: with two, a run left ~17 % of the cores idle (tests waiting on locks, syncs, servers and
    // their CLI children's exits); a third fills that (npm test 922 s -> 866 s, 2026-12-07, docs/development.md).
    maxWorkers: 3,
    sequence: {sequencer: LongestFirst},
  },
})
