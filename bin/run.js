#!/usr/bin/env node
// The executable. CommonJS (bin/package.json): Node loads an ES module entry through its ES module loader, ~4 ms of
// every start that a CommonJS entry does not pay (BENCHMARKS.md).
'use strict'

// package.json `engines.node` (test/cli/cli.test.ts keeps the two equal). Checked here with two integer comparisons
// because oclif's own check loads semver on every start (~11 ms); src/cli/boot.ts switches oclif's off.
const MIN_NODE = [20, 19]
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) {
  process.emitWarning(`clawkit needs Node.js >=${MIN_NODE.join('.')}; this is ${process.versions.node}. Upgrade Node.js.`)
}

// dist/boot.cjs (src/cli/boot.ts, which says why) loads the bundle dist/cli.cjs made by scripts/bundle.js, oclif and
// every command in one file, and runs it. oclif is given the package root itself: looking upwards from this file it
// would stop at bin/package.json.
const path = require('node:path')
let boot
try {
  boot = require('../dist/boot.cjs')
} catch (error) {
  // A checkout that was never built (npm ci builds through `prepare`): say so instead of a module-not-found trace.
  if (error.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes('dist/boot.cjs')) throw error
  process.stderr.write(`Error: clawkit is not built (${path.join(__dirname, '..', 'dist')} is missing).\n  hint: run "npm ci" or "npm run build" in ${path.join(__dirname, '..')}\n`)
  process.exit(1)
}
boot.run(path.join(__dirname, '..'), require.resolve('../dist/cli.cjs')).catch((error) => {
  // Commands report their own errors; this is a start-up failure (a damaged dist/). Stack trace only with DEBUG.
  process.stderr.write(`Error: clawkit could not start: ${error?.message ?? error}\n  hint: reinstall, or run "npm run build" in a checkout\n`)
  if (process.env.DEBUG && error?.stack) process.stderr.write(`${error.stack}\n`)
  process.exitCode = 1
})
