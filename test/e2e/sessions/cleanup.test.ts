// `sessions cleanup` in the JSON era, through the real CLI, on a generated store of every kind: OpenClaw 2026.9.6's
// plan (what is archived, removed, kept and why), a dry run unless --yes on a non-terminal, applied as OpenClaw leaves
// the store, clawkit's filters, and undo giving the state dir back byte for byte.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import type {SessionsCleanupResult} from '../../../src/sessions/cleanup.js'
import {baseEnv, cliWith, copyFixture, json, jsonError, readIndexFile, sessionsJsonPath, tempDir} from '../../support/cli.js'
import {DAY, MIXED, mixedJsonStore, promptBlobs, sid} from '../../support/cleanup-store.js'
import {hashTree} from '../../support/state-hash.js'

function setup(extra = 0, maintenance?: object) {
  const state = tempDir()
  fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify({agents: {defaults: {workspace: path.join(state, 'workspace')}}, ...(maintenance ? {session: {maintenance}} : {})}))
  const {dir} = mixedJsonStore(state, Date.now(), extra)
  return {state, dir, cli: cliWith(['--state-dir', state], {env: baseEnv(tempDir())})}
}

const actions = (r: SessionsCleanupResult) => Object.fromEntries(r.stores[0].changes.map((c) => [c.key, c.action]))

describe('sessions cleanup (JSON era)', () => {
  it('by default a JSON-era store gets OpenClaw 2026.4.27\'s rules: every entry past 30 days removed (main and groups too), no file swept', async () => {
    const {cli} = setup()
    const plan = json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--json'])).stores[0]
    expect(plan.rules).toBe('2026.4')
    expect(Object.fromEntries(plan.changes.map((c) => [c.key, c.action]))).toEqual(Object.fromEntries(MIXED.filter((k) => k.ageDays >= 30).map((k) => [k.key, 'prune-stale'])))
    expect(plan).toMatchObject({beforeCount: 9, afterCount: 3, pruned: 6, capped: 0, diskBudget: null})
    expect(plan.files).toEqual([])
  })

  it('--rules 2026.9 plans what OpenClaw 2026.9.6 plans with its defaults, and without --yes on a non-terminal changes nothing', async () => {
    const {state, dir, cli} = setup()
    const before = hashTree(state)
    const r = await cli(['sessions', 'cleanup', '--rules', '2026.9', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('a dry run')
    const plan = json<SessionsCleanupResult>(r)
    expect(plan.dryRun).toBe(true)
    const want = Object.fromEntries(MIXED.filter((k) => k.expect !== 'keep').map((k) => [k.key, k.expect]))
    expect(actions(plan)).toEqual(want)
    expect(plan.stores[0]).toMatchObject({beforeCount: 9, afterCount: 6, archived: 2, capArchived: 0, pruned: 3, capped: 0, missing: 0})
    expect(plan.stores[0].files.map((f) => [path.basename(f.path), f.why]).sort()).toEqual([[`${sid(900)}.jsonl`, 'unreferenced'], [expect.stringMatching(/^sessions\.json\..*\.tmp$/), 'temp']].sort() as never)
    expect(hashTree(state)).toEqual(before)
    void dir
  })

  it('--yes applies it as OpenClaw leaves the store; undo gives every byte back', async () => {
    const {state, dir, cli} = setup()
    const before = hashTree(state)
    const r = json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--yes', '--json']))
    expect(r.dryRun).toBe(false)
    expect(r.journal).toMatch(/^\d{8}-/)
    const index = readIndexFile(sessionsJsonPath(state)) as Record<string, Record<string, unknown>>
    expect(index['agent:main:explicit:old']).toMatchObject({archiveReason: 'age-retention', archivedAt: expect.any(Number)})
    expect(index['agent:main:dashboard:board1']).toMatchObject({archiveReason: 'stale-dashboard'})
    expect(index['agent:main:cron:nightly:run:r1']).toBeUndefined()
    // A removed runtime session's transcript is kept as OpenClaw's delete keeps it.
    const removedId = sid(MIXED.findIndex((k) => k.key === 'agent:main:cron:nightly:run:r1') + 1)
    expect(fs.readdirSync(dir).some((n) => n.startsWith(`${removedId}.jsonl.deleted.`))).toBe(true)
    expect(fs.existsSync(path.join(dir, `${sid(900)}.jsonl`))).toBe(false)
    expect(fs.existsSync(path.join(dir, `${sid(901)}.jsonl`))).toBe(true)
    // A second plan finds nothing more to do.
    expect(json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--json'])).stores[0].wouldMutate).toBe(false)

    const u = await cli(['undo', '--json'])
    expect(u.code, u.stderr).toBe(0)
    expect(hashTree(state)).toEqual(before)
  })

  it('the cap: maxEntries archives the oldest unprotected sessions (archive-cap)', async () => {
    const {cli} = setup(20, {maxEntries: 10})
    const plan = json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--dry-run', '--json']))
    const s = plan.stores[0]
    // 29 entries; 3 removed and 2 archived by age or as dashboards leave 24 unarchived, 14 over the cap of 10 (the
    // protected main and group keys count toward it but are never archived).
    expect(s.capArchived).toBe(14)
    expect(s.capped).toBe(14)
    const capped = new Set(s.changes.filter((c) => c.action === 'archive-cap').map((c) => c.key))
    expect(capped.has('agent:main:main') || capped.has('agent:main:telegram:group:-100123')).toBe(false)
    // The oldest go first: every generated key kept is younger than every generated key archived by the cap.
    const age = (k: string) => Number(/gen-(\d+)/.exec(k)?.[1] ?? -1) % 60
    const gen = Array.from({length: 20}, (_, i) => `agent:main:explicit:gen-${i}`)
    const kept = gen.filter((k) => !capped.has(k)).map(age)
    const gone = gen.filter((k) => capped.has(k)).map(age)
    expect(Math.max(...kept)).toBeLessThan(Math.min(...gone))
    void DAY
  })

  it('clawkit\'s filters: --kind cron acts on cron keys only; --older-than moves the age line', async () => {
    const {cli} = setup()
    expect(actions(json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--kind', 'cron', '--json'])))).toEqual({'agent:main:cron:nightly:run:r1': 'prune-stale'})
    const wide = actions(json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--older-than', '1d', '--json'])))
    expect(wide['agent:main:explicit:new']).toBe('archive-age')
    expect(wide['agent:main:cron:nightly:run:r2']).toBe('prune-stale')
    expect(wide['agent:main:main']).toBeUndefined()
    expect(jsonError(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--older-than', 'soon', '--json']))).toMatchObject({code: 'E_BAD_FLAG'})
    expect(jsonError(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--dry-run', '--yes', '--json']))).toMatchObject({code: 'E_FLAG_CONFLICT'})
  })

  it('--sweep: old backups, temp files, stale locks and orphaned archives, each said why; --keep 1 per key on the reset-twice fixture', async () => {
    const {state, dir, cli} = setup()
    const old = Date.now() - 40 * DAY
    const put = (name: string, text: string, mtime = old) => {
      fs.writeFileSync(path.join(dir, name), text)
      fs.utimesSync(path.join(dir, name), new Date(mtime), new Date(mtime))
    }
    put('sessions.json.bak.1790000000000', '{}')
    put('scratch.tmp', 'x')
    put(`${sid(1)}.jsonl.lock`, JSON.stringify({pid: 999_999_999, createdAt: new Date(0).toISOString()}))
    put(`${sid(950)}.jsonl.deleted.2026-10-01T00-00-00.000Z`, `${JSON.stringify({type: 'session', version: 3, id: sid(950), timestamp: new Date(old).toISOString(), cwd: state})}\n`)
    put('sessions.json.bak.1799999999999', '{}', Date.now())
    const before = hashTree(state, {exclude: /^$/})
    const plan = json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--sweep', '--json'])).stores[0]
    const why = Object.fromEntries(plan.files.map((f) => [path.basename(f.path), f.why]))
    expect(why).toMatchObject({'sessions.json.bak.1790000000000': 'bak', 'scratch.tmp': 'tmp', [`${sid(1)}.jsonl.lock`]: 'stale-lock', [`${sid(950)}.jsonl.deleted.2026-10-01T00-00-00.000Z`]: 'orphaned-archive'})
    expect(why['sessions.json.bak.1799999999999']).toBeUndefined()
    // Without --sweep none of them is planned.
    expect(json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--json'])).stores[0].files.map((f) => f.why).sort()).toEqual(['temp', 'unreferenced'])
    json(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--sweep', '--yes', '--json']))
    for (const n of Object.keys(why)) expect(fs.existsSync(path.join(dir, n)), n).toBe(false)
    expect((await cli(['undo'])).code).toBe(0)
    expect(hashTree(state, {exclude: /^$/})).toEqual(before)

    const twice = copyFixture('openclaw-2026.4.27-reset-twice')
    const t = cliWith(['--state-dir', twice], {env: baseEnv(tempDir())})
    const keep = json<SessionsCleanupResult>(await t(['sessions', 'cleanup', '--rules', '2026.9', '--keep', '1', '--json'])).stores[0].files
    expect(keep.map((f) => [path.basename(f.path), f.why])).toEqual([['d8caeddb-04f7-465b-9b9e-21127366c273.jsonl.reset.2026-11-26T14-51-58.002Z', 'archive']])
  })

  it('--max-disk over budget: 2026.9 rules take the oldest archives and no live session; 2026.4.27 rules (the JSON era default) then the least recently updated entries with their transcripts, the main session too; undo gives them back', async () => {
    const twice = copyFixture('openclaw-2026.4.27-reset-twice')
    const t = cliWith(['--state-dir', twice], {env: baseEnv(tempDir())})
    const before = hashTree(twice)
    const resets = [
      ['d8caeddb-04f7-465b-9b9e-21127366c273.jsonl.reset.2026-11-26T14-51-58.002Z', 'budget'],
      ['d8caeddb-04f7-465b-9b9e-21127366c273.jsonl.reset.2026-11-26T14-52-11.005Z', 'budget'],
    ]
    const nine = json<SessionsCleanupResult>(await t(['sessions', 'cleanup', '--max-disk', '1kb', '--rules', '2026.9', '--json'])).stores[0]
    expect(nine.diskBudget).toMatchObject({maxBytes: 1024, highWaterBytes: 819, overBudget: true, removedFiles: 2, removedEntries: 0})
    expect(nine.files.map((f) => [path.basename(f.path), f.why]).sort()).toEqual(resets)
    expect(nine.changes).toEqual([])
    const plan = json<SessionsCleanupResult>(await t(['sessions', 'cleanup', '--max-disk', '1kb', '--json'])).stores[0]
    expect(plan.rules).toBe('2026.4')
    expect(plan.diskBudget).toMatchObject({maxBytes: 1024, highWaterBytes: 819, overBudget: true, removedFiles: 3, removedEntries: 1})
    expect(plan.changes.map((c) => [c.key, c.action])).toEqual([['agent:main:main', 'evict-budget']])
    expect(plan.afterCount).toBe(0)
    expect(plan.files.map((f) => [path.basename(f.path), f.why]).sort()).toEqual([['d8caeddb-04f7-465b-9b9e-21127366c273.jsonl', 'budget'], ...resets])
    expect(json<SessionsCleanupResult>(await t(['sessions', 'cleanup', '--max-disk', '1kb', '--yes', '--json'])).journal).toEqual(expect.any(String))
    expect(fs.readdirSync(path.join(twice, 'agents/main/sessions'))).toEqual(['sessions.json'])
    expect(readIndexFile(sessionsJsonPath(twice))).toEqual({})
    expect((await t(['undo'])).code).toBe(0)
    expect(hashTree(twice)).toEqual(before)
  })

  it('--fix-dm-scope removes the direct-message rows dmScope "main" folds into the main session (transcripts archived), not with another dmScope; undo gives every byte back', async () => {
    const DM = ['agent:main:direct:alice', 'agent:main:telegram:direct:123', 'agent:main:slack:acct1:direct:u1', 'agent:main:direct:bob', 'agent:main:telegram:group:-100']
    const state = tempDir()
    const cfg = (dmScope?: string) => fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify({agents: {defaults: {workspace: path.join(state, 'workspace')}}, ...(dmScope ? {session: {dmScope}} : {})}))
    cfg('per-channel-peer')
    const {dir} = mixedJsonStore(state, Date.now(), DM.length, (i) => DM[i])
    const cli = cliWith(['--state-dir', state], {env: baseEnv(tempDir())})
    const retired = (r: SessionsCleanupResult) => r.stores[0].changes.filter((c) => c.action === 'retire-dm-scope').map((c) => c.key).sort()
    expect(retired(json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--fix-dm-scope', '--json'])))).toEqual([])
    cfg()
    const before = hashTree(state)
    const plan = json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--fix-dm-scope', '--active-key', 'agent:main:direct:bob', '--json']))
    expect(retired(plan)).toEqual(['agent:main:direct:alice', 'agent:main:slack:acct1:direct:u1', 'agent:main:telegram:direct:123'])
    expect(plan.stores[0].dmScopeRetired).toBe(3)
    const applied = json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--fix-dm-scope', '--active-key', 'agent:main:direct:bob', '--yes', '--json']))
    expect(applied.journal).toEqual(expect.any(String))
    const index = readIndexFile(sessionsJsonPath(state))
    expect(Object.keys(index)).toEqual(expect.arrayContaining(['agent:main:direct:bob', 'agent:main:telegram:group:-100']))
    for (const k of ['agent:main:direct:alice', 'agent:main:slack:acct1:direct:u1', 'agent:main:telegram:direct:123']) expect(index[k]).toBeUndefined()
    expect(fs.readdirSync(dir).filter((n) => n.includes('.jsonl.deleted.')).length).toBeGreaterThanOrEqual(3)
    expect((await cli(['undo'])).code).toBe(0)
    expect(hashTree(state)).toEqual(before)
  })

  it('--rules 2026.9 prunes the skills prompt blobs no entry references past pruneAfter and their stale temp files, keeps a referenced one; undo gives them back', async () => {
    const {state, dir, cli} = setup()
    const prompt = `skills ${'p'.repeat(600)}`
    const index = JSON.parse(fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8'))
    index['agent:main:explicit:new'].skillsSnapshot = {prompt}
    fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(index, null, 2))
    const pruned = promptBlobs(dir, Date.now(), [prompt])
    const before = hashTree(state)
    const plan = json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--json'])).stores[0]
    const blobFiles = plan.files.filter((f) => f.path.includes('skills-prompts'))
    expect(blobFiles.map((f) => [f.path, f.why]).sort()).toEqual([[pruned[0], 'unreferenced'], [pruned[1], 'temp']].sort())
    expect(plan.unreferencedArtifacts.scannedFiles).toBe(fs.readdirSync(dir, {withFileTypes: true}).filter((d) => d.isFile()).length + 4)
    expect(json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--yes', '--json'])).journal).toEqual(expect.any(String))
    for (const f of pruned) expect(fs.existsSync(f)).toBe(false)
    expect((await cli(['undo'])).code).toBe(0)
    expect(hashTree(state)).toEqual(before)
  })

  it('--fix-missing removes an entry whose transcript file is gone (applied, not only planned); undo gives every byte back', async () => {
    const {state, dir, cli} = setup()
    const index = readIndexFile(sessionsJsonPath(state))
    fs.rmSync(index['agent:main:explicit:new'].sessionFile!)
    const before = hashTree(state)
    const r = json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--fix-missing', '--yes', '--json']))
    expect(r.stores[0].missing).toBe(1)
    expect(r.stores[0].skipped).toEqual([])
    expect(readIndexFile(sessionsJsonPath(state))['agent:main:explicit:new']).toBeUndefined()
    expect(fs.existsSync(dir)).toBe(true)
    expect((await cli(['undo'])).code).toBe(0)
    expect(hashTree(state)).toEqual(before)
  })

  it('--no-journal warns and frees the space at once: nothing is kept, nothing to undo', async () => {
    const {cli} = setup()
    const r = await cli(['sessions', 'cleanup', '--rules', '2026.9', '--yes', '--no-journal', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('cannot reverse it')
    expect(json<SessionsCleanupResult>(r)).toMatchObject({journal: null, journalBytes: 0})
    expect((await cli(['undo', '--json'])).code).toBe(66)
  })
})
