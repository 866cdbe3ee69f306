// clawkit's SQLite-era write primitives (src/store/sqlite/write.ts) on copies of OpenClaw 2026.9.6's own databases:
// the rows written are the ones store-sqlite.md §3-§6 says OpenClaw writes, and concurrent writers and a kill -9
// inside a transaction lose nothing. The proof against a real OpenClaw is test/reliability/interop-sqlite-write.test.ts.
import {type ChildProcess, spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, expect, it} from 'vitest'

import {openAgentDb, type OpenedDb, type SqlDatabase} from '../../../src/store/sqlite/driver.js'
import * as w from '../../../src/store/sqlite/write.js'
import {copyFixture, ROOT, tempDir} from '../../support/cli.js'
import {describeSqlite, IMPORTED_96, NATIVE_96} from '../../support/sqlite.js'

const EXPLICIT = 'c0ffee00-0000-4000-8000-000000000096'
const WORKER = path.join(ROOT, 'test', 'support', 'sqlite-write-worker.mjs')
const opened: OpenedDb[] = []
const children: ChildProcess[] = []
afterEach(() => {
  for (const h of opened.splice(0)) if (h.db.isOpen) h.db.close()
  for (const c of children.splice(0)) c.kill('SIGKILL')
})

function dbOf(state: string, agent = 'main'): string {
  return path.join(state, 'agents', agent, 'agent', 'openclaw-agent.sqlite')
}

function open(state: string, agent = 'main'): OpenedDb {
  const h = openAgentDb(dbOf(state, agent), {write: true, agentId: agent})
  opened.push(h)
  return h
}

const all = (db: SqlDatabase, sql: string, ...p: (string | number)[]) => db.prepare(sql).all(...p)
const one = (db: SqlDatabase, sql: string, ...p: (string | number)[]) => db.prepare(sql).get(...p) as Record<string, any>

/** What §5.5 says a writer never changes: the schema, user_version, schema_meta and the key contract. */
function untouchables(db: SqlDatabase): string {
  return JSON.stringify([all(db, 'SELECT type, name, sql FROM sqlite_master ORDER BY name'), all(db, 'PRAGMA user_version'), all(db, 'SELECT * FROM schema_meta'), all(db, 'SELECT * FROM session_key_contract')])
}

const user = (text: string, extra: Record<string, unknown> = {}) => ({type: 'message', message: {role: 'user', content: text, timestamp: 1_795_700_000_000, ...extra}})
const assistant = (text: string) => ({type: 'message', message: {role: 'assistant', content: [{type: 'text', text}, {type: 'thinking', thinking: 'hidden'}], api: 'anthropic-messages', provider: 'mockant', model: 'claude-mock', stopReason: 'stop', timestamp: 1_795_700_000_001}})

function worker(args: string[]): Promise<{code: number | null; stdout: string}> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [WORKER, ...args], {stdio: ['ignore', 'pipe', 'inherit']})
    children.push(c)
    let stdout = ''
    c.stdout.setEncoding('utf8').on('data', (d) => (stdout += d))
    c.on('error', reject)
    c.on('close', (code) => resolve({code, stdout}))
  })
}

describeSqlite('SQLite-era writes (store-sqlite.md §3-§6)', () => {
  it('writeEntry: node projections exactly as bindSessionNode (trimmed, empty and non-finite to NULL), entry_valid 1 again after the trigger, entry_json without locators, window as bindSessionRoot', () => {
    const state = copyFixture(NATIVE_96)
    const h = open(state)
    const schema = untouchables(h.db)
    const entry = {
      sessionId: 'e0e0e0e0-0000-4000-8000-000000000001',
      updatedAt: 1_795_700_000_500,
      sessionStartedAt: 1_795_700_000_100,
      sessionFile: '/somewhere/e0.jsonl',
      transcriptPath: '/somewhere/else.jsonl',
      owner: {type: 'human', id: 'x'},
      label: '  spaced label  ',
      displayName: '   ',
      status: 'interrupted',
      chatType: 'group',
      createdAt: 1_795_700_000_000.7,
      createdVia: 'operator',
      createdActor: {type: 'human', id: ' ops '},
      spawnedBy: 'agent:main:main',
      forkSource: {sessionKey: 'agent:main:main', sessionId: '43eeabd1-7609-4067-b31f-fda50759fe26', entryId: ''},
      pinnedAt: Number.NaN,
      lastInteractionAt: 1_795_700_000_400,
      previousSessionId: ' 43eeabd1-7609-4067-b31f-fda50759fe26 ',
      model: 'claude-mock',
      modelProvider: ' mockant ',
      delivery: {kind: 'external', context: {channel: 'telegram', accountId: ' acc1 '}, origin: {provider: 'telegram'}},
      skillsSnapshot: {prompt: 'p', resolvedSkills: [{name: 'x'}]},
      unknownField: {kept: true},
    }
    const persisted = w.writeEntry(h, {agentId: 'main', key: 'agent:main:clawkit:proj', entry: entry as never})
    const node = one(h.db, 'SELECT * FROM session_nodes WHERE session_key = ?', 'agent:main:clawkit:proj')
    expect(node).toMatchObject({
      current_session_id: entry.sessionId,
      entry_valid: 1,
      updated_at: entry.updatedAt,
      status: 'failed',
      created_at: 1_795_700_000_000,
      created_via: 'operator',
      created_actor_type: 'human',
      created_actor_id: 'ops',
      parent_session_key: 'agent:main:main',
      spawned_by: 'agent:main:main',
      fork_source_session_key: 'agent:main:main',
      fork_source_entry_id: null,
      label: 'spaced label',
      display_name: null,
      pinned_at: null,
      last_interaction_at: 1_795_700_000_400,
      last_activity_at: null,
      owner_actor_type: null,
    })
    const stored = JSON.parse(node.entry_json)
    expect(node.entry_json).toBe(JSON.stringify(stored))
    expect(stored).not.toHaveProperty('sessionFile')
    expect(stored).not.toHaveProperty('transcriptPath')
    expect(stored).not.toHaveProperty('owner')
    expect(stored.skillsSnapshot).toEqual({prompt: 'p'})
    expect(stored).toMatchObject({sessionId: entry.sessionId, updatedAt: entry.updatedAt, unknownField: {kept: true}, label: '  spaced label  '})
    expect(persisted).toEqual(stored)
    expect(one(h.db, 'SELECT * FROM session_windows WHERE session_id = ?', entry.sessionId)).toMatchObject({
      session_key: 'agent:main:clawkit:proj',
      previous_session_id: '43eeabd1-7609-4067-b31f-fda50759fe26',
      reason: null,
      session_scope: 'group',
      created_at: entry.sessionStartedAt,
      updated_at: entry.updatedAt,
      transcript_updated_at: null,
      transcript_observed_at: entry.updatedAt,
      session_entry_provenance: 1,
      chat_type: 'group',
      channel: 'telegram',
      account_id: 'acc1',
      model_provider: 'mockant',
      display_name: 'spaced label',
      primary_conversation_id: null,
    })
    // A second write of the same entry keeps the window's birth (created_at) and stays valid.
    w.writeEntry(h, {agentId: 'main', key: 'agent:main:clawkit:proj', entry: {...entry, updatedAt: entry.updatedAt + 5, sessionStartedAt: 1} as never})
    expect(one(h.db, 'SELECT created_at, updated_at FROM session_windows WHERE session_id = ?', entry.sessionId)).toEqual({created_at: entry.sessionStartedAt, updated_at: entry.updatedAt + 5})
    expect(one(h.db, 'SELECT entry_valid FROM session_nodes WHERE session_key = ?', 'agent:main:clawkit:proj').entry_valid).toBe(1)
    // The trigger's pending marker is left (OpenClaw clears it on its next write); nothing in §5.5 changed.
    expect(all(h.db, 'SELECT session_key FROM session_canonical_validation_pending')).toEqual([{session_key: 'agent:main:clawkit:proj'}])
    expect(untouchables(h.db)).toBe(schema)
  })

  it('writeEntry refuses a non-canonical key, a fractional updatedAt, an unsafe sessionId and another key\'s sessionId; update refuses a deletion; nothing is written', () => {
    const h = open(copyFixture(NATIVE_96))
    const before = JSON.stringify(all(h.db, 'SELECT * FROM session_nodes'))
    const ok = {sessionId: 'f0f0f0f0-0000-4000-8000-000000000001', updatedAt: 1_795_700_000_000}
    expect(() => w.writeEntry(h, {agentId: 'main', key: 'agent:main:Clawkit:X', entry: ok})).toThrow(expect.objectContaining({code: 'E_SQLITE_KEY'}))
    expect(() => w.writeEntry(h, {agentId: 'main', key: 'agent:work:x', entry: ok})).toThrow(expect.objectContaining({code: 'E_SQLITE_KEY'}))
    expect(() => w.writeEntry(h, {agentId: 'main', key: 'agent:main:x', entry: {...ok, updatedAt: 1.5}})).toThrow(expect.objectContaining({code: 'E_SQLITE_ENTRY'}))
    expect(() => w.writeEntry(h, {agentId: 'main', key: 'agent:main:x', entry: {...ok, sessionId: '../etc'}})).toThrow(expect.objectContaining({code: 'E_SQLITE_SESSION_ID'}))
    expect(() => w.writeEntry(h, {agentId: 'main', key: 'agent:main:x', entry: {...ok, sessionId: EXPLICIT}})).toThrow(expect.objectContaining({code: 'E_SQLITE_SESSION_OWNER'}))
    h.db.exec('BEGIN IMMEDIATE')
    const data = w.readEntriesTx(h.db)
    expect(Object.keys(data).sort()).toEqual(['agent:main:explicit:c0ffee00-0000-4000-8000-000000000096', 'agent:main:main'])
    const next = structuredClone(data)
    delete next['agent:main:main']
    expect(() => w.writeEntryChangesTx(h.db, 'main', data, next)).toThrow(expect.objectContaining({code: 'E_SQLITE_DELETE'}))
    h.db.exec('ROLLBACK')
    expect(JSON.stringify(all(h.db, 'SELECT * FROM session_nodes'))).toBe(before)
  })

  it('update\'s write half: only the keys whose entry changed are written, inside one immediateAsync transaction that an error rolls back whole', async () => {
    const h = open(copyFixture(NATIVE_96))
    const explicitRow = JSON.stringify(one(h.db, 'SELECT * FROM session_nodes WHERE session_key = ?', `agent:main:explicit:${EXPLICIT}`))
    const written = await w.immediateAsync(h, async () => {
      const before = w.readEntriesTx(h.db)
      const after = structuredClone(before)
      await new Promise((resolve) => setTimeout(resolve, 10))
      after['agent:main:main'].label = 'renamed'
      after['agent:main:main'].updatedAt += 1
      return w.writeEntryChangesTx(h.db, 'main', before, after)
    })
    expect(written).toEqual(['agent:main:main'])
    expect(one(h.db, 'SELECT label, entry_valid FROM session_nodes WHERE session_key = ?', 'agent:main:main')).toEqual({label: 'renamed', entry_valid: 1})
    expect(JSON.stringify(one(h.db, 'SELECT * FROM session_nodes WHERE session_key = ?', `agent:main:explicit:${EXPLICIT}`))).toBe(explicitRow)
    expect(all(h.db, 'SELECT session_key FROM session_canonical_validation_pending')).toEqual([{session_key: 'agent:main:main'}])
    const mainRow = JSON.stringify(one(h.db, 'SELECT * FROM session_nodes WHERE session_key = ?', 'agent:main:main'))
    await expect(
      w.immediateAsync(h, async () => {
        const before = w.readEntriesTx(h.db)
        const after = structuredClone(before)
        after['agent:main:main'].label = 'never'
        w.writeEntryChangesTx(h.db, 'main', before, after)
        w.appendEventsTx(h.db, EXPLICIT, [{type: 'message', id: 'x1', parentId: null, message: {role: 'user', content: 'x'}}])
        throw new Error('the turn failed')
      }),
    ).rejects.toMatchObject({message: 'the turn failed'})
    expect(h.db.isTransaction).toBe(false)
    expect(JSON.stringify(one(h.db, 'SELECT * FROM session_nodes WHERE session_key = ?', 'agent:main:main'))).toBe(mainRow)
    expect(one(h.db, 'SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?', EXPLICIT).m).toBe(6)
  })

  it('newSession: header version 4 at seq 0 with id = sessionId, identity rows per event (idempotency key), one 32-hex watermark, the forward projection with active rows and FTS rows at rowid = last_insert_rowid', () => {
    const state = copyFixture(NATIVE_96)
    const h = open(state)
    const schema = untouchables(h.db)
    const now = new Date(1_795_700_001_000)
    const r = w.newSession(h, {agentId: 'main', key: 'agent:main:clawkit:n1', cwd: '/work', now, entry: {model: 'claude-mock', modelProvider: 'mockant'}, items: [user('hello sqlite', {idempotencyKey: 'k-1:user'}), assistant('hi there'), {type: 'custom', customType: 'model-snapshot', data: {x: 1}}]})
    const sid = r.sessionId
    expect(one(h.db, 'SELECT entry_json, entry_valid, updated_at FROM session_nodes WHERE session_key = ?', 'agent:main:clawkit:n1')).toEqual({
      entry_json: JSON.stringify({model: 'claude-mock', modelProvider: 'mockant', sessionId: sid, updatedAt: now.getTime(), sessionStartedAt: now.getTime(), lastInteractionAt: now.getTime(), lastActivityAt: now.getTime(), delivery: {kind: 'none'}}),
      entry_valid: 1,
      updated_at: now.getTime(),
    })
    const rows = all(h.db, 'SELECT seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json FROM transcript_events WHERE session_id = ? ORDER BY seq', sid)
    expect(rows.map((x) => x.seq)).toEqual([0, 1, 2, 3])
    const evs = rows.map((x) => JSON.parse(String(x.event_json)))
    expect(evs[0]).toEqual({type: 'session', version: 4, id: sid, timestamp: now.toISOString(), cwd: '/work'})
    expect(evs[1]).toMatchObject({type: 'message', parentId: null, timestamp: now.toISOString()})
    expect(evs[2].parentId).toBe(evs[1].id)
    expect(Object.keys(evs[3]).slice(0, 5)).toEqual(['type', 'customType', 'data', 'id', 'parentId'])
    for (const [i, row] of rows.entries()) {
      expect(row).toMatchObject({event_zstd: null, navigation_json: null, event_utf8_bytes: Buffer.byteLength(String(row.event_json)), created_at: now.getTime()})
      expect(evs[i].id).toMatch(i === 0 ? sid : /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    }
    expect(all(h.db, 'SELECT event_id, seq, event_type, parent_id, message_idempotency_key, created_at FROM transcript_event_identities WHERE session_id = ? ORDER BY seq', sid)).toEqual([
      {event_id: sid, seq: 0, event_type: 'session', parent_id: null, message_idempotency_key: null, created_at: now.getTime()},
      {event_id: evs[1].id, seq: 1, event_type: 'message', parent_id: null, message_idempotency_key: 'k-1:user', created_at: now.getTime()},
      {event_id: evs[2].id, seq: 2, event_type: 'message', parent_id: evs[1].id, message_idempotency_key: null, created_at: now.getTime()},
      {event_id: evs[3].id, seq: 3, event_type: 'custom', parent_id: evs[2].id, message_idempotency_key: null, created_at: now.getTime()},
    ])
    expect(one(h.db, 'SELECT generation FROM transcript_rewrite_watermarks WHERE session_id = ?', sid).generation).toMatch(/^[0-9a-f]{32}$/)
    expect(one(h.db, 'SELECT * FROM session_transcript_index_state WHERE session_id = ?', sid)).toEqual({session_id: sid, indexed_seq: 3, leaf_event_id: evs[3].id, needs_rebuild: 0, active_event_count: 3, active_message_count: 2, updated_at: now.getTime()})
    expect(all(h.db, 'SELECT active_position, event_seq, message_position, context_eligible FROM session_transcript_active_events WHERE session_id = ? ORDER BY active_position', sid)).toEqual([
      {active_position: 0, event_seq: 1, message_position: 0, context_eligible: 1},
      {active_position: 1, event_seq: 2, message_position: 1, context_eligible: 1},
      {active_position: 2, event_seq: 3, message_position: null, context_eligible: 1},
    ])
    const fts = all(h.db, 'SELECT r.id, r.message_id, f.rowid AS frow, f.text, f.role, f.timestamp, typeof(f.timestamp) AS tt, f.session_id FROM session_transcript_fts_rows r JOIN session_transcript_fts f ON f.rowid = r.id WHERE r.session_id = ? ORDER BY r.id', sid)
    expect(fts.map(({id, frow, ...rest}) => ({same: id === frow, ...rest}))).toEqual([
      {same: true, message_id: evs[1].id, text: 'hello sqlite', role: 'user', timestamp: now.getTime(), tt: 'real', session_id: sid},
      {same: true, message_id: evs[2].id, text: 'hi there', role: 'assistant', timestamp: now.getTime(), tt: 'real', session_id: sid},
    ])
    expect(all(h.db, "SELECT message_id FROM session_transcript_fts WHERE session_transcript_fts MATCH 'sqlite'")).toEqual([{message_id: evs[1].id}])
    expect(one(h.db, 'SELECT * FROM session_windows WHERE session_id = ?', sid)).toMatchObject({created_at: now.getTime(), updated_at: now.getTime(), transcript_observed_at: now.getTime(), transcript_updated_at: now.getTime() + 1, previous_session_id: null, session_scope: 'conversation'})
    expect(w.currentLeaf(h.db, sid)).toBe(evs[3].id)
    expect(w.findIdempotencyKey(h.db, sid, 'k-1:user')).toEqual({entryId: evs[1].id})
    expect(w.findIdempotencyKey(h.db, sid, 'nope')).toBeUndefined()
    expect(() => w.newSession(h, {agentId: 'main', key: 'agent:main:clawkit:n1', cwd: '/w'})).toThrow(expect.objectContaining({code: 'E_SESSION_EXISTS'}))
    expect(untouchables(h.db)).toBe(schema)
  })

  it('append to an imported session with zstd events: seq continues at max+1, parent = the index leaf, projection extended, window clocks advanced, a duplicate idempotency key stored as NULL', () => {
    const state = copyFixture(IMPORTED_96)
    const h = open(state)
    const sid = '0caed29d-8df6-4457-a9cd-00bb9d2b22e3'
    const win0 = one(h.db, 'SELECT * FROM session_windows WHERE session_id = ?', sid)
    const state0 = one(h.db, 'SELECT * FROM session_transcript_index_state WHERE session_id = ?', sid)
    const fts0 = one(h.db, 'SELECT count(*) AS n FROM session_transcript_fts_rows WHERE session_id = ?', sid).n
    const gen0 = one(h.db, 'SELECT * FROM transcript_rewrite_watermarks WHERE session_id = ?', sid)
    const existingKey = one(h.db, 'SELECT message_idempotency_key AS k FROM transcript_event_identities WHERE session_id = ? AND message_idempotency_key IS NOT NULL LIMIT 1', sid)?.k
    expect(w.currentLeaf(h.db, sid)).toBe(state0.leaf_event_id)
    const r = w.appendChained(h, sid, [user('more from clawkit', existingKey ? {idempotencyKey: existingKey} : {}), assistant('and a reply')], {date: new Date(1_795_700_002_000), now: 1_795_700_002_000})
    expect(r).toMatchObject({firstSeq: 21, lastSeq: 22, indexed: true})
    expect(r.entries[0].parentId).toBe(state0.leaf_event_id)
    expect(one(h.db, 'SELECT * FROM session_transcript_index_state WHERE session_id = ?', sid)).toEqual({...state0, indexed_seq: 22, leaf_event_id: r.entries[1].id, active_event_count: state0.active_event_count + 2, active_message_count: state0.active_message_count + 2, updated_at: 1_795_700_002_000})
    expect(one(h.db, 'SELECT count(*) AS n FROM session_transcript_fts_rows WHERE session_id = ?', sid).n).toBe(fts0 + 2)
    expect(one(h.db, 'SELECT * FROM transcript_rewrite_watermarks WHERE session_id = ?', sid)).toEqual(gen0)
    const win1 = one(h.db, 'SELECT * FROM session_windows WHERE session_id = ?', sid)
    expect(win1).toEqual({...win0, updated_at: 1_795_700_002_000, transcript_updated_at: Math.max(1_795_700_002_000, win0.transcript_updated_at + 1, win0.transcript_observed_at + 1)})
    if (existingKey) expect(one(h.db, 'SELECT message_idempotency_key AS k FROM transcript_event_identities WHERE session_id = ? AND seq = 21', sid).k).toBeNull()
    expect(w.currentLeaf(h.db, sid)).toBe(r.entries[1].id)
  })

  it('the forward rule does not hold (parent is not the leaf): the index is marked needs_rebuild (counts kept) instead, and currentLeaf then refuses as stale', () => {
    const h = open(copyFixture(NATIVE_96))
    const s0 = one(h.db, 'SELECT * FROM session_transcript_index_state WHERE session_id = ?', EXPLICIT)
    const r = w.appendEvents(h, EXPLICIT, [{type: 'message', id: 'side-branch-1', parentId: '37486871-c1cf-4312-98a0-add20770eaac', timestamp: new Date(1_795_700_003_000).toISOString(), message: {role: 'user', content: 'fork'}}])
    expect(r).toMatchObject({firstSeq: 7, lastSeq: 7, indexed: false})
    const s1 = one(h.db, 'SELECT * FROM session_transcript_index_state WHERE session_id = ?', EXPLICIT)
    expect({...s1, updated_at: 0}).toEqual({...s0, needs_rebuild: 1, updated_at: 0})
    expect(one(h.db, 'SELECT count(*) AS n FROM session_transcript_active_events WHERE session_id = ?', EXPLICIT).n).toBe(6)
    expect(() => w.currentLeaf(h.db, EXPLICIT)).toThrow(expect.objectContaining({code: 'E_SQLITE_PROJECTION_STALE'}))
    expect(() => w.appendChained(h, EXPLICIT, [user('x')])).toThrow(expect.objectContaining({code: 'E_SQLITE_PROJECTION_STALE'}))
    expect(one(h.db, 'SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?', EXPLICIT).m).toBe(7)
  })

  it('strict (every clawkit writer): an event that would not continue the active branch is refused with E_SQLITE_CHAIN; nothing is written and the projection stays current', () => {
    const h = open(copyFixture(NATIVE_96))
    const s0 = one(h.db, 'SELECT * FROM session_transcript_index_state WHERE session_id = ?', EXPLICIT)
    const leaf = w.currentLeaf(h.db, EXPLICIT)
    const orphan = {type: 'message', id: 'orphan-1', parentId: 'never-stored', timestamp: new Date(1_795_700_003_000).toISOString(), message: {role: 'assistant', content: 'error'}}
    expect(() => w.appendEvents(h, EXPLICIT, [orphan], {expectedLeaf: leaf, strict: true})).toThrow(expect.objectContaining({code: 'E_SQLITE_CHAIN'}))
    expect(one(h.db, 'SELECT * FROM session_transcript_index_state WHERE session_id = ?', EXPLICIT)).toEqual(s0)
    expect(one(h.db, 'SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?', EXPLICIT).m).toBe(6)
    // A batch whose second event skips the first is refused whole.
    const first = {type: 'message', id: 'ok-1', parentId: leaf, timestamp: new Date(1_795_700_003_000).toISOString(), message: {role: 'user', content: 'one'}}
    expect(() => w.appendEvents(h, EXPLICIT, [first, {...orphan, parentId: leaf}], {strict: true})).toThrow(expect.objectContaining({code: 'E_SQLITE_CHAIN'}))
    expect(one(h.db, 'SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?', EXPLICIT).m).toBe(6)
    expect(w.currentLeaf(h.db, EXPLICIT)).toBe(leaf)
  })

  it('a leaf that is not the last event (an opaque entry after it) is refused with E_SQLITE_LEAF_MISMATCH; a leaf that moved since the turn began with E_SQLITE_LEAF_MOVED', () => {
    const h = open(copyFixture(NATIVE_96))
    const leaf = w.currentLeaf(h.db, EXPLICIT)
    expect(() => w.appendChained(h, EXPLICIT, [user('late')], {expectedLeaf: 'someone-else'})).toThrow(expect.objectContaining({code: 'E_SQLITE_LEAF_MOVED'}))
    // Not canonical, no parentId, no message: the projection advances but the leaf stays (as OpenClaw's rule does).
    expect(w.appendEvents(h, EXPLICIT, [{type: 'opaque-note', id: 'note-1', timestamp: 1_795_700_004_000}]).indexed).toBe(true)
    expect(one(h.db, 'SELECT indexed_seq, leaf_event_id, needs_rebuild FROM session_transcript_index_state WHERE session_id = ?', EXPLICIT)).toEqual({indexed_seq: 7, leaf_event_id: leaf, needs_rebuild: 0})
    expect(() => w.currentLeaf(h.db, EXPLICIT)).toThrow(expect.objectContaining({code: 'E_SQLITE_LEAF_MISMATCH'}))
    expect(() => w.appendChained(h, EXPLICIT, [user('x')])).toThrow(expect.objectContaining({code: 'E_SQLITE_LEAF_MISMATCH'}))
  })

  it('a cold session (OpenClaw cold storage) is never appended to', () => {
    const h = open(copyFixture(NATIVE_96))
    h.db.prepare("INSERT INTO session_transcript_cold_archives (session_id, generation, archive_name, archive_sha256, event_count, raw_bytes, archive_bytes, last_seq, archived_at, storage) VALUES (?, 'g', 'a.jsonl.zst', ?, 7, 1, 1, 6, 1, 'file')").run(EXPLICIT, 'a'.repeat(64))
    expect(() => w.appendEvents(h, EXPLICIT, [{type: 'message', id: 'c1', parentId: null, message: {role: 'user', content: 'x'}}])).toThrow(expect.objectContaining({code: 'E_SQLITE_COLD'}))
    expect(one(h.db, 'SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?', EXPLICIT).m).toBe(6)
  })

  it('resetSession: a new sessionId with a new window whose previous_session_id is the old id, the old window and events untouched, the entry cleared like the JSON era, a version-4 header at seq 0', () => {
    const state = copyFixture(NATIVE_96)
    const h = open(state)
    const oldId = '43eeabd1-7609-4067-b31f-fda50759fe26'
    const oldWin = one(h.db, 'SELECT * FROM session_windows WHERE session_id = ?', oldId)
    const oldEvents = JSON.stringify(all(h.db, 'SELECT * FROM transcript_events WHERE session_id = ? ORDER BY seq', oldId))
    const plan = w.planSessionReset(h.db, 'agent:main:main')
    expect(plan).toMatchObject({previousSessionId: oldId})
    expect(plan.clearedFields).toEqual(expect.arrayContaining(['cacheRead', 'estimatedCostUsd', 'lastInteractionAt', 'inputTokens', 'totalTokens']))
    const now = new Date(1_795_700_005_000)
    const r = w.resetSession(h, {agentId: 'main', key: 'agent:main:main', cwd: '/ws', now})
    expect(r.previousSessionId).toBe(oldId)
    expect(one(h.db, 'SELECT * FROM session_windows WHERE session_id = ?', oldId)).toEqual(oldWin)
    expect(JSON.stringify(all(h.db, 'SELECT * FROM transcript_events WHERE session_id = ? ORDER BY seq', oldId))).toBe(oldEvents)
    expect(one(h.db, 'SELECT * FROM session_windows WHERE session_id = ?', r.sessionId)).toMatchObject({session_key: 'agent:main:main', previous_session_id: oldId, reason: null, created_at: now.getTime(), updated_at: now.getTime()})
    const node = one(h.db, 'SELECT current_session_id, entry_json, entry_valid, updated_at, last_interaction_at FROM session_nodes WHERE session_key = ?', 'agent:main:main')
    const entry = JSON.parse(node.entry_json)
    expect(node).toMatchObject({current_session_id: r.sessionId, entry_valid: 1, updated_at: now.getTime(), last_interaction_at: null})
    expect(entry).toMatchObject({sessionId: r.sessionId, previousSessionId: oldId, updatedAt: now.getTime(), sessionStartedAt: now.getTime(), inputTokens: 0, outputTokens: 0, totalTokens: 0, totalTokensFresh: true, compactionCount: 0, systemSent: false, abortedLastRun: false, model: 'claude-mock'})
    for (const f of ['cacheRead', 'cacheWrite', 'estimatedCostUsd', 'lastInteractionAt']) expect(entry).not.toHaveProperty(f)
    expect(all(h.db, 'SELECT seq, event_json FROM transcript_events WHERE session_id = ?', r.sessionId)).toEqual([{seq: 0, event_json: JSON.stringify({type: 'session', version: 4, id: r.sessionId, timestamp: now.toISOString(), cwd: '/ws'})}])
    expect(one(h.db, 'SELECT indexed_seq, leaf_event_id, needs_rebuild, updated_at FROM session_transcript_index_state WHERE session_id = ?', r.sessionId)).toEqual({indexed_seq: 0, leaf_event_id: null, needs_rebuild: 0, updated_at: now.getTime()})
    expect(w.currentLeaf(h.db, r.sessionId)).toBeNull()
    // The next append starts the new chain at parentId null.
    expect(w.appendChained(h, r.sessionId, [user('after reset')]).entries[0].parentId).toBeNull()
    expect(() => w.resetSession(h, {agentId: 'main', key: 'agent:main:nope', cwd: '/ws'})).toThrow(expect.objectContaining({code: 'E_SESSION_NOT_FOUND'}))
  })

  it('concurrent writers: three processes appending 40 events each, every one in BEGIN IMMEDIATE, lose nothing, duplicate no seq and leave one chain with a current projection', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbOf(state)
    const codes = await Promise.all(['a', 'b', 'c'].map((tag) => worker(['append', db, EXPLICIT, '40', tag])))
    expect(codes.map((c) => c.code)).toEqual([0, 0, 0])
    const h = open(state)
    const rows = all(h.db, 'SELECT seq, event_json FROM transcript_events WHERE session_id = ? ORDER BY seq', EXPLICIT)
    expect(rows.map((r) => r.seq)).toEqual(Array.from({length: 7 + 120}, (_, i) => i))
    const evs = rows.map((r) => JSON.parse(String(r.event_json)))
    for (let i = 2; i < evs.length; i++) expect(evs[i].parentId).toBe(evs[i - 1].id)
    for (const tag of ['a', 'b', 'c']) expect(evs.filter((e) => e.message?.content?.startsWith?.(`${tag} `)).map((e) => e.message.content)).toEqual(Array.from({length: 40}, (_, i) => `${tag} ${i}`))
    expect(one(h.db, 'SELECT indexed_seq, needs_rebuild, active_event_count, leaf_event_id FROM session_transcript_index_state WHERE session_id = ?', EXPLICIT)).toEqual({indexed_seq: 126, needs_rebuild: 0, active_event_count: 126, leaf_event_id: evs[126].id})
    expect(one(h.db, 'SELECT count(*) AS n FROM transcript_event_identities WHERE session_id = ?', EXPLICIT).n).toBe(127)
    expect(one(h.db, 'SELECT count(*) AS n FROM session_transcript_fts_rows WHERE session_id = ?', EXPLICIT).n).toBe(2 + 120)
    expect(one(h.db, 'PRAGMA integrity_check')).toEqual({integrity_check: 'ok'})
  }, 120_000)

  it('a writer killed (-9) inside its transaction leaves the database consistent: none of its rows, the leaf and projection as before, and the next append works', async () => {
    const state = copyFixture(NATIVE_96)
    const db = dbOf(state)
    const c = spawn(process.execPath, [WORKER, 'hang', db, EXPLICIT, '5'], {stdio: ['ignore', 'pipe', 'inherit']})
    children.push(c)
    await new Promise<void>((resolve, reject) => {
      c.stdout!.setEncoding('utf8').on('data', (d) => String(d).includes('inside') && resolve())
      c.on('close', (code) => reject(new Error(`worker ended early (${code})`)))
    })
    c.kill('SIGKILL')
    await new Promise((resolve) => c.once('close', resolve))
    const h = open(state)
    expect(one(h.db, 'PRAGMA integrity_check')).toEqual({integrity_check: 'ok'})
    expect(one(h.db, 'SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?', EXPLICIT).m).toBe(6)
    expect(one(h.db, 'SELECT count(*) AS n FROM transcript_event_identities WHERE session_id = ?', EXPLICIT).n).toBe(7)
    expect(one(h.db, 'SELECT indexed_seq, needs_rebuild FROM session_transcript_index_state WHERE session_id = ?', EXPLICIT)).toEqual({indexed_seq: 6, needs_rebuild: 0})
    expect(w.currentLeaf(h.db, EXPLICIT)).toBe('2df5ca6c-df32-487e-b3e5-50e2a8845986')
    expect(w.appendChained(h, EXPLICIT, [user('survivor')]).firstSeq).toBe(7)
  }, 60_000)

  it('assertNoGatewayOwner: the fixtures\' lock files from dead processes are not ownership; a live process holding gateway.state.lock.sqlite in an exclusive transaction is, with its role and port named', async () => {
    const state = copyFixture(NATIVE_96)
    const lockDir = w.gatewayLockDir(state)
    // The fixture's locks were left by uid 0; under another uid the same files belong in that uid's lock dir.
    if (lockDir !== path.join(state, 'tmp', 'openclaw-0')) fs.cpSync(path.join(state, 'tmp', 'openclaw-0'), lockDir, {recursive: true})
    expect(fs.readdirSync(lockDir)).toEqual(expect.arrayContaining(['gateway.state.lock.sqlite']))
    expect(() => w.assertNoGatewayOwner(state)).not.toThrow()
    expect(w.assertNoGatewayOwner(tempDir())).toBeUndefined()
    // OpenClaw's sqlite-coordinator: the lock DB open in BEGIN EXCLUSIVE for the owner's life, its JSON payload beside it.
    const holder = spawn(process.execPath, ['--input-type=module', '-e', `
      import fs from 'node:fs'
      import {DatabaseSync} from 'node:sqlite'
      const lock = process.argv[1]
      const db = new DatabaseSync(lock + '.sqlite')
      db.exec('PRAGMA journal_mode = MEMORY; BEGIN EXCLUSIVE;')
      fs.writeFileSync(lock, JSON.stringify({pid: process.pid, createdAt: new Date().toISOString(), configPath: 'x', port: 18999}))
      process.stdout.write('held\\n')
      setInterval(() => {}, 1000)`, path.join(lockDir, 'gateway.state.lock')], {stdio: ['ignore', 'pipe', 'inherit']})
    children.push(holder)
    await new Promise<void>((resolve) => holder.stdout!.setEncoding('utf8').on('data', (d) => String(d).includes('held') && resolve()))
    let err: any
    try {
      w.assertNoGatewayOwner(state)
    } catch (error) {
      err = error
    }
    expect(err).toMatchObject({code: 'E_GATEWAY_OWNS_STATE', exitCode: 1})
    expect(err.message).toContain(`pid ${holder.pid}`)
    expect(err.message).toContain('port 18999')
    expect(err.message.split('\n')).toHaveLength(1)
    expect(err.suggestions?.[0]).toMatch(/Stop the gateway/)
    holder.kill('SIGKILL')
    await new Promise((resolve) => holder.once('close', resolve))
    // Gone: the files stay behind (as a crash leaves them) and are not ownership any more.
    expect(fs.existsSync(path.join(lockDir, 'gateway.state.lock'))).toBe(true)
    expect(() => w.assertNoGatewayOwner(state)).not.toThrow()
  }, 60_000)
})
