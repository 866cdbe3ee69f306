// A deleted session of the SQLite era (session_transcript_archives, store-sqlite.md section 3.8) through the real CLI
// under Node 24, on copies of openclaw-2026.9.6-deleted: a real 2026.9.6 `sessions delete` of agent:main:scratch-1
// (two turns), the key then re-created by one more turn. Expected values are computed here, independently of clawkit:
// events from transcript_events, archives by decoding their blob with node:zlib. Tests titled "synthetic" change the
// real row in the copy to a shape 2026.9.6 did not write in the capture (identity encoding, a damaged blob, a shadow).
import {createHash} from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'

import {expect, it} from 'vitest'

import type {SessionsHistoryResult} from '../../../src/commands/sessions/history.js'
import type {SessionsLineageResult} from '../../../src/commands/sessions/lineage.js'
import type {SessionsSearchResult} from '../../../src/commands/sessions/search.js'
import type {SessionsUsageResult} from '../../../src/commands/sessions/usage.js'
import {baseEnv, copyFixture, json, runCli, tempDir} from '../../support/cli.js'
import {dbPath, eventsOf, openDb} from '../../support/sqlite-expect.js'
import {describeSqlite, DELETED_96} from '../../support/sqlite.js'
import {addUsage, emptySums, type UsageSums} from '../../support/usage-sums.js'

const DELETED_ID = 'ddfebd8b-b803-4493-b99d-22be141b040c'
const RECREATED_ID = 'e55fef6d-6250-4cd2-b420-d358c84625eb'
const KEY = 'agent:main:scratch-1'

function run(state: string, args: string[]) {
  return runCli([...args, '--state-dir', state], {env: baseEnv(tempDir())})
}

/** Every archive row's JSONL, decoded here with node:zlib after checking archive_sha256. */
function archives(state: string): {sessionId: string; key: string; reason: string; createdAt: number; name: string; raw: string[]; lines: any[]}[] {
  const db = openDb(dbPath(state, 'main'))
  try {
    return db.prepare('SELECT * FROM session_transcript_archives ORDER BY created_at').all().map((r) => {
      const blob = Buffer.from(r.archive_blob)
      expect(createHash('sha256').update(blob).digest('hex')).toBe(r.archive_sha256)
      const text = (r.encoding === 'zstd' ? (zlib as any).zstdDecompressSync(blob) : blob).toString('utf8')
      const raw = text.split('\n').filter(Boolean)
      return {sessionId: r.session_id, key: r.session_key, reason: r.reason, createdAt: r.created_at, name: r.archive_name, raw, lines: raw.map((l: string) => JSON.parse(l))}
    })
  } finally {
    db.close()
  }
}

function liveSessionIds(state: string): string[] {
  const db = openDb(dbPath(state, 'main'))
  try {
    return db.prepare('SELECT DISTINCT session_id FROM transcript_events').all().map((r) => r.session_id as string)
  } finally {
    db.close()
  }
}

function totals(lines: any[][]): UsageSums {
  const t = emptySums()
  addUsage(t, lines.flat())
  return t
}

const eventLines = (state: string, id: string) => eventsOf(dbPath(state, 'main'), id).map((e) => JSON.parse(e.text))
const messages = (lines: any[]) => lines.filter((l) => l.type === 'message').length

/** Writes to the copy's database (synthetic cases only). */
function mutate(state: string, sql: string, ...params: unknown[]) {
  const db = openDb(dbPath(state, 'main'), false)
  try {
    db.exec('PRAGMA foreign_keys = ON')
    db.prepare(sql).run(...params)
  } finally {
    db.close()
  }
}

describeSqlite('a deleted session of the SQLite era (session_transcript_archives)', () => {
  it('sessions usage --json: the total is every assistant usage of the events AND of the archive blob; the deleted session is its own row under its key', async () => {
    const state = copyFixture(DELETED_96)
    const arch = archives(state)
    expect(arch.map((a) => [a.sessionId, a.key, a.reason])).toEqual([[DELETED_ID, KEY, 'deleted']])
    const want = totals([...liveSessionIds(state).map((id) => eventLines(state, id)), ...arch.map((a) => a.lines)])
    const fromArchive = totals(arch.map((a) => a.lines))
    expect(fromArchive.calls).toBe(2)
    const u = json<SessionsUsageResult>(await run(state, ['sessions', 'usage', '--json']))
    expect(u.total.calls).toBe(want.calls)
    expect(u.total.input).toBe(want.input)
    expect(u.total.output).toBe(want.output)
    expect(u.total.totalTokens).toBe(want.totalTokens)
    expect(u.total.costUsd).toBeCloseTo(want.cost, 9)
    expect(u.transcripts).toBe(liveSessionIds(state).length + 1)
    const row = u.rows.find((r) => r.sessionId === DELETED_ID)!
    expect(row).toMatchObject({key: KEY, where: 'deleted-archive', calls: 2, input: fromArchive.input, output: fromArchive.output})
    expect(row.costUsd).toBeCloseTo(fromArchive.cost, 9)
    // --by key: the deleted session and the re-created one are one key.
    const byKey = json<SessionsUsageResult>(await run(state, ['sessions', 'usage', '--by', 'key', '--json']))
    const k = byKey.rows.find((r) => r.group === KEY)!
    expect(k.calls).toBe(fromArchive.calls + totals([eventLines(state, RECREATED_ID)]).calls)
    // Without archives only the live sessions count.
    const live = json<SessionsUsageResult>(await run(state, ['sessions', 'usage', '--no-include-archived', '--json']))
    expect(live.total.calls).toBe(want.calls - fromArchive.calls)
  })

  it('sessions lineage of a deleted and re-created key: the archive first (deleted, at the row time, found by the archive row), then the live window', async () => {
    const state = copyFixture(DELETED_96)
    const [a] = archives(state)
    const l = json<SessionsLineageResult>(await run(state, ['sessions', 'lineage', KEY, '--json']))
    expect(l.sessions.map((s) => [s.sessionId, s.where, s.ended, s.foundBy])).toEqual([
      [DELETED_ID, 'deleted-archive', 'deleted', 'archive'],
      [RECREATED_ID, 'window', 'current', 'window'],
    ])
    const [old] = l.sessions
    expect(old.endedAt).toBe(new Date(a.createdAt).toISOString())
    expect(old.transcript).toBe(`${dbPath(state, 'main')}#archive/${a.name}`)
    expect(old.transcriptExists).toBe(true)
    expect(old.messages).toBe(messages(a.lines))
    expect(old.usage.input).toBe(totals([a.lines]).input)
    expect(old.badLines).toBe(0)
  })

  it('sessions lineage of a deleted key that was never re-created: only its archive (the re-created node removed from the copy)', async () => {
    const state = copyFixture(DELETED_96)
    mutate(state, 'DELETE FROM session_nodes WHERE session_key = ?', KEY)
    const r = await run(state, ['sessions', 'lineage', KEY, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json<SessionsLineageResult>(r).sessions.map((s) => [s.sessionId, s.where])).toEqual([[DELETED_ID, 'deleted-archive']])
    // ... and usage still counts it, under its key.
    const u = json<SessionsUsageResult>(await run(state, ['sessions', 'usage', '--json']))
    expect(u.rows.find((x) => x.sessionId === DELETED_ID)).toMatchObject({key: KEY, calls: 2})
  })

  it('sessions history --include-archived: the archive\'s messages before the live ones with a boundary; --limit reads from the end into the archive', async () => {
    const state = copyFixture(DELETED_96)
    const [a] = archives(state)
    const live = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', KEY, '--limit', '1000', '--json']))
    expect(live.sessionId).toBe(RECREATED_ID)
    const h = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', KEY, '--include-archived', '--limit', '1000', '--json']))
    expect(h.sessions!.map((s) => [s.sessionId, s.where, s.ended])).toEqual([
      [DELETED_ID, 'deleted-archive', 'deleted'],
      [RECREATED_ID, 'window', 'current'],
    ])
    const start = h.sessions![1].start
    expect(h.sessions![0].start).toBe(0)
    // The archive's part holds its every message; the live part is what history of the live session alone shows.
    expect(h.entries.slice(0, start).filter((e) => e.type === 'message')).toHaveLength(messages(a.lines))
    expect(h.entries.slice(start)).toEqual(live.entries)
    const archived = JSON.stringify(h.entries.slice(0, start))
    expect(archived).toContain('first question: what is the capital of France?')
    expect(archived).toContain('What is the capital of Italy?')
    // 3 messages from the end: the live session's two and the archive's last one.
    const last = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', KEY, '--include-archived', '--limit', '3', '--json']))
    expect(last.entries.filter((e) => e.type === 'message')).toHaveLength(3)
    expect(last.truncated).toBe(true)
    expect(last.sessions!.map((s) => s.sessionId)).toEqual([DELETED_ID, RECREATED_ID])
    expect(JSON.stringify(last.entries[0])).toContain('echo 2:')
    // --raw: the archive's lines as OpenClaw stored them in the blob.
    const raw = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', KEY, '--include-archived', '--limit', '1000', '--raw', '--json']))
    const isMessage = (l: string) => JSON.parse(l).type === 'message'
    expect(raw.raw!.slice(0, start).filter(isMessage)).toEqual(a.raw.filter(isMessage))
  })

  it('sessions search --include-archived finds the deleted session\'s messages in its archive (scanned: FTS rows leave with it); without the flag only the live one', async () => {
    const state = copyFixture(DELETED_96)
    const all = json<SessionsSearchResult>(await run(state, ['sessions', 'search', 'capital of France', '--include-archived', '--json']))
    const inArchive = all.hits.filter((h) => h.sessionId === DELETED_ID)
    expect(inArchive.length).toBeGreaterThan(0)
    expect(inArchive.every((h) => h.where === 'deleted-archive' && h.key === KEY)).toBe(true)
    // --word with a user role is what the FTS index may answer; an archive has no FTS rows, so it is scanned too.
    const word = json<SessionsSearchResult>(await run(state, ['sessions', 'search', 'France', '--word', '--role', 'user', '--include-archived', '--json']))
    expect(word.hits.some((h) => h.sessionId === DELETED_ID)).toBe(true)
    const live = json<SessionsSearchResult>(await run(state, ['sessions', 'search', 'capital of France', '--json']))
    expect(live.hits.some((h) => h.sessionId === DELETED_ID)).toBe(false)
  })

  it('sessions export --include-archived --format jsonl: the archive\'s lines exactly as the blob holds them, then the live session\'s', async () => {
    const state = copyFixture(DELETED_96)
    const [a] = archives(state)
    const r = await run(state, ['sessions', 'export', KEY, '--include-archived', '--format', 'jsonl'])
    expect(r.code, r.stderr).toBe(0)
    const out = r.stdout.split('\n').filter(Boolean)
    expect(out.slice(0, a.raw.length)).toEqual(a.raw)
    expect(JSON.parse(out[a.raw.length])).toMatchObject({type: 'session', id: RECREATED_ID})
  })

  it('the published archive file duplicates its row and is not counted again', async () => {
    const state = copyFixture(DELETED_96)
    const [a] = archives(state)
    const file = path.join(state, 'agents', 'main', 'sessions', a.name)
    const db = openDb(dbPath(state, 'main'))
    const blob = Buffer.from(db.prepare('SELECT archive_blob FROM session_transcript_archives').get()!.archive_blob)
    db.close()
    expect(fs.readFileSync(file).equals(blob)).toBe(true)
    const u = json<SessionsUsageResult>(await run(state, ['sessions', 'usage', '--json']))
    expect(u.rows.filter((r) => r.sessionId === DELETED_ID)).toHaveLength(1)
  })

  it('synthetic: an identity-encoded archive row (no zstd runtime) reads the same', async () => {
    const state = copyFixture(DELETED_96)
    const [a] = archives(state)
    const text = Buffer.from(a.lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    mutate(state, "UPDATE session_transcript_archives SET encoding = 'identity', archive_blob = ?, archive_sha256 = ?", text, createHash('sha256').update(text).digest('hex'))
    const l = json<SessionsLineageResult>(await run(state, ['sessions', 'lineage', KEY, '--json']))
    expect(l.sessions[0]).toMatchObject({sessionId: DELETED_ID, messages: messages(a.lines), badLines: 0})
    expect(l.sessions[0].usage.input).toBe(totals([a.lines]).input)
  })

  it('synthetic: a blob that does not match archive_sha256 is one bad line, not a crash, and counts nothing', async () => {
    const state = copyFixture(DELETED_96)
    mutate(state, 'UPDATE session_transcript_archives SET archive_sha256 = ?', '0'.repeat(64))
    const l = await run(state, ['sessions', 'lineage', KEY, '--json'])
    expect(l.code, l.stderr).toBe(0)
    expect(json<SessionsLineageResult>(l).sessions[0]).toMatchObject({sessionId: DELETED_ID, messages: 0, badLines: 1})
    const u = json<SessionsUsageResult>(await run(state, ['sessions', 'usage', '--json']))
    expect(u.badLines).toBe(1)
    expect(u.rows.find((r) => r.sessionId === DELETED_ID)).toBeUndefined()
  })

  it('synthetic: an archive row whose session still has a window is shadowed by it (never counted twice)', async () => {
    const state = copyFixture(DELETED_96)
    const before = json<SessionsUsageResult>(await run(state, ['sessions', 'usage', '--no-include-archived', '--json']))
    mutate(state, 'UPDATE session_transcript_archives SET session_id = ?', RECREATED_ID)
    const u = json<SessionsUsageResult>(await run(state, ['sessions', 'usage', '--json']))
    expect(u.total.calls).toBe(before.total.calls)
    expect(u.rows.filter((r) => r.sessionId === RECREATED_ID)).toHaveLength(1)
  })
})
