import path from 'node:path'

import {defineConfig} from 'vitest/config'
import {BaseSequencer, type TestSpecification} from 'vitest/node'

/**
 * The longest files, longest first (seconds on a quiet 2-core machine; docs/development.md). Started first, they run
 * beside the many short ones; left to vitest's order in a fresh clone (no timings cached: largest file first), the
 * crash trials, a small file, started last and kept one worker busy for a minute after the other had finished.
 */
const LONGEST_FIRST = [
  'test/reliability/crash.test.ts',
  'test/e2e/fleet/sync-crash.test.ts',
  'test/reliability/hostile-input.test.ts',
  'test/e2e/fleet/read.test.ts',
  'test/e2e/doctor/sqlite.sqlite.test.ts',
  'test/reliability/special-files.test.ts',
  'test/e2e/fleet/sync.test.ts',
  'test/e2e/agent/failures.test.ts',
  'test/e2e/sessions/search.sqlite.test.ts',
  'test/e2e/fleet/sync.sqlite.test.ts',
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
