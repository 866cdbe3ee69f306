import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, COMPACTION, readIndexFile, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {deadPid, writeLockFile as writeLock} from '../../support/locks.js'
import {recoverStore} from '../../../src/store/diagnostics/file/repairs.js'
import {COMPACT_MAIN_ID, doctor, expectNoLineLost, EXPLICIT_ID, EXPLICIT_KEY, healthy, ids, MAIN_ID, sessionsDir, transcriptLineHashes, transcriptOf} from './helpers.js'


describe('doctor: sessions.json', () => {
  it('a truncated sessions.json (crash mid-write, #77783) is store-corrupt; --fix restores the newest valid backup and keeps the broken bytes', async () => {
    const state = healthy(COMPACTION)
    const good = fs.readFileSync(sessionsJsonPath(state), 'utf8')
    const dir = sessionsDir(state)
    const oldBak = path.join(dir, 'sessions.json.bak.1700000000000')
    fs.writeFileSync(oldBak, '{}', {mode: 0o600})
    const newBak = path.join(dir, 'sessions.json.bak.1800000000000')
    fs.writeFileSync(newBak, good, {mode: 0o600})
    const newestBroken = path.join(dir, 'sessions.json.bak.1900000000000')
    fs.writeFileSync(newestBroken, '{"agent:main:main": {', {mode: 0o600})
    const broken = good.slice(0, Math.floor(good.length / 2))
    fs.writeFileSync(sessionsJsonPath(state), broken)
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(4)
    expect(ids(doc)).toEqual(['store-corrupt'])
    expect(doc.agents[0].sessions).toBeNull()
    const fixed = await doctor(state, ['--fix'])
    expect(fixed.r.code, JSON.stringify(fixed.doc.findings)).toBe(0)
    expect(fs.readFileSync(sessionsJsonPath(state), 'utf8')).toBe(good)
    const f = fixed.doc.findings.find((x) => x.id === 'store-corrupt')
    expect(f!.fixed).toBe(true)
    expect(f!.action).toContain(`restored the index from ${newBak}`)
    const kept = fs.readdirSync(dir).filter((n) => /^sessions\.json\.bak\.\d+$/.test(n)).map((n) => fs.readFileSync(path.join(dir, n), 'utf8'))
    expect(kept).toContain(broken)
    expect((await doctor(state)).doc.findings).toEqual([])
  })

  it('a 0-byte sessions.json with no backup: --fix starts an empty index and re-indexes every transcript holding messages', async () => {
    const state = healthy(COMPACTION)
    fs.writeFileSync(sessionsJsonPath(state), '')
    const before = transcriptLineHashes(state)
    const fixed = await doctor(state, ['--fix'])
    expect(fixed.r.code).toBe(0)
    expect(fixed.doc.findings.map((f) => [f.id, f.fixed]).sort()).toEqual([
      ['orphan-transcript', true],
      ['orphan-transcript', true],
      ['store-corrupt', true],
    ])
    expect(Object.keys(readIndexFile(sessionsJsonPath(state))).sort()).toEqual([EXPLICIT_KEY, 'agent:main:explicit:f1ea83b9-e3d9-43c8-b4e4-5d101bf3ee2f'])
    expect(expectNoLineLost(before, state)).toEqual([])
    expect((await doctor(state)).doc.findings).toEqual([])
  })

  it('a leftover sessions.json.<uuid>.tmp is the recovery source for a broken index, then archived', async () => {
    const state = healthy(TWO_AGENTS)
    const good = fs.readFileSync(sessionsJsonPath(state), 'utf8')
    const tmp = `${sessionsJsonPath(state)}.3f0c1d2e-0000-4000-8000-000000000000.tmp`
    fs.writeFileSync(tmp, good, {mode: 0o600})
    const old = new Date(Date.now() - 3600_000)
    fs.utimesSync(tmp, old, old)
    fs.writeFileSync(sessionsJsonPath(state), '{"agent:main:main": {"sessionId": "0caed29d')
    const {doc} = await doctor(state)
    expect(ids(doc)).toEqual(['store-corrupt', 'store-tmp-leftover'])
    expect(doc.findings.find((f) => f.id === 'store-tmp-leftover')!.fixable).toBe(false)
    const fixed = await doctor(state, ['--fix'])
    expect(fixed.r.code, JSON.stringify(fixed.doc.findings)).toBe(0)
    expect(fs.readFileSync(sessionsJsonPath(state), 'utf8')).toBe(good)
    expect(fs.existsSync(tmp)).toBe(false)
    expect(fs.readdirSync(sessionsDir(state)).some((n) => n.startsWith(`${path.basename(tmp)}.deleted.`))).toBe(true)
  })

  it('a sessions.json that cannot be read (here: a directory) is store-unreadable, and its transcripts are not called orphans', async () => {
    const state = healthy(TWO_AGENTS)
    fs.rmSync(sessionsJsonPath(state, 'work'))
    fs.mkdirSync(sessionsJsonPath(state, 'work'))
    const {r, doc} = await doctor(state, ['--fix'])
    expect(r.code).toBe(4)
    expect(ids(doc)).toEqual(['store-unreadable'])
    expect(doc.findings[0]).toMatchObject({agentId: 'work', fixable: false})
    expect(doc.agents.find((a) => a.agentId === 'work')!.sessions).toBeNull()
  })

  it('a fresh temp file (write in progress) is only info and left alone', async () => {
    const state = healthy(TWO_AGENTS)
    const tmp = `${sessionsJsonPath(state)}.aaaa.tmp`
    fs.writeFileSync(tmp, '{}', {mode: 0o600})
    const {r, doc} = await doctor(state, ['--fix'])
    expect(r.code).toBe(0)
    expect(doc.findings).toMatchObject([{id: 'store-tmp-leftover', severity: 'info', fixable: false}])
    expect(fs.existsSync(tmp)).toBe(true)
  })

  it('duplicate sessionIds: one finding per shared id, in the order the ids first appear, with every key in index order', async () => {
    const state = healthy(COMPACTION)
    const store = readIndexFile(sessionsJsonPath(state))
    const mainKey = Object.keys(store).find((k) => store[k].sessionId === COMPACT_MAIN_ID)!
    const mainEntry = store[mainKey]
    // EXPLICIT_ID appears first but the main id is the first to be shared: findings still follow first appearance.
    const reordered: Record<string, unknown> = {}
    reordered[EXPLICIT_KEY] = store[EXPLICIT_KEY]
    reordered[mainKey] = mainEntry
    reordered['agent:main:dup-main-1'] = {...mainEntry}
    reordered['agent:main:dup-explicit'] = {...store[EXPLICIT_KEY]}
    reordered['agent:main:dup-main-2'] = {...mainEntry}
    for (const k of Object.keys(store)) if (!(k in reordered)) reordered[k] = store[k]
    fs.writeFileSync(sessionsJsonPath(state), JSON.stringify(reordered, null, 2))
    const {doc} = await doctor(state)
    const dups = doc.findings.filter((f) => f.id === 'duplicate-session-id').map((f) => f.details)
    expect(dups).toEqual([
      {sessionId: EXPLICIT_ID, keys: [EXPLICIT_KEY, 'agent:main:dup-explicit']},
      {sessionId: COMPACT_MAIN_ID, keys: [mainKey, 'agent:main:dup-main-1', 'agent:main:dup-main-2']},
    ])
  })

  it('entries without sessionId or updatedAt, malformed entries and duplicate sessionIds', async () => {
    const state = healthy(COMPACTION)
    const store = readIndexFile(sessionsJsonPath(state))
    const explicitUpdated = store[EXPLICIT_KEY].updatedAt
    // Rows no writer makes: written as JSON values, not as the entries the store types.
    const rows: Record<string, unknown> = store
    delete (rows[EXPLICIT_KEY] as Record<string, unknown>).updatedAt
    rows['agent:main:telegram:direct:42'] = {updatedAt: 1}
    store['agent:main:dup'] = {sessionId: EXPLICIT_ID, updatedAt: 2, sessionFile: transcriptOf(state, 'main', EXPLICIT_ID)}
    rows['agent:main:junk'] = 'not an object'
    fs.writeFileSync(sessionsJsonPath(state), JSON.stringify(store, null, 2))
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(4)
    expect(ids(doc)).toEqual(['duplicate-session-id', 'entry-malformed', 'entry-missing-session-id', 'entry-missing-updated-at'])
    expect(doc.findings.find((f) => f.id === 'duplicate-session-id')!.details!.keys).toEqual([EXPLICIT_KEY, 'agent:main:dup'])
    const fixed = await doctor(state, ['--fix'])
    expect(fixed.doc.findings.filter((f) => f.fixed).map((f) => f.id)).toEqual(['entry-missing-updated-at'])
    const after = readIndexFile(sessionsJsonPath(state))
    // set from the transcript's last write, a real time close to the original
    expect(typeof after[EXPLICIT_KEY].updatedAt).toBe('number')
    expect(after[EXPLICIT_KEY].updatedAt).toBeGreaterThan(explicitUpdated - 1)
    // doctor never drops index data it cannot repair
    expect(after['agent:main:junk']).toBe('not an object')
    expect(after['agent:main:telegram:direct:42']).toEqual({updatedAt: 1})
    const again = await doctor(state)
    expect(again.doc.findings.filter((f) => f.fixable)).toEqual([])
  })
})

describe('doctor: locks', () => {
  it('stale locks (dead pid, missing pid, too old) are reported and removed by --fix; a live lock is info and kept', async () => {
    const state = healthy(TWO_AGENTS)
    const dir = sessionsDir(state)
    const old = new Date(Date.now() - 2 * 3600_000)
    const dead = path.join(dir, 'sessions.json.lock')
    writeLock(dead, {pid: deadPid(), createdAt: new Date().toISOString()})
    const noPid = path.join(dir, `${MAIN_ID}.jsonl.lock`)
    writeLock(noPid, {createdAt: old.toISOString()})
    fs.utimesSync(noPid, old, old)
    const tooOld = path.join(sessionsDir(state, 'work'), 'sessions.json.lock')
    writeLock(tooOld, {pid: process.pid, createdAt: old.toISOString()})
    const live = path.join(sessionsDir(state, 'work'), '704f285c-af26-493e-ab33-9383ab17a8c0.jsonl.lock')
    writeLock(live, {pid: process.pid, createdAt: new Date().toISOString()})
    // a live pid whose start time differs from the one recorded: the pid was recycled (Linux only)
    const recycled = path.join(dir, 'recycled.jsonl.lock')
    const linux = process.platform === 'linux'
    if (linux) writeLock(recycled, {pid: process.pid, createdAt: new Date().toISOString(), starttime: 1})
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(3)
    expect(ids(doc)).toEqual(['live-lock', 'stale-lock', 'stale-lock', 'stale-lock', ...(linux ? ['stale-lock'] : [])])
    const reasons = Object.fromEntries(doc.findings.filter((f) => f.id === 'stale-lock').map((f) => [f.path, f.details!.reasons]))
    expect(reasons[dead]).toContain('dead-pid')
    expect(reasons[noPid]).toContain('missing-pid')
    expect(reasons[tooOld]).toContain('too-old')
    // Only Linux tells a process's start time (/proc): elsewhere that lock is not written, so nothing reports it.
    expect(reasons[recycled]).toEqual(linux ? ['recycled-pid'] : undefined)
    expect(doc.findings.find((f) => f.id === 'live-lock')).toMatchObject({path: live, severity: 'info', fixable: false, details: {pid: process.pid}})
    const fixed = await doctor(state, ['--fix'])
    expect(fixed.r.code).toBe(0)
    expect(fs.existsSync(dead) || fs.existsSync(noPid) || fs.existsSync(tooOld)).toBe(false)
    expect(fs.existsSync(live)).toBe(true)
    expect(ids(fixed.doc, {open: true})).toEqual(['live-lock'])
  })

  it('a lock that is a dangling symlink: doctor reports it as lock-not-a-file, in the words of the writer that refuses it', async () => {
    const state = healthy(TWO_AGENTS)
    const lock = path.join(sessionsDir(state), 'sessions.json.lock')
    fs.symlinkSync(path.join(sessionsDir(state), 'nowhere'), lock)
    const {r, doc} = await doctor(state)
    expect(r.code, r.stderr).not.toBe(0)
    expect(doc.findings.find((f) => f.path === lock)).toMatchObject({id: 'lock-not-a-file', severity: 'error', details: {kind: 'a dangling symlink'}})
    const reset = await runCli(['sessions', 'reset', 'main', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(reset.code).toBe(1)
    expect(reset.stderr.split('\n')[0]).toContain(`${lock} exists but is not a lock file (it is a dangling symlink;`)
  })

  it('lock scratch files left by a killed process are lock-scratch-leftover and never the recovery source for a broken index', async () => {
    const state = healthy(TWO_AGENTS)
    const dir = sessionsDir(state)
    const good = fs.readFileSync(sessionsJsonPath(state), 'utf8')
    fs.writeFileSync(path.join(dir, 'sessions.json.bak.1700000000000'), good, {mode: 0o600})
    fs.writeFileSync(sessionsJsonPath(state), good.slice(0, 100))
    const pid = deadPid()
    // The newest file in the dir, and it parses as a JSON object: exactly what a careless recovery would pick.
    const storeScratch = path.join(dir, `sessions.json.lock.${pid}.0badc0de.tmp`)
    writeLock(storeScratch, {pid, createdAt: new Date().toISOString()})
    const transcriptScratch = path.join(dir, `${MAIN_ID}.jsonl.lock.${pid}.12345678.tmp`)
    writeLock(transcriptScratch, {pid, createdAt: new Date().toISOString()})
    // A dead pid counts only after a few seconds: from inside another pid namespace a live writer looks dead.
    const tenSecondsAgo = new Date(Date.now() - 10_000)
    for (const f of [storeScratch, transcriptScratch]) fs.utimesSync(f, tenSecondsAgo, tenSecondsAgo)
    const justNow = path.join(dir, `sessions.json.lock.${pid}.fedcba98.tmp`)
    writeLock(justNow, {pid, createdAt: new Date().toISOString()})
    // A live pid's fresh scratch file is a lock being taken right now: not reported, not touched (nor a dead pid's
    // from the last seconds, justNow above).
    const inFlight = path.join(dir, `sessions.json.lock.${process.pid}.abcdef01.tmp`)
    writeLock(inFlight, {pid: process.pid, createdAt: new Date().toISOString()})
    // "Fresh" is an age under 5 s (dead pid) or 60 s (live pid), and this test runs doctor three times: on a loaded
    // machine that took longer, and justNow aged into a leftover. Their mtime ten minutes ahead keeps both fresh for
    // every run, however slow, so the test says what the rule does instead of how fast the machine is.
    const ahead = new Date(Date.now() + 10 * 60_000)
    for (const f of [justNow, inFlight]) fs.utimesSync(f, ahead, ahead)
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(4)
    expect(ids(doc)).toEqual(['lock-scratch-leftover', 'lock-scratch-leftover', 'store-corrupt'])
    expect(doc.findings.filter((f) => f.id === 'lock-scratch-leftover').map((f) => f.path).sort()).toEqual([transcriptScratch, storeScratch].sort())
    expect(doc.findings.find((f) => f.id === 'store-tmp-leftover')).toBeUndefined()
    const fixed = await doctor(state, ['--fix'])
    expect(fixed.r.code, JSON.stringify(fixed.doc.findings)).toBe(0)
    expect(fs.readFileSync(sessionsJsonPath(state), 'utf8')).toBe(good)
    expect(fixed.doc.findings.find((f) => f.id === 'store-corrupt')!.action).toContain('sessions.json.bak.1700000000000')
    expect(fs.existsSync(storeScratch) || fs.existsSync(transcriptScratch)).toBe(false)
    expect(fs.existsSync(inFlight) && fs.existsSync(justNow)).toBe(true)
    expect((await doctor(state)).doc.findings).toEqual([])
  })

  it('recoverStore on its own skips a newer lock scratch file and restores the backup', async () => {
    const state = healthy(TWO_AGENTS)
    const dir = sessionsDir(state)
    const good = fs.readFileSync(sessionsJsonPath(state), 'utf8')
    fs.writeFileSync(path.join(dir, 'sessions.json.bak.1700000000000'), good, {mode: 0o600})
    fs.writeFileSync(sessionsJsonPath(state), '{')
    const pid = deadPid()
    writeLock(path.join(dir, `sessions.json.lock.${pid}.0badc0de.tmp`), {pid, createdAt: new Date().toISOString()})
    const action = await recoverStore(sessionsJsonPath(state))
    expect(action).toContain('sessions.json.bak.1700000000000')
    expect(fs.readFileSync(sessionsJsonPath(state), 'utf8')).toBe(good)
  })
})
