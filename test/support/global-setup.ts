// vitest globalSetup: hands every test file the run dir it shares (test-run.mjs), opening one when scripts/test.js did
// not (a plain `vitest run`), and then closes it at the end, stopping the PostgreSQL cluster if a test started one.
import type {TestProject} from 'vitest/node'

import {closeTestRun, openTestRun, RUN_DIR_ENV} from './test-run.mjs'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run dir of test-run.mjs: `cache/` for clawkit's code cache, `pg.json` once a cluster runs. */
    clawkitTestRun: string
  }
}

export default function setup(project: TestProject): () => void {
  const given = process.env[RUN_DIR_ENV]
  const dir = given || openTestRun()
  project.provide('clawkitTestRun', dir)
  // A dir scripts/test.js opened outlives this pass (the Node 24 pass reuses its cluster and cache): it closes it.
  return () => {
    if (!given) closeTestRun(dir)
  }
}
