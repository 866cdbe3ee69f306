// The catalog's promise on OpenClaw's SQLite-era store: copies of the 2026.9.6 fixtures get random changes between two
// queries (turns appended and sessions made and reset through clawkit's own writer; a session deleted as OpenClaw deletes
// one, into an archive row; an archive pruned; events rewritten, cut or made unreadable with the rewrite watermark
// rotated, as OpenClaw's destructive rewrites do), and search and usage from the catalog equal `--scan` after each.
import {createHash} from 'node:crypto'
import path from 'node:path'

import fc from 'fast-check'
import {expect, it} from 'vitest'

import {SPAN_BYTES} from '../../src/catalog/digest.js'
import {CommandCatalog} from '../../src/catalog/index.js'
import {catalogLedger} from '../../src/catalog/ledger.js'
import {type SearchOptions, sessionsSearch, type SessionsSearchResult} from '../../src/sessions/search.js'
import {sessionsUsage, type SessionsUsageResult, type UsageOptions} from '../../src/sessions/usage.js'
import {appendTo} from '../../src/store/append.js'
import {OpenClawState} from '../../src/store/state.js'
import {seeded} from '../support/catalog-store.js'
import {copyFixture, tempDir} from '../support/cli.js'
import {dbPath, eventsOf, openDb} from '../support/sqlite-expect.js'
import {DELETED_96, describeSqlite, IMPORTED_96, NATIVE_96} from '../support/sqlite.js'

/** npm test's smoke count; `npm run test:deep` (CI) runs 12. */
const RUNS = Number(process.env.CLAWKIT_CATALOG_RUNS ?? 2)
const WORDS = ['zebra', 'Zebra', 'kubeconfig', 'café', 'deploy', 'alpha', 'the', 'usage', '数据库', '\u212Aelvin', 'zebra42deploy', 'req_9f3a0b1c2d', 'ZebraDeployAlphaKubeconfigUsage']

const SEARCHES: [string, SearchOptions][] = [
  ['zebra', {}],
  ['Zebra', {}],
  ['kubeconfig', {word: true}],
  ['café', {role: 'user'}],
  ['the', {}],
  ['数据库', {}],
  ['kelvin', {}],
  ['usage', {}],
  ['ze+bra', {regex: true}],
  ['ok', {}],
  ['9f3a', {}],
  ['ebra42de', {}],
  ['deployalpha', {}],
]
const USAGES: UsageOptions[] = [{}, {by: 'model'}, {by: 'day'}, {includeArchived: false}]

const comparable = (r: SessionsSearchResult) => {
  const {engine: _e, stores: _s, ...rest} = r
  return rest
}
const comparableUsage = (r: SessionsUsageResult) => {
  const {source: _s, removed: _r, ...rest} = r
  return rest
}

async function compareAll(stateDir: string, dataDir: string, what: string): Promise<void> {
  for (const [[pattern, opts], limit] of SEARCHES.flatMap((x) => [[x, 'all'], [x, '3']] as const)) {
    // A limit: an exact answer's count is the index's, and only the newest spans are read back.
    const o: SearchOptions = {...opts, allAgents: true, includeArchived: true, limit}
    const scanState = OpenClawState.open({stateDir, ignoreSettings: true})
    const want = await sessionsSearch(scanState, pattern, {...o, scan: true}).finally(() => scanState.close())
    const state = OpenClawState.open({stateDir, ignoreSettings: true})
    const cat = new CommandCatalog(state, (line) => expect.fail(line), {env: {CLAWKIT_DATA_DIR: dataDir}})
    const got = await sessionsSearch(state, pattern, {...o, index: cat.searchIndex()}).finally(() => {
      cat.close()
      state.close()
    })
    expect(comparable(got), `${what}: search ${pattern} ${JSON.stringify(o)}`).toEqual(comparable(want))
    if (got.transcripts > 0) expect(got.engine).toBe('catalog')
  }
  for (const opts of USAGES) {
    const o: UsageOptions = {...opts, allAgents: true}
    const scanState = OpenClawState.open({stateDir, ignoreSettings: true})
    const want = await sessionsUsage(scanState, {...o, scan: true}).finally(() => scanState.close())
    const state = OpenClawState.open({stateDir, ignoreSettings: true})
    const cat = new CommandCatalog(state, (line) => expect.fail(line), {env: {CLAWKIT_DATA_DIR: dataDir}})
    const got = await sessionsUsage(state, {...o, ledger: catalogLedger(cat), removedSpend: false}).finally(() => {
      cat.close()
      state.close()
    })
    expect(got.source).toBe('catalog')
    expect(comparableUsage(got), `${what}: usage ${JSON.stringify(opts)}`).toEqual(comparableUsage(want))
  }
}

type Change = 'append' | 'newSession' | 'reset' | 'delete' | 'prune' | 'rewrite' | 'cut' | 'unreadable'
const CHANGES: Change[] = ['append', 'append', 'append', 'newSession', 'reset', 'delete', 'prune', 'rewrite', 'cut', 'unreadable']

/** One change to the agent database, by clawkit's writer or as OpenClaw's own code leaves the rows; undefined when it does not apply. */
async function change(stateDir: string, rnd: () => number, what: Change): Promise<string | undefined> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]
  const text = () => Array.from({length: 2 + Math.floor(rnd() * 6)}, () => pick(WORDS)).join(' ')
  const file = dbPath(stateDir, 'main')
  const rotate = (db: ReturnType<typeof openDb>, sid: string) => db.prepare('UPDATE transcript_rewrite_watermarks SET generation = ? WHERE session_id = ?').run(createHash('md5').update(String(rnd())).digest('hex'), sid)
  if (what === 'append' || what === 'newSession' || what === 'reset') {
    const state = OpenClawState.open({stateDir, ignoreSettings: true})
    try {
      return await write()
    } catch (error) {
      // A session whose events this test edited by hand has a stale projection: clawkit's writer refuses it, as it should.
      if ((error as {code?: string}).code === 'E_SQLITE_PROJECTION_STALE') return undefined
      throw error
    } finally {
      state.close()
    }
    async function write(): Promise<string | undefined> {
      const store = state.store('main')
      const keys = Object.keys(await store.read())
      const turn = () => [
        {type: 'message', message: {role: 'user', content: text(), timestamp: Date.now()}},
        {type: 'message', message: {role: 'assistant', content: [{type: 'text', text: text()}], provider: 'mockant', model: pick(['m1', 'm2']), usage: {input: Math.floor(rnd() * 900), output: Math.floor(rnd() * 90), cacheRead: 0, cacheWrite: 0, totalTokens: 1000, ...(rnd() < 0.8 ? {cost: {total: Math.round(rnd() * 1e6) / 1e8}} : {})}, timestamp: Date.now()}},
      ]
      if (what === 'append') {
        const key = pick(keys)
        const found = await store.findEntry(key)
        if (!found) return undefined
        await appendTo(store, store.transcriptOf(found.entry, found.storedKey), turn())
        return `append to ${key}`
      }
      if (what === 'newSession') {
        const sessionId = createHash('md5').update(String(rnd())).digest('hex').replace(/^(.{8})(.{4})(.{3})(.{3})(.{12}).*/, '$1-$2-4$3-8$4-$5')
        const key = `agent:main:new-${sessionId.slice(0, 6)}`
        await store.update((data) => {
          data[key] = {sessionId, updatedAt: Date.now()}
        })
        await appendTo(store, store.transcriptOf({sessionId}, key), turn(), {header: {type: 'session', version: 3, id: sessionId, timestamp: new Date().toISOString(), cwd: '/w'}})
        return `new session ${key}`
      }
      const key = pick(keys)
      await store.reset(key, {cwd: '/w'})
      return `reset ${key}`
    }
  }
  const db = openDb(file, false)
  try {
    db.exec('PRAGMA foreign_keys = ON')
    const sessions = db.prepare('SELECT session_id, session_key FROM session_windows').all() as {session_id: string; session_key: string}[]
    if (what === 'delete') {
      // OpenClaw's delete: the session's events kept as a JSONL archive row, its node (and with it windows and events) gone.
      const nodes = db.prepare('SELECT session_key, current_session_id FROM session_nodes').all() as {session_key: string; current_session_id: string}[]
      if (nodes.length < 2) return undefined
      const n = pick(nodes)
      for (const w of sessions.filter((s) => s.session_key === n.session_key)) {
        const blob = Buffer.from(eventsOf(file, w.session_id).map((e) => `${e.text}\n`).join(''))
        const gen = createHash('md5').update(String(rnd())).digest('hex')
        const name = `${w.session_id}.jsonl.deleted.2026-11-27T00-00-00.000Z.${gen}`
        db.prepare('INSERT INTO session_transcript_archives (session_id, generation, session_key, reason, encoding, archive_blob, archive_sha256, archive_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
          w.session_id,
          gen,
          n.session_key,
          'deleted',
          'identity',
          blob,
          createHash('sha256').update(blob).digest('hex'),
          name,
          Date.now(),
        )
      }
      db.prepare('DELETE FROM session_nodes WHERE session_key = ?').run(n.session_key)
      return `delete ${n.session_key}`
    }
    if (what === 'prune') {
      const archives = db.prepare('SELECT archive_name FROM session_transcript_archives').all() as {archive_name: string}[]
      if (archives.length === 0) return undefined
      const a = pick(archives)
      db.prepare('DELETE FROM session_transcript_archives WHERE archive_name = ?').run(a.archive_name)
      return `prune ${a.archive_name}`
    }
    if (sessions.length === 0) return undefined
    const sid = pick(sessions).session_id
    const events = db.prepare('SELECT seq FROM transcript_events WHERE session_id = ? AND event_json IS NOT NULL AND seq > 0').all(sid) as {seq: number}[]
    if (events.length === 0 || !db.prepare('SELECT 1 FROM transcript_rewrite_watermarks WHERE session_id = ?').get(sid)) return undefined
    const seq = pick(events).seq
    if (what === 'rewrite') {
      const row = db.prepare('SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = ?').get(sid, seq) as {event_json: string}
      const e = JSON.parse(row.event_json)
      if (e.type !== 'message' || !e.message) return undefined
      e.message.content = `rewritten ${text()}`
      db.prepare('UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = ?').run(JSON.stringify(e), sid, seq)
    } else if (what === 'cut') {
      db.prepare('DELETE FROM transcript_events WHERE session_id = ? AND seq >= ?').run(sid, seq)
    } else {
      db.prepare('UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = ?').run(`{"type":"message","message":{"role":"assistant","usage":{"input":1} zebra ${seq}`, sid, seq)
    }
    rotate(db, sid)
    return `${what} seq ${seq} of ${sid}`
  } finally {
    db.close()
  }
}

describeSqlite('the catalog answers as a scan does (SQLite era)', () => {
  for (const fixture of [DELETED_96, NATIVE_96, IMPORTED_96]) {
    it(`${fixture}: after every kind of change between two queries, search and usage from the catalog equal --scan`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({min: 1, max: 2 ** 31 - 1}), fc.integer({min: 3, max: 7}), async (seed, steps) => {
          const stateDir = copyFixture(fixture)
          const dataDir = path.join(tempDir('clawkit-catalog-'), 'data')
          const rnd = seeded(seed)
          const done: string[] = []
          await compareAll(stateDir, dataDir, `seed ${seed}, built`)
          for (let i = 0; i < steps; ) {
            const d = await change(stateDir, rnd, CHANGES[Math.floor(rnd() * CHANGES.length)])
            if (!d) continue
            done.push(d)
            i++
            await compareAll(stateDir, dataDir, `seed ${seed} after ${done.join('; ')}`)
          }
        }),
        {numRuns: RUNS, seed: 2028, endOnFailure: true},
      )
    }, 600_000)
  }
})

describeSqlite('the catalog, turn by turn (SQLite era)', () => {
  it('one-turn appends to a session, each refreshed: its open span closes as it grows (spans stay about SPAN_BYTES of text), and the answers are a scan\'s', async () => {
    const stateDir = copyFixture(NATIVE_96)
    const dataDir = path.join(tempDir('clawkit-catalog-'), 'data')
    const refresh = async () => {
      const state = OpenClawState.open({stateDir, ignoreSettings: true})
      const cat = new CommandCatalog(state, (line) => expect.fail(line), {env: {CLAWKIT_DATA_DIR: dataDir}})
      try {
        expect(await cat.view('main', state.store('main'))).toBeDefined()
        return Number(cat.get()!.db.db.prepare('SELECT max(text_bytes) AS m FROM spans').get()!.m)
      } finally {
        cat.close()
        state.close()
      }
    }
    await refresh()
    const words = 'zebra deploy kubeconfig alpha the usage '.repeat(50)
    const state = OpenClawState.open({stateDir, ignoreSettings: true})
    try {
      const store = state.store('main')
      const key = Object.keys(await store.read())[0]
      for (let i = 0; i < 12; i++) {
        const found = (await store.findEntry(key))!
        await appendTo(store, store.transcriptOf(found.entry, found.storedKey), [{type: 'message', message: {role: 'user', content: `${i} ${words}`, timestamp: Date.now()}}])
        // ~2 KB of text a turn: twelve of them in one span would be ~24 KB.
        expect(await refresh(), `after turn ${i + 1}`).toBeLessThanOrEqual(SPAN_BYTES + 4096)
      }
    } finally {
      state.close()
    }
    await compareAll(stateDir, dataDir, 'after twelve one-turn appends')
  })
})
