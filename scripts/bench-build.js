#!/usr/bin/env node
// The catalog's first build against one scan (issue 28: at most 50x on 2 cores), alone: each round times a first build
// (`clawkit index` into an empty data dir) and the build's floors (scripts/build-floor.js), each right after its own
// scans (`sessions search kubeconfig --include-archived --scan`, three runs, the median), wall and CPU (user + system
// of every thread, by /usr/bin/time), with the load average before each; the machine is shared and its load moves within
// minutes, so each ratio is of a pair timed back to back.
// Node 24 (node:sqlite). The corpus is the search benchmark's (scripts/search-corpus.js, cached), copied once.
//   node scripts/bench-build.js [ROUNDS]     BENCH_BUILD_OTHER=<dir of another clawkit checkout, built> adds its build
//   (`<dir>/bin/run.js index`) to each round, for a before/after in the same minutes. BENCH_BUILD_FLOORS: which floors
//   (words2,words by default; 0: none).
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {findNode24} from './node24.js'
import {searchCorpus} from './search-corpus.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const rounds = Number(process.argv[2] ?? 3)
const n24 = findNode24()
if (n24.error) {
  console.error(n24.error)
  process.exit(1)
}
const node = n24.bin
const corpus = searchCorpus(Number(process.env.BENCH_SEARCH_BYTES ?? 1024 ** 3))
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-bench-build-'))
const state = path.join(dir, 'state')
spawnSync('cp', ['-r', corpus.state, state], {stdio: 'inherit'})
fs.rmSync(path.join(state, '.complete'), {force: true})
const sessionsDir = path.join(state, 'agents', 'main', 'sessions')
const env = {...process.env, HOME: path.join(dir, 'home'), CLAWKIT_CACHE_DIR: path.join(dir, 'cache'), NO_COLOR: '1'}
for (const k of Object.keys(env)) if (k.startsWith('OPENCLAW_') || k === 'NODE_OPTIONS' || k.startsWith('CLAWKIT_CATALOG')) delete env[k]
fs.mkdirSync(env.HOME, {recursive: true})
const cpuFile = path.join(dir, 'cpu')

function time(args, extraEnv = {}) {
  const t = process.hrtime.bigint()
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', cpuFile, node, ...args], {env: {...env, ...extraEnv}, maxBuffer: 512 * 1024 ** 2, encoding: 'utf8'})
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (r.status !== 0) throw new Error(`${args.slice(0, 3).join(' ')}: exit ${r.status}: ${(r.stderr || r.stdout).split('\n').slice(-3).join(' ')}`)
  const cpu = fs.readFileSync(cpuFile, 'utf8').trim().split('\n').at(-1).split(' ').reduce((s, x) => s + Number(x) * 1000, 0)
  return {ms, cpu, stdout: r.stdout}
}

/** The answer of a search without what says how it was found. */
const answer = (stdout) => {
  const {engine: _e, stores: _s, ...rest} = JSON.parse(stdout)
  return JSON.stringify(rest)
}
const checked = new Set()
const build = (bin, name) => {
  const data = path.join(dir, `data-${name}`)
  fs.rmSync(data, {recursive: true, force: true})
  const r = time([bin, 'index', '--json', '--state-dir', state], {CLAWKIT_DATA_DIR: data})
  const doc = JSON.parse(r.stdout)
  let same = ''
  if (!checked.has(name)) {
    // Once per checkout: the built catalog answers a rare and a common literal as the scan does.
    checked.add(name)
    same = ['kubeconfig', 'deploy', 'Deploy']
      .map((needle) => {
        const args = [bin, 'sessions', 'search', needle, '--include-archived', '--json', '--state-dir', state]
        const a = time(args, {CLAWKIT_DATA_DIR: data})
        const b = time([...args, '--scan'], {CLAWKIT_DATA_DIR: data})
        return `${needle} ${JSON.parse(a.stdout).engine} ${answer(a.stdout) === answer(b.stdout) ? '= --scan' : 'DIFFERS from --scan'} (${JSON.parse(a.stdout).count} hits)`
      })
      .join(', ')
  }
  fs.rmSync(data, {recursive: true, force: true})
  return {...r, note: `${doc.catalog.transcripts} transcripts, index ${(doc.details.ratio).toFixed(3)}x the text${same ? `; ${same}` : ''}`}
}
const fmt = (r) => `${(r.ms / 1000).toFixed(1)} s (${(r.cpu / 1000).toFixed(1)} s CPU)`
const ratio = (a, b) => `${(a.ms / b.ms).toFixed(1)}x (${(a.cpu / b.cpu).toFixed(1)}x CPU)`
const load = () => os.loadavg()[0].toFixed(1)

const other = process.env.BENCH_BUILD_OTHER
const floorModes = process.env.BENCH_BUILD_FLOORS === '0' ? [] : (process.env.BENCH_BUILD_FLOORS ?? 'words2,words').split(',')
const scan = () => {
  const scans = [0, 1, 2].map(() => time([path.join(root, 'bin', 'run.js'), 'sessions', 'search', corpus.needle, '--include-archived', '--json', '--scan', '--state-dir', state]))
  return {ms: scans.map((r) => r.ms).sort((a, b) => a - b)[1], cpu: scans.map((r) => r.cpu).sort((a, b) => a - b)[1]}
}
const db = path.join(dir, 'floor.sqlite')
const items = [
  ['clawkit index (this checkout)', () => build(path.join(root, 'bin', 'run.js'), 'this')],
  ...(other ? [[`clawkit index (${other})`, () => build(path.join(other, 'bin', 'run.js'), 'other')]] : []),
  ...floorModes.map((mode) => [`build-floor.js ${mode}`, () => time([path.join(root, 'scripts', 'build-floor.js'), sessionsDir, db, mode])]),
]
for (let round = 1; round <= rounds; round++) {
  console.log(`\nround ${round}`)
  for (const [name, run] of items) {
    const l0 = load()
    const s = scan()
    const r = run()
    console.log(`  ${name.padEnd(36)} ${fmt(r).padEnd(22)} scan ${fmt(s).padEnd(20)} ${ratio(r, s)} one scan; load ${l0} -> ${load()}${r.note ? `; ${r.note}` : ''}`)
  }
}
fs.rmSync(dir, {recursive: true, force: true})
