// `doctor --fix` journaled: after repairs of several kinds (a torn transcript line moved aside, a transcript's mode,
// a stale lock, a byte order mark on the index), `clawkit undo` puts every file back byte for byte and mode for mode,
// and the repairs' backups go; undoing the undo repairs again. Beside other writers: a lock another process held
// while doctor ran is never put back by undo once released, and a turn another writer appended while doctor ran is
// never taken away by undo.
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import type {DoctorResult} from '../../../src/doctor/types.js'
import type {UndoResult} from '../../../src/commands/undo.js'
import {baseEnv, COMPACTION, json, runCli, sessionsJsonPath, tempDir, waitUntil} from '../../support/cli.js'
import {holdLockInChild, killLockHolders} from '../../support/locks.js'
import {hashTree} from '../../support/state-hash.js'
import {COMPACT_MAIN_ID, EXPLICIT_ID, EXPLICIT_KEY, healthy, transcriptOf} from './helpers.js'

afterEach(() => killLockHolders())

/** An index entry without updatedAt: doctor's entry-missing-updated-at, an index repair (under sessions.json's lock). */
function dropUpdatedAt(state: string, key: string): void {
  const index = sessionsJsonPath(state)
  const data = JSON.parse(fs.readFileSync(index, 'utf8'))
  delete data[key].updatedAt
  fs.writeFileSync(index, JSON.stringify(data, null, 2))
}

/** The steps doctor's journal entry has recorded so far (the first is its snapshot, recorded before any repair runs). */
function recordedSteps(env: Record<string, string | undefined>): number {
  const root = path.join(env.CLAWKIT_DATA_DIR!, 'journal')
  if (!fs.existsSync(root)) return 0
  return fs.readdirSync(root).reduce((n, id) => n + (fs.existsSync(path.join(root, id, 'steps')) ? fs.readdirSync(path.join(root, id, 'steps')).length : 0), 0)
}

/** A turn appended as OpenClaw appends one: under the transcript's lock (O_EXCL, {pid, createdAt}), released after. */
function appendTurn(file: string, text: string): string {
  const line = `${JSON.stringify({type: 'message', id: 'beside-doctor', parentId: null, timestamp: new Date().toISOString(), message: {role: 'user', content: [{type: 'text', text}]}})}\n`
  const fd = fs.openSync(`${file}.lock`, 'wx')
  fs.writeSync(fd, JSON.stringify({pid: process.pid, createdAt: new Date().toISOString()}, null, 2))
  fs.closeSync(fd)
  try {
    fs.appendFileSync(file, line)
  } finally {
    fs.rmSync(`${file}.lock`)
  }
  return line
}

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

  it('a lock another process held while doctor ran, released since, is not put back by undo', async () => {
    const state = healthy(COMPACTION)
    const env = baseEnv(tempDir())
    const file = transcriptOf(state, 'main', COMPACT_MAIN_ID)
    fs.chmodSync(file, 0o644)
    // A live writer holds another transcript's lock through the whole of doctor's run (info live-lock, no repair).
    const other = transcriptOf(state, 'main', EXPLICIT_ID)
    const holder = await holdLockInChild(other)
    const fixed = await runCli(['doctor', '--fix', '--yes', '--json', '--state-dir', state], {env})
    const doc = json<DoctorResult>(fixed)
    expect(doc.findings.find((f) => f.id === 'live-lock')).toMatchObject({fixed: false, details: {pid: holder.pid}})
    expect(doc.findings.find((f) => f.id === 'transcript-permissions')).toMatchObject({fixed: true})
    await holder.release()
    expect(fs.existsSync(`${other}.lock`)).toBe(false)
    const before = tree(state)

    const u = await runCli(['undo', '--json', '--state-dir', state], {env})
    expect(u.code, u.stderr).toBe(0)
    expect(json<UndoResult>(u).undone.id).toBe(doc.journal)
    // The repair is reversed (the mode), and the lock nobody holds any more stays gone.
    expect(fs.statSync(file).mode & 0o777).toBe(0o644)
    expect(fs.existsSync(`${other}.lock`)).toBe(false)
    expect(Object.keys(tree(state)).filter((p) => p.endsWith('.lock'))).toEqual(Object.keys(before).filter((p) => p.endsWith('.lock')))
  })

  it('a turn another writer appended while doctor --fix ran is never taken away by undo', async () => {
    const state = healthy(COMPACTION)
    const env = baseEnv(tempDir())
    dropUpdatedAt(state, EXPLICIT_KEY)
    const index = sessionsJsonPath(state)
    const indexBefore = fs.readFileSync(index)
    const file = transcriptOf(state, 'main', COMPACT_MAIN_ID)
    // The index lock is held (as by an OpenClaw writer) so that doctor's index repair waits for it: doctor has taken
    // its snapshot (its first journal step) and not finished its pass while the other writer appends.
    const holder = await holdLockInChild(index)
    const run = runCli(['doctor', '--fix', '--yes', '--json', '--state-dir', state], {env})
    await waitUntil(() => recordedSteps(env) > 0, "doctor's snapshot")
    const turn = appendTurn(file, 'a turn written while doctor ran')
    await holder.release()
    const fixed = await run
    const doc = json<DoctorResult>(fixed)
    expect(doc.findings.find((f) => f.id === 'entry-missing-updated-at'), JSON.stringify(doc.findings)).toMatchObject({fixed: true, key: EXPLICIT_KEY})
    const withTurn = fs.readFileSync(file, 'utf8')
    expect(withTurn.endsWith(turn)).toBe(true)

    // Doctor's own change (the index entry) is reversed; the other writer's turn is not doctor's, and stays.
    const u = await runCli(['undo', '--json', '--state-dir', state], {env})
    expect(u.code, u.stderr).toBe(0)
    expect(fs.readFileSync(index)).toEqual(indexBefore)
    expect(fs.readFileSync(file, 'utf8')).toBe(withTurn)
    expect(fs.readdirSync(path.dirname(index)).filter((n) => n.startsWith('sessions.json.bak.'))).toEqual([])
  })
})
