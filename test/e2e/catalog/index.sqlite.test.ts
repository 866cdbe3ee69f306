// `clawkit index` and the catalog as the CLI keeps it, through the real CLI on Node 24: where the file lives (clawkit's
// data dir, 0700/0600, never the state dir), --status and --drop, the status line, the notice when no catalog can be
// used (the command scans, and its stdout is the same document), and removed spend in `sessions usage`.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import type {IndexResult} from '../../../src/commands/index/index.js'
import type {SessionsUsageResult} from '../../../src/commands/sessions/usage.js'
import {loadSqlite} from '../../../src/store/sqlite/driver.js'
import {baseEnv, json, runCli, tempDir, TWO_AGENTS, copyFixture} from '../../support/cli.js'
import {GeneratedStore} from '../../support/catalog-store.js'
import {describeSqlite, NATIVE_96} from '../../support/sqlite.js'

function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, {withFileTypes: true})) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else out.set(path.relative(dir, p), `${fs.statSync(p).size}:${fs.readFileSync(p).toString('base64').slice(0, 64)}`)
    }
  }
  walk(dir)
  return out
}

const mode = (p: string) => (fs.statSync(p).mode & 0o777).toString(8)

describeSqlite('clawkit index', () => {
  it('builds the catalog in the data dir (0700 dir, 0600 file), reads nothing twice, says what it holds; nothing is written in the state dir', async () => {
    const home = tempDir()
    const env = baseEnv(home)
    const state = copyFixture(TWO_AGENTS)
    const before = tree(state)
    const built = json<IndexResult>(await runCli(['index', '--json', '--state-dir', state], {env}))
    expect(built.action).toBe('build')
    expect(built.read).toMatchObject({agents: ['main', 'work'], transcripts: 2})
    expect(built.read!.bytes).toBeGreaterThan(0)
    expect(built.catalog.state).toBe('ready')
    expect(built.catalog.file!.startsWith(path.join(env.CLAWKIT_DATA_DIR, 'catalog'))).toBe(true)
    expect(mode(path.dirname(built.catalog.file!))).toBe('700')
    for (const f of fs.readdirSync(path.dirname(built.catalog.file!))) expect(mode(path.join(path.dirname(built.catalog.file!), f)), f).toBe('600')
    expect(built.details!.calls).toBe(6)
    expect(built.details!.indexBytes).toBeGreaterThan(0)
    expect(tree(state)).toEqual(before)
    // Again: nothing changed, nothing read.
    const again = json<IndexResult>(await runCli(['index', '--json', '--state-dir', state], {env}))
    expect(again.read).toMatchObject({transcripts: 0, bytes: 0})
    const status = json<IndexResult>(await runCli(['index', '--status', '--json', '--state-dir', state], {env}))
    expect(status).toMatchObject({action: 'status', changed: 0, catalog: {state: 'ready', transcripts: 2}})
    // A turn appended by OpenClaw: --status sees it changed (one stat each, nothing read); the next build reads it alone.
    const live = path.join(state, 'agents', 'work', 'sessions', fs.readdirSync(path.join(state, 'agents', 'work', 'sessions')).find((f) => f.endsWith('.jsonl'))!)
    fs.appendFileSync(live, `${JSON.stringify({type: 'message', id: 'x1', parentId: null, timestamp: '2026-11-27T00:00:00.000Z', message: {role: 'user', content: 'later'}})}\n`)
    expect(json<IndexResult>(await runCli(['index', '--status', '--json', '--state-dir', state], {env})).changed).toBe(1)
    expect(json<IndexResult>(await runCli(['index', '--json', '--state-dir', state], {env})).read).toMatchObject({transcripts: 1})
    const text = await runCli(['index', '--status', '--state-dir', state], {env})
    expect(text.stdout).toMatch(/^Catalog of /)
    expect(text.stdout).toMatch(/the index is [\d.]+x of it/)
    expect(text.stdout).toContain('ledger        6 model calls')
    // status shows the catalog's line, read-only.
    const st = await runCli(['status', '--state-dir', state], {env})
    expect(st.stdout).toMatch(/Catalog\s+[\d.]+ KiB \([\d.]+x of the [\d.]+ KiB of text it covers\), 2 transcript\(s\)/)
    // --drop deletes it; status says there is none; the next search builds it again.
    const dropped = json<IndexResult>(await runCli(['index', '--drop', '--json', '--state-dir', state], {env}))
    expect(dropped.dropped!.files.length).toBeGreaterThan(0)
    expect(dropped.catalog.state).toBe('none')
    expect(fs.existsSync(built.catalog.file!)).toBe(false)
    expect((await runCli(['status', '--state-dir', state], {env})).stdout).toMatch(/Catalog\s+none yet/)
    const r = await runCli(['sessions', 'search', 'the', '--all-agents', '--json', '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(json<{engine: string}>(r).engine).toBe('catalog')
    expect(fs.existsSync(built.catalog.file!)).toBe(true)
    expect(tree(state)).toEqual(new Map([...before].map(([k, v]) => [k, k.includes(path.basename(live)) ? tree(state).get(k)! : v])))
  })

  it('--rebuild starts again from the store; flags that cannot go together are a usage error', async () => {
    const env = baseEnv(tempDir())
    const state = copyFixture(NATIVE_96)
    await runCli(['index', '--state-dir', state], {env})
    const rebuilt = json<IndexResult>(await runCli(['index', '--rebuild', '--json', '--state-dir', state], {env}))
    expect(rebuilt.action).toBe('rebuild')
    expect(rebuilt.read!.transcripts).toBeGreaterThan(0)
    const bad = await runCli(['index', '--drop', '--rebuild', '--state-dir', state], {env})
    expect(bad.code).toBe(2)
  })

  it('a catalog of an earlier schema (5: id-like tokens in the vocabulary, no id trigrams) is made again on first use, and answers as --scan', async () => {
    const env = baseEnv(tempDir())
    const state = copyFixture(TWO_AGENTS)
    const built = json<IndexResult>(await runCli(['index', '--json', '--state-dir', state], {env}))
    const {DatabaseSync} = loadSqlite()
    const db = new DatabaseSync(built.catalog.file!)
    db.exec("DROP TABLE grams; ALTER TABLE spans DROP COLUMN ids; INSERT INTO vocab(h, token) VALUES (1, 'stale'); PRAGMA user_version = 5")
    db.close()
    const search = (...a: string[]) => runCli(['sessions', 'search', 'the', '--all-agents', '--json', ...a, '--state-dir', state], {env})
    const r = await search()
    expect(r.code, r.stderr).toBe(0)
    const {engine, stores: _s, ...got} = json<Record<string, unknown>>(r)
    expect(engine).toBe('catalog')
    const {stores: _t, engine: _e, ...want} = json<Record<string, unknown>>(await search('--scan'))
    expect(got).toEqual(want)
    const after = new DatabaseSync(built.catalog.file!, {readOnly: true})
    expect(after.prepare('PRAGMA user_version').get()).toEqual({user_version: 6})
    expect(after.prepare("SELECT count(*) AS n FROM vocab WHERE token = 'stale'").get()).toEqual({n: 0})
    expect(after.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'grams'").get()).toEqual({n: 1})
    expect(Number(after.prepare('SELECT max(id) AS m FROM vocab').get()!.m)).toBe(Number(after.prepare('SELECT count(*) AS n FROM vocab').get()!.n))
    after.close()
  })

  it('an unwritable data dir, or one inside the state dir: the command scans (same stdout) and says why once on stderr', async () => {
    const state = copyFixture(TWO_AGENTS)
    const home = tempDir()
    // A catalog dir that is a file cannot be used, whoever runs the test (root ignores a read-only mode).
    const data = path.join(home, 'data')
    fs.mkdirSync(data)
    fs.writeFileSync(path.join(data, 'catalog'), '')
    const scan = await runCli(['sessions', 'search', 'the', '--all-agents', '--json', '--scan', '--state-dir', state], {env: baseEnv(tempDir())})
    for (const dataDir of [data, path.join(state, 'clawkit-data')]) {
      const r = await runCli(['sessions', 'search', 'the', '--all-agents', '--json', '--state-dir', state], {env: baseEnv(home, {CLAWKIT_DATA_DIR: dataDir})})
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/^clawkit: .*(cannot|inside the OpenClaw state dir).*; reading every transcript instead/)
      const {engine: _a, stores: _b, ...got} = json<Record<string, unknown>>(r)
      const {engine: _c, stores: _d, ...want} = json<Record<string, unknown>>(scan)
      expect(got).toEqual(want)
    }
    expect(fs.existsSync(path.join(state, 'clawkit-data'))).toBe(false)
  })

  it('sessions usage keeps the spend of a transcript OpenClaw pruned, in a Removed column and --json fields; --scan leaves it out', async () => {
    const env = baseEnv(tempDir())
    const root = tempDir()
    const state = path.join(root, 'state')
    const g = GeneratedStore.create(state, 3, {agents: ['main'], keys: 2, lines: 30})
    g.apply('reset')
    const archive = g.transcripts('main').find((f) => f.includes('.reset.'))!
    const before = json<SessionsUsageResult>(await runCli(['sessions', 'usage', '--json', '--state-dir', state], {env}))
    expect(before.source).toBe('catalog')
    fs.rmSync(archive)
    const after = json<SessionsUsageResult>(await runCli(['sessions', 'usage', '--json', '--state-dir', state], {env}))
    const scanned = json<SessionsUsageResult>(await runCli(['sessions', 'usage', '--json', '--scan', '--state-dir', state], {env}))
    expect(scanned.source).toBe('scan')
    expect(after.total.costUsd).toBe(before.total.costUsd)
    expect(after.removed!.transcripts).toBe(1)
    expect(after.total.removedCostUsd).toBe(after.removed!.costUsd)
    expect(Math.round((scanned.total.costUsd + after.removed!.costUsd) * 1e9) / 1e9).toBe(after.total.costUsd)
    expect(after.rows.filter((x) => x.removed)).toHaveLength(1)
    const text = await runCli(['sessions', 'usage', '--state-dir', state], {env})
    expect(text.stdout).toMatch(/Removed/)
    expect(text.stdout).toMatch(/\(removed\)/)
    expect(text.stdout).toMatch(/^Removed: \$[\d.]+ of the total was spent in 1 transcript OpenClaw has since removed/m)
  })

  it('sessions list --usage takes each cost from the ledger once the catalog holds the agent, the same figures as reading the transcripts', async () => {
    const env = baseEnv(tempDir())
    const state = copyFixture(TWO_AGENTS)
    const read = json<{sessions: {key: string; usage?: unknown}[]}>(await runCli(['sessions', 'list', '--usage', '--all-agents', '--json', '--state-dir', state], {env}))
    await runCli(['index', '--state-dir', state], {env})
    const kept = json<{sessions: {key: string; usage?: unknown}[]}>(await runCli(['sessions', 'list', '--usage', '--all-agents', '--json', '--state-dir', state], {env}))
    expect(kept.sessions.map((s) => s.usage)).toEqual(read.sessions.map((s) => s.usage))
    expect(kept.sessions.some((s) => (s.usage as {calls: number}).calls > 0)).toBe(true)
  })
})
