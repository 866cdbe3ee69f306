#!/usr/bin/env node
// Measures another design for the catalog's full-text index (issue 28): the word index with a trigram vocabulary of
// scripts/word-index.js, on the search benchmark's 1 GiB corpus (scripts/search-corpus.js), in one run, Node 24:
//   - its build, against one scan (`sessions search kubeconfig --scan`) and the catalog's current build (`clawkit index`);
//   - its size (everything it needs: the words, the part locators, the vocabulary and its trigrams) against the text;
//   - whole processes (Node 24 start, open, query, read back the newest 50, print the JSON) for the rare and the common
//     literal, against `rg -c` and the current catalog's search, interleaved, median of BENCH_WORD_RUNS (9), wall and
//     CPU (/usr/bin/time), each answer's count and hits checked against `--scan`'s document;
//   - the needles the index answers only as a superset (case-sensitive, several word runs) or not at all, once each;
//   - the vocabulary's growth with unique tokens (hashes, ids, base64): BENCH_WORD_UNIQUE (default 64,256 MiB)
//     corpora of scripts/word-corpus.js, the lookup's time against the vocabulary's size.
// BENCH_WORD_CURRENT=0 skips the current catalog (its build takes minutes); BENCH_WORD_DB=<db> reuses an index built
// before (with its build's JSON as <db>.json) for the query rows; WORD_RARE=1 (and the other settings of
// scripts/word-index.js) passes on to its builds; BENCH_WORD_RUNS, BENCH_SEARCH_BYTES, BENCH_KEEP=1.
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {findNode24} from './node24.js'
import {searchCorpus} from './search-corpus.js'
import {edgeCorpus, uniqueCorpus} from './word-corpus.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(root, 'bin', 'run.js')
const script = path.join(root, 'scripts', 'word-index.js')
const runs = Number(process.env.BENCH_WORD_RUNS ?? 9)

const n24 = findNode24()
if (n24.error) {
  console.error(`bench-word-index: ${n24.error}`)
  process.exit(1)
}
const node = n24.bin
const load0 = os.loadavg()
const corpus = searchCorpus(Number(process.env.BENCH_SEARCH_BYTES ?? 1024 ** 3))
const sessionsDir = path.join(corpus.state, 'agents', 'main', 'sessions')
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-bench-word-'))
const env = {...process.env, HOME: path.join(dir, 'home'), CLAWKIT_DATA_DIR: path.join(dir, 'data'), CLAWKIT_CACHE_DIR: path.join(dir, 'cache'), NO_COLOR: '1'}
for (const k of Object.keys(env)) if (k.startsWith('OPENCLAW_') || k === 'NODE_OPTIONS') delete env[k]
fs.mkdirSync(env.HOME, {recursive: true})

const timeBin = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined
const cpuFile = path.join(dir, 'cpu')
const time = (cmd, args) => {
  const [c, a] = timeBin ? [timeBin, ['-f', '%U %S', '-o', cpuFile, cmd, ...args]] : [cmd, args]
  const t = process.hrtime.bigint()
  const r = spawnSync(c, a, {env, maxBuffer: 1024 ** 3, encoding: 'utf8'})
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (r.error) throw r.error
  if (r.status !== 0 && !(cmd === 'rg' && r.status === 1)) throw new Error(`${cmd} ${args.slice(0, 4).join(' ')}: exit ${r.status}: ${(r.stderr || r.stdout).split('\n')[0]}`)
  const cpu = timeBin ? fs.readFileSync(cpuFile, 'utf8').trim().split('\n').at(-1).split(' ').reduce((sum, x) => sum + Number(x) * 1000, 0) : NaN
  return {ms, cpu, stdout: r.stdout}
}
const med = (xs, f) => {
  const s = xs.map(f).sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}
const wall = (xs) => med(xs, (x) => x.ms)
const cpu = (xs) => med(xs, (x) => x.cpu)
const ratio = (a, b) => `${(wall(a) / wall(b)).toFixed(2)}x (CPU ${(cpu(a) / cpu(b)).toFixed(2)}x)`
const rows = []
const row = (name, xs, extra = '') => rows.push({name, median: wall(xs), min: Math.min(...xs.map((x) => x.ms)), max: Math.max(...xs.map((x) => x.ms)), cpu: cpu(xs), extra})
const rgCount = (stdout) => stdout.split('\n').filter(Boolean).reduce((n, l) => n + Number(l.slice(l.lastIndexOf(':') + 1)), 0)
const rg = (needle) => time('rg', ['-c', needle, '--glob', '*.jsonl*', sessionsDir])
const clawkit = (...args) => time(node, [bin, ...args, '--state-dir', corpus.state])
const search = (needle, ...extra) => clawkit('sessions', 'search', needle, '--include-archived', '--json', ...extra)
const db = path.join(dir, 'words.sqlite')
const word = (needle, ...extra) => time(node, [script, 'query', db, needle, ...extra])
/** The word index's answer against the scan's document: count, badLines and every field of every hit it gives. */
const sameAs = (w, s) => {
  const pick = (hits) => JSON.stringify(hits.map(({agentId: _a, key: _k, where: _w, ...h}) => h))
  return w.count === s.count && w.badLines === s.badLines && pick(w.hits) === pick(s.hits)
}

// Exactness where folding is easy to get wrong: every needle of the edge store against --scan.
{
  const edge = edgeCorpus(path.join(dir, 'edge'))
  const edb = path.join(dir, 'edge.sqlite')
  time(node, [script, 'build', edge.sessionsDir, edb])
  const bad = []
  const fallbacks = []
  for (const needle of edge.needles) {
    const w = JSON.parse(time(node, [script, 'query', edb, needle]).stdout)
    if (w.fallback) {
      fallbacks.push(needle)
      continue
    }
    const s = JSON.parse(time(node, [bin, 'sessions', 'search', needle, '--include-archived', '--json', '--scan', '--state-dir', edge.state]).stdout)
    if (!sameAs(w, s)) bad.push(`${needle}: ${w.count} against ${s.count}`)
  }
  console.error(`bench: edge store: ${edge.needles.length - bad.length} of ${edge.needles.length} needles = --scan${bad.length ? `; differ: ${bad.join(', ')}` : ''}`)
  rows.push({name: `word index on the edge store (scripts/word-corpus.js edgeCorpus: Kelvin sign, long s, ß, İ, final sigma, µ, ligatures, a lone surrogate, a bad line, no time): ${edge.needles.length} needles`, median: NaN, min: NaN, max: NaN, cpu: NaN, extra: `${bad.length ? `failed: ${bad.join(', ')}` : 'every count, badLines and hits = --scan'}${fallbacks.length ? `; ${fallbacks.length} fall back to the scan (${fallbacks.join(', ')})` : ''}`})
}

// One scan, the word index's build, and the current build.
const scans = []
const scanDocs = {}
for (let i = 0; i < 3; i++) {
  const r = search(corpus.needle, '--scan')
  scans.push(r)
  scanDocs[corpus.needle] = JSON.parse(r.stdout)
}
scanDocs.deploy = JSON.parse(search('deploy', '--scan').stdout)
// BENCH_WORD_DB: an index built before (its build's JSON beside it, <db>.json), for the query rows alone.
let wb
if (process.env.BENCH_WORD_DB) {
  fs.copyFileSync(process.env.BENCH_WORD_DB, db)
  wb = {...JSON.parse(fs.readFileSync(`${process.env.BENCH_WORD_DB}.json`, 'utf8')), reused: true}
} else wb = time(node, [script, 'build', sessionsDir, db])
const built = wb.reused ? wb : JSON.parse(wb.stdout)
row('one scan: sessions search kubeconfig --scan (3 runs)', scans)
if (!wb.reused) row('word index: build (node scripts/word-index.js build; read, parse, fold, tokenize, insert, optimize, VACUUM)', [wb], `${ratio([wb], scans)} one scan`)
const current = process.env.BENCH_WORD_CURRENT !== '0'
let cb
if (current) {
  cb = clawkit('index', '--json')
  row("current catalog: first build (clawkit index: trigram spans, ledger, marks)", [cb], `${ratio([cb], scans)} one scan; the word index's build is ${ratio([wb], [cb])} this`)
}

// Warm: interleaved round-robin.
const series = {rgRare: [], wordRare: [], wordRareStat: [], rgCommon: [], wordCommon: [], wordCommonStat: [], nodeStart: [], version: [], curRare: [], curCommon: []}
const first = {}
for (let i = 0; i < runs + 1; i++) {
  const r = {
    rgRare: rg(corpus.needle),
    wordRare: word(corpus.needle),
    wordRareStat: word(corpus.needle, '--stat', sessionsDir),
    nodeStart: time(node, ['-e', '0']),
    version: clawkit('--version'),
    rgCommon: rg('deploy'),
    wordCommon: word('deploy'),
    wordCommonStat: word('deploy', '--stat', sessionsDir),
    ...(current ? {curRare: search(corpus.needle), curCommon: search('deploy')} : {}),
  }
  if (i === 0) {
    Object.assign(first, r)
    continue
  }
  for (const [k, v] of Object.entries(r)) series[k].push(v)
}
const doc = (r) => JSON.parse(r.stdout)
const check = (r, needle) => (sameAs(doc(r), scanDocs[needle]) ? `${doc(r).count} hits, count and hits = --scan` : `failed: ${doc(r).count} hits against --scan's ${scanDocs[needle].count}, or other hits`)
row(`rg -c ${corpus.needle}`, series.rgRare, `${rgCount(first.rgRare.stdout)} lines`)
row(`word index: ${corpus.needle}, a whole process`, series.wordRare, `${check(first.wordRare, corpus.needle)}; ${ratio(series.wordRare, series.rgRare)} rg -c`)
row(`word index: ${corpus.needle} with one stat per transcript first (a fresh catalog when nothing changed)`, series.wordRareStat, `${check(first.wordRareStat, corpus.needle)}; ${ratio(series.wordRareStat, series.rgRare)} rg -c`)
if (current) row(`current catalog: sessions search ${corpus.needle} --include-archived --json`, series.curRare, `${doc(first.curRare).count} hits; ${ratio(series.curRare, series.rgRare)} rg -c`)
row('rg -c deploy', series.rgCommon, `${rgCount(first.rgCommon.stdout)} lines`)
row('word index: deploy, a whole process', series.wordCommon, `${check(first.wordCommon, 'deploy')}; ${ratio(series.wordCommon, series.rgCommon)} rg -c`)
row('word index: deploy with one stat per transcript first', series.wordCommonStat, `${check(first.wordCommonStat, 'deploy')}; ${ratio(series.wordCommonStat, series.rgCommon)} rg -c`)
if (current) row('current catalog: sessions search deploy --include-archived --json', series.curCommon, `${doc(first.curCommon).count} hits; ${ratio(series.curCommon, series.rgCommon)} rg -c`)
row('node -e 0 (Node 24 start)', series.nodeStart)
row('clawkit --version (Node, the bundle, oclif: what the real command adds)', series.version)

// Needles the index answers as a superset, or not at all: once each, against the scan.
for (const needle of ['deploy the', 'Deploy', 'ab', 'kube', ' --']) {
  const w = word(needle)
  const s = search(needle, '--scan')
  const wd = doc(w)
  const sd = doc(s)
  row(`word index: "${needle}" (${wd.fallback ? 'falls back' : wd.exact ? 'exact' : 'superset, candidates re-read'}), 1 run; beside it --scan`, [w], wd.fallback ? `${wd.fallback}; --scan ${s.ms.toFixed(0)} ms` : `${sameAs(wd, sd) ? `${wd.count} hits = --scan` : `failed: ${wd.count} against ${sd.count}`}; ${wd.terms} vocabulary terms; --scan ${s.ms.toFixed(0)} ms (CPU ${s.cpu.toFixed(0)})`)
}

let status
if (current) status = JSON.parse(clawkit('index', '--status', '--json').stdout)

console.log(`\nWord index${process.env.WORD_RARE === '1' ? ' (WORD_RARE=1: id-like tokens as trigrams only)' : ''}: node ${n24.version}, ${os.cpus().length} cores, load average ${load0.map((x) => x.toFixed(1)).join(' ')} at the start, ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} at the end; ${corpus.files} transcripts, ${(corpus.bytes / 1024 ** 3).toFixed(2)} GiB; ${runs} runs each after a warm-up, interleaved (median / min / max wall ms)\n`)
console.log('| command | median ms | min | max | CPU ms (median) | |')
console.log('|---|---|---|---|---|---|')
for (const r of rows) console.log(`| ${r.name} | ${Number.isNaN(r.median) ? '' : r.median.toFixed(0)} | ${Number.isNaN(r.min) ? '' : r.min.toFixed(0)} | ${Number.isNaN(r.max) ? '' : r.max.toFixed(0)} | ${Number.isNaN(r.cpu) ? '' : r.cpu.toFixed(0)} | ${r.extra} |`)
const mb = (x) => (x / 1e6).toFixed(1)
console.log(`\nword index: ${mb(built.bytes)} MB on disk (${(built.bytes / built.textBytes).toFixed(3)}x the ${mb(built.textBytes)} MB of searched text; ${mb(built.unvacuumedBytes)} MB before VACUUM) for ${built.parts} parts: words ${mb(built.wordsBytes)} MB, part locators ${mb(built.partsBytes)}, vocabulary ${mb(built.vocabBytes)} (${built.vocab} tokens, ${built.vocabChars} characters), its trigrams ${mb(built.vtriBytes)}; build phases ms ${JSON.stringify(built.ms)}, in-process CPU ${built.cpuMs} ms`)
if (status) console.log(`current catalog: full-text index ${mb(status.details.indexBytes)} MB = ${status.details.ratio}x the text; the file with the ledger ${mb(status.catalog.bytes)} MB`)

// The vocabulary with many unique tokens.
const sizes = (process.env.BENCH_WORD_UNIQUE ?? '64,256').split(',').filter(Boolean).map((x) => Number(x) * 1024 ** 2)
if (sizes.length > 0) {
  console.log('\n| unique-token corpus | parts | vocabulary tokens | word index MB (x the text) | words / locators / vocabulary / trigrams MB | build s (CPU) | current catalog: trigram index x the text, build s (CPU) | needle: vocabulary lookup ms, terms; count ms (lookup included); count |')
  console.log('|---|---|---|---|---|---|---|---|')
}
for (const bytes of sizes) {
  const u = uniqueCorpus(bytes)
  const udb = path.join(dir, `unique-${bytes}.sqlite`)
  const ub = time(node, [script, 'build', path.join(u.state, 'agents', 'main', 'sessions'), udb])
  const b = JSON.parse(ub.stdout)
  const probes = JSON.parse(time(node, [script, 'probe', udb, 'deploy', 'kubeconfig', 'a3f', '7e', 'req_', 'zzq']).stdout)
  let cur = ''
  if (current) {
    const ib = time(node, [bin, 'index', '--json', '--state-dir', u.state])
    const st = JSON.parse(time(node, [bin, 'index', '--status', '--json', '--state-dir', u.state]).stdout)
    cur = `${st.details.ratio}x (${mb(st.details.indexBytes)} MB), ${(ib.ms / 1000).toFixed(1)} (${(ib.cpu / 1000).toFixed(1)})`
  }
  const cell = probes.map((p) => `${p.needle}: ${p.lookupMs.toFixed(1)}, ${p.terms}; ${p.countMs.toFixed(1)}; ${p.count}${p.rareCandidates === undefined ? '' : `; id-like candidates ${p.rareCandidates} in ${p.rareMs.toFixed(1)} ms`}`).join('<br>')
  console.log(`| ${(u.bytes / 1024 ** 2).toFixed(0)} MiB, ${u.files} transcripts | ${b.parts} | ${b.vocab} (${b.vocabChars} chars) | ${mb(b.bytes)} (${(b.bytes / b.textBytes).toFixed(3)}x of ${mb(b.textBytes)}) | ${mb(b.wordsBytes)} / ${mb(b.partsBytes)} / ${mb(b.vocabBytes)} / ${mb(b.vtriBytes)}${b.rare ? ` / id-like trigrams ${mb(b.rtriBytes)} (${b.rareChars} chars)` : ''} | ${(ub.ms / 1000).toFixed(1)} (${(ub.cpu / 1000).toFixed(1)}) | ${cur} | ${cell} |`)
}
if (process.env.BENCH_KEEP !== '1') fs.rmSync(dir, {recursive: true, force: true})
else console.error(`kept ${dir}`)
