// Issue 29's concurrency acceptance, SQLite era (OpenClaw 2026.9.6): `sessions cleanup --yes` archiving and deleting
// many old sessions while `clawkit agent -m` turns go to live keys (new ones, recent ones, main) and another process
// takes the database's write lock again and again (BEGIN IMMEDIATE, as OpenClaw's maintenance does). Every printed
// reply is stored once after its message, no recent session is archived or deleted, the plan is applied, the database
// is intact, and `clawkit undo` gives back every row the cleanup changed while keeping the turns' rows.
import {spawn} from 'node:child_process'
import path from 'node:path'

import {afterEach, expect, it} from 'vitest'

import type {AgentRunResult} from '../../src/agent/output.js'
import type {SessionsCleanupResult} from '../../src/sessions/cleanup.js'
import {baseEnv, type CliOutput, cliWith, json, ROOT, startCli, tempDir, waitUntil} from '../support/cli.js'
import {MIXED, mixedSqliteStore} from '../support/cleanup-store.js'
import {useServers} from '../support/servers.js'
import {describeSqlite, mockedStateCopy, NATIVE_96} from '../support/sqlite.js'
import {dbPath, openDb} from '../support/sqlite-expect.js'
import {stateRows} from '../support/state-hash.js'

// Each reply takes 1.5 s, so the turns are still in their model call (message stored, reply not yet) when the cleanup starts.
const servers = useServers({mock: {delayMs: 1500}})
const WORKER = path.join(ROOT, 'test', 'support', 'sqlite-write-worker.mjs')

const children: {kill(): void}[] = []
afterEach(() => {
  for (const c of children.splice(0)) c.kill()
})

/** Keys of four kinds, 1..40 days old: explicit ones are archived by age, cron runs, subagents and hooks removed. */
const KINDS = ['explicit', 'cron', 'subagent', 'hook'] as const
function genKey(i: number): string {
  const kind = KINDS[i % 4]
  return kind === 'cron' ? `agent:main:cron:job${i}:run:r${i}` : `agent:main:${kind}:gen-${i}`
}
const GEN = Array.from({length: 40}, (_, i) => ({key: genKey(i), ageDays: 1 + i}))
const OLDER_THAN = ['--older-than', '10d']

/**
 * OpenClaw's maintenance as another process: the write lock taken for `ms` again and again until `stop`; resolves once
 * it first holds it. So it holds the lock on and off for the whole of whatever runs until then, whatever the machine's speed.
 */
async function lockHolder(db: string, ms: number): Promise<{stop(): Promise<number | null>}> {
  const child = spawn(process.execPath, [WORKER, 'holds', db, '0', String(ms)], {stdio: ['pipe', 'pipe', 'inherit']})
  children.push({kill: () => child.kill('SIGKILL')})
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d) => (out += d))
  const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  await waitUntil(() => out.includes('inside'), 'the lock holder to begin its first transaction', 60_000)
  return {
    stop: () => {
      child.stdin.end()
      return done
    },
  }
}

async function world() {
  const state = mockedStateCopy(NATIVE_96, servers.mock.url)
  const db = dbPath(state, 'main')
  await mixedSqliteStore(db, Date.now(), GEN.length, genKey)
  const env = baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key'})
  const cli = cliWith(['--state-dir', state], {env, timeoutMs: 240_000})
  const turn = (key: string, text: string) => {
    const c = startCli(['agent', '--session-key', key, '-m', text, '--json', '--state-dir', state], {env, timeoutMs: 240_000})
    children.push({kill: () => c.kill('SIGKILL')})
    return c
  }
  return {state, db, cli, turn}
}

function query<T>(db: string, fn: (d: ReturnType<typeof openDb>) => T): T {
  const d = openDb(db)
  try {
    return fn(d)
  } finally {
    d.close()
  }
}

/** The messages of a key's current session, in seq order, as `role: text`; and its session id. */
function messagesOf(db: string, key: string): {sessionId: string; texts: string[]} {
  return query(db, (d) => {
    const sessionId = String(d.prepare('SELECT current_session_id AS s FROM session_nodes WHERE session_key = ?').get(key)?.s)
    const texts = d
      .prepare('SELECT event_json FROM transcript_events WHERE session_id = ? ORDER BY seq')
      .all(sessionId)
      .map((r) => JSON.parse(String(r.event_json)))
      .filter((e) => e.type === 'message')
      .map((e) => {
        const c = e.message?.content
        return `${e.message?.role}: ${typeof c === 'string' ? c : Array.isArray(c) ? c.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('') : ''}`
      })
    return {sessionId, texts}
  })
}

/**
 * The turn's message is stored once and its reply right after it. (A generated session ends with a user message, so
 * the mock, which echoes the user texts it got in a row, answers that one and the turn's: the reply ends with the text.)
 */
function expectTurnStored(db: string, key: string, text: string): string {
  const {sessionId, texts} = messagesOf(db, key)
  expect(texts.filter((t) => t === `user: ${text}`), `${key}: its message, once`).toHaveLength(1)
  const reply = texts[texts.indexOf(`user: ${text}`) + 1] ?? ''
  expect(reply.startsWith('assistant: Echo: ') && reply.endsWith(text), `${key}: the reply follows its message: ${reply}`).toBe(true)
  return sessionId
}

/** A key's node, or undefined: its archived_at and the entry's archive fields. */
function nodeOf(db: string, key: string): {archivedAt: unknown; entry: Record<string, unknown>} | undefined {
  return query(db, (d) => {
    const r = d.prepare('SELECT archived_at, entry_json FROM session_nodes WHERE session_key = ?').get(key)
    return r ? {archivedAt: r.archived_at, entry: JSON.parse(String(r.entry_json))} : undefined
  })
}

const replyOf = (r: CliOutput) => json<AgentRunResult>(r).payloads.map((p) => p.text).join('')

/** FTS row ids: an undo gives a row whose id another session's row took since a new one (docs/journal.md). */
const FTS_ID: Record<string, string> = {session_transcript_fts_rows: 'id', session_transcript_fts: 'rowid'}

/**
 * Rows of every table (`stateRows`, or the rows given), without those that name one of `marks` (a key or session id the
 * turns wrote), and the FTS tables' rows without their ids.
 */
function rowsWithout(state: string | Record<string, string[]>, marks: string[]): Record<string, string[]> {
  const all = typeof state === 'string' ? Object.values(stateRows(state))[0] : state
  const out: Record<string, string[]> = {}
  for (const [t, rows] of Object.entries(all)) {
    const kept = rows.filter((r) => !marks.some((m) => r.includes(m)))
    out[t] = FTS_ID[t] ? kept.map((r) => JSON.stringify((JSON.parse(r) as [string, unknown][]).filter(([k]) => k !== FTS_ID[t]))).sort() : kept
  }
  return out
}

describeSqlite('sessions cleanup beside turns and another writer (SQLite era)', () => {
  it('5 turns (main, 2 recent keys, 2 new keys) and a lock holder beside cleanup --yes: every reply stored once, no recent session touched, the plan applied, undo gives the rows back', {timeout: 300_000}, async () => {
    const w = await world()
    const plan = json<SessionsCleanupResult>(await w.cli(['sessions', 'cleanup', ...OLDER_THAN, '--json'])).stores[0]
    const archives = plan.changes.filter((c) => c.archiveReason)
    const removals = plan.changes.filter((c) => !c.archiveReason)
    // Many of each: the old explicit keys archived, the old cron runs, subagents and hooks removed.
    expect(archives.length).toBeGreaterThanOrEqual(8)
    expect(removals.length).toBeGreaterThanOrEqual(20)
    const recent = [...MIXED, ...GEN].filter((k) => k.ageDays < 10).map((k) => k.key)
    for (const k of recent) expect(plan.changes.map((c) => c.key), k).not.toContain(k)
    const rowsBefore = stateRows(w.state)

    const turns = [
      {key: 'agent:main:main', text: 'turn on main'},
      {key: genKey(0), text: 'turn on a day-old key'},
      {key: genKey(4), text: 'turn on a 5-day-old key'},
      {key: 'agent:main:explicit:live-new-0', text: 'turn on a new key 0'},
      {key: 'agent:main:explicit:live-new-1', text: 'turn on a new key 1'},
    ]
    const sent = servers.mock.messageRequests().length
    const running = turns.map((t) => w.turn(t.key, t.text))
    // The cleanup and the lock holder start once a turn is in its model call (its message stored, its reply not).
    await waitUntil(() => servers.mock.messageRequests().length > sent, 'a turn to call the model', 60_000)
    const holder = await lockHolder(w.db, 200)
    const cleanup = await w.cli(['sessions', 'cleanup', ...OLDER_THAN, '--yes', '--json'])
    const results = await Promise.all(running.map((r) => r.exited))
    expect(await holder.stop()).toBe(0)
    expect(cleanup.code, cleanup.stdout + cleanup.stderr).toBe(0)
    const applied = json<SessionsCleanupResult>(cleanup)
    expect(applied.stores[0].changes.map((c) => c.key)).toEqual(plan.changes.map((c) => c.key))
    expect(applied.stores[0].skipped).toEqual([])

    const turnIds: string[] = []
    turns.forEach((t, i) => {
      const r = results[i]
      expect(r.code, `${t.key}: ${r.stdout}${r.stderr}`).toBe(0)
      expect(replyOf(r).endsWith(t.text), replyOf(r)).toBe(true)
      turnIds.push(expectTurnStored(w.db, t.key, t.text))
    })
    // No recent session (nor a turn's) was archived or removed.
    for (const k of [...recent, ...turns.map((t) => t.key)]) {
      const n = nodeOf(w.db, k)
      expect(n, `${k} is live`).toBeDefined()
      expect(n!.archivedAt, k).toBeNull()
      expect(n!.entry.archivedAt, k).toBeUndefined()
    }
    // The plan was applied: archives marked with their reason, removals gone and kept as archive rows.
    for (const c of archives) expect(nodeOf(w.db, c.key)?.entry.archiveReason, c.key).toBe(c.archiveReason)
    const archived = query(w.db, (d) => d.prepare("SELECT session_key AS k FROM session_transcript_archives WHERE reason = 'deleted'").all().map((r) => String(r.k)))
    for (const c of removals) {
      expect(nodeOf(w.db, c.key), c.key).toBeUndefined()
      expect(archived, c.key).toContain(c.key)
    }
    expect(query(w.db, (d) => d.prepare('PRAGMA integrity_check').get()?.integrity_check)).toBe('ok')

    // undo: every row as it was, but for the turns' keys and sessions, which keep what the turns wrote.
    const undo = await w.cli(['undo', '--json'])
    expect(undo.code, undo.stdout + undo.stderr).toBe(0)
    const marks = [...turns.map((t) => t.key), ...turnIds]
    expect(rowsWithout(w.state, marks)).toEqual(rowsWithout(Object.values(rowsBefore)[0], marks))
    turns.forEach((t) => expectTurnStored(w.db, t.key, t.text))
    expect(query(w.db, (d) => d.prepare('PRAGMA integrity_check').get()?.integrity_check)).toBe('ok')
  })

  it('a turn on a new key after the cleanup deleted the newest-written sessions: undo still gives every row back and keeps the turn', {timeout: 120_000}, async () => {
    const w = await world()
    const rowsBefore = Object.values(stateRows(w.state))[0]
    expect((await w.cli(['sessions', 'cleanup', ...OLDER_THAN, '--yes', '--json'])).code).toBe(0)
    // The last sessions written (hooks and cron runs 37-40 days old, the highest FTS row ids) are among those removed.
    expect(nodeOf(w.db, genKey(39))).toBeUndefined()
    const r = await w.turn('agent:main:explicit:after', 'after the cleanup').exited
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const sid = expectTurnStored(w.db, 'agent:main:explicit:after', 'after the cleanup')
    const undo = await w.cli(['undo', '--json'])
    expect(undo.code, undo.stdout + undo.stderr).toBe(0)
    const marks = ['agent:main:explicit:after', sid]
    expect(rowsWithout(w.state, marks)).toEqual(rowsWithout(rowsBefore, marks))
    // The undo of the undo (the FTS rows now under new ids): the cleanup again, the turn kept; and back once more.
    const undoId = json<{journal: string}>(undo).journal
    const redo = await w.cli(['undo', undoId, '--json'])
    expect(redo.code, redo.stdout + redo.stderr).toBe(0)
    expect(nodeOf(w.db, genKey(39))).toBeUndefined()
    expectTurnStored(w.db, 'agent:main:explicit:after', 'after the cleanup')
    const again = await w.cli(['undo', json<{journal: string}>(redo).journal, '--json'])
    expect(again.code, again.stdout + again.stderr).toBe(0)
    expect(rowsWithout(w.state, marks)).toEqual(rowsWithout(rowsBefore, marks))
    expect(query(w.db, (d) => d.prepare('PRAGMA integrity_check').get()?.integrity_check)).toBe('ok')
    expectTurnStored(w.db, 'agent:main:explicit:after', 'after the cleanup')
  })

  it('a turn in its model call on a session the plan archives or removes: the turn is stored and its session stays live', {timeout: 120_000}, async () => {
    const w = await world()
    const plan = json<SessionsCleanupResult>(await w.cli(['sessions', 'cleanup', ...OLDER_THAN, '--json'])).stores[0]
    const toArchive = genKey(36)
    const toRemove = genKey(39)
    expect(plan.changes.find((c) => c.key === toArchive)?.archiveReason).toBeTruthy()
    expect(plan.changes.find((c) => c.key === toRemove)?.archiveReason).toBeNull()
    const sent = servers.mock.messageRequests().length
    const a = w.turn(toArchive, 'revives an old key')
    const b = w.turn(toRemove, 'revives an old hook')
    await waitUntil(() => servers.mock.messageRequests().length >= sent + 2, 'both turns to call the model', 60_000)
    const cleanup = await w.cli(['sessions', 'cleanup', ...OLDER_THAN, '--yes', '--json'])
    const [ra, rb] = await Promise.all([a.exited, b.exited])
    expect(ra.code, ra.stdout + ra.stderr).toBe(0)
    expect(rb.code, rb.stdout + rb.stderr).toBe(0)
    expect(cleanup.code, cleanup.stdout + cleanup.stderr).toBe(0)
    expectTurnStored(w.db, toArchive, 'revives an old key')
    expectTurnStored(w.db, toRemove, 'revives an old hook')
    for (const k of [toArchive, toRemove]) {
      const n = nodeOf(w.db, k)
      expect(n, `${k} is live`).toBeDefined()
      expect(n!.entry.archivedAt, k).toBeUndefined()
    }
    // The cleanup says what it left alone and why; the rest of its plan it applied.
    const applied = json<SessionsCleanupResult>(cleanup).stores[0]
    expect(applied.skipped).toEqual([
      {key: toArchive, action: 'archive-age', why: 'active'},
      {key: toRemove, action: 'prune-stale', why: 'active'},
    ])
    for (const c of plan.changes.filter((x) => x.key !== toArchive && x.key !== toRemove)) {
      if (c.archiveReason) expect(nodeOf(w.db, c.key)?.entry.archiveReason, c.key).toBe(c.archiveReason)
      else expect(nodeOf(w.db, c.key), c.key).toBeUndefined()
    }
    // undo of that cleanup leaves the two turns where they are.
    expect((await w.cli(['undo', '--json'])).code).toBe(0)
    expectTurnStored(w.db, toArchive, 'revives an old key')
    expectTurnStored(w.db, toRemove, 'revives an old hook')
  })
})
