#!/usr/bin/env node
import module from 'node:module'

// Node 22+ caches compiled code between runs (about a third of oclif's startup); Node 20 has no such cache.
module.enableCompileCache?.()

// oclif checks Node against its own engines (>=18) with semver at load; ours are stricter and npm enforces them.
// Set only for the import so that the agent's exec tool never inherits it.
const skipEngineCheck = process.env.OCLIF_DISABLE_ENGINE_WARNING === undefined
if (skipEngineCheck) process.env.OCLIF_DISABLE_ENGINE_WARNING = '1'
// dist/cli.js is the bundle made by scripts/bundle.js: oclif and every command in one module.
const {execute} = await import('../dist/cli.js')
if (skipEngineCheck) delete process.env.OCLIF_DISABLE_ENGINE_WARNING

await execute({dir: import.meta.url})
