// `clawkit store info | export | verify` on real SQLite-era state dirs written by OpenClaw 2026.9.6. Expected values
// are read from the databases themselves (node:sqlite), never hard-coded.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import {eventText, type EventRow, openAgentDb, type SqlDatabase} from '../../src/store/sqlite/driver.js'
import {baseEnv, copyFixture, type DocOf, json, jsonError, runCli, type RunResult, tempDir} from '../support/cli.js'
import {describeSqlite, IMPORTED_96, mixedEraState, NATIVE_96} from '../support/sqlite.js'
import {diffSnapshots, snapshot} from '../support/state-files.js'

const dbPath = (state: string, agent = 'main') => path.join(state, 'agents', agent, 'agent', 'openclaw-agent.sqlite')

function withDb<T>(file: string, fn: (db: SqlDatabase) => T, write = false): T {
  const {db} = openAgentDb(file, {write})
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

/** Every event of a session as stored (zstd decoded), seq order. */
function events(db: SqlDatabase, sessionId: string): string[] {
  return db
    .prepare('SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? ORDER BY seq')
    .all(sessionId)
    .map((r) => {
      const t = eventText(r as unknown as EventRow)
      if (!('text' in t)) throw new Error(t.error)
      return t.text
    })
}

function store<const A extends readonly string[]>(args: A, state: string): Promise<RunResult<DocOf<readonly ['store', ...A]>>> {
  return runCli(['store', ...args, '--state-dir', state] as readonly string[], {env: baseEnv(tempDir())}) as Promise<RunResult<DocOf<readonly ['store', ...A]>>>
}

const EMPTY_SHA = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'

/**
 * The source must not change: every file, except what SQLite itself does for any reader of a WAL database (it updates
 * the shared-memory index -shm, and creates an empty -wal when there is none).
 */
function sourceSnapshot(state: string) {
  const s = snapshot(state)
  for (const [k, v] of [...s]) if (k.endsWith('-shm') || (k.endsWith('.sqlite-wal') && v.sha === EMPTY_SHA)) s.delete(k)
  return s
}

const AGENTS: Record<string, string[]> = {[NATIVE_96]: ['main'], [IMPORTED_96]: ['main', 'work']}

describeSqlite('store info (SQLite era)', () => {
  it('imported fixture: era, schema, counts and sizes per agent equal the databases; the completed run and the archive are listed', async () => {
    const state = copyFixture(IMPORTED_96)
    const r = await store(['info', '--json'], state)
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    expect(doc.agents.map((a) => a.agentId).sort()).toEqual(['main', 'work'])
    for (const a of doc.agents) {
      const expected = withDb(dbPath(state, a.agentId), (db) => ({
        sessions: Number(db.prepare('SELECT count(*) n FROM session_nodes WHERE entry_valid != -1').get()!.n),
        windows: Number(db.prepare('SELECT count(*) n FROM session_windows').get()!.n),
        events: Number(db.prepare('SELECT count(*) n FROM transcript_events').get()!.n),
        userVersion: Number(db.prepare('PRAGMA user_version').get()!.user_version),
        meta: db.prepare("SELECT schema_version, app_version FROM schema_meta WHERE meta_key = 'primary'").get()!,
      }))
      expect(a.era).toBe('sqlite')
      expect(a.db).toMatchObject({sessions: expected.sessions, windows: expected.windows, events: expected.events, userVersion: expected.userVersion, sizeBytes: fs.statSync(dbPath(state, a.agentId)).size, walBytes: 0})
      expect(a.db!.schemaMeta).toMatchObject({schemaVersion: Number(expected.meta.schema_version), appVersion: expected.meta.app_version, agentId: a.agentId, role: 'agent'})
      expect(a.importArchive!.transcripts).toBe(1)
      expect(a.legacyLeftovers).toEqual([])
      expect(a.migrationRuns).toHaveLength(1)
    }
    expect(doc.migrationRuns).toHaveLength(1)
    expect(doc.migrationRuns[0]).toMatchObject({status: 'completed', reasons: [], agents: ['main', 'work'], moves: 8})
  })

  it('human output: the values of every agent\'s labelled rows start in one column, the longest label ("import archive") included', async () => {
    const state = copyFixture(IMPORTED_96)
    const r = await store(['info'], state)
    expect(r.code, r.stderr).toBe(0)
    const rows = r.stdout.split('\n').filter((l) => /^ {2}[a-z]/.test(l) && !l.startsWith('  session-sqlite-'))
    const labels = rows.map((l) => /^ {2}([a-z]+(?: [a-z]+)?) +/.exec(l)![1])
    expect(new Set(labels)).toEqual(new Set(['database', 'schema', 'contents', 'size', 'import archive', 'migration runs']))
    const starts = new Set(rows.map((l) => /^ {2}[a-z]+(?: [a-z]+)? +/.exec(l)![0].length))
    expect(starts.size, r.stdout).toBe(1)
    // Two spaces after the longest label, as after each of the others at least.
    expect([...starts][0]).toBe(2 + 'migration runs'.length + 2)
  })

  it('a sessions.json beside the database is a never-imported leftover (era mixed); a run without completedAt is failed', async () => {
    const state = copyFixture(NATIVE_96)
    const sessions = path.join(state, 'agents', 'main', 'sessions')
    fs.mkdirSync(sessions)
    fs.writeFileSync(path.join(sessions, 'sessions.json'), '{}')
    fs.writeFileSync(path.join(sessions, 'abc.jsonl'), '')
    const runs = path.join(state, 'session-sqlite-migration-runs')
    fs.mkdirSync(runs)
    fs.writeFileSync(path.join(runs, 'session-sqlite-1-deadbeef.json'), JSON.stringify({manifestVersion: 3, runId: 'r1', startedAt: '2026-11-26T10:00:00Z', targets: [{agentId: 'main', issues: [], plannedMoves: [], completedMoves: []}]}))
    const doc = json(await store(['info', '--json'], state))
    expect(doc.agents[0]).toMatchObject({era: 'mixed', legacyLeftovers: [path.join(sessions, 'sessions.json'), path.join(sessions, 'abc.jsonl')]})
    expect(doc.migrationRuns[0]).toMatchObject({runId: 'r1', status: 'failed', reasons: ['no completedAt']})
    const human = await store(['info'], state)
    expect(human.stdout).toMatch(/Agent main: mixed/)
    expect(human.stdout).toMatch(/leftover .*sessions\.json \(never imported\)/)
    expect(human.stdout).toMatch(/r1: failed \(no completedAt\)/)
  })
})

describeSqlite('store info on a damaged database', () => {
  it('a truncated database is reported for its agent (dbError E_SQLITE_CORRUPT, exit 0), the other agent is still shown', async () => {
    const state = copyFixture(IMPORTED_96)
    const file = dbPath(state, 'work')
    fs.truncateSync(file, 10_000)
    const r = await store(['info', '--json'], state)
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    const work = doc.agents.find((a) => a.agentId === 'work')
    expect(work).toMatchObject({era: 'sqlite', db: null, dbError: {code: 'E_SQLITE_CORRUPT'}})
    expect(doc.agents.find((a) => a.agentId === 'main')).toMatchObject({era: 'sqlite', dbError: null, db: {userVersion: 23}})
    expect((await store(['info'], state)).stdout).toMatch(/^ {2}database +unreadable: Cannot read the SQLite session store .*damaged/m)
  })
})

describeSqlite('store export (SQLite era to a JSON-era state dir)', () => {
  for (const fixture of [NATIVE_96, IMPORTED_96]) {
    it(`${fixture}: sessions.json holds every entry_json plus sessionFile; each transcript is the session's events unchanged, in seq order; 0600/0700; the source is unchanged`, async () => {
      const state = copyFixture(fixture)
      const before = sourceSnapshot(state)
      const out = path.join(tempDir(), 'export')
      const r = await store(['export', '--out', out, '--json'], state)
      expect(r.code, r.stderr).toBe(0)
      const doc = json(r)
      expect(doc.agents.map((a) => a.agentId)).toEqual(AGENTS[fixture])
      expect(diffSnapshots(before, sourceSnapshot(state))).toEqual({added: [], removed: [], changed: []})
      let compressed = 0
      for (const agent of AGENTS[fixture]) {
        let renamed = 0
        const dir = path.join(out, 'agents', agent, 'sessions')
        const text = fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8')
        expect(text.endsWith('}')).toBe(true)
        const index = JSON.parse(text)
        withDb(dbPath(state, agent), (db) => {
          compressed += Number(db.prepare('SELECT count(*) n FROM transcript_events WHERE event_json IS NULL').get()!.n)
          const nodes = db.prepare('SELECT session_key, entry_json FROM session_nodes WHERE entry_valid = 1').all()
          expect(Object.keys(index).sort()).toEqual(nodes.map((n) => String(n.session_key)).sort())
          for (const n of nodes) {
            const entry = JSON.parse(String(n.entry_json))
            const file = path.join(out, 'agents', agent, 'sessions', `${entry.sessionId}.jsonl`)
            const harness = entry.agentHarnessId === 'openclaw' ? {agentHarnessId: 'pi'} : {}
            expect(index[String(n.session_key)]).toEqual({...entry, ...harness, sessionFile: file})
            renamed += entry.agentHarnessId === 'openclaw' ? 1 : 0
            expect(fs.readFileSync(file, 'utf8')).toBe(events(db, entry.sessionId).map((e) => `${e}\n`).join(''))
          }
        })
        expect(doc.agents.find((a) => a.agentId === agent)!.harnessRenamed).toBe(renamed)
        if (fixture === NATIVE_96) expect(renamed).toBeGreaterThan(0)
      }
      if (fixture === IMPORTED_96) expect(compressed).toBeGreaterThan(0)
      expect(fs.readFileSync(path.join(out, 'openclaw.json'), 'utf8').length).toBeGreaterThan(0)
      for (const [rel, info] of snapshot(out)) {
        if (info.kind === 'dir') expect(info.mode, rel).toBe(0o700)
        else expect(info.mode, rel).toBe(0o600)
      }
      // And clawkit reads the export as a JSON-era store: the same keys and sessionIds.
      const listed = json(await runCli(['sessions', 'list', '--all-agents', '--json', '--state-dir', out], {env: baseEnv(tempDir())}))
      const expectedKeys = doc.agents.flatMap((a) => a.sessions.map((s) => `${s.key} ${s.sessionId}`)).sort()
      expect(listed.sessions.map((s) => `${s.key} ${s.sessionId}`).sort()).toEqual(expectedKeys)
    })
  }

  it('an older window of a key (an earlier sessionId, spec section 6) becomes <sessionId>.jsonl.reset.<updated_at as ISO> beside the current transcript', async () => {
    const state = copyFixture(NATIVE_96)
    const old = '0ld00000-0000-4000-8000-000000000001'
    const updatedAt = Date.parse('2026-11-20T08:15:02.123Z')
    const lines = [JSON.stringify({type: 'session', version: 3, id: old, timestamp: '2026-11-20T08:00:00.000Z', cwd: '/w'}), JSON.stringify({type: 'message', id: 'a1b2c3d4', parentId: null, timestamp: '2026-11-20T08:15:02.123Z', message: {role: 'user', content: 'older'}})]
    withDb(
      dbPath(state),
      (db) => {
        db.exec('BEGIN IMMEDIATE')
        db.prepare("INSERT INTO session_windows (session_id, session_key, session_scope, created_at, updated_at, transcript_updated_at, transcript_observed_at, session_entry_provenance) VALUES (?, 'agent:main:main', 'conversation', ?, ?, ?, ?, 1)").run(old, updatedAt - 900_000, updatedAt, updatedAt, updatedAt)
        lines.forEach((l, seq) => db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)').run(old, seq, l, updatedAt, Buffer.byteLength(l)))
        db.exec('COMMIT')
      },
      true,
    )
    const out = path.join(tempDir(), 'export')
    const doc = json(await store(['export', '--out', out, '--json'], state))
    const main = doc.agents[0].sessions.find((s) => s.key === 'agent:main:main')
    const archive = path.join(out, 'agents', 'main', 'sessions', `${old}.jsonl.reset.2026-11-20T08-15-02.123Z`)
    expect(main!.archives).toEqual([{sessionId: old, file: archive, events: 2, bytes: Buffer.byteLength(lines.join('\n') + '\n')}])
    expect(fs.readFileSync(archive, 'utf8')).toBe(`${lines.join('\n')}\n`)
    expect(fs.existsSync(main!.transcript!.file)).toBe(true)
  })

  it('hostile ids: a node whose sessionId is a path (../) is skipped with its reason, and nothing is written outside --out', async () => {
    const state = copyFixture(NATIVE_96)
    withDb(
      dbPath(state),
      (db) => {
        db.exec('BEGIN IMMEDIATE')
        db.prepare("INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at) VALUES ('agent:main:evil', '../../evil', '{\"sessionId\":\"../../evil\",\"updatedAt\":1}', 1)").run()
        db.prepare("UPDATE session_nodes SET entry_valid = 1 WHERE session_key = 'agent:main:evil'").run()
        db.exec('COMMIT')
      },
      true,
    )
    const parent = tempDir()
    const out = path.join(parent, 'deep', 'export')
    const r = await store(['export', '--out', out, '--json'], state)
    expect(r.code, r.stderr).toBe(0)
    const main = json(r).agents[0]
    expect(main.skipped).toEqual([{key: 'agent:main:evil', sessionId: '../../evil', reason: 'sessionId is not a safe file name'}])
    expect(Object.keys(JSON.parse(fs.readFileSync(main.sessionsJson, 'utf8')))).not.toContain('agent:main:evil')
    expect([...snapshot(parent).keys()].filter((k) => k.includes('evil'))).toEqual([])
  })

  it('a database without sessions beside a sessions.json (not imported yet) is the JSON era: the agent is skipped, not exported empty, and with nothing else to export the run exits 66 writing nothing', async () => {
    const state = copyFixture(NATIVE_96)
    withDb(dbPath(state), (db) => db.exec('DELETE FROM session_nodes'), true)
    fs.mkdirSync(path.join(state, 'agents', 'main', 'sessions'))
    fs.writeFileSync(path.join(state, 'agents', 'main', 'sessions', 'sessions.json'), '{}')
    const out = path.join(tempDir(), 'export')
    const r = await store(['export', '--out', out, '--json'], state)
    expect(r.code).toBe(66)
    expect(JSON.parse(r.stdout).error).toMatchObject({code: 'E_NOTHING_TO_EXPORT', exitCode: 66})
    expect(JSON.parse(r.stdout).error.message).toContain('main: its database has no sessions: its sessions.json (not imported yet) is the store')
    expect(fs.existsSync(out)).toBe(false)
    expect(fs.readdirSync(path.dirname(out))).toEqual([])
    expect(json(await store(['info', '--json'], state)).agents[0].era).toBe('json')
  })

  it('a state dir mid-upgrade (main SQLite era, work JSON era): main is exported, work skipped with its reason, exit 0', async () => {
    const state = mixedEraState()
    const out = path.join(tempDir(), 'export')
    const r = await store(['export', '--out', out, '--json'], state)
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).agents.map((a) => a.agentId)).toEqual(['main'])
    expect(json(r).skippedAgents).toEqual([{agentId: 'work', era: 'json', reason: 'no SQLite store: its sessions are already in the JSON era'}])
    // Asked for the JSON-era agent alone, there is nothing to export: exit 66 and no --out.
    const alone = path.join(tempDir(), 'work-only')
    expect((await store(['export', '--out', alone, '--agent', 'work'], state)).code).toBe(66)
    expect(fs.existsSync(alone)).toBe(false)
  })

  it('refuses a non-empty --out, an existing file and a dir inside the state dir (exit 2), and writes nothing', async () => {
    const state = copyFixture(NATIVE_96)
    const busy = tempDir()
    fs.writeFileSync(path.join(busy, 'keep.txt'), 'x')
    const file = path.join(tempDir(), 'file')
    fs.writeFileSync(file, 'x')
    for (const [out, code] of [[busy, 'E_EXPORT_OUT_NOT_EMPTY'], [file, 'E_EXPORT_OUT_EXISTS'], [path.join(state, 'export'), 'E_EXPORT_OUT_INSIDE']]) {
      const r = await store(['export', '--out', out, '--json'], state)
      expect(r.code).toBe(2)
      expect(jsonError(r).code).toBe(code)
    }
    expect(fs.readdirSync(busy)).toEqual(['keep.txt'])
    expect(fs.readFileSync(file, 'utf8')).toBe('x')
    expect(fs.existsSync(path.join(state, 'export'))).toBe(false)
    // An empty directory is fine.
    const empty = tempDir()
    expect((await store(['export', '--out', empty], state)).code).toBe(0)
    expect(fs.readdirSync(empty).sort()).toEqual(['agents', 'openclaw.json'])
  })

  it('--out inside the state dir is refused by where it lands, not by how it is spelled: through a link to the state dir, or with --state-dir given as a link', async () => {
    const state = copyFixture(NATIVE_96)
    const links = tempDir()
    const toState = path.join(links, 'to-state')
    fs.symlinkSync(state, toState)
    const toAgents = path.join(links, 'to-agents')
    fs.symlinkSync(path.join(state, 'agents'), toAgents)
    const before = snapshot(state)
    for (const [out, stateArg] of [
      [path.join(toState, 'exp'), state],
      [path.join(state, 'exp'), toState],
      [path.join(toState, 'new', 'deeper', 'exp'), state],
      [path.join(toAgents, 'main', 'exp'), state],
    ]) {
      const r = await runCli(['store', 'export', '--out', out, '--json', '--state-dir', stateArg], {env: baseEnv(tempDir())})
      expect(r.code, `${out} ${r.stderr}`).toBe(2)
      expect(jsonError(r).code).toBe('E_EXPORT_OUT_INSIDE')
      expect(jsonError(r).message).toContain(`resolves to ${fs.realpathSync(state)}`)
    }
    expect(diffSnapshots(before, snapshot(state))).toEqual({added: [], removed: [], changed: []})
    // A link that leads out of the state dir is fine: where it lands is what counts.
    const outside = tempDir()
    fs.symlinkSync(outside, path.join(links, 'to-outside'))
    const ok = await runCli(['store', 'export', '--out', path.join(links, 'to-outside', 'exp'), '--state-dir', toState], {env: baseEnv(tempDir())})
    expect(ok.code, ok.stderr).toBe(0)
    expect(fs.readdirSync(path.join(outside, 'exp')).sort()).toEqual(['agents', 'openclaw.json'])
  })

  it('an event whose zstd payload does not decode: exit 1 naming session and seq, and no export dir (nor staging dir) is left', async () => {
    const state = copyFixture(IMPORTED_96)
    const seq = withDb(
      dbPath(state),
      (db) => {
        const row = db.prepare('SELECT seq FROM transcript_events WHERE event_json IS NULL LIMIT 1').get()!
        db.prepare('UPDATE transcript_events SET event_zstd = ? WHERE event_json IS NULL AND seq = ?').run(new Uint8Array([1, 2, 3, 4]), row.seq)
        return Number(row.seq)
      },
      true,
    )
    const parent = tempDir()
    const r = await store(['export', '--out', path.join(parent, 'x')], state)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(new RegExp(`^Error: Cannot export agent "main": event ${seq} of session 0caed29d-8df6-4457-a9cd-00bb9d2b22e3 cannot be decoded`))
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(2)
    expect(fs.readdirSync(parent)).toEqual([])
  })
})

describeSqlite('store verify (after OpenClaw import)', () => {
  const WORK_ARCHIVE = 'agents/work/session-sqlite-import-archive/agent_work_main.704f285c-af26-493e-ab33-9383ab17a8c0.jsonl.imported-1795690155777'

  it('the imported fixture verifies clean: 0 differences, events appended by the later turn are counted, not reported', async () => {
    const state = copyFixture(IMPORTED_96)
    const before = sourceSnapshot(state)
    const r = await store(['verify', '--json'], state)
    expect(r.code, r.stdout).toBe(0)
    const doc = json(r)
    expect(doc).toMatchObject({ok: true, differences: 0})
    const byAgent = Object.fromEntries(doc.transcripts.map((t) => [t.agentId, t]))
    for (const agent of ['main', 'work']) {
      const archive = fs.readdirSync(path.join(state, 'agents', agent, 'session-sqlite-import-archive')).find((n) => /^agent_.*\.jsonl\.imported-\d+$/.test(n) && !n.includes('trajectory'))!
      const lines = fs.readFileSync(path.join(state, 'agents', agent, 'session-sqlite-import-archive', archive), 'utf8').split('\n').filter(Boolean).length
      const dbEvents = withDb(dbPath(state, agent), (db) => Number(db.prepare('SELECT count(*) n FROM transcript_events').get()!.n))
      expect(byAgent[agent]).toMatchObject({status: 'ok', archiveEvents: lines, dbEvents, pairedEvents: lines, appendedAfterImport: dbEvents - lines, missing: {count: 0}, extra: {count: 0}, different: {count: 0}})
      expect(byAgent[agent]!.archiveHash).toBe(byAgent[agent]!.dbHash)
    }
    expect(doc.stores.map((s) => [s.agentId, s.status, s.keys]).sort()).toEqual([['main', 'ok', 1], ['work', 'ok', 1]])
    expect(diffSnapshots(before, sourceSnapshot(state))).toEqual({added: [], removed: [], changed: []})
    expect((await store(['verify'], state)).stdout).toMatch(/Verified: 0 differences \(2 transcript\(s\), 2 session store\(s\)\)\./)
  })

  it('tampered database: an event row whose JSON changed is reported as different (its line and seq), exit 5', async () => {
    const state = copyFixture(IMPORTED_96)
    withDb(dbPath(state, 'work'), (db) => db.prepare("UPDATE transcript_events SET event_json = replace(event_json, '\"role\":\"user\"', '\"role\":\"user\",\"x\":1') WHERE seq = 4").run(), true)
    const r = await store(['verify', '--json'], state)
    expect(r.code).toBe(5)
    const work = json(r).transcripts.find((t) => t.agentId === 'work')
    expect(work).toMatchObject({status: 'differs', different: {count: 1}, missing: {count: 0}, extra: {count: 0}, differences: 1})
    expect(work!.different.items[0]).toMatchObject({line: 5, seq: 4})
    expect(work!.archiveHash).not.toBe(work!.dbHash)
    expect(json(r)).toMatchObject({ok: false, differences: 1})
  })

  it('tampered database: events in the wrong order (two adjacent swapped, or seq 0..16 reversed so seq 0 is no longer the header) are reported as out of order (line, seq), exit 5', async () => {
    for (const [name, order] of [
      ['swap', (n: number) => (n === 3 ? 4 : n === 4 ? 3 : n)],
      ['reverse', (n: number) => (n <= 16 ? 16 - n : n)],
    ] as const) {
      const state = copyFixture(IMPORTED_96)
      withDb(
        dbPath(state, 'main'),
        (db) => {
          const rows = db.prepare('SELECT seq, event_json, event_zstd, event_utf8_bytes, navigation_json FROM transcript_events WHERE session_id = (SELECT session_id FROM transcript_events GROUP BY session_id ORDER BY count(*) DESC LIMIT 1) AND seq <= 16 ORDER BY seq').all()
          const sid = db.prepare('SELECT session_id FROM transcript_events GROUP BY session_id ORDER BY count(*) DESC LIMIT 1').get()!.session_id
          expect(rows.length).toBe(17)
          db.exec('PRAGMA foreign_keys = OFF; PRAGMA ignore_check_constraints = ON')
          const put = db.prepare('UPDATE transcript_events SET event_json = ?, event_zstd = ?, event_utf8_bytes = ?, navigation_json = ? WHERE session_id = ? AND seq = ?')
          for (const r of rows) {
            const from = rows[order(Number(r.seq))]
            put.run(from.event_json, from.event_zstd, from.event_utf8_bytes, from.navigation_json, sid, r.seq)
          }
        },
        true,
      )
      const r = await store(['verify', '--json'], state)
      expect(r.code, name).toBe(5)
      const main = json(r).transcripts.find((t) => t.agentId === 'main')!
      const moved = name === 'swap' ? 2 : 16
      expect(main, name).toMatchObject({status: 'differs', outOfOrder: {count: moved}, missing: {count: 0}, extra: {count: 0}, different: {count: 0}, differences: moved})
      expect(main.outOfOrder.items[0], name).toMatchObject(name === 'swap' ? {line: 4, seq: 4} : {line: 1, seq: 16})
      expect((await store(['verify'], state)).stdout, name).toContain(`out of order in the database: ${moved}`)
    }
  })

  it('tampered database: a deleted event is reported as missing (its line and id), exit 5', async () => {
    const state = copyFixture(IMPORTED_96)
    const id = withDb(
      dbPath(state, 'work'),
      (db) => {
        const ev = JSON.parse(String(db.prepare('SELECT event_json FROM transcript_events WHERE seq = 2').get()!.event_json))
        db.prepare('DELETE FROM transcript_events WHERE seq = 2').run()
        return ev.id as string
      },
      true,
    )
    const r = await store(['verify'], state)
    expect(r.code).toBe(5)
    expect(r.stdout).toContain(`missing from the database: 1 (line 3 id ${id})`)
    expect(r.stdout).toMatch(/1 difference\(s\) found\./)
  })

  it('tampered archive: a line added to the archived original is reported as missing, and the archive as changed since the import', async () => {
    const state = copyFixture(IMPORTED_96)
    const file = path.join(state, WORK_ARCHIVE)
    const lineCount = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length
    fs.appendFileSync(file, `${JSON.stringify({type: 'message', id: 'feedf00d', parentId: null, timestamp: '2026-11-25T00:00:00.000Z', message: {role: 'user', content: 'added'}})}\n`)
    const r = await store(['verify', '--json'], state)
    expect(r.code).toBe(5)
    const work = json(r).transcripts.find((t) => t.agentId === 'work')
    expect(work!.missing).toEqual({count: 1, items: [{line: lineCount + 1, id: 'feedf00d'}]})
    expect(work!.problems).toEqual(['the archived original changed after the import (its sha256 differs from the run manifest)'])
    expect(work!.differences).toBe(2)
  })

  it('hostile manifest: an agent id that is a path and an archivePath with ../ never leave the agent\'s own archive dir', async () => {
    const state = copyFixture(IMPORTED_96)
    const runs = path.join(state, 'session-sqlite-migration-runs')
    const secret = path.join(state, 'agents', 'work', 'secret.jsonl')
    fs.writeFileSync(secret, '{"type":"session","id":"s"}\n')
    fs.writeFileSync(path.join(runs, 'session-sqlite-2-hostile.json'), JSON.stringify({manifestVersion: 3, runId: 'hostile', startedAt: 'x', completedAt: 'y', targets: [
      {agentId: '../../etc', issues: [], plannedMoves: [], completedMoves: [{kind: 'transcript', archivePath: '/etc/passwd', sourcePath: '/x.jsonl', artifact: {}}]},
      {agentId: 'work', issues: [], plannedMoves: [], completedMoves: [{kind: 'transcript', archivePath: '../../secret.jsonl', sourcePath: '/x.jsonl', artifact: {}}]},
    ]}))
    const doc = json(await store(['verify', '--json'], state))
    const archives = doc.transcripts.map((t) => t.archive)
    expect(archives.every((a: string) => a.startsWith(path.join(state, 'agents')) && a.includes('session-sqlite-import-archive'))).toBe(true)
    expect(archives).toContain(path.join(state, 'agents', 'work', 'session-sqlite-import-archive', 'secret.jsonl'))
    expect(doc.transcripts.find((t) => t.archive.endsWith('secret.jsonl'))).toMatchObject({status: 'unverifiable', problems: ['the archived original is missing, so this import cannot be verified']})
  })

  it('tampered legacy store: an archived sessions.json sessionId the database does not know is reported per key', async () => {
    const state = copyFixture(IMPORTED_96)
    const dir = path.join(state, 'agents', 'main', 'session-sqlite-import-archive')
    const file = path.join(dir, fs.readdirSync(dir).find((n) => n.startsWith('legacy-store.sessions.json.imported-'))!)
    const legacy = JSON.parse(fs.readFileSync(file, 'utf8'))
    const real = legacy['agent:main:main'].sessionId
    legacy['agent:main:main'].sessionId = 'not-the-one'
    legacy['agent:main:gone'] = {sessionId: 'x', updatedAt: 1}
    fs.writeFileSync(file, JSON.stringify(legacy, null, 2))
    const r = await store(['verify', '--json'], state)
    expect(r.code).toBe(5)
    const main = json(r).stores.find((s) => s.agentId === 'main')
    expect(main).toMatchObject({status: 'differs', keys: 2, missingKeys: ['agent:main:gone'], sessionIdMismatches: [{key: 'agent:main:main', legacy: 'not-the-one', db: real}]})
  })
})
