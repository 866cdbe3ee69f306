// Hostile SQLite-era stores, through the CLI: every failure is one line (plus at most a hint), exit 1, no stack trace,
// and the database file is byte-identical afterwards. Damage inside one event is reported by history, not fatal.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, expect, it} from 'vitest'

import {baseEnv, copyFixture, json, jsonError, runCli, type RunResult, tempDir} from '../support/cli.js'
import {describeSqlite, IMPORTED_96, NATIVE_96} from '../support/sqlite.js'
import {dbPath, openDb, sha} from '../support/sqlite-expect.js'

const env = () => baseEnv(tempDir())

/** One `Error:` line, at most one `hint:` line after it, nothing else on stderr. */
function expectOneLineError(r: RunResult, pattern: RegExp): void {
  expect(r.code, r.stdout + r.stderr).toBe(1)
  const lines = r.stderr.trimEnd().split('\n')
  expect(lines[0]).toMatch(/^Error: /)
  expect(lines[0]).toMatch(pattern)
  expect(lines.length, r.stderr).toBeLessThanOrEqual(2)
  // The line after it, where there is one, is the hint: nothing else may follow the error.
  expect(lines.slice(1).filter((l) => !/^\s+hint: /.test(l)), r.stderr).toEqual([])
  expect(r.stderr).not.toMatch(/\n\s+at /)
}

/** Runs list (human and --json) and history on the damaged copy; the database file must not change. */
async function expectRefused(state: string, db: string, pattern: RegExp, code: string): Promise<void> {
  const before = fs.existsSync(db) ? sha(db) : undefined
  expectOneLineError(await runCli(['sessions', 'list', '--all-agents', '--state-dir', state], {env: env()}), pattern)
  const j = await runCli(['sessions', 'list', '--json', '--state-dir', state], {env: env()})
  expect(j.code).toBe(1)
  expect(jsonError(j)).toMatchObject({code, message: expect.stringMatching(pattern)})
  expectOneLineError(await runCli(['sessions', 'history', 'main', '--state-dir', state], {env: env()}), pattern)
  // Unchanged, and a database that was not there is still not there.
  expect(fs.existsSync(db) ? sha(db) : undefined).toBe(before)
}

function edit(db: string, fn: (h: ReturnType<typeof openDb>) => void): void {
  const h = openDb(db, false)
  try {
    fn(h)
  } finally {
    h.close()
  }
}

const holders: {kill(): void}[] = []
afterEach(() => {
  for (const h of holders.splice(0)) h.kill()
})

/** Another process holding the database with BEGIN EXCLUSIVE (optionally in exclusive locking mode) until killed. */
async function holdLock(db: string, exclusiveMode: boolean): Promise<void> {
  const script = `const {DatabaseSync} = require('node:sqlite')
const db = new DatabaseSync(${JSON.stringify(db)})
${exclusiveMode ? "db.exec('PRAGMA locking_mode = EXCLUSIVE')" : ''}
db.exec('BEGIN EXCLUSIVE')
db.prepare('SELECT count(*) FROM session_nodes').get()
process.stdout.write('locked\\n')
setInterval(() => {}, 1000)`
  const child = spawn(process.execPath, ['-e', script], {stdio: ['ignore', 'pipe', 'inherit']})
  holders.push(child)
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => String(d).includes('locked') && resolve())
    child.on('exit', (c) => reject(new Error(`lock holder exited ${c}`)))
  })
}

describeSqlite('hostile SQLite-era stores', () => {
  it('a truncated database: one-line error naming the file, exit 1, file unchanged', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbPath(state, 'main')
    fs.truncateSync(db, 16 * 1024)
    await expectRefused(state, db, /openclaw-agent\.sqlite.*(damaged|malformed)/, 'E_SQLITE_CORRUPT')
  })

  it('garbage bytes in the database file: one-line error, exit 1, file unchanged', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbPath(state, 'main')
    fs.writeFileSync(db, Buffer.alloc(64 * 1024, 0x5a))
    await expectRefused(state, db, /openclaw-agent\.sqlite.*(not a database|damaged)/, 'E_SQLITE_CORRUPT')
  })

  it('a WAL without its database: refused in one line (not read as an empty store or the legacy sessions.json), nothing created', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbPath(state, 'main')
    fs.rmSync(db)
    fs.writeFileSync(`${db}-wal`, Buffer.alloc(4096, 7))
    const sessions = path.join(state, 'agents', 'main', 'sessions')
    fs.mkdirSync(sessions, {recursive: true})
    fs.writeFileSync(path.join(sessions, 'sessions.json'), JSON.stringify({'agent:main:main': {sessionId: 'legacy-1', updatedAt: 1}}))
    await expectRefused(state, db, /database file is missing but its wal file .*openclaw-agent\.sqlite-wal/, 'E_SQLITE_ORPHAN_WAL')
    expect(fs.existsSync(db)).toBe(false)
    expect(fs.readFileSync(`${db}-wal`)).toEqual(Buffer.alloc(4096, 7))
  })

  it('entry_json that is not an object or not JSON at all, and entry_valid 0: the listing fails naming the key and "openclaw doctor --fix", like OpenClaw', async () => {
    for (const [what, sql] of [
      ['entry', "UPDATE session_nodes SET entry_json = '[1,2]' WHERE session_key = 'agent:main:main'"],
      ['entry', "UPDATE session_nodes SET entry_json = '{\"sessionId\": broken' WHERE session_key = 'agent:main:main'"],
      ['invalid', "UPDATE session_nodes SET entry_valid = 0 WHERE session_key = 'agent:main:main'"],
    ]) {
      const state = copyFixture(NATIVE_96)
      const db = dbPath(state, 'main')
      edit(db, (h) => {
        h.exec(sql)
        // The trigger resets entry_valid after an entry_json change; a rewritten entry keeps it valid, as a buggy writer would.
        if (what === 'entry') h.exec("UPDATE session_nodes SET entry_valid = 1 WHERE session_key = 'agent:main:main'")
      })
      await expectRefused(state, db, /Invalid persisted session row "agent:main:main" in .*openclaw-agent\.sqlite.*openclaw doctor --fix/, 'E_SQLITE_INVALID_ROW')
    }
  })

  it('a session id no OpenClaw writes ("#", "/", ".."): history and reset refuse it in one line as the JSON era does (exit 2), the listing, cleanup\'s plan and status go on, the database unchanged', async () => {
    for (const id of ['a#b', '../../outside', 'archive/x']) {
      const state = copyFixture(NATIVE_96)
      const db = dbPath(state, 'main')
      edit(db, (h) => {
        const row = h.prepare("SELECT entry_json FROM session_nodes WHERE session_key = 'agent:main:main'").get() as {entry_json: string}
        // Updated now, so that status's runaway check reads it too.
        const now = Date.now()
        h.prepare("UPDATE session_nodes SET entry_json = ?, current_session_id = ?, updated_at = ? WHERE session_key = 'agent:main:main'").run(JSON.stringify({...JSON.parse(row.entry_json), sessionId: id, updatedAt: now}), id, now)
        h.exec("UPDATE session_nodes SET entry_valid = 1 WHERE session_key = 'agent:main:main'")
      })
      const before = sha(db)
      for (const args of [['sessions', 'history', 'main'], ['sessions', 'reset', 'main']]) {
        const r = await runCli([...args, '--state-dir', state], {env: env()})
        expect(r.code, r.stderr).toBe(2)
        expect(r.stderr).toMatch(/^Error: Invalid session ID: .* \(in the index entry agent:main:main\)/)
        expect(r.stderr).not.toMatch(/\n\s+at /)
      }
      // Store-wide commands go on with the other sessions: one bad entry names no file for cleanup, no runaway for status.
      for (const args of [['sessions', 'cleanup', '--dry-run', '--sweep', '--json'], ['status', '--json']]) {
        const r = await runCli([...args, '--state-dir', state], {env: env()})
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      }
      const list = await runCli(['sessions', 'list', '--json', '--state-dir', state], {env: env()})
      expect(list.code, list.stderr).toBe(0)
      expect(json<{sessions: {key: string; sessionId: string}[]}>(list).sessions.find((s) => s.key === 'agent:main:main')?.sessionId).toBe(id)
      expect(sha(db)).toBe(before)
    }
  })

  it('an event that is not JSON and a zstd blob that does not decode: history reports them and shows the rest (exit 0)', async () => {
    const state = copyFixture(IMPORTED_96)
    const db = dbPath(state, 'main')
    const sid = '0caed29d-8df6-4457-a9cd-00bb9d2b22e3'
    edit(db, (h) => {
      const z = h.prepare('SELECT seq, length(event_zstd) AS n FROM transcript_events WHERE session_id = ? AND event_json IS NULL').get(sid)!
      h.prepare('UPDATE transcript_events SET event_zstd = ? WHERE session_id = ? AND seq = ?').run(Buffer.alloc(Number(z.n), 0x42), sid, z.seq)
      h.prepare("UPDATE transcript_events SET event_json = '{\"type\":\"message\", truncated' WHERE session_id = ? AND seq = 13").run(sid)
    })
    const before = sha(db)
    const r = await runCli(['sessions', 'history', 'main', '--limit', '100', '--json', '--state-dir', state], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    expect(doc.badLines.map((b) => b.reason).sort()).toEqual(['invalid-json', 'undecodable'])
    expect(doc.badLines.find((b) => b.reason === 'undecodable')!.preview).toMatch(/zstd/)
    expect(doc.entries.length).toBeGreaterThan(5)
    const human = await runCli(['sessions', 'history', 'main', '--limit', '100', '--state-dir', state], {env: env()})
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/! 2 unreadable line\(s\) in this part of the transcript \(.*undecodable.*\)/)
    // --raw leaves them out: its output stays a valid JSONL stream.
    const raw = await runCli(['sessions', 'history', 'main', '--limit', '100', '--raw', '--state-dir', state], {env: env()})
    for (const l of raw.stdout.trimEnd().split('\n')) JSON.parse(l)
    expect(sha(db)).toBe(before)
  })

  it('a session whose header event is gone (rows deleted by hand): the first remaining event is shown, not taken for the header', async () => {
    const state = copyFixture(IMPORTED_96)
    const db = dbPath(state, 'main')
    const sid = '0caed29d-8df6-4457-a9cd-00bb9d2b22e3'
    let first = ''
    edit(db, (h) => {
      first = JSON.parse(String(h.prepare('SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = 4').get(sid)!.event_json)).id
      h.prepare('DELETE FROM transcript_events WHERE session_id = ? AND seq < 4').run(sid)
    })
    const r = json(await runCli(['sessions', 'history', 'main', '--limit', '1000', '--json', '--state-dir', state], {env: env()}))
    expect(r.entries[0]).toMatchObject({id: first, type: 'message'})
    expect(r.badLines).toEqual([])
  })

  it('user_version 24 with the session tables: reads continue; without them, refused naming both versions', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbPath(state, 'main')
    edit(db, (h) => h.exec('PRAGMA user_version = 24'))
    const before = sha(db)
    const ok = await runCli(['sessions', 'list', '--json', '--state-dir', state], {env: env()})
    expect(ok.code, ok.stderr).toBe(0)
    expect(json(ok).count).toBe(2)
    const hist = await runCli(['sessions', 'history', 'main', '--json', '--state-dir', state], {env: env()})
    expect(hist.code, hist.stderr).toBe(0)
    const st = json(await runCli(['status', '--json', '--state-dir', state], {env: env()}))
    expect(st.agents.agents[0]!.sqlite!.schemaVersion).toBe(24)
    expect(sha(db)).toBe(before)
    edit(db, (h) => h.exec('ALTER TABLE session_nodes RENAME TO session_nodes_v24'))
    await expectRefused(state, db, /schema version 24; clawkit knows version 23/, 'E_SQLITE_SCHEMA_NEWER')
  })

  it('a locked database (another process in exclusive locking mode): one-line error within the busy timeout, never a hang', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbPath(state, 'main')
    await holdLock(db, true)
    const before = sha(db)
    const started = Date.now()
    const r = await runCli(['sessions', 'list', '--state-dir', state], {env: env(), timeoutMs: 20_000})
    const took = Date.now() - started
    expectOneLineError(r, /locked by another writer \(waited 5 s\)/)
    expect(took).toBeGreaterThanOrEqual(4500)
    expect(took).toBeLessThan(15_000)
    expect(sha(db)).toBe(before)
  })

  it('a writer holding BEGIN EXCLUSIVE in WAL mode does not block a read (WAL readers never wait for writers)', async () => {
    const state = copyFixture(NATIVE_96)
    await holdLock(dbPath(state, 'main'), false)
    const started = Date.now()
    const r = await runCli(['sessions', 'list', '--json', '--state-dir', state], {env: env(), timeoutMs: 20_000})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).count).toBe(2)
    expect(Date.now() - started).toBeLessThan(4000)
  })

  it('events that are not JSON, not objects, or carry hostile usage figures: usage counts the unreadable ones as history flags them, rejects the implausible figures, and every total stays finite; the database is unchanged', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbPath(state, 'main')
    const sid = '43eeabd1-7609-4067-b31f-fda50759fe26'
    edit(db, (h) => {
      const set = h.prepare('UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = ?')
      for (const [seq, text] of [[2, '{not json'], [3, '[1,2]'], [6, '"text"'], [9, '42']] as const) set.run(text, sid, seq)
      const calls = h.prepare("SELECT seq, event_json FROM transcript_events WHERE session_id = ? AND event_json LIKE '%\"usage\"%' ORDER BY seq").all(sid) as {seq: number; event_json: string}[]
      const hostile = ['-5', '1e999', '"12"', '123456789012345678901234567890']
      calls.forEach((c, i) => set.run(c.event_json.replace(/"cost":\{[^}]*"total":[^,}]+/, (m) => m.replace(/"total":[^,}]+$/, `"total":${hostile[i % hostile.length]}`)), sid, c.seq))
    })
    const before = sha(db)
    const u = await runCli(['sessions', 'usage', '--json', '--state-dir', state], {env: env()})
    expect(u.code, u.stderr).toBe(0)
    const doc = json(u)
    const h = json(await runCli(['sessions', 'history', 'agent:main:main', '--limit', '1000', '--json', '--state-dir', state], {env: env()}))
    expect(h.badLines.map((b) => b.reason).sort()).toEqual(['invalid-json', 'not-an-object', 'not-an-object', 'not-an-object'])
    expect(doc.badLines).toBe(h.badLines.length)
    expect(doc.badValues).toBeGreaterThanOrEqual(4)
    for (const v of Object.values(doc.total)) if (typeof v === 'number') expect(Number.isFinite(v) && v >= 0).toBe(true)
    expect(sha(db)).toBe(before)
  })

  it('hostile search patterns on a SQLite store: a 60 000-byte literal (LIKE\'s limit is 50 000), a 5 000-character --regex, and (a+)+$ against 40 a\'s: a result or a usage error at once, never blamed on the store', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbPath(state, 'main')
    edit(db, (h) => h.prepare("UPDATE transcript_events SET event_json = json_set(event_json, '$.message.content', ?) WHERE session_id = '43eeabd1-7609-4067-b31f-fda50759fe26' AND seq = 4").run(`${'a'.repeat(40)}!`))
    const before = sha(db)
    for (const [args, code, count] of [
      [['a'.repeat(60_000)], 0, 0],
      [['A'.repeat(60_000)], 0, 0],
      [[`${'a'.repeat(5000)}+`, '--regex'], 2, undefined],
      [['(a+)+$', '--regex'], 0, 0],
      [['(a+)+!$', '--regex'], 0, 1],
      [['^(\\w+\\s?)+$', '--regex'], 0, undefined],
    ] as const) {
      const r = await runCli(['sessions', 'search', ...args, '--json', '--state-dir', state], {env: env(), timeoutMs: 30_000})
      expect(r.code, `${args[0].slice(0, 20)}: ${r.stdout.slice(0, 300)}`).toBe(code)
      if (code === 2) expect(jsonError(r).code).toBe('E_BAD_REGEX')
      if (count !== undefined) expect(json(r).count, args[0].slice(0, 20)).toBe(count)
    }
    expect(sha(db)).toBe(before)
  })
})
