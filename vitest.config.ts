import {defineConfig} from 'vitest/config'

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
    // Two cores: most tests spawn real CLI processes, so keep worker count modest.
    maxWorkers: 2,
  },
})
