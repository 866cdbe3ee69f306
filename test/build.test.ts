import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, ROOT, tempDir} from './support/cli.js'

describe('npm run build', () => {
  it('runs the oclif CLI without its "update available" warning, even when oclif\'s cache knows a newer oclif', () => {
    const script = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {scripts: Record<string, string>}).scripts.build
    const steps = script.split('&&').map((s) => s.trim()).filter((s) => /(^|\s)oclif\s/.test(s))
    expect(steps.length).toBeGreaterThan(0)
    for (const step of steps) {
      // The environment the build script gives this oclif step, applied to a step that prints nothing else.
      const assignments = Object.fromEntries([...step.matchAll(/(?:^|\s)([A-Z_]+)=(\S+)(?=\s)/g)].map((m) => [m[1], m[2]]))
      const home = tempDir()
      // What oclif's update plugin would have fetched from the registry: a newer release, checked just now.
      fs.mkdirSync(path.join(home, '.cache', 'oclif'), {recursive: true})
      fs.writeFileSync(path.join(home, '.cache', 'oclif', 'version'), JSON.stringify({latest: '999.0.0'}))
      const r = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'oclif'), ['--version'], {encoding: 'utf8', cwd: ROOT, env: baseEnv(home, {XDG_CACHE_HOME: undefined, ...assignments})})
      expect(r.status).toBe(0)
      expect(r.stdout + r.stderr).not.toContain('update available')
    }
  })
})
