// `clawkit undo` in the JSON era, through the real CLI: a journaled change reversed byte for byte, the undo itself
// journaled (undoing it applies the change again), refusals that change nothing, the listing and pruning.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import type {UndoListResult, UndoPlan, UndoPruneResult, UndoResult} from '../../src/commands/undo.js'
import {baseEnv, cliWith, copyFixture, json, jsonError, readIndexFile, sessionsJsonPath, tempDir, TWO_AGENTS} from '../support/cli.js'
import {hashTree} from '../support/state-hash.js'

function setup() {
  const state = copyFixture(TWO_AGENTS)
  const env = baseEnv(tempDir())
  const cli = cliWith(['--state-dir', state], {env})
  return {state, env, cli}
}

describe('undo (JSON era)', () => {
  it('undo after sessions reset gives the state dir back byte for byte; undoing the undo applies the reset again', async () => {
    const {state, cli} = setup()
    const before = hashTree(state)
    const reset = json(await cli(['sessions', 'reset', 'agent:main:main', '--json']))
    expect(reset.journal).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4}$/)
    const afterReset = hashTree(state)
    expect(afterReset).not.toEqual(before)

    const u = await cli(['undo', '--json'])
    expect(u.code, u.stderr).toBe(0)
    const undone = json<UndoResult>(u)
    expect(undone).toMatchObject({dryRun: false, redo: false, undone: {id: reset.journal, action: 'reset', status: 'undone'}})
    expect(hashTree(state)).toEqual(before)

    const redo = json<UndoResult>(await cli(['undo', undone.journal!, '--json']))
    expect(redo.redo).toBe(true)
    expect(hashTree(state)).toEqual(afterReset)
    expect(readIndexFile(sessionsJsonPath(state))['agent:main:main'].sessionId).toBe(reset.sessionId)

    // The reset counts as applied again: a plain undo takes it back once more.
    json<UndoResult>(await cli(['undo', '--json']))
    expect(hashTree(state)).toEqual(before)
    const list = json<UndoListResult>(await cli(['undo', '--list', '--json']))
    expect(list.entries.map((e) => [e.action, e.status])).toEqual([['undo', 'applied'], ['undo', 'applied'], ['undo', 'undone'], ['reset', 'undone']])
  })

  it('refuses, changing nothing, when a newer turn was appended to the session the undo would remove', async () => {
    const {state, cli} = setup()
    const reset = json(await cli(['sessions', 'reset', 'agent:main:main', '--json']))
    fs.appendFileSync(reset.sessionFile, `${JSON.stringify({type: 'message', id: 'a1b2c3d4', parentId: null, timestamp: new Date().toISOString(), message: {role: 'user', content: 'a newer turn'}})}\n`)
    const moved = hashTree(state)
    const plan = json<UndoPlan>(await cli(['undo', '--dry-run', '--json']))
    expect(plan.conflicts.join('\n')).toContain(path.basename(reset.sessionFile))
    const r = await cli(['undo', '--json'])
    expect(r.code).toBe(1)
    expect(jsonError(r)).toMatchObject({code: 'E_UNDO_CONFLICT'})
    expect(jsonError(r).message).toMatch(/moved on since.*holds other content now.*Nothing was changed/)
    expect(hashTree(state)).toEqual(moved)
    // Nothing was undone, so the reset is still the one to undo.
    expect(json<UndoListResult>(await cli(['undo', '--list', '--json'])).entries.map((e) => e.status)).toEqual(['applied'])
  })

  it('refuses an entry undone already, and says there is nothing left to undo (exit 66)', async () => {
    const {cli} = setup()
    const reset = json(await cli(['sessions', 'reset', 'agent:work:main', '--json']))
    expect((await cli(['undo'])).code).toBe(0)
    const again = await cli(['undo', reset.journal!, '--json'])
    expect(again.code).toBe(1)
    expect(jsonError(again)).toMatchObject({code: 'E_ALREADY_UNDONE'})
    const none = await cli(['undo', '--json'])
    expect(none.code).toBe(66)
    expect(jsonError(none)).toMatchObject({code: 'E_NOTHING_TO_UNDO'})
  })

  it('--no-journal warns, records nothing, and leaves nothing to undo', async () => {
    const {state, env, cli} = setup()
    const r = await cli(['sessions', 'reset', 'agent:work:main', '--no-journal', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).journal).toBeNull()
    expect(r.stderr).toContain('cannot reverse it')
    expect(json<UndoListResult>(await cli(['undo', '--list', '--json'])).entries).toEqual([])
    expect(fs.existsSync(path.join(env.CLAWKIT_DATA_DIR, 'journal'))).toBe(false)
    expect(fs.readdirSync(state)).not.toContain('journal')
  })

  it('keeps the journal in clawkit\'s data dir (0700), never in the state dir, and --prune removes entries past an age', async () => {
    const {state, env, cli} = setup()
    const before = new Set(Object.keys(hashTree(state)))
    json(await cli(['sessions', 'reset', 'agent:work:main', '--json']))
    const journalDir = path.join(env.CLAWKIT_DATA_DIR, 'journal')
    expect(fs.statSync(journalDir).mode & 0o777).toBe(0o700)
    const added = Object.keys(hashTree(state)).filter((p) => !before.has(p))
    expect(added.every((p) => /sessions\/[0-9a-f-]{36}\.jsonl(\.reset\.[\dT:.Z-]+)?$/.test(p)), added.join(', ')).toBe(true)
    const listed = json<UndoListResult>(await cli(['undo', '--list', '--json']))
    expect(listed.entries).toHaveLength(1)
    expect(listed.entries[0].bytes).toBeGreaterThan(0)
    // Not yet past 1 day: kept. --older-than 0 prunes every entry that is not pending.
    expect(json<UndoPruneResult>(await cli(['undo', '--prune', '--older-than', '1d', '--json'])).pruned).toEqual([])
    const pruned = json<UndoPruneResult>(await cli(['undo', '--prune', '--older-than', '0', '--json']))
    expect(pruned.pruned.map((e) => e.id)).toEqual([listed.entries[0].id])
    expect(pruned.bytes).toBeGreaterThan(0)
    expect(json<UndoListResult>(await cli(['undo', '--list', '--json'])).entries).toEqual([])
  })

  it('retention: journalRetention prunes older entries when the next change is journaled, never a pending one', async () => {
    const {state, env, cli} = setup()
    fs.mkdirSync(env.CLAWKIT_CONFIG_DIR, {recursive: true})
    fs.writeFileSync(path.join(env.CLAWKIT_CONFIG_DIR, 'config.json'), JSON.stringify({journalRetention: '0'}))
    const first = json(await cli(['sessions', 'reset', 'agent:main:main', '--json']))
    // A second change whose entry is then marked pending, as an interrupted change leaves it: kept whatever its age.
    const second = await cli(['sessions', 'reset', 'agent:work:main'])
    expect(second.code).toBe(0)
    const pendingDir = path.join(env.CLAWKIT_DATA_DIR, 'journal', json<UndoListResult>(await cli(['undo', '--list', '--json'])).entries[0].id)
    const meta = JSON.parse(fs.readFileSync(path.join(pendingDir, 'entry.json'), 'utf8'))
    fs.writeFileSync(path.join(pendingDir, 'entry.json'), JSON.stringify({...meta, status: 'pending'}))
    const third = json(await cli(['sessions', 'reset', 'agent:main:main', '--json']))
    const ids = json<UndoListResult>(await cli(['undo', '--list', '--json'])).entries.map((e) => e.id)
    expect(ids).not.toContain(first.journal)
    expect(ids).toEqual([third.journal, meta.id])
    expect(json<UndoListResult>(await cli(['undo', '--list', '--json'])).retentionMs).toBe(0)
    void state
  })

  it('a bad journalRetention setting is a usage error naming the file', async () => {
    const {env, cli} = setup()
    fs.mkdirSync(env.CLAWKIT_CONFIG_DIR, {recursive: true})
    fs.writeFileSync(path.join(env.CLAWKIT_CONFIG_DIR, 'config.json'), JSON.stringify({journalRetention: 'forever'}))
    const r = await cli(['sessions', 'reset', 'agent:main:main', '--json'])
    expect(r.code).toBe(2)
    expect(jsonError(r)).toMatchObject({code: 'E_SETTINGS_INVALID'})
    expect(jsonError(r).message).toContain('config.json')
  })

  it('usage errors: conflicting modes, a malformed id', async () => {
    const {cli} = setup()
    expect(jsonError(await cli(['undo', '--list', '--prune', '--json']))).toMatchObject({code: 'E_FLAG_CONFLICT'})
    expect(jsonError(await cli(['undo', '--older-than', '1d', '--json']))).toMatchObject({code: 'E_FLAG_CONFLICT'})
    const bad = await cli(['undo', 'nope', '--json'])
    expect(bad.code).toBe(1)
    expect(jsonError(bad)).toMatchObject({code: 'E_JOURNAL_NOT_FOUND'})
  })
})
