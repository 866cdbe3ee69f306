// `sessions archive|delete|restore` in the JSON era, through the real CLI: the files and index rows OpenClaw's own
// delete leaves (2026.4.27: the row gone, `<file>.deleted.<time>`), the main session refused, restore by key and by
// id, and `undo` after each giving the state dir back byte for byte.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import type {SessionsArchiveResult, SessionsDeleteResult, SessionsRestoreResult} from '../../../src/sessions/lifecycle.js'
import {baseEnv, cliWith, COMPACTION, copyFixture, json, jsonError, readIndexFile, sessionsJsonPath, tempDir} from '../../support/cli.js'
import {hashTree} from '../../support/state-hash.js'

const KEY = 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001'
const ID = '0a1b2c3d-0000-4000-8000-000000000001'

function setup() {
  const state = copyFixture(COMPACTION)
  const env = baseEnv(tempDir())
  return {state, cli: cliWith(['--state-dir', state], {env})}
}

describe('sessions archive, delete, restore (JSON era)', () => {
  it('archive marks the entry as OpenClaw 2026.9.6 does; a second archive changes nothing; undo gives the bytes back', async () => {
    const {state, cli} = setup()
    const before = hashTree(state)
    const r = json<SessionsArchiveResult>(await cli(['sessions', 'archive', KEY, '--json']))
    expect(r.sessions).toMatchObject([{key: KEY, sessionId: ID, changed: true}])
    const e = readIndexFile(sessionsJsonPath(state))[KEY] as Record<string, unknown>
    expect(e).toMatchObject({archiveReason: 'manual', archivedAt: Date.parse(r.sessions[0].archivedAt), updatedAt: Date.parse(r.sessions[0].archivedAt)})
    const again = json<SessionsArchiveResult>(await cli(['sessions', 'archive', KEY, '--json']))
    expect(again).toMatchObject({sessions: [{changed: false}], journal: null})
    expect((await cli(['undo'])).code).toBe(0)
    expect(hashTree(state)).toEqual(before)
  })

  it('delete removes the row and renames the transcript to <file>.deleted.<time>; restore by key brings it back; undo of each is byte-identical', async () => {
    const {state, cli} = setup()
    const dir = path.dirname(sessionsJsonPath(state))
    const before = hashTree(state)
    const d = json<SessionsDeleteResult>(await cli(['sessions', 'delete', KEY, '--json']))
    expect(d.sessions[0].archived).toHaveLength(1)
    expect(path.basename(d.sessions[0].archived[0])).toMatch(new RegExp(`^${ID}\\.jsonl\\.deleted\\.\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}Z$`))
    expect(fs.existsSync(path.join(dir, `${ID}.jsonl`))).toBe(false)
    expect(readIndexFile(sessionsJsonPath(state))[KEY]).toBeUndefined()
    const afterDelete = hashTree(state)

    // The deleted session is still read as an archive of its key (what `history <id>` shows).
    const h = await cli(['sessions', 'history', ID, '--json'])
    expect(h.code, h.stderr).toBe(0)

    const r = json<SessionsRestoreResult>(await cli(['sessions', 'restore', KEY, '--json']))
    expect(r).toMatchObject({key: KEY, sessionId: ID, how: 'deleted-archive', from: d.sessions[0].archived[0], sessionFile: path.join(dir, `${ID}.jsonl`)})
    expect(readIndexFile(sessionsJsonPath(state))[KEY]).toMatchObject({sessionId: ID, sessionFile: path.join(dir, `${ID}.jsonl`)})
    // The transcript is byte for byte the one deleted.
    expect(hashTree(state)[path.relative(state, r.sessionFile)]).toBe(before[path.relative(state, r.sessionFile)])

    expect((await cli(['undo'])).code).toBe(0)
    expect(hashTree(state)).toEqual(afterDelete)
    expect((await cli(['undo'])).code).toBe(0)
    expect(hashTree(state)).toEqual(before)
  })

  it('restore by key of a session without a trajectory sidecar: its .deleted. file names only the id, clawkit\'s journal of the delete names the key; without a journal the error says to restore by id', async () => {
    const {state, cli} = setup()
    const dir = path.dirname(sessionsJsonPath(state))
    for (const f of fs.readdirSync(dir)) if (f.startsWith(`${ID}.trajectory`)) fs.rmSync(path.join(dir, f))
    const before = hashTree(state)
    expect((await cli(['sessions', 'delete', KEY, '--json'])).code).toBe(0)
    const r = await cli(['sessions', 'restore', KEY, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json<SessionsRestoreResult>(r)).toMatchObject({key: KEY, sessionId: ID, how: 'deleted-archive', sessionFile: path.join(dir, `${ID}.jsonl`)})
    expect(readIndexFile(sessionsJsonPath(state))[KEY]).toMatchObject({sessionId: ID})
    expect((await cli(['undo'])).code).toBe(0)
    expect((await cli(['undo'])).code).toBe(0)
    expect(hashTree(state)).toEqual(before)
    // Deleted without a journal (as OpenClaw's own delete leaves it): nothing ties the file to the key any more.
    expect((await cli(['sessions', 'delete', KEY, '--no-journal', '--json'])).code).toBe(0)
    const lost = await cli(['sessions', 'restore', KEY])
    expect(lost.code).toBe(1)
    expect(lost.stderr).toContain(`Session not found: ${KEY}`)
    expect(lost.stderr).toContain('clawkit sessions restore <sessionId> --as <key>')
    expect((await cli(['sessions', 'restore', ID, '--as', KEY, '--json'])).code).toBe(0)
  })

  it('restore <id> of a deleted session, and --as another key', async () => {
    const {state, cli} = setup()
    json(await cli(['sessions', 'delete', KEY, '--json']))
    const r = json<SessionsRestoreResult>(await cli(['sessions', 'restore', ID, '--as', 'agent:main:brought-back', '--json']))
    expect(r).toMatchObject({key: 'agent:main:brought-back', sessionId: ID, how: 'deleted-archive'})
    expect(readIndexFile(sessionsJsonPath(state))['agent:main:brought-back']).toMatchObject({sessionId: ID})
  })

  it('archive and delete --dry-run say what would happen (table and --json, dryRun: true) and change nothing, journal included', async () => {
    const {state, cli} = setup()
    const before = hashTree(state)
    const a = await cli(['sessions', 'archive', KEY, '--dry-run', '--json'])
    expect(a.code, a.stderr).toBe(0)
    const ar = json<SessionsArchiveResult>(a)
    expect(ar).toMatchObject({dryRun: true, journal: null, sessions: [{key: KEY, agentId: 'main', sessionId: ID, changed: true}]})
    expect(Date.parse(ar.sessions[0].archivedAt)).toBeGreaterThan(Date.now() - 60_000)
    const d = await cli(['sessions', 'delete', KEY, '--dry-run', '--json'])
    expect(d.code, d.stderr).toBe(0)
    const dr = json<SessionsDeleteResult>(d)
    const file = path.join(path.dirname(sessionsJsonPath(state)), `${ID}.jsonl`)
    expect(dr).toMatchObject({dryRun: true, journal: null, reclaimedBytes: 0, sessions: [{key: KEY, agentId: 'main', sessionId: ID}]})
    expect(dr.sessions[0].archived).toEqual([expect.stringMatching(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.deleted\\.\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}Z$`))])
    const table = await cli(['sessions', 'delete', KEY, '--dry-run'])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toMatch(/Key\s+Session\s+Transcript would be kept as/)
    expect(table.stdout).toContain(`${ID}.jsonl.deleted.`)
    expect(table.stdout).toContain('Dry run: nothing was changed.')
    expect((await cli(['sessions', 'archive', KEY, '--dry-run'])).stdout).toContain('archive (archivedAt now')
    // Refusals are the same as without --dry-run.
    expect(jsonError(await cli(['sessions', 'delete', 'agent:main:main', '--dry-run', '--json']))).toMatchObject({code: 'E_MAIN_SESSION'})
    expect(jsonError(await cli(['sessions', 'delete', 'agent:main:nope', '--dry-run', '--json']))).toMatchObject({code: 'E_SESSION_NOT_FOUND'})
    expect(hashTree(state)).toEqual(before)
    expect(json<{entries: unknown[]}>(await cli(['undo', '--list', '--json'])).entries).toEqual([])
    // The delete it planned is the one it makes.
    const real = json<SessionsDeleteResult>(await cli(['sessions', 'delete', KEY, '--json']))
    expect(real.dryRun).toBe(false)
    expect(real.sessions[0].archived[0].replace(/\.deleted\..*$/, '')).toBe(dr.sessions[0].archived[0].replace(/\.deleted\..*$/, ''))
  })

  it('refuses the main session, a live key to restore, and a key restored over a live one, changing nothing', async () => {
    const {state, cli} = setup()
    const before = hashTree(state)
    const main = await cli(['sessions', 'delete', 'agent:main:main', '--json'])
    expect(main.code).toBe(2)
    expect(jsonError(main)).toMatchObject({code: 'E_MAIN_SESSION'})
    // Several keys: the main one among them refuses the whole command before anything changes.
    expect((await cli(['sessions', 'delete', KEY, 'agent:main:main', '--json'])).code).toBe(2)
    expect(jsonError(await cli(['sessions', 'restore', KEY, '--json']))).toMatchObject({code: 'E_NOT_ARCHIVED'})
    expect(jsonError(await cli(['sessions', 'delete', 'agent:main:nope', '--json']))).toMatchObject({code: 'E_SESSION_NOT_FOUND'})
    expect(hashTree(state)).toEqual(before)
    expect(json<{entries: unknown[]}>(await cli(['undo', '--list', '--json'])).entries).toEqual([])
  })
})
