// The SQLite driver on real OpenClaw 2026.9.6 databases (copies): open checks, schema versions, zstd event decode,
// and the one-line refusal on a Node without node:sqlite. Runs in `npm test`'s Node 24 pass (scripts/test.js).
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import {eventText, loadSqlite, openAgentDb, type EventRow} from '../../../src/store/sqlite/driver.js'
import {copyFixture, ROOT} from '../../support/cli.js'
import {describeSqlite, IMPORTED_96, NATIVE_96} from '../../support/sqlite.js'

const dbOf = (state: string, agent = 'main') => path.join(state, 'agents', agent, 'agent', 'openclaw-agent.sqlite')
const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex')

/** A copy of the native fixture's database whose user_version was set by a raw connection (never done to OpenClaw's files). */
function withUserVersion(version: number): string {
  const db = dbOf(copyFixture(NATIVE_96))
  const raw = new (loadSqlite().DatabaseSync)(db)
  raw.exec(`PRAGMA user_version = ${version}`)
  raw.close()
  return db
}

/** The compressed event of the imported fixture (seq 9 of agent main): the row as stored, and its identity row. */
function compressedEvent(): {row: EventRow; eventId: string} {
  const {db} = openAgentDb(dbOf(copyFixture(IMPORTED_96)), {agentId: 'main'})
  try {
    const row = db.prepare('SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE event_zstd IS NOT NULL ORDER BY seq LIMIT 1').get() as unknown as EventRow
    const id = db.prepare('SELECT event_id FROM transcript_event_identities WHERE seq = ?').get(row.seq)
    return {row, eventId: String(id?.event_id)}
  } finally {
    db.close()
  }
}

describeSqlite('openAgentDb on OpenClaw 2026.9.6 databases', () => {
  it('a read-only open of the native database reads schema 23 and its sessions, and leaves the file unchanged', () => {
    const file = dbOf(copyFixture(NATIVE_96))
    const before = sha(file)
    const {db, schemaVersion} = openAgentDb(file, {agentId: 'main'})
    expect(schemaVersion).toBe(23)
    const keys = db.prepare('SELECT session_key FROM session_nodes ORDER BY session_key').all().map((r) => r.session_key)
    expect(keys).toEqual(['agent:main:explicit:c0ffee00-0000-4000-8000-000000000096', 'agent:main:main'])
    expect(() => db.exec("UPDATE session_nodes SET label = 'x'")).toThrow(/readonly|read-only/i)
    db.close()
    expect(sha(file)).toBe(before)
  })

  it('schema_meta naming another agent is refused with E_SQLITE_NOT_AGENT_DB', () => {
    expect(() => openAgentDb(dbOf(copyFixture(NATIVE_96)), {agentId: 'work'})).toThrow(expect.objectContaining({code: 'E_SQLITE_NOT_AGENT_DB', message: expect.stringContaining('not agent "work"')}))
  })

  it('user_version 24 (newer than known): reads continue, a write open is refused naming both versions', () => {
    const file = withUserVersion(24)
    const read = openAgentDb(file, {agentId: 'main'})
    expect(read.schemaVersion).toBe(24)
    read.db.close()
    expect(() => openAgentDb(file, {write: true, agentId: 'main'})).toThrow(
      expect.objectContaining({code: 'E_SQLITE_SCHEMA_NEWER', message: expect.stringMatching(/schema version 24; clawkit knows version 23, so it writes nothing there/)}),
    )
  })

  it('user_version 22 (older): refused for reads too, pointing at openclaw doctor --fix', () => {
    expect(() => openAgentDb(withUserVersion(22))).toThrow(expect.objectContaining({code: 'E_SQLITE_SCHEMA_OLDER', message: expect.stringContaining('openclaw doctor --fix')}))
  })

  it('a file that is not a database is E_SQLITE_CORRUPT in one line, not a stack trace', () => {
    const file = dbOf(copyFixture(NATIVE_96))
    fs.writeFileSync(file, Buffer.alloc(8192, 0x5a))
    fs.rmSync(`${file}-wal`, {force: true})
    fs.rmSync(`${file}-shm`, {force: true})
    expect(() => openAgentDb(file)).toThrow(expect.objectContaining({code: 'E_SQLITE_CORRUPT', message: expect.not.stringContaining('\n')}))
  })
})

describeSqlite('eventText on the imported fixture', () => {
  it('a zstd-compressed event (event_json NULL) decodes to its declared size and to the event its identity row names', () => {
    const {row, eventId} = compressedEvent()
    expect(row.event_json).toBeNull()
    const r = eventText(row)
    if (!('text' in r)) throw new Error(r.error)
    expect(Buffer.byteLength(r.text)).toBe(row.event_utf8_bytes)
    const event = JSON.parse(r.text)
    expect(event).toMatchObject({type: 'message', id: eventId})
  })

  it('a corrupt zstd blob (one byte flipped), a wrong declared size and a blob that is not zstd give an error, never a throw', () => {
    const {row} = compressedEvent()
    const flipped = Buffer.from(row.event_zstd!)
    flipped[Math.floor(flipped.length / 2)] ^= 0xff
    expect(eventText({...row, event_zstd: flipped})).toEqual({error: expect.stringMatching(/does not decode/)})
    expect(eventText({...row, event_utf8_bytes: row.event_utf8_bytes! - 1})).toEqual({error: expect.stringMatching(/does not decode|not the/)})
    expect(eventText({...row, event_utf8_bytes: row.event_utf8_bytes! + 1})).toEqual({error: expect.stringMatching(/decodes to \d+ bytes, not the \d+ recorded/)})
    expect(eventText({...row, event_zstd: Buffer.from('{"type":"message"}')})).toEqual({error: expect.stringMatching(/does not decode/)})
    expect(eventText({...row, event_zstd: null})).toEqual({error: 'neither event_json nor event_zstd is set'})
  })
})

/** A Node without node:sqlite: the one npm test's first pass ran on (scripts/test.js passes it), else `node` on PATH. */
function oldNode(): string | undefined {
  for (const bin of [process.env.CLAWKIT_TEST_NODE_OLD, 'node']) {
    if (!bin) continue
    const r = spawnSync(bin, ['-p', 'process.versions.node'], {encoding: 'utf8'})
    const [major, minor] = String(r.stdout).trim().split('.').map(Number)
    if (r.status === 0 && (major < 22 || (major === 22 && minor < 15))) return bin
  }
  return undefined
}

describeSqlite('loadSqlite on a Node without node:sqlite', () => {
  const old = oldNode()
  // Only a machine whose every Node has node:sqlite lacks one; npm test's Node 24 pass always has its first-pass Node.
  it.skipIf(!old)('Node 20 gets SqliteUnavailableError (E_NODE_TOO_OLD) naming the Node it needs and its own version', () => {
    const driver = path.join(ROOT, 'dist', 'store', 'sqlite', 'driver.js')
    const script = `import(${JSON.stringify(driver)}).then((m) => { try { m.loadSqlite(); console.log('loaded') } catch (e) { console.log(JSON.stringify({code: e.code, message: e.message})) } })`
    const r = spawnSync(old!, ['-e', script], {encoding: 'utf8'})
    expect(r.stderr).toBe('')
    const out = JSON.parse(r.stdout)
    const version = spawnSync(old!, ['-p', 'process.versions.node'], {encoding: 'utf8'}).stdout.trim()
    expect(out.code).toBe('E_NODE_TOO_OLD')
    expect(out.message).toContain('needs Node 22.15 or later')
    expect(out.message).toContain(`this is Node ${version}.`)
  })
})
