#!/usr/bin/env node
import module from 'node:module'

// Node 22+ caches compiled code between runs (about a third of oclif's startup); Node 20 has no such cache.
module.enableCompileCache?.()

// This entry always runs the bundle: without this, NODE_ENV=development or test in a checkout makes oclif map
// dist/cli.js back to src/cli.ts through tsx, mixing two copies of @oclif/core. bin/dev.js is the way to run sources.
globalThis.oclif = {...globalThis.oclif, enableAutoTranspile: false}

// dist/cli.js is the bundle made by scripts/bundle.js: oclif and every command in one module.
const {execute} = await import('../dist/cli.js')
await execute({dir: import.meta.url})
