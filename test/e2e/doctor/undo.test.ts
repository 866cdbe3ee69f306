// `doctor --fix` journaled: after repairs of several kinds (a torn transcript line moved aside, a transcript's mode,
// a stale lock, a byte order mark on the index), `clawkit undo` puts every file back byte for byte and mode for mode,
// and the repairs' backups go; undoing the undo repairs again.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import type {DoctorResult} from '../../../src/doctor/types.js'
import {baseEnv, COMPACTION, json, runCli, sessionsJsonPath, tempDir} from '../../support/cli.js'
import {hashTree} from '../../support/state-hash.js'
import {COMPACT_MAIN_ID, healthy, transcriptOf} from './helpers.js'

/** Every file's hash and mode (lock files included: removing a stale one is a repair too). */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const hashes = hashTree(dir, {exclude: /^$/})
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, {withFileTypes: true})) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) out[path.relative(dir, p)] = `${hashes[path.relative(dir, p)] ?? fs.readFileSync(p).toString('base64')} ${(fs.statSync(p).mode & 0o777).toString(8)}`
    }
  }
  walk(dir)
  return out
}

describe('doctor --fix and undo', () => {
  it('undo after doctor --fix gives every file back (content and mode); the undo of the undo repairs again', async () => {
    const state = healthy(COMPACTION)
    const env = baseEnv(tempDir())
    const file = transcriptOf(state, 'main', COMPACT_MAIN_ID)
    fs.appendFileSync(file, '{"type":"message","id":"deadbeef","parentId":"x","message":{"role":"user","content":"half a li')
    fs.chmodSync(file, 0o644)
    const index = sessionsJsonPath(state)
    fs.writeFileSync(`${index}.lock`, JSON.stringify({pid: 999_999_999, createdAt: new Date(0).toISOString()}))
    fs.writeFileSync(index, `\uFEFF${fs.readFileSync(index, 'utf8')}`)
    const before = tree(state)

    const fixed = await runCli(['doctor', '--fix', '--yes', '--json', '--state-dir', state], {env})
    const doc = json<DoctorResult>(fixed)
    expect(doc.fixed, JSON.stringify(doc.findings)).toBeGreaterThanOrEqual(3)
    expect(doc.journal).toMatch(/^\d{8}-/)
    const afterFix = tree(state)
    expect(afterFix).not.toEqual(before)

    const u = await runCli(['undo', '--json', '--state-dir', state], {env})
    expect(u.code, u.stderr).toBe(0)
    expect(tree(state)).toEqual(before)

    const redo = await runCli(['undo', json<{journal: string}>(u).journal, '--json', '--state-dir', state], {env})
    expect(redo.code, redo.stderr).toBe(0)
    expect(tree(state)).toEqual(afterFix)
  })

  it('--fix --no-journal warns and journals nothing', async () => {
    const state = healthy(COMPACTION)
    const env = baseEnv(tempDir())
    fs.chmodSync(transcriptOf(state, 'main', COMPACT_MAIN_ID), 0o644)
    const r = await runCli(['doctor', '--fix', '--yes', '--no-journal', '--json', '--state-dir', state], {env})
    expect(json<DoctorResult>(r)).toMatchObject({journal: null})
    expect(r.stderr).toContain('cannot reverse them')
    expect((await runCli(['undo', '--json', '--state-dir', state], {env})).code).toBe(66)
  })
})
