// doctor never follows a symlink planted in a sessions dir: no chmod, no archive, no orphan claim on the target.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {copyFixture, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {doctor, localizeSessionFiles, sessionsDir} from './helpers.js'

describe('doctor and symlinks', () => {
  it('a *.jsonl symlink to a world-readable file outside the state dir is not chmodded or archived by --fix', async () => {
    const state = copyFixture(TWO_AGENTS)
    localizeSessionFiles(state)
    const outside = path.join(tempDir(), 'outside.jsonl')
    fs.writeFileSync(outside, '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n')
    fs.chmodSync(outside, 0o644)
    const link = path.join(sessionsDir(state), 'ffffffff-0000-4000-8000-000000000000.jsonl')
    fs.symlinkSync(outside, link)
    const {doc} = await doctor(state, ['--fix', '--yes'])
    expect(doc.findings.filter((f: any) => f.path === link || f.path === outside)).toEqual([])
    expect(fs.statSync(outside).mode & 0o777).toBe(0o644)
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
    expect(fs.readFileSync(outside, 'utf8')).toContain('"id":"x"')
  })
})
