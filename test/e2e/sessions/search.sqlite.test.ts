// `sessions search` on the SQLite-era 2026.9.6 fixtures (native and imported) through the real CLI under Node 24: the
// FTS path (OpenClaw's full-text index) and the scan path give the same hits, both equal to what the test finds in
// every event of the database itself (zstd events decoded here); and the database is never written. OpenClaw's index is
// used only where clawkit's own catalog is not (test/e2e/catalog/ covers that one): these runs turn the catalog off.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import type {SessionsSearchResult} from '../../../src/commands/sessions/search.js'
import {baseEnv, copyFixture, json, runCli, tempDir} from '../../support/cli.js'
import {holds, searchedTexts} from '../../support/search.js'
import {dbPath, eventsOf, openDb, sha} from '../../support/sqlite-expect.js'
import {describeSqlite, IMPORTED_96, NATIVE_96} from '../../support/sqlite.js'

interface Hit {
  sessionId: string
  line: number
  role: string
  kind: string
}

const sortHits = (xs: Hit[]) => [...xs].sort((a, b) => `${a.sessionId}:${String(a.line).padStart(6)}:${a.kind}`.localeCompare(`${b.sessionId}:${String(b.line).padStart(6)}:${b.kind}`))

function sessionIds(file: string): string[] {
  const db = openDb(file)
  try {
    return db.prepare('SELECT DISTINCT session_id FROM transcript_events ORDER BY session_id').all().map((r) => r.session_id as string)
  } finally {
    db.close()
  }
}

/** Every hit in every event of the agents' databases, by the documented rules. */
function expected(state: string, agents: string[], pattern: string, opts: {word?: boolean; role?: string} = {}): Hit[] {
  const out: Hit[] = []
  for (const agent of agents) {
    const file = dbPath(state, agent)
    for (const id of sessionIds(file)) {
      for (const ev of eventsOf(file, id)) {
        let e: any
        try {
          e = JSON.parse(ev.text)
        } catch {
          continue
        }
        for (const p of searchedTexts(e)) if ((!opts.role || p.role === opts.role) && holds(p.text, pattern, opts)) out.push({sessionId: id, line: ev.seq, role: p.role, kind: p.kind})
      }
    }
  }
  return sortHits(out)
}

const agentsOf = (state: string) => fs.readdirSync(path.join(state, 'agents')).filter((a) => fs.existsSync(dbPath(state, a)))

async function searchJson(state: string, ...args: string[]): Promise<SessionsSearchResult> {
  const r = await runCli(['sessions', 'search', ...args, '--all-agents', '--include-archived', '--limit', 'all', '--json', '--state-dir', state], {env: baseEnv(tempDir(), {CLAWKIT_CATALOG: '0'})})
  expect(r.code, r.stderr).toBe(0)
  return json<SessionsSearchResult>(r)
}

const asHits = (r: SessionsSearchResult) => sortHits(r.hits.map((h) => ({sessionId: h.sessionId, line: h.line, role: h.role, kind: h.kind})))

/** Words of the fixture's user and assistant text, the most frequent first: queries whose answer is known to be non-empty. */
function wordsOf(state: string, agents: string[], role: string, n: number): string[] {
  const count = new Map<string, number>()
  for (const agent of agents) {
    const file = dbPath(state, agent)
    for (const id of sessionIds(file)) {
      for (const ev of eventsOf(file, id)) {
        for (const p of searchedTexts(JSON.parse(ev.text))) {
          if (p.role !== role) continue
          for (const w of new Set(p.text.match(/[A-Za-z][A-Za-z0-9]{3,}/g) ?? [])) count.set(w, (count.get(w) ?? 0) + 1)
        }
      }
    }
  }
  return [...count].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, n).map(([w]) => w)
}

describeSqlite('sessions search on a SQLite-era store', () => {
  for (const fixture of [NATIVE_96, IMPORTED_96]) {
    // One test per role (each runs five queries both ways): both roles in one test came to a sixth of its timeout on a
    // busy machine.
    for (const role of ['user', 'assistant']) {
      it(`${fixture}: FTS and scan give the same hits for --word queries on ${role} text (upper and lower case, two-word phrases), equal to the database's own events; the database is not written`, async () => {
        const state = copyFixture(fixture)
        const agents = agentsOf(state)
        const before = agents.map((a) => sha(dbPath(state, a)))
        const words = wordsOf(state, agents, role, 3)
        expect(words.length).toBeGreaterThan(0)
        const patterns = [...words.map((w) => w.toLowerCase()), words[0], `${words[0].toLowerCase()} ${words[1]?.toLowerCase() ?? ''}`.trim()]
        for (const pattern of patterns) {
          const want = expected(state, agents, pattern, {word: true, role})
          const [fts, scan] = await Promise.all([searchJson(state, pattern, '--word', '--role', role), searchJson(state, pattern, '--word', '--role', role, '--scan')])
          expect(fts.engine, `${role} ${pattern}`).toBe('fts')
          expect(scan.engine).toBe('scan')
          expect(asHits(fts), `${role} ${pattern}`).toEqual(want)
          expect(fts.hits, `${role} ${pattern}`).toEqual(scan.hits)
          expect(fts.count).toBe(scan.count)
        }
        // Which words exist at all is asserted too: the first (most frequent) one has hits.
        expect(expected(state, agents, words[0].toLowerCase(), {word: true, role}).length).toBeGreaterThan(0)
        expect(agents.map((a) => sha(dbPath(state, a)))).toEqual(before)
      })
    }

    it(`${fixture}: queries the index does not cover are scans (no --word, no role, --role tool, non-ASCII, --regex) and find every hit, zstd events included`, async () => {
      const state = copyFixture(fixture)
      const agents = agentsOf(state)
      const word = wordsOf(state, agents, 'user', 1)[0].toLowerCase()
      for (const args of [[word], [word, '--role', 'user'], ['read', '--role', 'tool'], ['caf\u00e9', '--word', '--role', 'user']]) {
        const r = await searchJson(state, ...args)
        expect(r.engine, args.join(' ')).toBe('scan')
        const role = args.includes('--role') ? args[args.indexOf('--role') + 1] : undefined
        expect(asHits(r), args.join(' ')).toEqual(expected(state, agents, args[0], {role, word: args.includes('--word')}))
      }
      const re = await searchJson(state, `${word}|README`, '--regex')
      expect(re.engine).toBe('scan')
      expect(re.count).toBeGreaterThan(0)
      // A --regex with a literal run is read through the raw-event prefilter, and finds what the literal finds.
      const literal = await searchJson(state, `${word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?:)`, '--regex')
      expect(literal.engine).toBe('scan')
      expect(asHits(literal)).toEqual(expected(state, agents, word, {}))
    })
  }

  it('a pattern of more than 50 000 bytes (SQLite\'s LIKE limit) is searched like any other (lower case: LIKE; upper case; a long --word --role user phrase: FTS); a --regex that long is a usage error; never blamed on the store', async () => {
    const state = copyFixture(NATIVE_96)
    const file = dbPath(state, 'main')
    const long = Array.from({length: 14_000}, (_, i) => `w${i % 97}x`).join(' ')
    const db = openDb(file, false)
    const user = db.prepare("SELECT session_id, seq FROM transcript_events WHERE event_json LIKE '%\"role\":\"user\"%' ORDER BY seq DESC LIMIT 1").get() as {session_id: string; seq: number}
    db.prepare("UPDATE transcript_events SET event_json = json_set(event_json, '$.message.content', ?) WHERE session_id = ? AND seq = ?").run(`Before ${long} After`, user.session_id, user.seq)
    db.close()
    const pattern = long.slice(0, 60_000)
    expect(Buffer.byteLength(pattern)).toBeGreaterThan(50_000)
    const lower = await searchJson(state, pattern)
    expect(lower.count).toBe(1)
    expect(lower.hits[0]).toMatchObject({sessionId: user.session_id, line: user.seq, role: 'user'})
    expect((await searchJson(state, `${pattern.slice(0, 30_000)}W`)).count).toBe(0)
    expect((await searchJson(state, `${pattern.slice(0, 30_000)}w`)).count).toBe(1)
    // The index is asked for a phrase of 12 000 tokens (of a word it holds): an answer, not an error.
    const [word] = wordsOf(state, ['main'], 'user', 1)
    const phrase = await searchJson(state, Array(12_000).fill(word.toLowerCase()).join(' '), '--word', '--role', 'user')
    expect(phrase).toMatchObject({engine: 'fts', count: 0})
    const re = await runCli(['sessions', 'search', `${pattern.slice(0, 55_000)}.`, '--regex', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(re.code, re.stderr).toBe(2)
    expect(json<any>(re).error).toMatchObject({code: 'E_BAD_REGEX'})
    expect(json<any>(re).error.message).toContain('55001 characters')
  })

  it('a stale projection (needs_rebuild set, or an event past indexed_seq) is scanned, with the same hits: the engine says "scan" for that session', async () => {
    const state = copyFixture(NATIVE_96)
    const agents = agentsOf(state)
    const [word] = wordsOf(state, agents, 'user', 1)
    const fresh = await searchJson(state, word.toLowerCase(), '--word', '--role', 'user')
    expect(fresh.engine).toBe('fts')
    const file = dbPath(state, agents[0])
    const db = openDb(file, false)
    const sid = (db.prepare('SELECT session_id FROM session_transcript_index_state ORDER BY indexed_seq DESC LIMIT 1').get() as {session_id: string}).session_id
    db.prepare('UPDATE session_transcript_index_state SET needs_rebuild = 1 WHERE session_id = ?').run(sid)
    db.close()
    const stale = await searchJson(state, word.toLowerCase(), '--word', '--role', 'user')
    expect(stale.hits).toEqual(fresh.hits)
    const store = stale.stores.find((s) => s.agentId === agents[0])!
    expect(store.scan).toBeGreaterThan(0)
    expect(stale.engine).toBe(store.fts > 0 ? 'mixed' : 'scan')
  })
})
