// The set-up one test run shares (both passes of `npm test`, or one `vitest run`): a run dir that holds clawkit's code
// cache for every CLI child, and the record of the PostgreSQL cluster the first fleet test started, which closing the
// run stops. Plain JS: scripts/test.js (no build, no TypeScript) opens and closes it around its two passes.
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** The env var that hands an open run dir to vitest (scripts/test.js sets it; vitest's globalSetup reads it). */
export const RUN_DIR_ENV = 'CLAWKIT_TEST_RUN_DIR'

/** A fresh run dir (mode 0700, as clawkit wants its cache dir) with its `cache/` for the CLI children. */
export function openTestRun() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-run-'))
  fs.chmodSync(dir, 0o700)
  fs.mkdirSync(path.join(dir, 'cache'), {mode: 0o700})
  return dir
}

/** Where usePg (test/support/postgres.ts) records the cluster it started for this run. */
export function pgRecordPath(runDir) {
  return path.join(runDir, 'pg.json')
}

/**
 * Stop the run's PostgreSQL cluster, if one was started, and remove the run dir. Never throws: a cluster that would
 * not stop is reported on stderr with its dir, so that it can be stopped by hand.
 */
export function closeTestRun(runDir) {
  let record
  try {
    record = JSON.parse(fs.readFileSync(pgRecordPath(runDir), 'utf8'))
  } catch {
    record = undefined
  }
  // The record is written before the server starts: postmaster.pid says whether it did (and still runs).
  if (record && fs.existsSync(path.join(record.dir, 'data', 'postmaster.pid'))) {
    const r = spawnSync(record.stop[0], record.stop.slice(1), {encoding: 'utf8', env: {...process.env, LC_ALL: 'C'}})
    if (r.status !== 0) {
      process.stderr.write(`test: could not stop the test PostgreSQL cluster in ${record.dir}: ${(r.stderr || r.error?.message || '').trim()}\n`)
      record = undefined
    }
  }
  if (record) fs.rmSync(record.dir, {recursive: true, force: true})
  fs.rmSync(runDir, {recursive: true, force: true})
}
