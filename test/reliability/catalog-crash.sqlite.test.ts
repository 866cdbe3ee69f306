// Crash trials and concurrency of the local catalog, through the real CLI: `clawkit index` killed with SIGKILL at seeded
// random moments of a first build and of an update (batches of 64 KiB, so that a kill lands between many commits), in
// both eras (a generated JSON-era store; a 2026.9.6 database grown by scripts/gen-sqlite-store.js), then
// the next query from the catalog equals --scan and SQLite finds the file sound; and several clawkit processes building
// and searching one catalog at once all answer as a scan does.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import {CommandCatalog} from '../../src/catalog/index.js'
import {catalogLedger} from '../../src/catalog/ledger.js'
import {sessionsSearch, type SessionsSearchResult} from '../../src/sessions/search.js'
import {sessionsUsage, type SessionsUsageResult} from '../../src/sessions/usage.js'
import {appendTo} from '../../src/store/append.js'
import {OpenClawState} from '../../src/store/state.js'
import {GeneratedStore, seeded} from '../support/catalog-store.js'
import {baseEnv, json, ROOT, runCli, runProcess, startCli, tempDir, waitUntil} from '../support/cli.js'
import {describeSqlite} from '../support/sqlite.js'

/** npm test's smoke count; `npm run test:deep` (CI) runs 10. */
const TRIALS = Number(process.env.CLAWKIT_CATALOG_CRASH_TRIALS ?? 3)

const strip = (r: SessionsSearchResult) => {
  const {engine: _e, stores: _s, ...rest} = r
  return rest
}
const stripUsage = (r: SessionsUsageResult) => {
  const {source: _s, removed: _r, ...rest} = r
  return rest
}

/** The catalog's answers (in-process, a fresh connection) against --scan; and the file is sound. */
async function expectSound(stateDir: string, dataDir: string, what: string, patterns = ['zebra', 'kubeconfig', 'café']): Promise<void> {
  const state = OpenClawState.open({stateDir, ignoreSettings: true})
  const cat = new CommandCatalog(state, (line) => expect.fail(`${what}: ${line}`), {env: {CLAWKIT_DATA_DIR: dataDir}})
  try {
    for (const pattern of patterns) {
      const want = await sessionsSearch(state, pattern, {allAgents: true, includeArchived: true, limit: 'all', scan: true})
      const got = await sessionsSearch(state, pattern, {allAgents: true, includeArchived: true, limit: 'all', index: cat.searchIndex()})
      expect(got.engine, what).toBe('catalog')
      expect(strip(got), `${what}: ${pattern}`).toEqual(strip(want))
    }
    const want = await sessionsUsage(state, {allAgents: true, scan: true})
    const got = await sessionsUsage(state, {allAgents: true, ledger: catalogLedger(cat), removedSpend: false})
    expect(stripUsage(got), what).toEqual(stripUsage(want))
    const db = cat.get()!.db.db
    expect(db.prepare('PRAGMA integrity_check').get()?.integrity_check, what).toBe('ok')
    db.exec("INSERT INTO words(words, rank) VALUES ('integrity-check', 0); INSERT INTO vtri(vtri, rank) VALUES ('integrity-check', 0)")
    // The vocabulary holds each token once, numbered without gaps (a killed batch's numbers are taken again).
    expect(db.prepare('SELECT count(*) - count(DISTINCT token) AS d, count(*) - coalesce(max(id), 0) AS g FROM vocab').get(), what).toEqual({d: 0, g: 0})
    // Every span points into a transcript the catalog holds, and every transcript's text is counted once.
    expect(db.prepare('SELECT count(*) AS n FROM spans WHERE transcript NOT IN (SELECT id FROM transcripts WHERE removed_at IS NULL)').get()?.n, what).toBe(0)
    expect(db.prepare('SELECT count(*) AS n FROM transcripts t WHERE removed_at IS NULL AND text_bytes != (SELECT coalesce(sum(text_bytes), 0) FROM spans s WHERE s.transcript = t.id)').get()?.n, what).toBe(0)
  } finally {
    cat.close()
    state.close()
  }
}

describeSqlite('catalog crash trials and concurrency', () => {
  it(`clawkit index killed (SIGKILL) at ${TRIALS} seeded moments of a build and of updates: the next query is right and the file sound`, async () => {
    const root = tempDir('clawkit-catalog-crash-')
    const stateDir = path.join(root, 'state')
    const g = GeneratedStore.create(stateDir, 91, {agents: ['main', 'work'], keys: 12, lines: 400})
    // `worker`: the build reads through its worker thread (any size), as a large build does.
    const env = (dataDir: string, worker = false) => baseEnv(tempDir(), {CLAWKIT_DATA_DIR: dataDir, CLAWKIT_CATALOG_BATCH_BYTES: String(64 * 1024), CLAWKIT_CATALOG_WORKER_BYTES: worker ? '0' : '-1'})
    // How long one build takes here, to spread the kills over it (never a timing assertion).
    const probe = path.join(root, 'probe')
    const t0 = Date.now()
    expect((await runCli(['index', '--state-dir', stateDir], {env: env(probe)})).code).toBe(0)
    const buildMs = Date.now() - t0
    const rnd = seeded(2028)
    const dataDir = path.join(root, 'data')
    let killed = 0
    for (let trial = 0; trial < TRIALS; trial++) {
      // Every other trial updates a catalog that exists: a few transcripts changed since (appends, a reset, a prune).
      if (trial % 2 === 1) for (let i = 0; i < 3; i++) g.step()
      // Two trials in four build through the worker: killed mid-build with it, and resumed with or without it.
      const child = startCli(['index', '--state-dir', stateDir], {env: env(dataDir, trial % 4 < 2)})
      await new Promise((r) => setTimeout(r, Math.floor(rnd() * buildMs)))
      child.kill('SIGKILL')
      const out = await child.exited
      if (out.signal === 'SIGKILL') killed++
      await expectSound(stateDir, dataDir, `trial ${trial} (${out.signal ?? `exit ${out.code}`})`)
    }
    // Most kills landed inside a build: the trials tested something.
    expect(killed).toBeGreaterThan(0)
    fs.rmSync(root, {recursive: true, force: true})
  }, 600_000)

  it(`SQLite era: clawkit index killed (SIGKILL) at ${TRIALS} seeded moments of a build and of updates (turns appended between): the next query is right and the file sound`, async () => {
    const root = tempDir('clawkit-catalog-crash-sq-')
    const stateDir = path.join(root, 'state')
    // A copy of the 2026.9.6 native fixture grown to 40 sessions, one of 40 000 events (~50 MB): a build long enough to
    // be killed inside, committing every 64 KiB of events.
    const gen = await runProcess(process.execPath, [path.join(ROOT, 'scripts', 'gen-sqlite-store.js'), '--out', stateDir, '--sessions', '40', '--big-events', '40000'], {env: baseEnv(tempDir()), timeoutMs: 300_000})
    expect(gen.code, gen.stderr).toBe(0)
    const env = (dataDir: string) => baseEnv(tempDir(), {CLAWKIT_DATA_DIR: dataDir, CLAWKIT_CATALOG_BATCH_BYTES: String(64 * 1024)})
    const probe = path.join(root, 'probe')
    const t0 = Date.now()
    expect((await runCli(['index', '--state-dir', stateDir], {env: env(probe), timeoutMs: 300_000})).code).toBe(0)
    const buildMs = Date.now() - t0
    const rnd = seeded(2029)
    const dataDir = path.join(root, 'data')
    const append = async () => {
      const state = OpenClawState.open({stateDir, ignoreSettings: true})
      try {
        const store = state.store('main')
        const keys = Object.keys(await store.read())
        const key = keys[Math.floor(rnd() * keys.length)]
        const found = await store.findEntry(key)
        if (!found) return
        const now = Date.now()
        await appendTo(store, store.transcriptOf(found.entry, found.storedKey), [
          {type: 'message', message: {role: 'user', content: `crash trial bootstrap ${now}`, timestamp: now}},
          {type: 'message', message: {role: 'assistant', content: [{type: 'text', text: 'noted'}], provider: 'mockant', model: 'm1', usage: {input: 10, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 12, cost: {total: 0.0001}}, timestamp: now}},
        ])
      } finally {
        state.close()
      }
    }
    let killed = 0
    for (let trial = 0; trial < TRIALS; trial++) {
      if (trial % 2 === 1) for (let i = 0; i < 3; i++) await append()
      const child = startCli(['index', '--state-dir', stateDir], {env: env(dataDir)})
      await new Promise((r) => setTimeout(r, Math.floor(rnd() * buildMs)))
      child.kill('SIGKILL')
      const out = await child.exited
      if (out.signal === 'SIGKILL') killed++
      await expectSound(stateDir, dataDir, `SQLite trial ${trial} (${out.signal ?? `exit ${out.code}`})`, ['bootstrap', 'Bootstrap', 'crash trial'])
    }
    expect(killed).toBeGreaterThan(0)
    fs.rmSync(root, {recursive: true, force: true})
  }, 900_000)

  it.each([
    ['', '-1'],
    [' (built through the worker thread)', '0'],
  ])('Ctrl-C (SIGINT) during a first build keeps what was committed; the next run reads only the rest%s', async (_, workerBytes) => {
    const root = tempDir('clawkit-catalog-int-')
    const stateDir = path.join(root, 'state')
    GeneratedStore.create(stateDir, 23, {agents: ['main'], keys: 30, lines: 300})
    const dataDir = path.join(root, 'data')
    const env = baseEnv(tempDir(), {CLAWKIT_DATA_DIR: dataDir, CLAWKIT_CATALOG_BATCH_BYTES: String(16 * 1024), CLAWKIT_CATALOG_WORKER_BYTES: workerBytes})
    const indexed = () => {
      const dir = path.join(dataDir, 'catalog')
      const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith('.sqlite')) : undefined
      if (!file) return 0
      const {DatabaseSync} = (process as any).getBuiltinModule('node:sqlite')
      const db = new DatabaseSync(path.join(dir, file), {readOnly: true})
      try {
        return Number(db.prepare("SELECT count(*) AS n FROM transcripts WHERE mark LIKE '%\"size\"%'").get().n)
      } catch {
        return 0
      } finally {
        db.close()
      }
    }
    const child = startCli(['index', '--state-dir', stateDir], {env})
    await waitUntil(() => indexed() > 0, 'a first transcript committed')
    child.kill('SIGINT')
    const out = await child.exited
    const done = indexed()
    // Interrupted before the end (else the trial proves nothing: it is said, not skipped).
    expect(out.signal === 'SIGINT' || out.code !== 0, `the build ended before the signal (${out.code})`).toBe(true)
    expect(done).toBeGreaterThan(0)
    const next = json<{read: {transcripts: number}}>(await runCli(['index', '--json', '--state-dir', stateDir], {env}))
    expect(next.read.transcripts).toBe(30 - done)
    await expectSound(stateDir, dataDir, 'after the interrupted build')
  }, 300_000)

  it('three clawkit processes building one catalog at once, and searches meanwhile: every answer is a scan\'s, the file sound', async () => {
    const root = tempDir('clawkit-catalog-conc-')
    const stateDir = path.join(root, 'state')
    GeneratedStore.create(stateDir, 17, {agents: ['main', 'work'], keys: 8, lines: 300})
    const dataDir = path.join(root, 'data')
    const env = baseEnv(tempDir(), {CLAWKIT_DATA_DIR: dataDir, CLAWKIT_CATALOG_BATCH_BYTES: String(64 * 1024)})
    const scan = await runCli(['sessions', 'search', 'zebra', '--all-agents', '--include-archived', '--limit', 'all', '--json', '--scan', '--state-dir', stateDir], {env})
    const runs = await Promise.all([
      // One through its worker thread: a transcript the other process wrote meanwhile is read again from the newer mark.
      runCli(['index', '--state-dir', stateDir], {env: {...env, CLAWKIT_CATALOG_WORKER_BYTES: '0'}}),
      runCli(['index', '--state-dir', stateDir], {env}),
      runCli(['sessions', 'search', 'zebra', '--all-agents', '--include-archived', '--limit', 'all', '--json', '--state-dir', stateDir], {env}),
      runCli(['sessions', 'search', 'zebra', '--all-agents', '--include-archived', '--limit', 'all', '--json', '--state-dir', stateDir], {env}),
    ])
    for (const r of runs) expect(r.code, r.stderr).toBe(0)
    for (const r of runs.slice(2)) expect(strip(json<SessionsSearchResult>(r))).toEqual(strip(json<SessionsSearchResult>(scan)))
    await expectSound(stateDir, dataDir, 'after the concurrent builds')
  }, 300_000)
})
