#!/usr/bin/env node
// Generates a SQLite-era (OpenClaw 2026.9.6) state dir for benchmarks, and the same sessions as a JSON-era state dir.
// Needs Node 24 (node:sqlite): `node scripts/node24.js` prints one.
//   node24 scripts/gen-sqlite-store.js --out DIR [--sessions 10000] [--big-events 1000000] [--json-out DIR]
// The state dir is a copy of test/fixtures/openclaw-2026.9.6-native, so the database has OpenClaw's own DDL; this script
// never writes DDL, never changes journal_mode, and inserts rows as store-sqlite.md 5.4 describes, in one BEGIN
// IMMEDIATE transaction with prepared statements:
// - new sessions (until --sessions are in the database, the fixture's two included): node (then entry_valid = 1),
//   window, header + user + assistant events, identity rows, watermark, index state, active events, FTS rows. Entries
//   are copies of the fixture's real ~14 KB entry (its skillsSnapshot and systemPromptReport);
// - the fixture's agent:main:main continued to --big-events events by the append recipe: turns of user, assistant
//   and bootstrap-context events chained from the index's leaf, the projection extended, the entry rewritten.
// --json-out writes the same sessions in the JSON era: sessions.json (each entry_json plus its sessionFile) and one
// JSONL transcript per session with every event's JSON as stored.
import {randomBytes, randomUUID} from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import zlib from 'node:zlib'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const FIXTURE = path.join(root, 'test', 'fixtures', 'openclaw-2026.9.6-native')
const BIG_KEY = 'agent:main:main'

function parseArgs(argv) {
  const o = {sessions: 10_000, bigEvents: 1_000_000}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const v = () => argv[++i]
    if (a === '--out') o.out = v()
    else if (a === '--json-out') o.jsonOut = v()
    else if (a === '--sessions') o.sessions = Number(v())
    else if (a === '--big-events') o.bigEvents = Number(v())
    else throw new Error(`unknown argument ${a}`)
  }
  if (!o.out) throw new Error('usage: gen-sqlite-store.js --out DIR [--sessions N] [--big-events N] [--json-out DIR]')
  if (!Number.isInteger(o.sessions) || o.sessions < 2) throw new Error('--sessions must be an integer >= 2 (the fixture has 2)')
  if (!Number.isInteger(o.bigEvents) || o.bigEvents < 19) throw new Error('--big-events must be an integer >= 19 (the fixture session has 19)')
  return o
}

function emptyDir(dir) {
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) throw new Error(`${dir} is not empty`)
}

const iso = (ms) => new Date(ms).toISOString()

export function generate({out, sessions, bigEvents, jsonOut, log = (m) => process.stderr.write(`${m}\n`)}) {
  let sqlite
  try {
    sqlite = process.getBuiltinModule('node:sqlite')
  } catch {}
  if (!sqlite?.DatabaseSync) throw new Error(`gen-sqlite-store needs Node 24 (node:sqlite); this is Node ${process.versions.node}. Run it with the binary \`node scripts/node24.js\` prints.`)
  emptyDir(out)
  if (jsonOut) emptyDir(jsonOut)
  const t0 = Date.now()
  fs.cpSync(FIXTURE, out, {recursive: true})
  const dbPath = path.join(out, 'agents', 'main', 'agent', 'openclaw-agent.sqlite')
  const db = new sqlite.DatabaseSync(dbPath, {enableForeignKeyConstraints: true})
  db.exec('PRAGMA busy_timeout = 5000')
  db.exec('PRAGMA synchronous = NORMAL')
  // 1 GiB page cache for this connection only: pages of the one big transaction then reach the WAL once, not at every
  // spill (the WAL and its checkpoint are most of the run time).
  db.exec('PRAGMA cache_size = -1048576')
  const version = db.prepare('PRAGMA user_version').get().user_version
  const meta = db.prepare("SELECT role, agent_id FROM schema_meta WHERE meta_key = 'primary'").get()
  if (version !== 23 || meta?.role !== 'agent' || meta?.agent_id !== 'main') throw new Error(`${dbPath}: expected schema 23 of agent main, found ${version} ${JSON.stringify(meta)}`)

  // Templates: the fixture's own rows.
  const bigNode = db.prepare('SELECT * FROM session_nodes WHERE session_key = ?').get(BIG_KEY)
  const bigId = bigNode.current_session_id
  const templateEntry = JSON.parse(bigNode.entry_json)
  const templateWindow = db.prepare('SELECT * FROM session_windows WHERE session_id = ?').get(bigId)
  const events = db.prepare('SELECT seq, event_json FROM transcript_events WHERE session_id = ? ORDER BY seq').all(bigId).map((r) => JSON.parse(r.event_json))
  const header = events[0]
  const userT = events.find((e) => e.type === 'message' && e.message.role === 'user')
  const assistantT = events.find((e) => e.type === 'message' && e.message.role === 'assistant')
  const bootstrapT = events.find((e) => e.type === 'custom' && e.customType === 'openclaw:bootstrap-context:full')
  const existing = db.prepare('SELECT count(*) AS n FROM session_nodes').get().n

  const q = {
    node: db.prepare('INSERT INTO session_nodes (session_key, current_session_id, entry_json, entry_valid, updated_at, last_interaction_at, last_activity_at) VALUES (?, ?, ?, 1, ?, ?, ?)'),
    valid: db.prepare('UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?'),
    window: db.prepare(
      'INSERT INTO session_windows (session_id, session_key, previous_session_id, reason, session_scope, created_at, updated_at, transcript_updated_at, transcript_observed_at, session_entry_provenance, acp_owned, chat_type, model_provider, model, agent_harness_id) VALUES (?, ?, NULL, NULL, ?, ?, ?, ?, ?, 1, 0, ?, ?, ?, ?)',
    ),
    event: db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)'),
    identity: db.prepare('INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, message_idempotency_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    watermark: db.prepare('INSERT INTO transcript_rewrite_watermarks (session_id, generation, updated_at) VALUES (?, ?, ?)'),
    indexState: db.prepare(
      'INSERT INTO session_transcript_index_state (session_id, indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count, updated_at) VALUES (?, ?, ?, 0, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET indexed_seq = excluded.indexed_seq, leaf_event_id = excluded.leaf_event_id, active_event_count = excluded.active_event_count, active_message_count = excluded.active_message_count, updated_at = excluded.updated_at',
    ),
    active: db.prepare('INSERT INTO session_transcript_active_events (session_id, active_position, event_seq, message_position, context_eligible) VALUES (?, ?, ?, ?, 1)'),
    ftsRow: db.prepare('INSERT INTO session_transcript_fts_rows (session_id, message_id) VALUES (?, ?)'),
    fts: db.prepare('INSERT INTO session_transcript_fts (rowid, text, session_id, message_id, role, timestamp) VALUES (?, ?, ?, ?, ?, ?)'),
  }

  /** Appends events to a session's transcript with identity rows and the forward projection (3.7); returns the state. */
  function appendEvents(sessionId, list, state) {
    for (const e of list) {
      const seq = ++state.seq
      const text = JSON.stringify(e)
      const ms = Date.parse(e.timestamp)
      q.event.run(sessionId, seq, text, ms, Buffer.byteLength(text))
      q.identity.run(sessionId, e.id, seq, e.type, e.parentId ?? null, e.message?.idempotencyKey ?? null, ms)
      const isMessage = e.type === 'message'
      q.active.run(sessionId, state.activeEvents, seq, isMessage ? state.activeMessages : null)
      state.activeEvents++
      if (isMessage) {
        state.activeMessages++
        const m = e.message
        const ftsText = typeof m.content === 'string' ? m.content.trim() : m.content.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text).join('\n')
        if ((m.role === 'user' || m.role === 'assistant') && ftsText) {
          const rowid = q.ftsRow.run(sessionId, e.id).lastInsertRowid
          q.fts.run(rowid, ftsText, sessionId, e.id, m.role, ms)
        }
      }
      state.leaf = e.id
      state.lastMs = ms
    }
    return state
  }

  function userEvent(n, parentId, ms, text) {
    return {...userT, id: randomUUID(), parentId, timestamp: iso(ms), message: {...userT.message, content: text, timestamp: ms - 100, idempotencyKey: `${randomUUID()}:user`}}
  }
  function assistantEvent(parentId, ms, text, runId) {
    const m = assistantT.message
    return {...assistantT, id: randomUUID(), parentId, timestamp: iso(ms), message: {...m, content: [{type: 'text', text}], timestamp: ms - 20, responseId: `msg_${randomBytes(12).toString('hex')}`, __openclaw: {runId}}}
  }
  function bootstrapEvent(parentId, ms, runId, sessionId) {
    return {...bootstrapT, data: {...bootstrapT.data, timestamp: ms, runId, sessionId}, id: randomUUID(), parentId, timestamp: iso(ms)}
  }

  const now = Date.now()
  // The fixture's own message texts, so events keep its real sizes (~335, ~940 and ~330 bytes a turn).
  const userText = userT.message.content
  const answerText = assistantT.message.content.find((b) => b.type === 'text').text
  db.exec('BEGIN IMMEDIATE')
  try {
    // New sessions, older than the big one (which ends at `now`), one minute apart.
    for (let i = 1; i <= sessions - existing; i++) {
      const group = i % 3 === 0
      const key = group ? `agent:main:telegram:group:-100${i}` : `agent:main:telegram:direct:${i}`
      const id = randomUUID()
      const updatedAt = now - i * 60_000
      const startedAt = updatedAt - 5_000
      const entry = {
        ...templateEntry,
        sessionId: id,
        updatedAt,
        sessionStartedAt: startedAt,
        lastInteractionAt: updatedAt,
        lastActivityAt: updatedAt,
        activeWriterRunId: randomUUID(),
        chatType: group ? 'group' : 'direct',
        inputTokens: 40 + (i % 500),
        outputTokens: 200 + (i % 300),
        totalTokens: 5000 + i,
      }
      q.node.run(key, id, JSON.stringify(entry), updatedAt, updatedAt, updatedAt)
      q.valid.run(key) // the insert trigger reset entry_valid to 0
      q.window.run(id, key, group ? 'group' : 'conversation', startedAt, updatedAt, updatedAt - 100, updatedAt - 100, group ? 'group' : 'direct', templateWindow.model_provider, templateWindow.model, templateWindow.agent_harness_id)
      const h = {...header, id, timestamp: iso(startedAt)}
      const hText = JSON.stringify(h)
      q.event.run(id, 0, hText, startedAt, Buffer.byteLength(hText))
      q.identity.run(id, id, 0, 'session', null, null, startedAt)
      q.watermark.run(id, randomBytes(16).toString('hex'), startedAt + 1)
      const runId = randomUUID()
      const u = userEvent(1, null, updatedAt - 300, `question ${i} ${userText}`)
      const a = assistantEvent(u.id, updatedAt - 200, `answer ${i} ${answerText}`, runId)
      const s = appendEvents(id, [u, a], {seq: 0, activeEvents: 0, activeMessages: 0})
      q.indexState.run(id, s.seq, s.leaf, s.activeEvents, s.activeMessages, s.lastMs)
    }

    // The big session: the append recipe from the index's leaf, up to bigEvents events in turns of three.
    const st = db.prepare('SELECT * FROM session_transcript_index_state WHERE session_id = ?').get(bigId)
    const last = db.prepare('SELECT max(seq) AS seq FROM transcript_events WHERE session_id = ?').get(bigId).seq
    const lastId = db.prepare('SELECT event_id FROM transcript_event_identities WHERE session_id = ? AND seq = ?').get(bigId, last).event_id
    if (st.needs_rebuild !== 0 || st.indexed_seq !== last || st.leaf_event_id !== lastId) throw new Error('the fixture session projection is not current; refusing to append')
    const state = {seq: last, activeEvents: st.active_event_count, activeMessages: st.active_message_count, leaf: lastId, lastMs: st.updated_at}
    const toAdd = bigEvents - (last + 1)
    const turns = Math.ceil(toAdd / 3)
    const start = now - turns * 1000 - 10_000
    let added = 0
    for (let t = 0; added < toAdd; t++) {
      const ms = start + t * 1000
      const runId = randomUUID()
      const u = userEvent(t, state.leaf, ms, `turn ${t} ${userText}`)
      const batch = [u]
      if (added + 1 < toAdd) batch.push(assistantEvent(u.id, ms + 200, `turn ${t} ${answerText}`, runId))
      if (added + 2 < toAdd) batch.push(bootstrapEvent(batch[1].id, ms + 220, runId, bigId))
      appendEvents(bigId, batch, state)
      added += batch.length
      if (t % 50_000 === 0 && t > 0) log(`gen-sqlite-store: ${added} of ${toAdd} events appended`)
    }
    q.indexState.run(bigId, state.seq, state.leaf, state.activeEvents, state.activeMessages, state.lastMs)
    const updatedAt = state.lastMs + 50
    const entry = {...templateEntry, updatedAt, lastInteractionAt: updatedAt, lastActivityAt: updatedAt}
    db.prepare('UPDATE session_nodes SET entry_json = ?, updated_at = ?, last_interaction_at = ?, last_activity_at = ? WHERE session_key = ?').run(JSON.stringify(entry), updatedAt, updatedAt, updatedAt, BIG_KEY)
    q.valid.run(BIG_KEY)
    db.prepare('UPDATE session_windows SET updated_at = ?, transcript_updated_at = ?, transcript_observed_at = ? WHERE session_id = ?').run(updatedAt, state.lastMs, state.lastMs, bigId)
    db.exec('COMMIT')
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK')
    db.close()
    throw error
  }
  const counts = db.prepare('SELECT (SELECT count(*) FROM session_nodes WHERE entry_valid = 1) AS nodes, (SELECT count(*) FROM transcript_events WHERE session_id = ?) AS big').get(bigId)
  db.close()
  const dbBytes = fs.statSync(dbPath).size
  log(`gen-sqlite-store: ${counts.nodes} sessions, ${counts.big} events in ${BIG_KEY}, database ${(dbBytes / 1e6).toFixed(0)} MB, ${((Date.now() - t0) / 1000).toFixed(1)} s (${out})`)
  if (jsonOut) writeJsonEra(sqlite, dbPath, jsonOut, log)
  return {dbPath, bigKey: BIG_KEY, sessions: counts.nodes, bigEvents: counts.big}
}

/** The same sessions as a JSON-era state dir: every entry_json plus sessionFile, every event's JSON as stored. */
function writeJsonEra(sqlite, dbPath, jsonOut, log) {
  const t0 = Date.now()
  const sessionsDir = path.join(jsonOut, 'agents', 'main', 'sessions')
  fs.mkdirSync(sessionsDir, {recursive: true, mode: 0o700})
  const db = new sqlite.DatabaseSync(dbPath, {readOnly: true})
  db.exec('PRAGMA query_only = 1')
  const store = {}
  const eventsOf = db.prepare('SELECT event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? ORDER BY seq')
  for (const n of db.prepare('SELECT session_key, current_session_id, entry_json FROM session_nodes WHERE entry_valid = 1 ORDER BY updated_at DESC').iterate()) {
    const file = path.join(sessionsDir, `${n.current_session_id}.jsonl`)
    store[n.session_key] = {...JSON.parse(n.entry_json), sessionFile: file}
    const fd = fs.openSync(file, 'w', 0o600)
    let chunk = []
    let bytes = 0
    for (const e of eventsOf.iterate(n.current_session_id)) {
      const text = e.event_json ?? zlib.zstdDecompressSync(e.event_zstd, {maxOutputLength: e.event_utf8_bytes}).toString('utf8')
      chunk.push(text)
      bytes += text.length
      if (bytes > 8 * 1024 * 1024) {
        fs.writeSync(fd, `${chunk.join('\n')}\n`)
        chunk = []
        bytes = 0
      }
    }
    if (chunk.length > 0) fs.writeSync(fd, `${chunk.join('\n')}\n`)
    fs.closeSync(fd)
  }
  db.close()
  fs.writeFileSync(path.join(sessionsDir, 'sessions.json'), JSON.stringify(store, null, 2), {mode: 0o600})
  log(`gen-sqlite-store: JSON era, ${Object.keys(store).length} sessions, ${((Date.now() - t0) / 1000).toFixed(1)} s (${jsonOut})`)
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    generate(parseArgs(process.argv.slice(2)))
  } catch (error) {
    process.stderr.write(`gen-sqlite-store: ${error.message}\n`)
    process.exit(1)
  }
}
