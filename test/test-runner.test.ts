// scripts/test.js (npm test's runner) on a Node without node:sqlite: the SQLite pass is never skipped silently.
import {spawnSync} from 'node:child_process'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT} from './support/cli.js'

/** A Node that lacks node:sqlite/zstd (the one running the suite when it is Node 20), or undefined. */
function oldNode(): string | undefined {
  for (const bin of [process.execPath, process.env.CLAWKIT_TEST_NODE_OLD, 'node']) {
    if (!bin) continue
    const r = spawnSync(bin, ['-p', 'process.versions.node'], {encoding: 'utf8'})
    const [major, minor] = String(r.stdout).trim().split('.').map(Number)
    if (r.status === 0 && (major < 22 || (major === 22 && minor < 15))) return bin
  }
  return undefined
}

const old = oldNode()

/** scripts/test.js narrowed to the driver's SQLite file (its first pass skips it in ~1 s), Node 24 pointed nowhere. */
function runner(env: Record<string, string>) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'CI' && !k.startsWith('CLAWKIT_'))) as Record<string, string>
  return spawnSync(old!, [path.join(ROOT, 'scripts', 'test.js'), 'test/store/sqlite/driver.sqlite.test.ts'], {cwd: ROOT, encoding: 'utf8', env: {...base, ...env}})
}

describe.skipIf(!old)('npm test runner on a Node without node:sqlite', () => {
  it('in CI (CI=1), no usable Node 24 (CLAWKIT_NODE24 names a missing binary) fails the run with one line naming the files', () => {
    const r = runner({CI: '1', CLAWKIT_NODE24: '/nonexistent/node'})
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/test: the 1 SQLite-era test file\(s\) need Node 24 and this is Node [\d.]+: CLAWKIT_NODE24=\/nonexistent\/node does not run .* CI never skips them\./)
  })

  it('locally the same situation says NOT RUN and keeps the first pass exit code', () => {
    const r = runner({CLAWKIT_NODE24: '/nonexistent/node'})
    expect(r.status).toBe(0)
    expect(r.stderr).toContain('test: NOT RUN: the 1 SQLite-era test file(s) need Node 24')
  })

  it('CLAWKIT_NODE24 naming a Node older than 24 is refused, not used', () => {
    const r = runner({CI: '1', CLAWKIT_NODE24: old!})
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/is Node v[\d.]+, not 24 or later/)
  })
})
