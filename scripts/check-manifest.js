#!/usr/bin/env node
// Fails when the committed oclif.manifest.json differs from the one the build just generated (a stale manifest
// would make oclif advertise flags the code no longer has). The build rewrites the file; this compares it with the
// committed version as data, so only a real difference in commands, flags or args fails.
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import {isDeepStrictEqual} from 'node:util'

let committedText
try {
  committedText = execFileSync('git', ['show', 'HEAD:oclif.manifest.json'], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore']})
} catch {
  console.log('check-manifest: no committed oclif.manifest.json to compare (not a git checkout?), skipped')
  process.exit(0)
}
const generated = JSON.parse(fs.readFileSync(new URL('../oclif.manifest.json', import.meta.url), 'utf8'))
const committed = JSON.parse(committedText)
if (!isDeepStrictEqual(committed, generated)) {
  const ids = new Set([...Object.keys(committed.commands ?? {}), ...Object.keys(generated.commands ?? {})])
  const changed = [...ids].filter((id) => !isDeepStrictEqual(committed.commands?.[id], generated.commands?.[id]))
  console.error('oclif.manifest.json is stale: the build produced a different manifest than the committed one.')
  console.error(`Commands that differ: ${changed.join(', ') || '(top-level fields)'}`)
  console.error('Run "npm run build" and commit oclif.manifest.json.')
  process.exit(1)
}
console.log('check-manifest: oclif.manifest.json matches the code')
