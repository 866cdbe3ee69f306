#!/usr/bin/env node
import module from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

// Node 22+ caches compiled code between runs (about a third of oclif's startup); Node 20 has no such cache.
module.enableCompileCache?.()

// package.json `engines.node` (test/cli.test.ts keeps the two equal). oclif's own check of it loads semver on every
// start (~11 ms), so it is switched off for the import below and done here with two integer comparisons.
const MIN_NODE = [20, 19]
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) {
  process.emitWarning(`clawkit needs Node.js >=${MIN_NODE.join('.')}; this is ${process.versions.node}. Upgrade Node.js.`)
}
const ownEngineCheck = process.env.OCLIF_DISABLE_ENGINE_WARNING === undefined
if (ownEngineCheck) process.env.OCLIF_DISABLE_ENGINE_WARNING = '1'

// This entry always runs the bundle: without this, NODE_ENV=development or test in a checkout makes oclif map
// dist/cli.cjs back to src/cli.ts through tsx, mixing two copies of @oclif/core. bin/dev.js is the way to run sources.
globalThis.oclif = {...globalThis.oclif, enableAutoTranspile: false}

// dist/cli.cjs is the bundle made by scripts/bundle.js: oclif and every command in one CommonJS file, loaded through
// V8's code cache on Node 20 (src/boot/load-bundle.ts). A cache dir that cannot be worked out only costs speed.
const {loadBundle} = await import('../dist/boot/load-bundle.js')
const {clawkitDirs} = await import('../dist/settings.js')
let cacheDir
try {
  cacheDir = path.join(clawkitDirs().cache, 'code-cache')
} catch {}
const {exports: cli} = loadBundle(fileURLToPath(new URL('../dist/cli.cjs', import.meta.url)), cacheDir)
// Only for the import: the agent's exec tool must not inherit it.
if (ownEngineCheck) delete process.env.OCLIF_DISABLE_ENGINE_WARNING
await cli.execute({dir: import.meta.url})
