#!/usr/bin/env node
// `npm test` after the build: vitest on the running Node (the JSON era, Node 20 included), then, when this Node has no
// node:sqlite/zstd, a second pass of the `*.sqlite.test.ts` files on a real Node 24 with CLAWKIT_REQUIRE_SQLITE=1, so
// the SQLite-era suites are never skipped: in CI (CI set) a missing Node 24 fails the run; locally it is explained.
//   npm test                                   # both passes
//   npm test -- test/store/foo.test.ts -t name # arguments go to both passes (the second keeps only *.sqlite.test.ts)
//   CLAWKIT_NODE24=/path/to/node npm test      # the Node 24 to use (see scripts/node24.js for the cached install)
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import zlib from 'node:zlib'

import {closeTestRun, openTestRun, RUN_DIR_ENV} from '../test/support/test-run.mjs'
import {findNode24} from './node24.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs')
const args = process.argv.slice(2)
const inCi = Boolean(process.env.CI) && process.env.CI !== 'false' && process.env.CI !== '0'

/** Same rule as sqliteSupported() in src/store/sqlite/driver.ts (kept here so this script needs no build). */
function sqliteSupported() {
  const [a, b] = process.versions.node.split('.').map(Number)
  return (a > 22 || (a === 22 && b >= 15)) && typeof zlib.zstdDecompressSync === 'function'
}

function testFiles(dir) {
  const out = []
  for (const e of fs.readdirSync(dir, {withFileTypes: true})) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) {
      if (e.name !== 'fixtures' && e.name !== 'node_modules') out.push(...testFiles(p))
    } else if (e.name.endsWith('.test.ts')) out.push(path.relative(root, p).split(path.sep).join('/'))
  }
  return out.sort()
}

// One run dir for both passes (test/support/test-run.mjs): the CLI children's code cache, and the PostgreSQL cluster
// that the first fleet test starts; the Node 24 pass reuses both. Closing it stops the cluster, also after Ctrl-C.
const runDir = process.env[RUN_DIR_ENV] ? undefined : openTestRun()
let interrupted
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => (interrupted = signal))

function exit(code) {
  if (runDir) closeTestRun(runDir)
  if (interrupted) {
    // Die of the same signal, as a shell expects of an interrupted command.
    process.removeAllListeners(interrupted)
    process.kill(process.pid, interrupted)
  }
  process.exit(code)
}

function fail(message) {
  process.stderr.write(`test: ${message}\n`)
  exit(1)
}

/**
 * The environment vitest runs in: this one without NODE_EXTRA_CA_CERTS, which Node 20 parses at every start (~40 ms for
 * a system bundle; each test file's worker and each process a test starts would pay it). No test reaches a server
 * beyond 127.0.0.1; this script itself keeps it (findNode24 may install Node 24 from the registry).
 */
function testEnv() {
  const {NODE_EXTRA_CA_CERTS: _, ...rest} = process.env
  return rest
}

/** vitest on `node`; resolves with its exit code. Not spawnSync: the signal handlers above must run while it does. */
async function run(node, extraArgs, env) {
  const code = await new Promise((resolve) => {
    const child = spawn(node, [vitest, 'run', ...extraArgs], {cwd: root, stdio: 'inherit', env: {...testEnv(), ...(runDir ? {[RUN_DIR_ENV]: runDir} : {}), ...env}})
    child.on('error', (e) => fail(`could not start ${node}: ${e.message}`))
    child.on('close', (status) => resolve(status ?? 1))
  })
  // The signal reached vitest too (same process group): the run ends here, with the cluster stopped.
  if (interrupted) exit(1)
  return code
}

// A suite gated by describeSqlite outside a *.sqlite.test.ts file would skip in the first pass and never reach the
// second: refuse that layout, so "never skipped" holds by construction. The interop files are exempt: they need a real
// OpenClaw and run only under scripts/interop.sh, which runs vitest itself on Node 24.
const files = testFiles(path.join(root, 'test'))
const misnamed = files.filter((f) => !f.endsWith('.sqlite.test.ts') && !path.basename(f).startsWith('interop') && /\bdescribeSqlite\b/.test(fs.readFileSync(path.join(root, f), 'utf8')))
if (misnamed.length > 0) fail(`${misnamed.join(', ')} use describeSqlite but are not named *.sqlite.test.ts; rename them so the Node 24 pass runs them.`)

// The options and filters of `npm test -- ...`: options go to both passes; file filters narrow the second one.
const filters = []
const options = []
for (let i = 0; i < args.length; i++) {
  const a = args[i]
  if (a.startsWith('-')) {
    options.push(a)
    // vitest options that take a separate value (the rest are flags or --opt=value)
    if (['-t', '--testNamePattern', '--reporter', '--project', '--shard', '--bail', '--retry', '--maxWorkers'].includes(a) && i + 1 < args.length) options.push(args[++i])
  } else filters.push(a)
}

const t0 = Date.now()
const first = await run(process.execPath, args, {})
const firstSeconds = ((Date.now() - t0) / 1000).toFixed(0)

if (sqliteSupported()) {
  exit(first)
}

const sqliteFiles = files.filter((f) => f.endsWith('.sqlite.test.ts') && (filters.length === 0 || filters.some((x) => f.includes(x.replace(/^\.\//, '')))))
if (sqliteFiles.length === 0) {
  if (filters.length === 0) fail('no *.sqlite.test.ts file exists, so nothing proves the SQLite era; expected at least test/store/sqlite/driver.sqlite.test.ts.')
  exit(first)
}

const node24 = findNode24()
if (node24.error) {
  const what = `the ${sqliteFiles.length} SQLite-era test file(s) need Node 24 and this is Node ${process.versions.node}: ${node24.error}`
  if (inCi) fail(`${what} CI never skips them.`)
  process.stderr.write(`test: NOT RUN: ${what} (CI fails here.)\n`)
  exit(first)
}
process.stderr.write(`\ntest: first pass on Node ${process.versions.node} done in ${firstSeconds} s (exit ${first}); SQLite pass on ${node24.version}: ${sqliteFiles.join(' ')}\n`)
const t1 = Date.now()
const second = await run(node24.bin, [...options, ...sqliteFiles], {CLAWKIT_REQUIRE_SQLITE: '1', CLAWKIT_TEST_NODE_OLD: process.execPath})
process.stderr.write(`test: SQLite pass done in ${((Date.now() - t1) / 1000).toFixed(0)} s (exit ${second})\n`)
exit(first || second)
