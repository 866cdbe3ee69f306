// vitest globalSetup: hands every test file the run dir it shares (test-run.mjs), opening one when scripts/test.js did
// not (a plain `vitest run`), and then closes it at the end, stopping the PostgreSQL cluster if a test started one.
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import type {TestProject} from 'vitest/node'

import {closeTestRun, openTestRun, RUN_DIR_ENV} from './test-run.mjs'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run dir of test-run.mjs: `cache/` for clawkit's code cache, `pg.json` once a cluster runs. */
    clawkitTestRun: string
  }
}

const FIXTURES = fileURLToPath(new URL('../fixtures', import.meta.url))

/** Every file under test/fixtures (relative paths). */
function fixtureFiles(dir = FIXTURES, out: string[] = []): string[] {
  for (const d of fs.readdirSync(dir, {withFileTypes: true})) {
    const p = path.join(dir, d.name)
    if (d.isDirectory()) fixtureFiles(p, out)
    else out.push(path.relative(FIXTURES, p))
  }
  return out
}

export default function setup(project: TestProject): () => void {
  const given = process.env[RUN_DIR_ENV]
  const dir = given || openTestRun()
  project.provide('clawkitTestRun', dir)
  const before = new Set(fixtureFiles())
  // A dir scripts/test.js opened outlives this pass (the Node 24 pass reuses its cluster and cache): it closes it.
  return () => {
    if (!given) closeTestRun(dir)
    // Fixtures are copied before use: a database opened in place grows -wal/-shm files beside it (once committed by
    // accident), a store written in place changes what every later test reads.
    const added = fixtureFiles().filter((f) => !before.has(f))
    if (added.length > 0) {
      // vitest reports a teardown's exception but still exits 0: the exit code is set here so the run fails.
      process.stderr.write(`\nError: tests left files in test/fixtures (a fixture used in place instead of a copy): ${added.join(', ')}\n`)
      process.exitCode = 1
    }
  }
}
