// clawkit doctor on SQLite-era agents (issue 16): every check through the real CLI on copies of the two OpenClaw
// 2026.9.6 fixtures, each damaged copy giving exactly its finding id, plain doctor never changing the database, and
// --fix backing it up first and repairing only what it says.
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import fs from 'node:fs'
import {createRequire} from 'node:module'
import os from 'node:os'
import path from 'node:path'

import {afterEach, expect, it} from 'vitest'

import type {DoctorResult} from '../../../src/commands/doctor.js'
import {copyFixture, readJson, tempDir} from '../../support/cli.js'
import {describeSqlite, IMPORTED_96, NATIVE_96} from '../../support/sqlite.js'

/** What these tests change in a run manifest OpenClaw's import wrote (session-sqlite-migration-runs/*.json). */
interface RunManifest {
  completedAt?: string
  failedAt?: string
  targets: {completedMoves: {kind: string; artifact: {classification?: string; reason?: string}}[]}[]
}
import {doctor} from './helpers.js'

const require = createRequire(import.meta.url)
type Db = {exec(sql: string): void; prepare(sql: string): {all(...a: unknown[]): any[]; get(...a: unknown[]): any; run(...a: unknown[]): any}; close(): void}
function open(file: string): Db {
  const {DatabaseSync} = require('node:sqlite')
  return new DatabaseSync(file)
}
function edit(file: string, sql: string, ...params: unknown[]): void {
  const db = open(file)
  try {
    db.prepare(sql).run(...params)
  } finally {
    db.close()
  }
}
function query(file: string, sql: string, ...params: unknown[]): any[] {
  const db = open(file)
  try {
    return db.prepare(sql).all(...params)
  } finally {
    db.close()
  }
}

/** Real OpenClaw 2026.9.6 (installed by scripts/interop.sh), to prove what its own listing makes of a repair. */
const OPENCLAW_96 = process.env.CLAWKIT_OPENCLAW_96 ?? path.join(os.homedir(), '.cache', 'clawkit-interop', 'openclaw-2026.9.6', 'node_modules', 'openclaw', 'openclaw.mjs')
function openclawSessions(state: string): {code: number | null; out: string} {
  // The fixture's config names /home/user/.openclaw/workspace, which OpenClaw would create and seed: point it into
  // the test's temp dir instead.
  const cfg = path.join(state, 'openclaw.json')
  fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replaceAll('/home/user/.openclaw/workspace', path.join(tempDir(), 'workspace')))
  const r = spawnSync(process.execPath, [OPENCLAW_96, 'sessions', '--json', '--limit', 'all'], {env: {PATH: process.env.PATH, HOME: tempDir(), OPENCLAW_STATE_DIR: state, NO_COLOR: '1'}, encoding: 'utf8', timeout: 60_000})
  return {code: r.status, out: `${r.stdout}${r.stderr}`}
}

const dbOf = (state: string, agent = 'main') => path.join(state, 'agents', agent, 'agent', 'openclaw-agent.sqlite')
const MAIN = 'agent:main:main'

function hash(file: string): string | null {
  return fs.existsSync(file) ? createHash('sha256').update(fs.readFileSync(file)).digest('hex') : null
}
/**
 * The database and its WAL, byte for byte. An empty WAL counts as none: SQLite creates an empty one (and the -shm, its
 * shared index) even for a read-only connection, as OpenClaw's own readers do.
 */
function hashes(db: string): [string | null, string | null] {
  const wal = `${db}-wal`
  return [hash(db), fs.existsSync(wal) && fs.statSync(wal).size > 0 ? hash(wal) : null]
}

/** The open findings that are not the fixture's own info findings. */
function problems(doc: DoctorResult): string[] {
  return [...new Set<string>(doc.findings.filter((f: any) => f.severity !== 'info' && !f.fixed).map((f: any) => f.id))].sort()
}

const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL')
})

/** A node:sqlite script in its own process (the same Node): prints "ready" once it reached its holding point. */
function holder(script: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', `const {DatabaseSync} = require('node:sqlite');\n${script}`], {stdio: ['ignore', 'pipe', 'pipe']})
  children.push(child)
  return new Promise((resolve, reject) => {
    let err = ''
    child.stderr!.on('data', (d) => (err += d))
    child.stdout!.on('data', (d) => {
      if (String(d).includes('ready')) resolve(child)
    })
    child.on('exit', (code) => reject(new Error(`holder exited ${code}: ${err}`)))
  })
}

/** A process that commits a change and is killed before any checkpoint: its WAL stays, with nobody holding the DB. */
async function crashAfterCommit(db: string, sql: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', `const {DatabaseSync} = require('node:sqlite'); const db = new DatabaseSync(${JSON.stringify(db)}); db.exec('PRAGMA wal_autocheckpoint = 0'); db.exec(${JSON.stringify(sql)}); process.kill(process.pid, 'SIGKILL')`], {stdio: 'ignore'})
  await new Promise((resolve) => child.on('exit', resolve))
}

describeSqlite('doctor on SQLite-era agents', () => {
  it('the native fixture is healthy (exit 0, only sqlite-store info), and plain doctor changes neither the database nor its WAL', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbOf(state)
    const before = hashes(db)
    const {r, doc} = await doctor(state)
    expect(r.code, r.stderr).toBe(0)
    expect(doc.findings.map((f) => f.id)).toEqual(['sqlite-store'])
    expect(doc.agents).toEqual([expect.objectContaining({agentId: 'main', era: 'sqlite', sqlite: expect.objectContaining({path: db, schemaVersion: 23, sessions: 2, events: 26, walBytes: 0, holders: []})})])
    expect(hashes(db)).toEqual(before)
    const human = await doctor(state, [])
    expect(human.r.code).toBe(0)
  })

  it('the imported fixture is healthy: its completed run reports only the trajectory side files it kept as protected (info)', async () => {
    const state = copyFixture(IMPORTED_96)
    const before = [hashes(dbOf(state)), hashes(dbOf(state, 'work'))]
    const {r, doc} = await doctor(state)
    expect(r.code, r.stdout).toBe(0)
    expect(doc.findings.map((f) => `${f.agentId}:${f.id}:${f.severity}`).sort()).toEqual(['main:sqlite-import-protected:info', 'main:sqlite-store:info', 'work:sqlite-import-protected:info', 'work:sqlite-store:info'])
    expect(doc.findings.find((f) => f.id === 'sqlite-import-protected')!.details!.files).toHaveLength(2)
    expect([hashes(dbOf(state)), hashes(dbOf(state, 'work'))]).toEqual(before)
  })

  const damaged: Array<{name: string; fixture: string; id: string; code: number; damage: (state: string) => void | Promise<void>}> = [
    {
      name: 'a corrupt page (bytes of the transcript_events b-tree overwritten)',
      fixture: NATIVE_96,
      id: 'sqlite-integrity',
      code: 4,
      damage: (state) => {
        const db = dbOf(state)
        const [{rootpage}] = query(db, "SELECT rootpage FROM sqlite_master WHERE name = 'transcript_events'")
        const fd = fs.openSync(db, 'r+')
        fs.writeSync(fd, Buffer.alloc(64, 0xa5), 0, 64, (rootpage - 1) * 4096)
        fs.closeSync(fd)
      },
    },
    {
      name: 'a truncated database (cut to half its pages)',
      fixture: NATIVE_96,
      id: 'sqlite-truncated',
      code: 4,
      damage: (state) => fs.truncateSync(dbOf(state), Math.floor(fs.statSync(dbOf(state)).size / 8192) * 4096),
    },
    {
      name: 'a garbage file in place of the database',
      fixture: NATIVE_96,
      id: 'sqlite-not-a-database',
      code: 4,
      damage: (state) => fs.writeFileSync(dbOf(state), Buffer.alloc(8192, 'garbage!')),
    },
    {
      name: 'a 0-byte database file (no WAL): an empty file, not a database to migrate',
      fixture: NATIVE_96,
      id: 'sqlite-empty-file',
      code: 4,
      damage: (state) => {
        for (const side of ['-wal', '-shm']) fs.rmSync(`${dbOf(state)}${side}`, {force: true})
        fs.truncateSync(dbOf(state), 0)
      },
    },
    {
      name: 'a WAL without its database',
      fixture: IMPORTED_96,
      id: 'sqlite-wal-orphan',
      code: 4,
      damage: async (state) => {
        const db = dbOf(state, 'work')
        await crashAfterCommit(db, "UPDATE session_nodes SET label = 'wal-only' WHERE session_key = 'agent:work:main'")
        expect(fs.statSync(`${db}-wal`).size).toBeGreaterThan(0)
        fs.renameSync(db, path.join(path.dirname(state), 'moved-away.sqlite'))
      },
    },
    {
      name: 'an event whose event_json is not JSON',
      fixture: NATIVE_96,
      id: 'sqlite-event-invalid-json',
      code: 4,
      damage: (state) => edit(dbOf(state), "UPDATE transcript_events SET event_json = '{\"type\":\"message\",' WHERE seq = 3 AND session_id = (SELECT current_session_id FROM session_nodes WHERE session_key = ?)", MAIN),
    },
    {
      name: 'an event whose JSON parses to a string, not an object',
      fixture: NATIVE_96,
      id: 'sqlite-event-invalid-json',
      code: 4,
      damage: (state) => edit(dbOf(state), "UPDATE transcript_events SET event_json = '\"just text\"' WHERE seq = 4 AND session_id = (SELECT current_session_id FROM session_nodes WHERE session_key = ?)", MAIN),
    },
    {
      name: 'a zstd event blob that does not decode',
      fixture: IMPORTED_96,
      id: 'sqlite-event-undecodable',
      code: 4,
      damage: (state) => edit(dbOf(state), "UPDATE transcript_events SET event_zstd = x'28b52ffd0001020304050607' WHERE rowid = (SELECT min(rowid) FROM transcript_events WHERE event_json IS NULL)"),
    },
    {
      name: 'an orphan window (an earlier window of a key without events)',
      fixture: NATIVE_96,
      id: 'sqlite-window-empty',
      code: 3,
      damage: (state) => edit(dbOf(state), "INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES ('00000000-0000-4000-8000-0000000000aa', ?, 1, 1)", MAIN),
    },
    {
      name: 'a node whose current window is missing',
      fixture: NATIVE_96,
      id: 'sqlite-window-missing',
      code: 4,
      damage: (state) => {
        const db = open(dbOf(state))
        const sid = '00000000-0000-4000-8000-0000000000bb'
        db.prepare("UPDATE session_nodes SET current_session_id = ?, entry_json = json_set(entry_json, '$.sessionId', ?) WHERE session_key = ?").run(sid, sid, MAIN)
        db.prepare('UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?').run(MAIN)
        db.close()
      },
    },
    {
      name: 'entry_valid 0',
      fixture: NATIVE_96,
      id: 'sqlite-entry-unvalidated',
      code: 4,
      damage: (state) => edit(dbOf(state), 'UPDATE session_nodes SET entry_valid = 0 WHERE session_key = ?', MAIN),
    },
    {
      name: 'entry_json that does not parse',
      fixture: NATIVE_96,
      id: 'sqlite-entry-invalid',
      code: 4,
      damage: (state) => {
        const db = open(dbOf(state))
        db.prepare("UPDATE session_nodes SET entry_json = '{\"sessionId\":' WHERE session_key = ?").run(MAIN)
        db.prepare('UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?').run(MAIN)
        db.close()
      },
    },
    {
      name: 'updated_at that differs from entry_json.updatedAt (OpenClaw hides the row)',
      fixture: NATIVE_96,
      id: 'sqlite-entry-mismatch',
      code: 4,
      damage: (state) => {
        const db = open(dbOf(state))
        db.prepare('UPDATE session_nodes SET updated_at = updated_at + 1 WHERE session_key = ?').run(MAIN)
        db.prepare('UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?').run(MAIN)
        db.close()
      },
    },
    {
      name: 'a schema_meta that names another agent (a database copied from elsewhere)',
      fixture: NATIVE_96,
      id: 'sqlite-schema-meta',
      code: 4,
      damage: (state) => edit(dbOf(state), "UPDATE schema_meta SET agent_id = 'other' WHERE meta_key = 'primary'"),
    },
    {
      name: 'a failed import manifest (no completedAt, a failedAt)',
      fixture: IMPORTED_96,
      id: 'sqlite-migration-failed',
      code: 4,
      damage: (state) => {
        const dir = path.join(state, 'session-sqlite-migration-runs')
        const file = path.join(dir, fs.readdirSync(dir)[0])
        const m = readJson<RunManifest>(file)
        delete m.completedAt
        m.failedAt = '2026-11-26T10:49:15.000Z'
        fs.writeFileSync(file, JSON.stringify(m, null, 2))
      },
    },
    {
      name: 'a manifest whose planned move never completed (an unverified move of a completed run)',
      fixture: IMPORTED_96,
      id: 'sqlite-migration-failed',
      code: 4,
      damage: (state) => {
        const dir = path.join(state, 'session-sqlite-migration-runs')
        const file = path.join(dir, fs.readdirSync(dir)[0])
        const m = readJson<RunManifest>(file)
        m.targets[1].completedMoves.pop()
        fs.writeFileSync(file, JSON.stringify(m, null, 2))
      },
    },
    {
      name: 'a manifest that does not parse',
      fixture: IMPORTED_96,
      id: 'sqlite-migration-manifest-invalid',
      code: 3,
      damage: (state) => fs.writeFileSync(path.join(state, 'session-sqlite-migration-runs', 'session-sqlite-1-deadbeef.json'), '{"manifestVersion": 3, "targ', {mode: 0o600}),
    },
    {
      name: 'a transcript the import classified protected (not fully imported)',
      fixture: IMPORTED_96,
      id: 'sqlite-import-protected',
      code: 3,
      damage: (state) => {
        const dir = path.join(state, 'session-sqlite-migration-runs')
        const file = path.join(dir, fs.readdirSync(dir)[0])
        const m = readJson<RunManifest>(file)
        const move = m.targets[0].completedMoves.find((x) => x.kind === 'transcript')!
        move.artifact.classification = 'protected'
        move.artifact.reason = 'incomplete-index-import'
        fs.writeFileSync(file, JSON.stringify(m, null, 2))
      },
    },
    {
      name: 'legacy JSONL transcripts beside the database without a sessions.json',
      fixture: NATIVE_96,
      id: 'sqlite-legacy-not-imported',
      code: 3,
      damage: (state) => {
        const sessions = path.join(state, 'agents', 'main', 'sessions')
        fs.mkdirSync(sessions, {mode: 0o700})
        fs.writeFileSync(path.join(sessions, 'legacy-2.jsonl'), `${JSON.stringify({type: 'session', version: 3, id: 'legacy-2', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/'})}\n`, {mode: 0o600})
      },
    },
    {
      name: 'an archived original the import recorded is gone (a recovery copy: warn)',
      fixture: IMPORTED_96,
      id: 'sqlite-import-archive-missing',
      code: 3,
      damage: (state) => {
        const archive = path.join(state, 'agents', 'main', 'session-sqlite-import-archive')
        fs.rmSync(path.join(archive, fs.readdirSync(archive).find((n) => n.startsWith('legacy-store.'))!))
      },
    },
    {
      name: 'a legacy sessions.json left beside the database, never imported',
      fixture: NATIVE_96,
      id: 'sqlite-legacy-not-imported',
      code: 4,
      damage: (state) => {
        const sessions = path.join(state, 'agents', 'main', 'sessions')
        fs.mkdirSync(sessions, {mode: 0o700})
        const file = path.join(sessions, 'legacy-1.jsonl')
        fs.writeFileSync(file, `${JSON.stringify({type: 'session', version: 3, id: 'legacy-1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/'})}\n${JSON.stringify({type: 'message', id: 'aaaaaaaa', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: {role: 'user', content: 'hi'}})}\n`, {mode: 0o600})
        fs.writeFileSync(path.join(sessions, 'sessions.json'), JSON.stringify({'agent:main:legacy': {sessionId: 'legacy-1', updatedAt: 1767225601000, sessionFile: file}}, null, 2), {mode: 0o600})
      },
    },
    {
      name: 'a newer schema (user_version 24): reads and checks continue',
      fixture: NATIVE_96,
      id: 'sqlite-schema-newer',
      code: 3,
      damage: (state) => edit(dbOf(state), 'PRAGMA user_version = 24'),
    },
    {
      name: 'an older schema (user_version 22): OpenClaw needs its doctor --fix to migrate',
      fixture: NATIVE_96,
      id: 'sqlite-schema-older',
      code: 4,
      damage: (state) => edit(dbOf(state), 'PRAGMA user_version = 22'),
    },
    {
      name: 'a read-only database file (mode 0400)',
      fixture: NATIVE_96,
      id: 'sqlite-read-only',
      code: 4,
      damage: (state) => fs.chmodSync(dbOf(state), 0o400),
    },
    {
      name: 'a stale WAL (a process died after its commit, nobody holds the database)',
      fixture: NATIVE_96,
      id: 'sqlite-wal-stale',
      code: 3,
      damage: (state) => crashAfterCommit(dbOf(state), "UPDATE session_nodes SET label = 'from-the-wal' WHERE session_key = 'agent:main:main'"),
    },
  ]

  for (const t of damaged) {
    it(`${t.name} gives exactly ${t.id} (exit ${t.code}) and plain doctor changes nothing`, async () => {
      const state = copyFixture(t.fixture)
      await t.damage(state)
      const dbs = [dbOf(state), dbOf(state, 'work')]
      const before = dbs.map(hashes)
      const {r, doc} = await doctor(state)
      expect(problems(doc), JSON.stringify(doc.findings, null, 1)).toEqual([t.id])
      expect(r.code).toBe(t.code)
      expect(r.stderr).not.toMatch(/\n\s+at /)
      const f = doc.findings.find((x) => x.id === t.id)
      expect(f!.message).not.toMatch(/\n/)
      expect(dbs.map(hashes)).toEqual(before)
    })
  }

  it('a new session whose only window has no events yet (OpenClaw\'s minimal new session) is info, not a problem', async () => {
    const state = copyFixture(NATIVE_96)
    const db = open(dbOf(state))
    const sid = '00000000-0000-4000-8000-0000000000cc'
    const key = 'agent:main:clawkit:new'
    db.prepare('INSERT INTO session_nodes (session_key, current_session_id, entry_json, entry_valid, updated_at) VALUES (?, ?, ?, 1, 5)').run(key, sid, JSON.stringify({sessionId: sid, updatedAt: 5, sessionStartedAt: 5, delivery: {kind: 'none'}}))
    db.prepare('UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?').run(key)
    db.prepare("INSERT INTO session_windows (session_id, session_key, session_scope, created_at, updated_at, session_entry_provenance) VALUES (?, ?, 'conversation', 5, 5, 1)").run(sid, key)
    db.close()
    const {r, doc} = await doctor(state)
    expect(r.code, JSON.stringify(doc.findings)).toBe(0)
    expect(doc.findings.find((f) => f.id === 'sqlite-window-empty')).toMatchObject({severity: 'info', key})
    expect(doc.agents[0]!.sqlite!.sessions).toBe(3)
  })

  it('a database another process holds locked (exclusive) is sqlite-locked after the busy timeout, not a hang or a stack trace', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbOf(state)
    await holder(`const db = new DatabaseSync(${JSON.stringify(db)}); db.exec('PRAGMA locking_mode = EXCLUSIVE'); db.exec('BEGIN EXCLUSIVE'); db.exec("UPDATE session_nodes SET label = 'x'"); console.log('ready'); setInterval(() => {}, 1000)`)
    const t0 = Date.now()
    const {r, doc} = await doctor(state)
    expect(Date.now() - t0).toBeLessThan(20_000)
    expect(problems(doc)).toEqual(['sqlite-locked'])
    expect(r.code).toBe(3)
    expect(doc.agents[0]!.sqlite!.holders).toHaveLength(1)
  })

  it('--fix on entry_valid 0 backs the database up first (0600, the state before the fix), sets only that flag, and OpenClaw-side listing invariants then hold', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbOf(state)
    edit(db, 'UPDATE session_nodes SET entry_valid = 0 WHERE session_key = ?', MAIN)
    const rows = (file: string) => ({
      nodes: query(file, 'SELECT session_key, current_session_id, entry_json, updated_at, label FROM session_nodes ORDER BY 1'),
      windows: query(file, 'SELECT * FROM session_windows ORDER BY session_id'),
      events: query(file, 'SELECT session_id, seq, event_json, hex(event_zstd) AS z, created_at FROM transcript_events ORDER BY 1, 2'),
    })
    const content = rows(db)
    const dry = await doctor(state, ['--fix', '--dry-run'])
    expect(dry.doc.findings.find((f) => f.id === 'sqlite-entry-unvalidated')).toMatchObject({fixable: true, fixed: false, action: `set entry_valid = 1 for ${MAIN}`})
    expect(fs.readdirSync(path.dirname(db)).filter((n) => n.includes('.bak.'))).toEqual([])

    const {r, doc} = await doctor(state, ['--fix', '--yes'])
    expect(r.code, JSON.stringify(doc.findings)).toBe(0)
    const f = doc.findings.find((x) => x.id === 'sqlite-entry-unvalidated')
    expect(f).toMatchObject({fixed: true, key: MAIN, backup: expect.stringMatching(/openclaw-agent\.sqlite\.bak\.\d+$/)})
    expect(path.dirname(f!.backup!)).toBe(path.dirname(db))
    expect(fs.statSync(f!.backup!).mode & 0o777).toBe(0o600)
    // The backup is the database as it was before the repair.
    expect(query(f!.backup!, 'SELECT entry_valid FROM session_nodes WHERE session_key = ?', MAIN)).toEqual([{entry_valid: 0}])
    expect(rows(f!.backup!)).toEqual(content)
    // Only the flag changed.
    expect(query(db, 'SELECT session_key, entry_valid FROM session_nodes ORDER BY 1').map((x) => x.entry_valid)).toEqual([1, 1])
    expect(rows(db)).toEqual(content)
    const again = await doctor(state)
    expect(again.r.code).toBe(0)
    expect(problems(again.doc)).toEqual([])
  })

  it.skipIf(!fs.existsSync(OPENCLAW_96))('entry_valid 0 breaks real OpenClaw 2026.9.6\'s "sessions --json"; after doctor --fix it lists both sessions again', async () => {
    const state = copyFixture(NATIVE_96)
    edit(dbOf(state), 'UPDATE session_nodes SET entry_valid = 0 WHERE session_key = ?', MAIN)
    const broken = openclawSessions(state)
    expect(broken.code).toBe(1)
    expect(broken.out).toMatch(/invalid persisted session row requires repair for agent:main:main/)
    const {r} = await doctor(state, ['--fix', '--yes'])
    expect(r.code).toBe(0)
    const fixed = openclawSessions(state)
    expect(fixed.code, fixed.out).toBe(0)
    expect(JSON.parse(fixed.out.slice(0, fixed.out.lastIndexOf('}') + 1)).sessions.map((x: any) => x.key).sort()).toEqual(['agent:main:explicit:c0ffee00-0000-4000-8000-000000000096', MAIN])
    // Two starts of the real OpenClaw (~4 s each on a quiet machine, 60 s allowed each): the test's limit covers both,
    // as a safety net for a loaded machine.
  }, 150_000)

  it('a WAL over 64 MiB left by a dead process is sqlite-wal-oversized and sqlite-wal-stale; --fix checkpoints it and both are gone', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbOf(state)
    // 17 000 one-page commits, never checkpointed: about 70 MB of WAL frames.
    const child = spawn(process.execPath, ['-e', `const {DatabaseSync} = require('node:sqlite'); const db = new DatabaseSync(${JSON.stringify(db)}); db.exec('PRAGMA wal_autocheckpoint = 0; PRAGMA synchronous = OFF'); for (let i = 0; i < 17000; i++) db.exec('PRAGMA user_version = 23'); process.kill(process.pid, 'SIGKILL')`], {stdio: 'ignore'})
    await new Promise((resolve) => child.on('exit', resolve))
    expect(fs.statSync(`${db}-wal`).size).toBeGreaterThan(64 * 1024 * 1024)
    const {r, doc} = await doctor(state)
    expect(problems(doc)).toEqual(['sqlite-wal-oversized', 'sqlite-wal-stale'])
    expect(r.code).toBe(3)
    const fixed = await doctor(state, ['--fix', '--yes'])
    expect(fixed.r.code, JSON.stringify(fixed.doc.findings)).toBe(0)
    expect(fixed.doc.findings.find((f) => f.id === 'sqlite-wal-stale')).toMatchObject({fixed: true})
    expect(problems(fixed.doc)).toEqual([])
    fs.rmSync(fixed.doc.findings.find((f) => f.id === 'sqlite-wal-stale')!.backup!)
  })

  it('--fix checkpoints a stale WAL after a backup: the committed change is in the database file and no event is lost', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbOf(state)
    const events = query(db, 'SELECT session_id, seq, event_json FROM transcript_events ORDER BY 1, 2')
    await crashAfterCommit(db, "UPDATE session_nodes SET label = 'from-the-wal' WHERE session_key = 'agent:main:main'")
    expect(fs.statSync(`${db}-wal`).size).toBeGreaterThan(0)
    const {r, doc} = await doctor(state, ['--fix', '--yes'])
    expect(r.code, JSON.stringify(doc.findings)).toBe(0)
    const f = doc.findings.find((x) => x.id === 'sqlite-wal-stale')
    expect(f).toMatchObject({fixed: true, action: expect.stringMatching(/checkpointed \d+ WAL frame/)})
    expect(fs.existsSync(f!.backup!)).toBe(true)
    expect(query(f!.backup!, 'SELECT label FROM session_nodes WHERE session_key = ?', MAIN)).toEqual([{label: 'from-the-wal'}])
    expect(fs.existsSync(`${db}-wal`) ? fs.statSync(`${db}-wal`).size : 0).toBe(0)
    // Read from the main file alone (no WAL left): the change made by the crashed process is there, and every event.
    expect(query(db, 'SELECT label FROM session_nodes WHERE session_key = ?', MAIN)).toEqual([{label: 'from-the-wal'}])
    expect(query(db, 'SELECT session_id, seq, event_json FROM transcript_events ORDER BY 1, 2')).toEqual(events)
  })

  it('--fix with nothing it may repair (an event that is not JSON) makes no backup and changes nothing', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbOf(state)
    edit(db, "UPDATE transcript_events SET event_json = 'nope' WHERE seq = 2 AND session_id = (SELECT current_session_id FROM session_nodes WHERE session_key = ?)", MAIN)
    const before = hashes(db)
    const {r, doc} = await doctor(state, ['--fix', '--yes'])
    expect(r.code).toBe(4)
    expect(doc.findings.find((x) => x.id === 'sqlite-event-invalid-json')).toMatchObject({fixable: false, fixed: false, details: {count: 1, seqs: [2]}})
    expect(fs.readdirSync(path.dirname(db)).filter((n) => n.includes('.bak.'))).toEqual([])
    expect(hashes(db)).toEqual(before)
  })

  it('--fix refuses while another process has the database open (a gateway): one line saying why and what to do, nothing changed', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbOf(state)
    edit(db, 'UPDATE session_nodes SET entry_valid = 0 WHERE session_key = ?', MAIN)
    const before = hashes(db)
    const child = await holder(`const db = new DatabaseSync(${JSON.stringify(db)}, {readOnly: true}); db.prepare('SELECT count(*) FROM session_nodes').get(); console.log('ready'); setInterval(() => {}, 1000)`)
    const {r, doc} = await doctor(state, ['--fix', '--yes'])
    expect(r.code).toBe(4)
    const f = doc.findings.find((x) => x.id === 'sqlite-entry-unvalidated')
    expect(f).toMatchObject({fixable: true, fixed: false})
    expect(f!.repairError).toMatch(new RegExp(`^not changed: pid ${child.pid} has the database open .*stop it .*doctor --fix" again$`))
    expect(fs.readdirSync(path.dirname(db)).filter((n) => n.includes('.bak.'))).toEqual([])
    expect(hashes(db)).toEqual(before)
  })
})
