// doctor and status on a SQLite-era agent that still has a JSON-era sessions.json and transcripts beside its database
// (issue 16's "mixed" state; spec store-sqlite.md section 1.3). The database is the truth and OpenClaw 2026.9.6 reads
// those files only as import input, so they get no JSON-era checks (torn lines, modes, orphans, locks, moved
// sessionFile...), `doctor --fix` leaves them byte for byte and mode for mode, and status does not count them as the
// agent's transcripts. What is reported is sqlite-legacy-not-imported, naming the sessions never imported. A JSON-era
// agent in the same state dir keeps every JSON-era check.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import type {DoctorResult} from '../../../src/commands/doctor.js'
import type {StatusResult} from '../../../src/status/status.js'
import {baseEnv, copyFixture, json, runCli, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {diffSnapshots, isEmptyDiff, snapshot} from '../../support/state-files.js'
import {describeSqlite, IMPORTED_96, NATIVE_96} from '../../support/sqlite.js'
import {doctor, sessionsDir} from './helpers.js'

const L1 = 'aaaa1111-0000-4000-8000-000000000001'
const L2 = 'aaaa1111-0000-4000-8000-000000000002'
const L3 = 'aaaa1111-0000-4000-8000-000000000003'
const HOUR_AGO = Date.now() / 1000 - 3600

const header = (id: string) => `${JSON.stringify({type: 'session', version: 3, id, timestamp: '2026-01-01T00:00:00.000Z', cwd: '/'})}\n`
const message = (id: string, text: string) => `${JSON.stringify({type: 'message', id, parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: {role: 'user', content: text}})}\n`

/**
 * A legacy JSON-era store with one defect of every kind doctor repairs in the JSON era: a 0644 index with a moved
 * sessionFile, an entry without updatedAt whose transcript is gone, a 0644 transcript ending in a torn line, an orphan
 * that holds messages (--fix would re-index it), an empty orphan (--fix would archive it), a stale index lock, a lock
 * scratch file and an old index temp file. Returns the legacy keys.
 */
function plantLegacy(state: string, agent: string): string[] {
  const dir = sessionsDir(state, agent)
  fs.mkdirSync(dir, {recursive: true, mode: 0o700})
  const keys = [`agent:${agent}:main`, `agent:${agent}:legacy-gone`, `agent:${agent}:legacy-third`]
  const index = {
    [keys[0]]: {sessionId: L1, updatedAt: 1_700_000_000_000, sessionFile: `/home/user/.openclaw/agents/${agent}/sessions/${L1}.jsonl`, totalTokens: 10},
    [keys[1]]: {sessionId: L2, totalTokens: 5},
    [keys[2]]: {sessionId: L2, updatedAt: 1_700_000_000_001, totalTokens: 5},
  }
  fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(index, null, 2), {mode: 0o644})
  fs.chmodSync(path.join(dir, 'sessions.json'), 0o644)
  fs.writeFileSync(path.join(dir, `${L1}.jsonl`), `${header(L1)}${message('m1', 'legacy hello')}{"type":"message","id":"m2"`)
  fs.chmodSync(path.join(dir, `${L1}.jsonl`), 0o644)
  fs.writeFileSync(path.join(dir, `${L3}.jsonl`), `${header(L3)}${message('m3', 'orphaned legacy turn')}`, {mode: 0o600})
  fs.writeFileSync(path.join(dir, 'empty-orphan.jsonl'), '', {mode: 0o600})
  fs.writeFileSync(path.join(dir, 'sessions.json.lock'), JSON.stringify({pid: 999_999, createdAt: '2020-01-01T00:00:00.000Z'}), {mode: 0o600})
  fs.writeFileSync(path.join(dir, 'sessions.json.lock.999999.abcdef01.tmp'), '999999', {mode: 0o600})
  fs.writeFileSync(path.join(dir, 'sessions.json.12345.tmp'), '{}', {mode: 0o600})
  for (const name of ['sessions.json.lock.999999.abcdef01.tmp', 'sessions.json.12345.tmp']) fs.utimesSync(path.join(dir, name), HOUR_AGO, HOUR_AGO)
  return keys
}

/** Every finding id doctor has for the JSON-era layout of an agent's store files (the dirs' own modes excepted). */
const isJsonEraFileCheck = (id: string) => !id.startsWith('sqlite-') && id !== 'agent-dir-permissions' && id !== 'sessions-dir-permissions'

const of = (doc: DoctorResult, agent: string) => doc.findings.filter((f) => f.agentId === agent)

async function status(state: string): Promise<StatusResult> {
  const r = await runCli(['status', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
  expect(r.code, r.stderr).toBe(0)
  return json(r)
}

describeSqlite('doctor and status on a SQLite-era agent with legacy JSON-era files beside its database', () => {
  it('native store + a legacy sessions.json and transcripts full of JSON-era defects: no JSON-era finding for them, only sqlite-legacy-not-imported naming the sessions never imported', async () => {
    const state = copyFixture(NATIVE_96)
    const keys = plantLegacy(state, 'main')
    const {r, doc} = await doctor(state)
    expect(r.code, r.stdout).toBe(4)
    expect(of(doc, 'main').map((f) => f.id).sort()).toEqual(['sqlite-legacy-not-imported', 'sqlite-store'])
    const legacy = of(doc, 'main').find((f) => f.id === 'sqlite-legacy-not-imported')!
    expect(legacy).toMatchObject({severity: 'error', fixable: false, path: path.join(sessionsDir(state), 'sessions.json'), details: {entries: 3, transcripts: 3, keys}})
    expect((legacy.details!.files as string[]).sort()).toEqual([`${L1}.jsonl`, `${L3}.jsonl`, 'empty-orphan.jsonl'])
    expect(legacy.message).toContain(keys[0])
    expect(legacy.message).toMatch(/openclaw doctor --fix/)
    expect(legacy.message).toMatch(/clawkit store info/)
    expect(of(doc, 'main').find((f) => f.id === 'sqlite-store')!.message).toMatch(/legacy/)
    // The agent's figures are the database's, not the legacy index's (3 entries) nor its transcript files.
    expect(doc.agents).toEqual([expect.objectContaining({agentId: 'main', era: 'sqlite', sessions: 2, transcripts: 0, sqlite: expect.objectContaining({sessions: 2})})])
    // The human output says the same.
    const human = await runCli(['doctor', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(human.stdout).toContain('sqlite-legacy-not-imported')
    expect(human.stdout).not.toMatch(/transcript-torn-line|orphan-transcript|stale-lock|session-file-relocated/)
  })

  it('doctor --fix leaves every legacy file of a SQLite-era agent byte-identical, with its mode, and adds no backup or archive beside them', async () => {
    const state = copyFixture(NATIVE_96)
    plantLegacy(state, 'main')
    const before = snapshot(sessionsDir(state))
    const r = await runCli(['doctor', '--fix', '--yes', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    const doc = json(r)
    expect(diffSnapshots(before, snapshot(sessionsDir(state)))).toEqual({added: [], removed: [], changed: []})
    expect(of(doc, 'main').filter((f) => f.fixed)).toEqual([])
    expect(of(doc, 'main').map((f) => f.id).sort()).toEqual(['sqlite-legacy-not-imported', 'sqlite-store'])
    // --dry-run plans nothing for them either.
    const plan = json(await runCli(['doctor', '--fix', '--dry-run', '--json', '--state-dir', state], {env: baseEnv(tempDir())}))
    expect(of(plan, 'main').filter((f) => f.fixable)).toEqual([])
  })

  it('status: a SQLite-era agent counts its database sessions, no legacy transcript as its own, and its cheap checks show no JSON-era finding for the legacy files', async () => {
    const state = copyFixture(NATIVE_96)
    plantLegacy(state, 'main')
    const st = await status(state)
    const main = st.agents.agents.find((a) => a.id === 'main')!
    expect(main).toMatchObject({era: 'sqlite', sessionsCount: 2, transcripts: {files: 0, bytes: 0}})
    expect(st.transcripts).toEqual({files: 0, bytes: 0})
    expect(st.doctor.ids.filter(isJsonEraFileCheck)).toEqual([])
    expect(st.doctor.ids).toContain('sqlite-legacy-not-imported')
  })

  it('imported store + the legacy sessions.json put back from the import archive (OpenClaw\'s receipt covers it): neither doctor nor status reports it, and no JSON-era check runs on it', async () => {
    const state = copyFixture(IMPORTED_96)
    const archive = path.join(state, 'agents', 'work', 'session-sqlite-import-archive')
    const legacyIndex = fs.readdirSync(archive).find((n) => n.startsWith('legacy-store.sessions.json.imported-'))!
    fs.mkdirSync(sessionsDir(state, 'work'), {mode: 0o700})
    fs.copyFileSync(path.join(archive, legacyIndex), path.join(sessionsDir(state, 'work'), 'sessions.json'))
    const {r, doc} = await doctor(state)
    expect(r.code, r.stdout).toBe(0)
    expect(doc.findings.map((f) => `${f.agentId}:${f.id}`).sort()).toEqual(['main:sqlite-import-protected', 'main:sqlite-store', 'work:sqlite-import-protected', 'work:sqlite-store'])
    const st = await status(state)
    expect(st.doctor).toMatchObject({errors: 0, warnings: 0})
    expect(st.doctor.ids.sort()).toEqual(['sqlite-store'])
  })

  it('imported store + a legacy sessions.json that differs from the archived one: sqlite-legacy-not-imported in doctor and status, and nothing else of the JSON era', async () => {
    const state = copyFixture(IMPORTED_96)
    const keys = plantLegacy(state, 'work')
    const {r, doc} = await doctor(state)
    expect(r.code, r.stdout).toBe(4)
    expect(of(doc, 'work').map((f) => f.id).sort()).toEqual(['sqlite-import-protected', 'sqlite-legacy-not-imported', 'sqlite-store'])
    expect(of(doc, 'work').find((f) => f.id === 'sqlite-legacy-not-imported')!.details).toMatchObject({entries: 3, keys})
    const st = await status(state)
    expect(st.doctor.ids.filter(isJsonEraFileCheck)).toEqual([])
    expect(st.doctor.ids).toContain('sqlite-legacy-not-imported')
  })

  it('mixed state dir: the SQLite-era agent\'s legacy files get no JSON-era check and --fix leaves them, while the JSON-era agent beside it gets every JSON-era check and its repairs', async () => {
    const state = copyFixture(TWO_AGENTS)
    // main is migrated (a database copied in, its 2026.4.27 files left as legacy); work stays in the JSON era.
    fs.mkdirSync(path.join(state, 'agents', 'main', 'agent'), {recursive: true, mode: 0o700})
    fs.copyFileSync(path.join(copyFixture(NATIVE_96), 'agents', 'main', 'agent', 'openclaw-agent.sqlite'), path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite'))
    plantLegacy(state, 'main')
    // The same defects in the JSON-era agent's live store.
    const work = sessionsDir(state, 'work')
    const workTranscript = path.join(work, '704f285c-af26-493e-ab33-9383ab17a8c0.jsonl')
    fs.appendFileSync(workTranscript, '{"type":"message","id":"torn"')
    fs.chmodSync(workTranscript, 0o644)
    fs.writeFileSync(path.join(work, `${L3}.jsonl`), `${header(L3)}${message('m3', 'orphaned work turn')}`, {mode: 0o600})
    fs.writeFileSync(path.join(work, 'sessions.json.lock'), JSON.stringify({pid: 999_999, createdAt: '2020-01-01T00:00:00.000Z'}), {mode: 0o600})

    const {doc} = await doctor(state)
    expect(of(doc, 'main').map((f) => f.id).sort()).toEqual(['sqlite-legacy-not-imported', 'sqlite-store'])
    const workIds = of(doc, 'work').map((f) => f.id)
    for (const id of ['transcript-torn-line', 'transcript-permissions', 'orphan-transcript', 'stale-lock', 'session-file-relocated']) expect(workIds, id).toContain(id)
    expect(doc.agents.map((a) => [a.agentId, a.era, a.transcripts])).toEqual([
      ['main', 'sqlite', 0],
      ['work', 'json', 2],
    ])

    const st = await status(state)
    expect(st.agents.agents.map((a) => [a.id, a.era, a.transcripts.files])).toEqual([
      ['main', 'sqlite', 0],
      ['work', 'json', 2],
    ])
    expect(st.transcripts.files).toBe(2)
    for (const id of ['transcript-permissions', 'orphan-transcript', 'stale-lock', 'session-file-relocated']) expect(st.doctor.ids, id).toContain(id)

    const mainBefore = snapshot(sessionsDir(state, 'main'))
    const fixed = json(await runCli(['doctor', '--fix', '--yes', '--json', '--state-dir', state], {env: baseEnv(tempDir())}))
    expect(isEmptyDiff(diffSnapshots(mainBefore, snapshot(sessionsDir(state, 'main'))))).toBe(true)
    const workFixed = of(fixed, 'work').filter((f) => f.fixed).map((f) => f.id)
    for (const id of ['transcript-torn-line', 'transcript-permissions', 'orphan-transcript', 'stale-lock', 'session-file-relocated']) expect(workFixed, id).toContain(id)
    expect(fs.statSync(workTranscript).mode & 0o777).toBe(0o600)
    expect(fs.existsSync(path.join(work, 'sessions.json.lock'))).toBe(false)
  })
})
