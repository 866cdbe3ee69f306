#!/usr/bin/env node
// The `clawkit sync` rows of `npm run bench` (issue 19): a generated JSON-era store of BENCH_SYNC_SESSIONS sessions
// (10000) whose transcripts add up to BENCH_SYNC_BYTES (1 GiB), synced into a throwaway local PostgreSQL cluster
// (Debian's packages; initdb + pg_ctl in a temp dir, as test/support/postgres.ts does, with the server's default
// durability), then synced again with nothing changed. Prints a Markdown table: wall time, events per second, MB/s,
// peak RSS (VmHWM probe). BENCH_KEEP=1 keeps the temp dir. Skipped with a line when no PostgreSQL is installed.
import {execFileSync, spawnSync} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {pgBin, startBenchCluster} from './pg-cluster.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(root, 'bin', 'run.js')
const sessions = Number(process.env.BENCH_SYNC_SESSIONS ?? 10_000)
const totalBytes = Number(process.env.BENCH_SYNC_BYTES ?? 1024 ** 3)
const keep = process.env.BENCH_KEEP === '1'

const PG = pgBin()
if (!PG) {
  console.log('\n(sync rows skipped: no PostgreSQL server binaries; Debian: apt-get install postgresql)')
  process.exit(0)
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-bench-sync-'))
fs.chmodSync(dir, 0o755)
const state = path.join(dir, 'state')
const sessionsDir = path.join(state, 'agents', 'main', 'sessions')

/** Transcripts of ~1 KB messages, user and assistant (with usage) in turn, until each session has its share of bytes. */
function generate() {
  fs.mkdirSync(sessionsDir, {recursive: true, mode: 0o700})
  const per = Math.floor(totalBytes / sessions)
  const text = 'lorem ipsum dolor sit amet, '.repeat(36)
  const index = {}
  let bytes = 0
  let lines = 0
  let t = Date.parse('2026-11-01T00:00:00Z')
  for (let s = 0; s < sessions; s++) {
    const id = randomUUID()
    const chunks = [`${JSON.stringify({type: 'session', version: 3, id, timestamp: new Date(t).toISOString(), cwd: '/srv/ws'})}\n`]
    let size = chunks[0].length
    let parent = null
    for (let i = 0; size < per; i++) {
      const eid = `${s.toString(16)}x${i.toString(16)}`
      t += 1000
      const message =
        i % 2 === 0
          ? {role: 'user', content: [{type: 'text', text: `q${i} ${text}`}], timestamp: t}
          : {role: 'assistant', content: [{type: 'text', text: `a${i} ${text}`}], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage: {input: 900, output: 120, cacheRead: 0, cacheWrite: 0, totalTokens: 1020, cost: {input: 0.0027, output: 0.0018, cacheRead: 0, cacheWrite: 0, total: 0.0045}}, stopReason: 'stop', timestamp: t}
      const line = `${JSON.stringify({type: 'message', id: eid, parentId: parent, timestamp: new Date(t).toISOString(), message})}\n`
      parent = eid
      chunks.push(line)
      size += line.length
    }
    fs.writeFileSync(path.join(sessionsDir, `${id}.jsonl`), chunks.join(''), {mode: 0o600})
    bytes += size
    lines += chunks.length
    index[`agent:main:telegram:direct:${s}`] = {sessionId: id, updatedAt: t, sessionFile: path.join(sessionsDir, `${id}.jsonl`), chatType: 'direct', modelProvider: 'anthropic', model: 'claude-sonnet-4-5'}
  }
  fs.writeFileSync(path.join(sessionsDir, 'sessions.json'), JSON.stringify(index, null, 2), {mode: 0o600})
  return {bytes, lines}
}

const t0 = Date.now()
const gen = generate()
console.error(`generated ${sessions} sessions, ${gen.lines} lines, ${(gen.bytes / 1024 ** 3).toFixed(2)} GiB in ${((Date.now() - t0) / 1000).toFixed(1)} s (${dir})`)

const cluster = await startBenchCluster(PG, dir)
const {url, port} = cluster
try {
  const probe = path.join(dir, 'rss')
  const run = (label) => {
    const t = process.hrtime.bigint()
    const r = spawnSync(process.execPath, [...(process.env.BENCH_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_PROF] : []), bin, 'sync', '--to', url, '--state-dir', state, '--host', 'bench', '--json'], {
      env: {...process.env, NODE_OPTIONS: `--require ${path.join(root, 'scripts', 'rss-probe.cjs')}`, CLAWKIT_RSS_PROBE_FILE: probe, HOME: dir, NO_COLOR: '1'},
      maxBuffer: 64 * 1024 ** 2,
      encoding: 'utf8',
    })
    const ms = Number(process.hrtime.bigint() - t) / 1e6
    if (r.status !== 0) throw new Error(`sync (${label}) failed: ${r.stdout}${r.stderr}`)
    const doc = JSON.parse(r.stdout)
    return {ms, rss: Number(fs.readFileSync(probe, 'utf8')) / 1024 ** 2, events: doc.total.events, bytes: doc.total.bytes}
  }
  const first = run('first')
  if (first.events !== gen.lines) throw new Error(`the first sync uploaded ${first.events} events, not ${gen.lines}`)
  const second = run('again')
  const psql = (sql) => execFileSync(path.join(PG, 'psql'), ['-X', '-A', '-t', '-h', '127.0.0.1', '-p', String(port), '-U', 'bench', '-d', 'postgres', '-c', sql], {encoding: 'utf8', env: {...process.env, PGPASSWORD: 'bench-pw'}}).trim()
  const dbBytes = Number(psql('SELECT pg_database_size(current_database())'))
  // What the server takes from one client with nothing else to do: 20 batches of 1000 rows of this store's average
  // size, already in memory, by the same INSERT ... unnest statement (the ceiling a single-connection sync can reach).
  const {default: pgm} = await import('pg')
  const pc = new pgm.Client({connectionString: url})
  await pc.connect()
  psql('CREATE TABLE bench_copy (LIKE clawkit_events INCLUDING ALL)')
  const avgRaw = Math.round(first.bytes / first.events)
  const filler = 'x'.repeat(Math.max(0, avgRaw - 60))
  let ts = process.hrtime.bigint()
  for (let b = 0; b < 20; b++) {
    const seqs = Array.from({length: 1000}, (_, i) => b * 1000 + i)
    const raws = seqs.map((i) => JSON.stringify({type: 'message', id: `e${i}`, text: filler}))
    await pc.query('BEGIN')
    await pc.query(
      `INSERT INTO bench_copy (host, agent_id, session_id, seq, raw, entry_type, entry_id, role, at, search_text)
       SELECT 'h', 'a', * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[]) ON CONFLICT DO NOTHING`,
      [seqs.map(() => 's'), seqs, raws, seqs.map(() => 'message'), seqs.map((i) => `e${i}`), seqs.map(() => 'user'), seqs.map(() => new Date().toISOString()), seqs.map(() => filler)],
    )
    await pc.query('COMMIT')
  }
  const serverMs = Number(process.hrtime.bigint() - ts) / 1e6
  await pc.end()
  const serverRate = 20_000 / (serverMs / 1000)
  const sizeLabel = gen.bytes >= 1024 ** 3 * 0.95 ? `${(gen.bytes / 1024 ** 3).toFixed(2)} GiB` : `${Math.round(gen.bytes / 1024 ** 2)} MiB`
  console.log(`\nclawkit sync: node ${process.version}, PostgreSQL ${path.basename(path.dirname(PG))} on 127.0.0.1 (default durability), ${sessions} sessions, ${gen.lines} lines, ${sizeLabel}; database afterwards ${(dbBytes / 1024 ** 3).toFixed(2)} GiB\n`)
  console.log('| command | wall s | events/s | MB/s | peak RSS MiB |')
  console.log('|---|---|---|---|---|')
  console.log(`| sync, first (${sizeLabel}, ${first.events} events) | ${(first.ms / 1000).toFixed(1)} | ${Math.round(first.events / (first.ms / 1000))} | ${(first.bytes / 1e6 / (first.ms / 1000)).toFixed(1)} | ${first.rss.toFixed(0)} |`)
  console.log(`| the server from one idle client: 20 000 rows of ${avgRaw} B in batches of 1000 | ${(serverMs / 1000).toFixed(1)} | ${Math.round(serverRate)} | ${((serverRate * avgRaw) / 1e6).toFixed(1)} | |`)
  console.log(`| sync, nothing changed (${second.events} events) | ${(second.ms / 1000).toFixed(1)} | | | ${second.rss.toFixed(0)} |`)
} finally {
  try {
    cluster.stop()
  } finally {
    if (!keep) fs.rmSync(dir, {recursive: true, force: true})
  }
}
