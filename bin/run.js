#!/usr/bin/env node
import fs from 'node:fs'
import module from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

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

// dist/cli.cjs is the bundle made by scripts/bundle.js: oclif and every command in one CommonJS file. Compiled code
// is cached in clawkit's own cache dir, never in the shared temp dir Node would pick by default: on Node 22+ by
// Node's compile cache, on Node 20 by src/boot/load-bundle.ts. A cache dir that cannot be used only costs speed.
const {loadBundle, privateDir} = await import('../dist/boot/load-bundle.js')
const {clawkitDirs} = await import('../dist/settings.js')
let cacheRoot
try {
  cacheRoot = clawkitDirs().cache
} catch {}
if (cacheRoot && module.enableCompileCache) {
  const dir = path.join(cacheRoot, 'compile-cache')
  try {
    fs.mkdirSync(dir, {recursive: true, mode: 0o700})
    if (privateDir(dir)) module.enableCompileCache(dir)
  } catch {}
}
const {exports: cli} = loadBundle(fileURLToPath(new URL('../dist/cli.cjs', import.meta.url)), cacheRoot && path.join(cacheRoot, 'code-cache'))
// Only for the import: the agent's exec tool must not inherit it.
if (ownEngineCheck) delete process.env.OCLIF_DISABLE_ENGINE_WARNING
await cli.execute({dir: import.meta.url})
