#!/usr/bin/env node
// Fails when the committed oclif.manifest.json differs from the one the build just generated (a stale manifest
// would make oclif advertise flags the code no longer has). The build rewrites the file; git shows the drift.
import {execFileSync} from 'node:child_process'

try {
  execFileSync('git', ['rev-parse', '--is-inside-work-tree'], {stdio: 'ignore'})
} catch {
  console.log('check-manifest: not a git checkout, skipped')
  process.exit(0)
}
const diff = execFileSync('git', ['status', '--porcelain', '--', 'oclif.manifest.json'], {encoding: 'utf8'}).trim()
if (diff) {
  console.error('oclif.manifest.json is stale: the build produced a different manifest than the committed one.')
  console.error('Run "npm run build" and commit oclif.manifest.json.')
  console.error(execFileSync('git', ['diff', '--stat', '--', 'oclif.manifest.json'], {encoding: 'utf8'}))
  process.exit(1)
}
console.log('check-manifest: oclif.manifest.json matches the code')
