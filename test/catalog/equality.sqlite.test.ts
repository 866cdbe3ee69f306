// The catalog's promise: an answer from the catalog equals a scan of the store at that moment (`--scan`, which reads
// every transcript), whatever happened between two queries. Generated JSON-era stores (test/support/catalog-store.ts)
// get random changes (appends, torn tails, bad lines, replaced and rewritten transcripts, truncation, resets, pruned
// archives, deleted keys, a reordered index) and after each, searches and usage from the catalog (a new process's
// catalog each time: a fresh connection on the same file) are compared with the scan's, field by field.
import fs from 'node:fs'
import path from 'node:path'

import fc from 'fast-check'
import {expect, it} from 'vitest'

import {CommandCatalog} from '../../src/catalog/index.js'
import {catalogLedger} from '../../src/catalog/ledger.js'
import {type SearchOptions, sessionsSearch, type SessionsSearchResult} from '../../src/sessions/search.js'
import {sessionsUsage, type SessionsUsageResult, type UsageOptions} from '../../src/sessions/usage.js'
import {OpenClawState} from '../../src/store/state.js'
import {GeneratedStore} from '../support/catalog-store.js'
import {ROOT, tempDir} from '../support/cli.js'
import {describeSqlite} from '../support/sqlite.js'

/** npm test's smoke count; `npm run test:deep` (CI) runs 12. */
const RUNS = Number(process.env.CLAWKIT_CATALOG_RUNS ?? 3)

/** The build worker as the CLI runs it (npm run build makes it; the tests run the built CLI too). */
const WORKER_FILE = path.join(ROOT, 'dist', 'vendor', 'catalog-worker.cjs')

/** The searches compared after every change: literals in both cases, short ones, --regex, --word, roles, a window. */
const SEARCHES: [string, SearchOptions][] = [
  ['zebra', {}],
  ['Zebra', {}],
  ['zebra', {word: true}],
  ['zebra', {role: 'tool'}],
  ['kelvin', {}],
  ['café', {}],
  ['caf', {}],
  ['数据库', {}],
  ['σίσυφος', {}],
  ['Σίσυφος', {}],
  ['"quoted"', {}],
  ['type', {}],
  ['usage', {}],
  ['ze', {}],
  ['k', {}],
  ['ß', {}],
  ['e', {}],
  ['a/b', {}],
  ['deploy to', {}],
  ['tab here', {role: 'user'}],
  ['ze+bras?', {regex: true}],
  ['(?:alpha|deploy)', {regex: true}],
  ['kube', {since: '2026-10-01T12:00:00Z'}],
  ['zebra', {key: 'agent:main:k0'}],
  // Inside id-like tokens (kept as trigrams, read back): a piece of one, a whole one, one over two of them, short ones.
  ['9f3a', {}],
  ['ebra42de', {}],
  ['req_9f3a0b1c2d', {}],
  ['20261207', {word: true}],
  ['f3', {}],
  ['deployalpha', {}],
  ['zebra42', {role: 'user'}],
]

const USAGES: UsageOptions[] = [
  {},
  {by: 'model'},
  {by: 'day'},
  {by: 'key'},
  {by: 'agent'},
  {includeArchived: false},
  {since: '2026-10-01T10:00:00Z'},
  // Windows on both sides, breakdowns and a zone (issue 30): the ledger skips transcripts outside them and filters in SQL.
  {by: 'hour,kind', since: '2026-10-01T09:00:00Z', until: '2026-10-01T12:00:00Z', timezone: 'Europe/Berlin'},
  {by: 'week,session', until: '2026-10-01T10:30:00Z', timezone: 'America/New_York'},
]

/** A search result without what says how it was found (engine, per-store counts). */
function comparable(r: SessionsSearchResult): unknown {
  const {engine: _e, stores: _s, ...rest} = r
  return rest
}

function comparableUsage(r: SessionsUsageResult): unknown {
  const {source: _s, removed: _r, ...rest} = r
  return rest
}

/** One query as a new clawkit process makes it: the state opened again, a new catalog connection. */
async function fromCatalog<T>(stateDir: string, dataDir: string, fn: (state: OpenClawState, cat: CommandCatalog) => Promise<T>): Promise<T> {
  const state = OpenClawState.open({stateDir, ignoreSettings: true, env: {HOME: dataDir}})
  const notes: string[] = []
  const cat = new CommandCatalog(state, (line) => notes.push(line), {env: {CLAWKIT_DATA_DIR: dataDir}})
  try {
    const out = await fn(state, cat)
    expect(notes).toEqual([])
    return out
  } finally {
    cat.close()
    state.close()
  }
}

async function scan<T>(stateDir: string, fn: (state: OpenClawState) => Promise<T>): Promise<T> {
  const state = OpenClawState.open({stateDir, ignoreSettings: true, env: {HOME: '/nonexistent'}})
  try {
    return await fn(state)
  } finally {
    state.close()
  }
}

async function compareAll(stateDir: string, dataDir: string, what: string): Promise<void> {
  for (const [pattern, opts] of SEARCHES) {
    for (const [includeArchived, limit] of [[true, 'all'], [false, 'all'], [true, '2']] as const) {
      const o: SearchOptions = {...opts, allAgents: true, includeArchived, limit}
      const want = await scan(stateDir, (s) => sessionsSearch(s, pattern, {...o, scan: true}))
      const got = await fromCatalog(stateDir, dataDir, (s, cat) => sessionsSearch(s, pattern, {...o, index: cat.searchIndex()}))
      expect(comparable(got), `${what}: search ${pattern} ${JSON.stringify(o)}`).toEqual(comparable(want))
      // Patterns with a word unit to look up are the catalog's; a --regex with no literal every match holds is a scan.
      if (got.transcripts > 0 && pattern !== '(?:alpha|deploy)') expect(got.engine, `${what}: ${pattern}`).toBe('catalog')
    }
  }
  for (const opts of USAGES) {
    const o: UsageOptions = {...opts, allAgents: true}
    const want = await scan(stateDir, (s) => sessionsUsage(s, {...o, scan: true}))
    const got = await fromCatalog(stateDir, dataDir, (s, cat) => sessionsUsage(s, {...o, ledger: catalogLedger(cat), removedSpend: false}))
    expect(got.source).toBe('catalog')
    expect(comparableUsage(got), `${what}: usage ${JSON.stringify(o)}`).toEqual(comparableUsage(want))
  }
}

describeSqlite('the catalog answers as a scan does (JSON era, generated stores)', () => {
  it('after every kind of change between two queries, search and usage from the catalog equal --scan', async () => {
    let runs = 0
    await fc.assert(
      fc.asyncProperty(fc.integer({min: 1, max: 2 ** 31 - 1}), fc.integer({min: 3, max: 8}), async (seed, steps) => {
        const root = tempDir('clawkit-catalog-')
        const stateDir = path.join(root, 'state')
        const dataDir = path.join(root, 'data')
        // Many id-like words: the searches meet them in most spans (a store this small is answered from the catalog whatever the share).
        const g = GeneratedStore.create(stateDir, seed, {keys: 3, lines: 10, idRate: 0.15})
        const done: string[] = []
        // Every other run builds through the build worker (the bundle's, dist/vendor/catalog-worker.cjs), whatever the
        // store's size: what it writes must be what a read in the main thread writes. By the run's number, not its seed,
        // so that npm test's three runs hold both kinds.
        const run = runs++
        const worker = run % 2 === 0
        const saved = {bytes: process.env.CLAWKIT_CATALOG_WORKER_BYTES, file: process.env.CLAWKIT_CATALOG_WORKER_FILE, counts: process.env.CLAWKIT_CATALOG_SPAN_COUNTS}
        process.env.CLAWKIT_CATALOG_WORKER_BYTES = worker ? '0' : '-1'
        process.env.CLAWKIT_CATALOG_WORKER_FILE = WORKER_FILE
        // Every third run, an exact answer takes the parts of the spans it reads whole (id-like tokens) out of its count
        // by walking the needle's parts, as it does for many such spans, instead of a count per span.
        if (run % 3 === 0) process.env.CLAWKIT_CATALOG_SPAN_COUNTS = '0'
        else delete process.env.CLAWKIT_CATALOG_SPAN_COUNTS
        try {
          if (worker) {
            for (const agent of g.agents) {
              const view = await fromCatalog(stateDir, dataDir, (s, cat) => cat.view(agent, s.store(agent)))
              expect(view!.read.worker, `seed ${seed}: ${agent}'s first build read by the worker`).toBe(view!.read.transcripts)
            }
          }
          await compareAll(stateDir, dataDir, `seed ${seed}, built${worker ? ' by the worker' : ''}`)
          for (let i = 0; i < steps; i++) {
            done.push(g.step())
            await compareAll(stateDir, dataDir, `seed ${seed} after ${done.join('; ')}`)
          }
        } finally {
          for (const [k, v] of [['CLAWKIT_CATALOG_WORKER_BYTES', saved.bytes], ['CLAWKIT_CATALOG_WORKER_FILE', saved.file], ['CLAWKIT_CATALOG_SPAN_COUNTS', saved.counts]] as const) {
            if (v === undefined) delete process.env[k]
            else process.env[k] = v
          }
        }
        fs.rmSync(root, {recursive: true, force: true})
      }),
      {numRuns: RUNS, seed: 28, endOnFailure: true},
    )
  }, 600_000)
})

/** The live transcript of a key, and the index entry. */
function liveOf(stateDir: string, agent: string, key: string): string {
  const index = JSON.parse(fs.readFileSync(path.join(stateDir, 'agents', agent, 'sessions', 'sessions.json'), 'utf8'))
  return path.join(stateDir, 'agents', agent, 'sessions', `${index[key].sessionId}.jsonl`)
}

describeSqlite('the catalog, change by change', () => {
  it('a reset, then the new transcript rewritten in place with another header time: the listing is made again (the reset chain dates sessions by headers)', async () => {
    const root = tempDir('clawkit-catalog-')
    const stateDir = path.join(root, 'state')
    const dataDir = path.join(root, 'data')
    const g = GeneratedStore.create(stateDir, 7, {agents: ['main'], keys: 2, lines: 20})
    await compareAll(stateDir, dataDir, 'built')
    const done = g.apply('reset')!
    expect(done).toMatch(/^reset /)
    await compareAll(stateDir, dataDir, 'after the reset')
    // The live transcript the reset made: its header's time is what ties the archive to the key (the reset chain).
    const key = done.slice('reset '.length)
    const live = liveOf(stateDir, 'main', key)
    const chained = await scan(stateDir, (s) => sessionsSearch(s, 'e', {allAgents: true, includeArchived: true, limit: 'all', scan: true}))
    const lines = fs.readFileSync(live, 'utf8').split('\n')
    const head = JSON.parse(lines[0])
    head.timestamp = '2020-01-01T00:00:00.000Z'
    lines[0] = JSON.stringify(head)
    const fd = fs.openSync(live, 'r+')
    fs.ftruncateSync(fd, 0)
    fs.writeSync(fd, lines.join('\n'), 0)
    fs.closeSync(fd)
    const unchained = await scan(stateDir, (s) => sessionsSearch(s, 'e', {allAgents: true, includeArchived: true, limit: 'all', scan: true}))
    // The archive no longer chains onto the key: the scan says so, and so must the catalog.
    expect(chained.hits.filter((h) => h.where === 'reset-archive').map((h) => h.key)).toContain(key)
    expect(unchained.hits.filter((h) => h.where === 'reset-archive').map((h) => h.key)).not.toContain(key)
    await compareAll(stateDir, dataDir, 'after the in-place rewrite of the live header')
  })

  it('times with a fraction of a millisecond (numeric timestamps OpenClaw does not write, a hand or another tool may): the catalog keeps them as Date does and answers as a scan, --limit and --until at that millisecond included', async () => {
    const root = tempDir('clawkit-catalog-')
    const stateDir = path.join(root, 'state')
    const dataDir = path.join(root, 'data')
    GeneratedStore.create(stateDir, 13, {agents: ['main'], keys: 2, lines: 10})
    await compareAll(stateDir, dataDir, 'built')
    const at = Date.parse('2026-10-01T12:00:00.000Z')
    const usage = {input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: {total: 0.01}}
    const lines = [
      {type: 'message', id: 'frac01', parentId: null, timestamp: at + 0.5, message: {role: 'user', content: 'zebra at half a millisecond'}},
      {type: 'message', id: 'frac02', parentId: null, message: {role: 'user', content: 'zebra at a quarter', timestamp: at + 0.25}},
      {type: 'message', id: 'frac03', parentId: null, message: {role: 'assistant', content: [{type: 'text', text: 'zebra reply'}], provider: 'mockant', model: 'priced', usage, timestamp: at + 0.75}},
      {type: 'message', id: 'frac04', parentId: null, timestamp: at - 0.5, message: {role: 'user', content: 'zebra just before'}},
    ]
    fs.appendFileSync(liveOf(stateDir, 'main', 'agent:main:k1'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
    await compareAll(stateDir, dataDir, 'after lines with fractional times')
    for (const limit of ['1', '2', '3']) {
      const o: SearchOptions = {allAgents: true, includeArchived: true, limit}
      const want = await scan(stateDir, (s) => sessionsSearch(s, 'zebra', {...o, scan: true}))
      const got = await fromCatalog(stateDir, dataDir, (s, cat) => sessionsSearch(s, 'zebra', {...o, index: cat.searchIndex()}))
      expect(got.engine).toBe('catalog')
      expect(comparable(got), `--limit ${limit}`).toEqual(comparable(want))
    }
    const u: UsageOptions = {allAgents: true, until: '2026-10-01T12:00:00.000Z'}
    const want = await scan(stateDir, (s) => sessionsUsage(s, {...u, scan: true}))
    const got = await fromCatalog(stateDir, dataDir, (s, cat) => sessionsUsage(s, {...u, ledger: catalogLedger(cat), removedSpend: false}))
    expect(comparableUsage(got)).toEqual(comparableUsage(want))
  })

  it('another clawkit process writing to the catalog between a refresh and its answer (it indexed a last line that was ended meanwhile): search and usage answer as a scan, no line counted twice', async () => {
    const root = tempDir('clawkit-catalog-')
    const stateDir = path.join(root, 'state')
    const dataDir = path.join(root, 'data')
    GeneratedStore.create(stateDir, 17, {agents: ['main'], keys: 2, lines: 10})
    const live = liveOf(stateDir, 'main', 'agent:main:k0')
    const usage = {input: 7, output: 3, cacheRead: 0, cacheWrite: 0, totalTokens: 10, cost: {total: 0.02}}
    // An unterminated last line: the view reads it at query time, as a scan does.
    const unended = (id: string) => fs.appendFileSync(live, JSON.stringify({type: 'message', id, parentId: null, timestamp: '2026-10-02T00:00:00.000Z', message: {role: 'assistant', content: [{type: 'text', text: `tailword ${id}`}], provider: 'mockant', model: 'priced', usage}}))
    // What happens between: OpenClaw ends the line, and another clawkit process (another connection) indexes it.
    const meanwhile = async () => {
      fs.appendFileSync(live, '\n')
      await fromCatalog(stateDir, dataDir, (s, cat) => cat.view('main', s.store('main')))
    }
    unended('tail01')
    await fromCatalog(stateDir, dataDir, (s, cat) => cat.view('main', s.store('main')))
    const got = await fromCatalog(stateDir, dataDir, (s, cat) => {
      const index = cat.searchIndex()
      const racing: typeof index = {...index, view: async (agentId, store) => {
        const v = await index.view(agentId, store)
        await meanwhile()
        return v
      }}
      return sessionsSearch(s, 'tailword', {allAgents: true, includeArchived: true, limit: '5', index: racing})
    })
    const want = await scan(stateDir, (s) => sessionsSearch(s, 'tailword', {allAgents: true, includeArchived: true, limit: '5', scan: true}))
    expect(want.count).toBe(1)
    expect(comparable(got)).toEqual(comparable(want))
    unended('tail02')
    await fromCatalog(stateDir, dataDir, (s, cat) => cat.view('main', s.store('main')))
    const spent = await fromCatalog(stateDir, dataDir, (s, cat) => {
      const view = cat.view.bind(cat)
      cat.view = async (agentId, store) => {
        const v = await view(agentId, store)
        await meanwhile()
        return v
      }
      return sessionsUsage(s, {allAgents: true, ledger: catalogLedger(cat), removedSpend: false})
    })
    expect(comparableUsage(spent)).toEqual(comparableUsage(await scan(stateDir, (s) => sessionsUsage(s, {allAgents: true, scan: true}))))
  })

  it('the catalog failing while an exact answer is read (its count, its newest spans): the search says so once and answers by a scan', async () => {
    const root = tempDir('clawkit-catalog-')
    const stateDir = path.join(root, 'state')
    const dataDir = path.join(root, 'data')
    GeneratedStore.create(stateDir, 19, {agents: ['main'], keys: 2, lines: 10})
    await fromCatalog(stateDir, dataDir, (s, cat) => cat.view('main', s.store('main')))
    const want = await scan(stateDir, (s) => sessionsSearch(s, 'zebra', {allAgents: true, includeArchived: true, limit: '3', scan: true}))
    const state = OpenClawState.open({stateDir, ignoreSettings: true, env: {HOME: dataDir}})
    const notes: string[] = []
    const cat = new CommandCatalog(state, (line) => notes.push(line), {env: {CLAWKIT_DATA_DIR: dataDir}})
    try {
      const index = cat.searchIndex()
      // The words table gone after the answer was made (the vocabulary it looked the needle up in is still there).
      const broken: typeof index = {...index, answer: (view, query) => {
        const a = index.answer(view, query)
        cat.get()!.db.db.exec('DROP TABLE words')
        return a
      }}
      const got = await sessionsSearch(state, 'zebra', {allAgents: true, includeArchived: true, limit: '3', index: broken})
      expect(got.engine).toBe('scan')
      expect(comparable(got)).toEqual(comparable(want))
      expect(notes).toHaveLength(1)
      expect(notes[0]).toMatch(/^clawkit: the catalog failed \(.*words.*\); reading every transcript instead/)
    } finally {
      cat.close()
      state.close()
    }
  })

  it('a needle whose id-like candidates are most of a large store (one or two units, a word most ids hold) is scanned; a rarer one is answered from the catalog; both as --scan', async () => {
    const root = tempDir('clawkit-catalog-')
    const stateDir = path.join(root, 'state')
    const dataDir = path.join(root, 'data')
    GeneratedStore.create(stateDir, 29, {agents: ['main'], keys: 20, lines: 500, idRate: 0.01})
    const spans = await fromCatalog(stateDir, dataDir, async (s, cat) => {
      await cat.view('main', s.store('main'))
      return Number(cat.get()!.db.db.prepare('SELECT count(*) AS n FROM spans').get()!.n)
    })
    // Past the 256 spans below which a store is answered from the catalog whatever the share.
    expect(spans).toBeGreaterThan(300)
    // Ids are in most spans; `zebra` is in three of the five id-like words, `kubeconfig` and `0b1c2d` in one.
    for (const [pattern, engine] of [['f3', 'scan'], ['zebra', 'scan'], ['kubeconfig', 'catalog'], ['0b1c2d', 'catalog'], ['café', 'catalog']] as const) {
      for (const limit of ['all', '3'] as const) {
        const o: SearchOptions = {allAgents: true, includeArchived: true, limit}
        const want = await scan(stateDir, (s) => sessionsSearch(s, pattern, {...o, scan: true}))
        const got = await fromCatalog(stateDir, dataDir, (s, cat) => sessionsSearch(s, pattern, {...o, index: cat.searchIndex()}))
        expect(comparable(got), `${pattern} ${limit}`).toEqual(comparable(want))
        expect(got.engine, pattern).toBe(engine)
      }
    }
  })

  it('one appended turn is all a refresh reads: one transcript, the appended bytes (and its last span again, to merge it)', async () => {
    const root = tempDir('clawkit-catalog-')
    const stateDir = path.join(root, 'state')
    const dataDir = path.join(root, 'data')
    GeneratedStore.create(stateDir, 11, {agents: ['main'], keys: 6, lines: 40})
    const first = await fromCatalog(stateDir, dataDir, (s, cat) => cat.view('main', s.store('main')))
    expect(first!.read.transcripts).toBe(6)
    const same = await fromCatalog(stateDir, dataDir, (s, cat) => cat.view('main', s.store('main')))
    expect(same!.read).toEqual({transcripts: 0, bytes: 0})
    const live = liveOf(stateDir, 'main', 'agent:main:k3')
    const turn = `${JSON.stringify({type: 'message', id: 'added01', parentId: null, timestamp: '2026-11-01T00:00:00.000Z', message: {role: 'user', content: 'one more zebra'}})}\n`
    fs.appendFileSync(live, turn)
    const after = await fromCatalog(stateDir, dataDir, (s, cat) => cat.view('main', s.store('main')))
    expect(after!.read).toEqual({transcripts: 1, bytes: Buffer.byteLength(turn)})
    await compareAll(stateDir, dataDir, 'after one appended turn')
  })

  it('spend of a transcript OpenClaw removed stays in usage, marked removed; --scan (and removedSpend: false) leave it out; a renamed archive is never counted twice', async () => {
    const root = tempDir('clawkit-catalog-')
    const stateDir = path.join(root, 'state')
    const dataDir = path.join(root, 'data')
    const g = GeneratedStore.create(stateDir, 5, {agents: ['main'], keys: 3, lines: 30})
    g.apply('reset')
    const archive = g.transcripts('main').find((f) => f.includes('.reset.'))!
    const sessionId = JSON.parse(fs.readFileSync(archive, 'utf8').split('\n')[0]).id as string
    const bySession = (r: SessionsUsageResult) => r.rows.find((x) => x.sessionId === sessionId)
    const before = await scan(stateDir, (s) => sessionsUsage(s, {allAgents: true, scan: true}))
    const spent = bySession(before)!
    expect(spent.costUsd).toBeGreaterThan(0)
    await fromCatalog(stateDir, dataDir, (s, cat) => sessionsUsage(s, {allAgents: true, ledger: catalogLedger(cat)}))
    // A key deleted: its live transcript renamed to a .deleted. archive. The same calls under another name: no removed spend.
    g.apply('deleteKey')
    const renamed = await fromCatalog(stateDir, dataDir, (s, cat) => sessionsUsage(s, {allAgents: true, ledger: catalogLedger(cat)}))
    expect(renamed.removed).toEqual({transcripts: 0, calls: 0, costUsd: 0})
    // OpenClaw's cleanup prunes the reset archive.
    const original = fs.readFileSync(archive)
    fs.rmSync(archive)
    const scanned = await scan(stateDir, (s) => sessionsUsage(s, {allAgents: true, scan: true}))
    expect(bySession(scanned)).toBeUndefined()
    const kept = await fromCatalog(stateDir, dataDir, (s, cat) => sessionsUsage(s, {allAgents: true, ledger: catalogLedger(cat)}))
    expect(kept.removed).toEqual({transcripts: 1, calls: spent.calls, costUsd: spent.costUsd})
    const row = bySession(kept)!
    expect(row).toMatchObject({removed: true, costUsd: spent.costUsd, removedCostUsd: spent.costUsd, calls: spent.calls, input: spent.input, output: spent.output, largestCall: spent.largestCall})
    expect(kept.total.costUsd).toBe(Math.round((scanned.total.costUsd + spent.costUsd) * 1e9) / 1e9)
    expect(kept.total.calls).toBe(scanned.total.calls + spent.calls)
    expect(kept.total.removedCostUsd).toBe(spent.costUsd)
    // Without the removed spend, the catalog is the scan again; by day the removed calls stay in their days.
    const without = await fromCatalog(stateDir, dataDir, (s, cat) => sessionsUsage(s, {allAgents: true, ledger: catalogLedger(cat), removedSpend: false}))
    expect(comparableUsage(without)).toEqual(comparableUsage(scanned))
    const byDay = await fromCatalog(stateDir, dataDir, (s, cat) => sessionsUsage(s, {allAgents: true, by: 'day', ledger: catalogLedger(cat)}))
    expect(byDay.rows.reduce((n, x) => n + x.calls, 0)).toBe(scanned.total.calls + spent.calls)
    // A file put back under the archive's name with none of those calls: they stay removed spend.
    fs.writeFileSync(archive, `${JSON.stringify({type: 'session', version: 3, id: sessionId, timestamp: '2026-10-01T00:00:00.000Z', cwd: '/w'})}\n`)
    const emptied = await fromCatalog(stateDir, dataDir, (s, cat) => sessionsUsage(s, {allAgents: true, ledger: catalogLedger(cat)}))
    expect(emptied.removed).toEqual({transcripts: 1, calls: spent.calls, costUsd: spent.costUsd})
    // The archive itself restored: its calls are the store's again, and are counted once, not as removed.
    fs.writeFileSync(archive, original)
    const restored = await fromCatalog(stateDir, dataDir, (s, cat) => sessionsUsage(s, {allAgents: true, ledger: catalogLedger(cat)}))
    expect(restored.removed).toEqual({transcripts: 0, calls: 0, costUsd: 0})
    expect(comparableUsage(restored)).toEqual(comparableUsage(await scan(stateDir, (s) => sessionsUsage(s, {allAgents: true, scan: true}))))
  })
})
