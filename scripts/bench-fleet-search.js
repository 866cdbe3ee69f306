#!/usr/bin/env node
// Fleet search against local search (issue 19's scale acceptance): the search benchmark's corpus
// (scripts/search-corpus.js, BENCH_FLEET_SEARCH_BYTES, 256 MiB by default) synced with the real `clawkit sync` into a
// throwaway PostgreSQL cluster (Debian's packages; initdb + pg_ctl in a temp dir, as test/support/postgres.ts does),
// then `sessions search <pattern> --include-archived --json` on the host's files against the same search with
// `--store-url <url> --all-hosts` on the replica, interleaved: a rare literal, a common one, and each as `--regex` (which
// no index serves). Both sides must report the same count, or the row says so. BENCH_FLEET_SEARCH_RUNS (3) runs each
// after a warm-up; peak RSS by the VmHWM probe. Run by `npm run bench` (BENCH_FLEET=0 skips it) or on its own.
import {execFileSync, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {searchCorpus} from './search-corpus.js'
import {pgBin, startBenchCluster} from './pg-cluster.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(root, 'bin', 'run.js')
const bytes = Number(process.env.BENCH_FLEET_SEARCH_BYTES ?? 256 * 1024 ** 2)
const runs = Number(process.env.BENCH_FLEET_SEARCH_RUNS ?? 3)
const keep = process.env.BENCH_KEEP === '1'
// A word of the corpus's vocabulary in about a quarter of its lines: nearly every transcript holds it, so no index can
// rule a transcript out and the cost is the reading itself.
const COMMON = 'deploy'

const PG = pgBin()
if (!PG) {
  console.log('\n(fleet search rows skipped: no PostgreSQL server binaries; Debian: apt-get install postgresql)')
  process.exit(0)
}

const corpus = searchCorpus(bytes)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-bench-fsearch-'))
fs.chmodSync(dir, 0o755)
const cluster = await startBenchCluster(PG, dir)
const {url, port} = cluster

const probe = path.join(dir, 'rss')
/** One CLI run: wall ms, peak RSS MiB, the parsed --json document. */
function once(args) {
  const t = process.hrtime.bigint()
  const r = spawnSync(process.execPath, [bin, ...args], {
    env: {...process.env, NODE_OPTIONS: `--require ${path.join(root, 'scripts', 'rss-probe.cjs')}`, CLAWKIT_RSS_PROBE_FILE: probe, HOME: dir, NO_COLOR: '1'},
    maxBuffer: 256 * 1024 ** 2,
    encoding: 'utf8',
  })
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (r.status !== 0) throw new Error(`clawkit ${args.slice(0, 3).join(' ')} failed (exit ${r.status}): ${(r.stdout + r.stderr).split('\n').find(Boolean)}`)
  return {ms, rss: Number(fs.readFileSync(probe, 'utf8')) / 1024 ** 2, doc: JSON.parse(r.stdout)}
}
/** runs+1 runs, the first a warm-up (page cache, the server's buffers); median/min/max ms, peak RSS, the last document. */
function measure(args) {
  const times = []
  let rss = 0
  let doc
  for (let i = 0; i < runs + 1; i++) {
    const r = once(args)
    doc = r.doc
    if (i === 0) continue
    times.push(r.ms)
    rss = Math.max(rss, r.rss)
  }
  times.sort((a, b) => a - b)
  return {median: times[Math.floor(times.length / 2)], min: times[0], max: times.at(-1), rss, doc}
}

try {
  const load0 = os.loadavg()[0]
  const sync = once(['sync', '--to', url, '--state-dir', corpus.state, '--host', 'bench', '--json'])
  const psql = (sql) => execFileSync(path.join(PG, 'psql'), ['-X', '-A', '-t', '-h', '127.0.0.1', '-p', String(port), '-U', 'bench', '-d', 'postgres', '-c', sql], {encoding: 'utf8', env: {...process.env, PGPASSWORD: 'bench-pw'}}).trim()
  const dbBytes = Number(psql('SELECT pg_database_size(current_database())'))
  const local = (p, extra) => ['sessions', 'search', p, '--state-dir', corpus.state, '--include-archived', '--json', ...extra]
  const fleet = (p, extra) => ['sessions', 'search', p, '--store-url', url, '--all-hosts', '--include-archived', '--json', ...extra]
  const rows = []
  for (const [what, p, extra] of [
    [`rare literal (${corpus.needleLines} lines)`, corpus.needle, []],
    ['common literal', COMMON, []],
    ['rare, --regex', corpus.needle, ['--regex']],
    ['common, --regex', COMMON, ['--regex']],
  ]) {
    // Interleaved, so that a drift of the machine's load hits both sides alike.
    const l = measure(local(p, extra))
    const f = measure(fleet(p, extra))
    rows.push({what, p, extra, l, f})
  }
  const load1 = os.loadavg()[0]
  const size = `${Math.round(corpus.bytes / 1024 ** 2)} MiB`
  console.log(`\nFleet search: node ${process.version}, ${os.cpus().length} cores, load average ${load0.toFixed(1)} to ${load1.toFixed(1)}; PostgreSQL ${path.basename(path.dirname(PG))} on 127.0.0.1 (default durability); ${corpus.files} transcripts, ${size}, ${corpus.lines} lines, one host; database ${(dbBytes / 1024 ** 2).toFixed(0)} MiB after the sync; ${runs} runs each after a warm-up\n`)
  console.log('| command | median ms | min | max | peak RSS MiB | hits (count) | transcripts read | fleet / local |')
  console.log('|---|---|---|---|---|---|---|---|')
  console.log(`| sync --to (first, ${size}, ${sync.doc.total.events} events) | ${sync.ms.toFixed(0)} | | | ${sync.rss.toFixed(0)} | | | |`)
  for (const {what, p, extra, l, f} of rows) {
    const same = l.doc.count === f.doc.count ? '' : ` MISMATCH: local ${l.doc.count}`
    const flags = `${p}${extra.length ? ` ${extra.join(' ')}` : ''}`
    console.log(`| search ${flags}, local (${what}) | ${l.median.toFixed(0)} | ${l.min.toFixed(0)} | ${l.max.toFixed(0)} | ${l.rss.toFixed(0)} | ${l.doc.count} | ${l.doc.transcripts} | |`)
    console.log(`| search ${flags} --store-url --all-hosts (replicaIndex ${f.doc.replicaIndex}) | ${f.median.toFixed(0)} | ${f.min.toFixed(0)} | ${f.max.toFixed(0)} | ${f.rss.toFixed(0)} | ${f.doc.count}${same} | ${f.doc.transcripts} | ${(f.median / l.median).toFixed(2)} |`)
  }
} finally {
  try {
    cluster.stop()
  } finally {
    if (!keep) fs.rmSync(dir, {recursive: true, force: true})
  }
}
