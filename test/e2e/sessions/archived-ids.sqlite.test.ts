// `sessions history|export|lineage <sessionId>` where the id is an archived SQLite-era session's, through the real CLI
// under Node 24: an earlier window (a copy of openclaw-2026.9.6-native whose main key clawkit's `sessions reset` moved
// to a new window; that fixture's `-m /new` is an ordinary message, store-sqlite.md section 6, so it has no earlier
// window of its own) and a real 2026.9.6 `sessions delete` (openclaw-2026.9.6-deleted: a session_transcript_archives
// row). Expected values come from the database here (transcript_events, the archive blob decoded with node:zlib).
import {createHash} from 'node:crypto'
import zlib from 'node:zlib'

import {beforeAll, expect, it} from 'vitest'

import type {SessionsHistoryResult} from '../../../src/commands/sessions/history.js'
import type {SessionsLineageResult} from '../../../src/commands/sessions/lineage.js'
import {sqliteStorePath} from '../../../src/store/era.js'
import {OpenClawState} from '../../../src/store/state.js'
import {baseEnv, copyFixture, json, jsonError, runCli, tempDir} from '../../support/cli.js'
import {expectDoc} from '../../support/schema-check.js'
import {useServers} from '../../support/servers.js'
import {dbPath, eventsOf, openDb} from '../../support/sqlite-expect.js'
import {DELETED_96, describeSqlite, mockedStateCopy, NATIVE_96} from '../../support/sqlite.js'

const DELETED_ID = 'ddfebd8b-b803-4493-b99d-22be141b040c'
const DELETED_KEY = 'agent:main:scratch-1'

const servers = useServers({mock: true})
const run = (state: string, args: string[]) => runCli([...args, '--state-dir', state], {env: baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key'})})

/** The one archive row of the deleted fixture: its JSONL decoded here after checking archive_sha256. */
function archiveRow(state: string): {sha: string; createdAt: number; text: string} {
  const db = openDb(dbPath(state, 'main'))
  try {
    const r = db.prepare('SELECT * FROM session_transcript_archives WHERE session_id = ?').get(DELETED_ID)!
    const blob = Buffer.from(r.archive_blob)
    const sha = createHash('sha256').update(blob).digest('hex')
    expect(sha).toBe(r.archive_sha256)
    return {sha, createdAt: r.created_at, text: (r.encoding === 'zstd' ? (zlib as any).zstdDecompressSync(blob) : blob).toString('utf8')}
  } finally {
    db.close()
  }
}

/** Rows of the database that belong to one session id. */
function rowsOf(state: string, sessionId: string): {events: number; windows: {session_key: string}[]} {
  const db = openDb(dbPath(state, 'main'))
  try {
    const events = Number(db.prepare('SELECT count(*) AS n FROM transcript_events WHERE session_id = ?').get(sessionId)!.n)
    const windows = db.prepare('SELECT session_key FROM session_windows WHERE session_id = ?').all(sessionId).map((w) => ({session_key: String(w.session_key)}))
    return {events, windows}
  } finally {
    db.close()
  }
}

describeSqlite('history, export and lineage accept an archived sessionId (SQLite era)', () => {
  let native: string
  let oldId: string
  let newId: string
  let before: SessionsHistoryResult
  let lineageBefore: SessionsLineageResult
  beforeAll(async () => {
    native = mockedStateCopy(NATIVE_96, servers.mock.url)
    before = json<SessionsHistoryResult>(await run(native, ['sessions', 'history', 'main', '--limit', '1000', '--json']))
    oldId = before.sessionId
    const r = await run(native, ['sessions', 'reset', 'main', '--json'])
    expect(r.code, r.stderr).toBe(0)
    newId = json<{sessionId: string}>(r).sessionId
    lineageBefore = json<SessionsLineageResult>(await run(native, ['sessions', 'lineage', 'main', '--json']))
  }, 60_000)

  it('history <earlier window id>: the entries it showed while current, same --json shape, plus archived {where: window, ended: reset}', async () => {
    const h = expectDoc<SessionsHistoryResult>(await run(native, ['sessions', 'history', oldId, '--limit', '1000', '--json']), 'sessions-history')
    const db = sqliteStorePath(native, 'main')
    expect(h).toEqual({...before, sessionFile: `${db}#${oldId}`, archived: {sessionId: oldId, where: 'window', ended: 'reset', endedAt: expect.any(String)}})
    expect(Date.parse(h.archived!.endedAt!)).toBeGreaterThan(Date.parse(h.entries.at(-1)!.timestamp))
    // The current id and the key are unchanged: the new, empty window, no archived field.
    const cur = json<SessionsHistoryResult>(await run(native, ['sessions', 'history', newId, '--json']))
    expect(cur).toEqual(json(await run(native, ['sessions', 'history', 'main', '--json'])))
    expect(cur).not.toHaveProperty('archived')
  })

  it('export <earlier window id> --format jsonl: its events as stored; lineage <it>: the key\'s lineage plus archived', async () => {
    const jsonl = await run(native, ['sessions', 'export', oldId, '--format', 'jsonl'])
    expect(jsonl.code, jsonl.stderr).toBe(0)
    expect(jsonl.stdout).toBe(eventsOf(dbPath(native, 'main'), oldId).map((e) => `${e.text}\n`).join(''))
    const l = expectDoc<SessionsLineageResult>(await run(native, ['sessions', 'lineage', oldId, '--json']), 'sessions-lineage')
    expect(l).toEqual({...lineageBefore, archived: {sessionId: oldId, where: 'window', ended: 'reset', endedAt: lineageBefore.sessions[0].endedAt}})
    expect(l.sessions.map((s) => s.sessionId)).toEqual([oldId, newId])
  })

  it('history, export and lineage of a deleted session\'s id (a real session_transcript_archives row) read the archive', async () => {
    const state = copyFixture(DELETED_96)
    const row = archiveRow(state)
    const lines = row.text.split('\n').filter(Boolean)
    const h = expectDoc<SessionsHistoryResult>(await run(state, ['sessions', 'history', DELETED_ID, '--limit', '100', '--raw', '--json']), 'sessions-history')
    expect(h).toMatchObject({key: DELETED_KEY, agentId: 'main', sessionId: DELETED_ID, sessionFileLocation: 'sqlite-archive', transcriptExists: true, truncated: false})
    expect(h.archived).toEqual({sessionId: DELETED_ID, where: 'deleted-archive', ended: 'deleted', endedAt: new Date(row.createdAt).toISOString()})
    const first = lines.findIndex((l) => JSON.parse(l).type === 'message')
    expect(h.raw).toEqual(lines.slice(first))
    expect(h.entries.map((e) => e.id)).toEqual(lines.slice(first).map((l) => JSON.parse(l).id))
    const jsonl = await run(state, ['sessions', 'export', DELETED_ID, '--format', 'jsonl'])
    expect(jsonl.stdout).toBe(`${lines.join('\n')}\n`)
    const byKey = json<SessionsLineageResult>(await run(state, ['sessions', 'lineage', DELETED_KEY, '--json']))
    expect(json<SessionsLineageResult>(await run(state, ['sessions', 'lineage', DELETED_ID, '--json']))).toEqual({...byKey, archived: h.archived})
  })

  it('lineage of a deleted session\'s id whose key was made again: the archive comes before the key\'s current session (oldest first, current last)', async () => {
    const state = copyFixture(DELETED_96)
    const s = OpenClawState.open({stateDir: state, ignoreSettings: true})
    const again = 'aaaaaaaa-0000-4000-8000-00000000a9a1'
    // The key comes back (a new session under the same name), written by clawkit's own SQLite writer.
    await s.store('main').update((d) => {
      d[DELETED_KEY] = {sessionId: again, updatedAt: Date.now()}
    })
    s.close()
    const l = json<SessionsLineageResult>(await run(state, ['sessions', 'lineage', DELETED_ID, '--json']))
    expect(l.key).toBe(DELETED_KEY)
    // The key's own windows (an earlier one too) and the deleted archive, by when each ended; the new session last.
    expect(l.sessions.at(-1)).toMatchObject({sessionId: again, ended: 'current'})
    expect(l.sessions.map((x) => x.sessionId)).toContain(DELETED_ID)
    const ends = l.sessions.slice(0, -1).map((x) => x.endedAt!)
    expect(ends.every((e) => typeof e === 'string')).toBe(true)
    expect(ends).toEqual([...ends].sort())
  })

  it('writers never resolve an archived id: reset of it says it is archived and names its key; agent --session-id of an earlier window is refused; the archive rows are unchanged', async () => {
    const rows = rowsOf(native, oldId)
    expect(rows).toEqual({events: expect.any(Number), windows: [{session_key: 'agent:main:main'}]})
    for (const extra of [[], ['--dry-run']]) {
      const r = await run(native, ['sessions', 'reset', oldId, ...extra, '--json'])
      expect(r.code).toBe(1)
      expect(jsonError(r).code).toBe('E_SESSION_ARCHIVED')
      expect(jsonError(r).message).toMatch(new RegExp(`^Session ${oldId} is archived: it was agent:main:main's session until `))
    }
    const turn = await run(native, ['agent', '--session-id', oldId, '-m', 'into the old window?', '--json'])
    expect(turn.code).toBe(1)
    expect(jsonError(turn).code).toBe('E_SQLITE_SESSION_OWNER')
    expect(rowsOf(native, oldId)).toEqual(rows)
    expect(eventsOf(dbPath(native, 'main'), oldId).map((e) => e.text).join('\n')).not.toContain('into the old window?')
    // A deleted session's id: reset finds nothing, and the archive row keeps its bytes.
    const state = copyFixture(DELETED_96)
    const sha = archiveRow(state).sha
    const r = await run(state, ['sessions', 'reset', DELETED_ID, '--json'])
    expect(jsonError(r).code).toBe('E_SESSION_ARCHIVED')
    expect(jsonError(r).message).toMatch(new RegExp(`^Session ${DELETED_ID} is archived: it was \\S+'s session until it was deleted`))
    expect(archiveRow(state).sha).toBe(sha)
  })
})
