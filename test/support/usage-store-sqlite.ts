// Test support for usage reports on the SQLite era: sessions of every kind of key, with calls spanning months and DST
// changes (usage-store.ts's generator), written into a copy of a 2026.9.6 fixture's database (a node, a window and the
// transcript events of each, as OpenClaw stores them); and the calls of a whole database read back from its events,
// zstd included, with the key of each event's window: the test's own reading, not clawkit's.
import {openDb, eventsOf} from './sqlite-expect.js'
import {seeded} from './fleet-store.js'
import {edgeInstants, type KeyFacts, KEY_KINDS, type RawCall, transcriptCalls, uuid} from './usage-store.js'

/** Adds a session for each kind of key but main (the fixture has it) to the agent's database; returns the facts of every key. */
export function addSqliteUsage(file: string, agent: string, seed: number, per = 10): Map<string, KeyFacts> {
  const rnd = seeded(seed)
  const edge = edgeInstants()
  const facts = new Map<string, KeyFacts>()
  const db = openDb(file, false)
  try {
    db.exec('BEGIN IMMEDIATE')
    for (const [suffix, f] of KEY_KINDS) {
      const key = `agent:${agent}:${suffix}`
      facts.set(key, f)
      if (suffix === 'main') continue
      const id = uuid(rnd)
      const {lines, times} = transcriptCalls(rnd, {agent, key, id, per, calls: [], edge, recordAll: true})
      const at = times.at(-1)!
      db.prepare('INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at) VALUES (?, ?, ?, ?)').run(key, id, JSON.stringify({sessionId: id, updatedAt: at}), at)
      db.prepare('UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?').run(key)
      db.prepare('INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES (?, ?, ?, ?)').run(id, key, times[0], at)
      const put = db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)')
      lines.forEach((l, seq) => put.run(id, seq, JSON.stringify(l), times[0]))
    }
    db.exec('COMMIT')
  } finally {
    db.close()
  }
  return facts
}

/** Every call in the database's events, each under the key of its session's window. */
export function sqliteCalls(file: string, agent: string): RawCall[] {
  const db = openDb(file)
  const keys = new Map(db.prepare('SELECT session_id, session_key FROM session_windows').all().map((r) => [r.session_id as string, r.session_key as string]))
  const ids = db.prepare('SELECT DISTINCT session_id FROM transcript_events').all().map((r) => r.session_id as string)
  db.close()
  const out: RawCall[] = []
  for (const id of ids) {
    for (const ev of eventsOf(file, id)) {
      const e = JSON.parse(ev.text)
      const m = e.type === 'message' && e.message?.role === 'assistant' ? e.message : undefined
      if (!m?.usage) continue
      const u = m.usage
      out.push({agent, key: keys.get(id)!, t: Date.parse(e.timestamp), provider: m.provider, model: m.model, input: u.input ?? 0, output: u.output ?? 0, cacheRead: u.cacheRead ?? 0, cacheWrite: u.cacheWrite ?? 0, cost: u.cost?.total ?? 0})
    }
  }
  return out
}
