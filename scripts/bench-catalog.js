#!/usr/bin/env node
// The local catalog's rows of `npm run bench` (issue 28), on a copy of the search benchmark's 1 GiB corpus
// (scripts/search-corpus.js), everything on Node 24 (node:sqlite), rg and clawkit interleaved run by run so that the
// machine's drift hits both alike:
//   - one scan (`sessions search --scan`) and the catalog's first build (`clawkit index`), and their ratio;
//   - a rare and a common literal from the warm catalog against `rg -c` (median of BENCH_CATALOG_RUNS, 9), beside the
//     floor of a fresh answer: `clawkit --version` (Node, the bundle, oclif) and scripts/stat-floor.js (Node and one stat
//     per transcript);
//   - `sessions usage --all-agents` from the catalog against the scan;
//   - a search after one turn was appended to 1 % of the transcripts (and their keys' entries updated, as OpenClaw
//     does), against a search with nothing changed, alternating;
//   - the catalog's size against the text it covers.
// Every clawkit answer is checked against rg's count or the scan's document; a mismatch is a row "failed: ...".
//   - the first build's floor (scripts/build-floor.js words2: two threads, as the build splits its work) and the same
//     on one thread (words), once each;
//   - BENCH_CATALOG_EXACT=1: the design measured before the word index, an index with positions (bench-exact-index.js);
// BENCH_CATALOG_RUNS, BENCH_SEARCH_BYTES (the corpus), BENCH_KEEP=1 keeps the copy.
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {findNode24} from './node24.js'
import {searchCorpus} from './search-corpus.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(root, 'bin', 'run.js')
const runs = Number(process.env.BENCH_CATALOG_RUNS ?? 9)

export async function catalogRows() {
  const n24 = findNode24()
  if (n24.error) {
    console.log(`\nCatalog rows skipped: ${n24.error}`)
    return
  }
  const node = n24.bin
  const load0 = os.loadavg()
  const corpus = searchCorpus(Number(process.env.BENCH_SEARCH_BYTES ?? 1024 ** 3))
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-bench-catalog-'))
  const state = path.join(dir, 'state')
  const t0 = Date.now()
  // A copy: the appended turns must not change the cached corpus (cp, not links: an append would reach the cache).
  spawnSync('cp', ['-r', corpus.state, state], {stdio: 'inherit'})
  fs.rmSync(path.join(state, '.complete'), {force: true})
  console.error(`bench: copied the corpus in ${((Date.now() - t0) / 1000).toFixed(1)} s to ${state}`)
  const sessionsDir = path.join(state, 'agents', 'main', 'sessions')
  const env = {...process.env, HOME: path.join(dir, 'home'), CLAWKIT_DATA_DIR: path.join(dir, 'data'), CLAWKIT_CACHE_DIR: path.join(dir, 'cache'), NO_COLOR: '1'}
  for (const k of Object.keys(env)) if (k.startsWith('OPENCLAW_') || k === 'NODE_OPTIONS') delete env[k]
  fs.mkdirSync(env.HOME, {recursive: true})

  // Wall time, and the CPU time (user + system, every thread: rg's two included) by /usr/bin/time where it exists: on
  // this shared machine the other helpers' load stretches wall times unevenly, CPU time much less.
  const timeBin = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined
  const cpuFile = path.join(dir, 'cpu')
  const time = (cmd, args) => {
    const [c, a] = timeBin ? [timeBin, ['-f', '%U %S', '-o', cpuFile, cmd, ...args]] : [cmd, args]
    const t = process.hrtime.bigint()
    const r = spawnSync(c, a, {env, maxBuffer: 512 * 1024 ** 2, encoding: 'utf8'})
    const ms = Number(process.hrtime.bigint() - t) / 1e6
    if (r.error) throw r.error
    if (r.status !== 0 && !(cmd === 'rg' && r.status === 1)) throw new Error(`${cmd} ${args.slice(0, 4).join(' ')}: exit ${r.status}: ${(r.stderr || r.stdout).split('\n')[0]}`)
    const cpu = timeBin ? fs.readFileSync(cpuFile, 'utf8').trim().split('\n').at(-1).split(' ').reduce((sum, x) => sum + Number(x) * 1000, 0) : NaN
    return {ms, cpu, stdout: r.stdout, stderr: r.stderr}
  }
  const clawkit = (...args) => time(node, [bin, ...args, '--state-dir', state])
  const rgCount = (stdout) => stdout.split('\n').filter(Boolean).reduce((n, l) => n + Number(l.slice(l.lastIndexOf(':') + 1)), 0)
  // A series holds timed runs ({ms, cpu}); median() is of their wall times, cpuMedian() of their CPU times.
  const median = (xs) => {
    const s = xs.map((v) => (typeof v === 'number' ? v : v.ms)).sort((a, b) => a - b)
    return {median: s[Math.floor(s.length / 2)], min: s[0], max: s.at(-1)}
  }
  const cpuMedian = (xs) => {
    const s = xs.map((v) => v.cpu).sort((a, b) => a - b)
    return s[Math.floor(s.length / 2)]
  }
  /** a's median against b's: wall, and CPU in brackets. */
  const ratio = (a, b) => `${(median(a).median / median(b).median).toFixed(2)}x (CPU ${(cpuMedian(a) / cpuMedian(b)).toFixed(2)}x)`
  const rows = []
  const row = (name, runs, extra = '') => rows.push({name, ...median(runs), cpu: cpuMedian(runs), extra})
  const rgArgs = (needle) => ['-c', needle, '--glob', '*.jsonl*', sessionsDir]
  const search = (needle, ...extra) => clawkit('sessions', 'search', needle, '--include-archived', '--json', ...extra)
  const docOf = (r) => JSON.parse(r.stdout)
  const strip = (d) => {
    const {engine: _e, stores: _s, ...rest} = d
    return JSON.stringify(rest)
  }

  // One scan, and the first build.
  const scans = []
  let scanDoc
  for (let i = 0; i < 3; i++) {
    const r = search(corpus.needle, '--scan')
    scans.push(r)
    scanDoc = docOf(r)
  }
  const build = clawkit('index', '--json')
  const built = JSON.parse(build.stdout)
  // The build's floor (scripts/build-floor.js words2: read, parse, each part's distinct folded tokens into the words
  // table, on two threads as the build does; nothing else) and the same on one thread, once each, right after the build.
  const floorDb = path.join(dir, 'build-floor.sqlite')
  const floor = (mode) => time(node, [path.join(root, 'scripts', 'build-floor.js'), sessionsDir, floorDb, mode])
  const buildFloor = floor('words2')
  const buildFloor1 = floor('words')
  row('one scan: sessions search kubeconfig --scan (3 runs)', scans)
  row('first build: clawkit index (1 run)', [build], `${ratio([build], scans)} one scan, ${ratio([build], [buildFloor])} its floor`)
  row("build floor: node scripts/build-floor.js words2 (read, parse, each part's distinct tokens in a worker; FTS5 inserts in the main thread; no vocabulary, spans or ledger)", [buildFloor], `${ratio([buildFloor], scans)} one scan; ${buildFloor.stdout.trim().split(' ')[3]} bytes of text`)
  row('the same on one thread (build-floor.js words)', [buildFloor1], `${ratio([buildFloor1], scans)} one scan, ${ratio([buildFloor1], [buildFloor])} the floor`)

  // Warm and fresh: rg, the catalog, and the floors, round-robin.
  const series = {rgRare: [], rare: [], version: [], statFloor: [], nodeStart: [], rgCommon: [], common: []}
  let rareDoc
  let commonDoc
  let rgRareCount
  let rgCommonCount
  for (let i = 0; i < runs + 1; i++) {
    const a = time('rg', rgArgs(corpus.needle))
    const b = search(corpus.needle)
    const c = clawkit('--version')
    const d = time(node, [path.join(root, 'scripts', 'stat-floor.js'), sessionsDir])
    const e = time(node, ['-e', '0'])
    const f = time('rg', rgArgs('deploy'))
    const g = search('deploy')
    if (i === 0) {
      rgRareCount = rgCount(a.stdout)
      rgCommonCount = rgCount(f.stdout)
      rareDoc = docOf(b)
      commonDoc = docOf(g)
      continue
    }
    series.rgRare.push(a)
    series.rare.push(b)
    series.version.push(c)
    series.statFloor.push(d)
    series.nodeStart.push(e)
    series.rgCommon.push(f)
    series.common.push(g)
  }
  const commonScan = docOf(search('deploy', '--scan'))
  const rareOk = rareDoc.engine === 'catalog' && rareDoc.count === rgRareCount && strip(rareDoc) === strip(scanDoc)
  const commonOk = commonDoc.engine === 'catalog' && strip(commonDoc) === strip(commonScan)
  row(`rg -c ${corpus.needle}`, series.rgRare, `${rgRareCount} lines`)
  row(`clawkit sessions search ${corpus.needle} --include-archived --json (catalog, warm and fresh)`, series.rare, rareOk ? `${rareDoc.count} hits, = --scan; ${ratio(series.rare, series.rgRare)} rg -c` : `failed: engine ${rareDoc.engine}, count ${rareDoc.count} (rg ${rgRareCount}), same as --scan: ${strip(rareDoc) === strip(scanDoc)}`)
  row('node -e 0 (Node 24 start)', series.nodeStart)
  row('clawkit --version (Node, bundle, oclif)', series.version)
  row('node scripts/stat-floor.js (Node start and one stat per transcript)', series.statFloor)
  row('rg -c deploy', series.rgCommon, `${rgCommonCount} lines`)
  row('clawkit sessions search deploy --include-archived --json (catalog)', series.common, commonOk ? `${commonDoc.count} hits, = --scan; ${ratio(series.common, series.rgCommon)} rg -c` : `failed: engine ${commonDoc.engine}, same as --scan: ${strip(commonDoc) === strip(commonScan)}`)

  // The other design for a common literal: an index with positions, counting without reading (bench-exact-index.js),
  // built once per corpus and kept in the bench cache. Measured before the word index was built; BENCH_CATALOG_EXACT=1 runs it.
  if (process.env.BENCH_CATALOG_EXACT === '1') {
    const exact = path.join(path.dirname(corpus.state), `${path.basename(corpus.state)}.exact-index.sqlite`)
    const script = path.join(root, 'scripts', 'bench-exact-index.js')
    let built
    if (!fs.existsSync(`${exact}.json`)) {
      const r = time(node, [script, 'build', path.join(corpus.state, 'agents', 'main', 'sessions'), exact])
      fs.writeFileSync(`${exact}.json`, r.stdout)
    }
    built = JSON.parse(fs.readFileSync(`${exact}.json`, 'utf8'))
    const counts = []
    const rgs = []
    let n
    for (let i = 0; i < runs + 1; i++) {
      const a = time('rg', rgArgs('deploy'))
      const b = time(node, [script, 'count', exact, 'deploy'])
      if (i === 0) {
        n = Number(b.stdout.trim())
        continue
      }
      rgs.push(a)
      counts.push(b)
    }
    row('rg -c deploy (again, beside the other design)', rgs)
    row('other design: count deploy from an index with positions (FTS5 detail=full, per part), a whole process', counts, `${n === commonDoc.count ? `${n} parts, = the catalog's count` : `failed: ${n} parts, the catalog counted ${commonDoc.count}`}; ${ratio(counts, rgs)} rg -c; its index ${(built.bytes / 1e6).toFixed(0)} MB = ${(built.bytes / built.textBytes).toFixed(2)}x the text (built in ${(built.buildMs / 1000).toFixed(0)} s, once)`)
  }

  // Usage.
  const usageScan = []
  let usageScanDoc
  for (let i = 0; i < 3; i++) {
    const r = clawkit('sessions', 'usage', '--all-agents', '--json', '--scan')
    usageScan.push(r)
    usageScanDoc = docOf(r)
  }
  const usage = []
  let usageDoc
  for (let i = 0; i < runs + 1; i++) {
    const r = clawkit('sessions', 'usage', '--all-agents', '--json')
    if (i === 0) usageDoc = docOf(r)
    else usage.push(r)
  }
  const sameUsage = (() => {
    const {source: _a, removed: _b, ...x} = usageDoc
    const {source: _c, removed: _d, ...y} = usageScanDoc
    return JSON.stringify(x) === JSON.stringify(y)
  })()
  row('clawkit sessions usage --all-agents --json --scan (3 runs)', usageScan, `the first build was ${ratio([build], usageScan)} this scan`)
  row('clawkit sessions usage --all-agents --json (catalog, warm)', usage, sameUsage && usageDoc.source === 'catalog' ? `= --scan; the scan takes ${ratio(usageScan, usage)} as long` : `failed: source ${usageDoc.source}, same as --scan: ${sameUsage}`)

  // One turn appended to 1 % of the transcripts before each search, alternating with searches after no change.
  const files = fs.readdirSync(sessionsDir).filter((f) => /\.jsonl$/.test(f))
  const index = JSON.parse(fs.readFileSync(path.join(sessionsDir, 'sessions.json'), 'utf8'))
  const keyOf = new Map(Object.entries(index).map(([k, e]) => [`${e.sessionId}.jsonl`, k]))
  const pickN = Math.max(1, Math.round(files.length / 100))
  let seed = 7
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
  const unchanged = []
  const appended = []
  let appendedOk = true
  let turns = 0
  for (let i = 0; i < runs + 1; i++) {
    const u = search(corpus.needle)
    for (let k = 0; k < pickN; k++) {
      const f = files[Math.floor(rnd() * files.length)]
      const at = Date.now()
      const id = `b${(turns++).toString(16).padStart(7, '0')}`
      fs.appendFileSync(path.join(sessionsDir, f), `${JSON.stringify({type: 'message', id, parentId: null, timestamp: new Date(at).toISOString(), message: {role: 'user', content: `appended turn ${turns} about the ${corpus.needle} of the cluster`, timestamp: at}})}\n`)
      const key = keyOf.get(f)
      if (key) index[key].updatedAt = at
    }
    fs.writeFileSync(path.join(sessionsDir, 'sessions.json.tmp'), JSON.stringify(index, null, 2))
    fs.renameSync(path.join(sessionsDir, 'sessions.json.tmp'), path.join(sessionsDir, 'sessions.json'))
    const a = search(corpus.needle)
    if (i === 0) continue
    unchanged.push(u)
    appended.push(a)
    if (docOf(a).count !== docOf(u).count + pickN) appendedOk = false
  }
  const final = docOf(search(corpus.needle))
  const finalScan = docOf(search(corpus.needle, '--scan'))
  appendedOk = appendedOk && strip(final) === strip(finalScan)
  row(`clawkit sessions search ${corpus.needle} (catalog), nothing changed since the last search`, unchanged)
  row(`same, after one turn appended to ${pickN} transcripts (1 %) and their entries updated`, appended, appendedOk ? `${ratio(appended, unchanged)} the unchanged search; counts and the final answer = --scan` : 'failed: counts or the final answer differ from --scan')

  const status = JSON.parse(clawkit('index', '--status', '--json').stdout)
  console.log(`\nCatalog: node ${n24.version}, ${os.cpus().length} cores, load average ${load0.map((x) => x.toFixed(1)).join(' ')} at the start, ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} at the end; ${corpus.files} transcripts, ${(corpus.bytes / 1024 ** 3).toFixed(2)} GiB; ${runs} runs each after a warm-up, interleaved (median / min / max wall ms)\n`)
  console.log('| command | median ms | min | max | CPU ms (median) | |')
  console.log('|---|---|---|---|---|---|')
  for (const r of rows) console.log(`| ${r.name} | ${r.median.toFixed(0)} | ${r.min.toFixed(0)} | ${r.max.toFixed(0)} | ${Number.isNaN(r.cpu) ? '' : r.cpu.toFixed(0)} | ${r.extra} |`)
  const d = status.details
  console.log(`\ncatalog: ${(status.catalog.bytes / 1e6).toFixed(1)} MB on disk for ${(status.catalog.textBytes / 1e6).toFixed(1)} MB of searched text (${status.catalog.transcripts} transcripts); full-text index ${(d.indexBytes / 1e6).toFixed(1)} MB = ${d.ratio}x of the text (target at most 0.5x), ledger ${(d.ledgerBytes / 1e6).toFixed(1)} MB for ${d.calls} calls; the first build read ${(built.read.bytes / 1e6).toFixed(0)} MB`)
  if (process.env.BENCH_KEEP !== '1') fs.rmSync(dir, {recursive: true, force: true})
}

if (import.meta.url === `file://${process.argv[1]}`) await catalogRows()
