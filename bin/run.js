#!/usr/bin/env node
import {createRequire} from 'node:module'

// package.json `engines.node` (test/cli.test.ts keeps the two equal). Checked here with two integer comparisons
// because oclif's own check loads semver on every start (~11 ms); src/boot/boot.ts switches oclif's off.
const MIN_NODE = [20, 19]
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) {
  process.emitWarning(`clawkit needs Node.js >=${MIN_NODE.join('.')}; this is ${process.versions.node}. Upgrade Node.js.`)
}

// Everything else is CommonJS, loaded through require(): dist/boot.cjs (src/boot/boot.ts, which says why) loads the
// bundle dist/cli.cjs made by scripts/bundle.js, oclif and every command in one file, and runs it.
const require = createRequire(import.meta.url)
await require('../dist/boot.cjs').run(import.meta.url, require.resolve('../dist/cli.cjs'))
