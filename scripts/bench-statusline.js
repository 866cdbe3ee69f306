#!/usr/bin/env node
// `sessions usage --statusline` timing (issue 30), on Node 24 (the catalog): a generated JSON-era store of
// BENCH_SL_AGENTS agents x BENCH_SL_SESSIONS sessions x BENCH_SL_CALLS calls spread over a year (most sessions quiet
// this month, a few active today), the catalog built once (`clawkit index`), then the median of BENCH_SL_RUNS runs of
// the status line from the warm catalog, of the same with one turn appended before each run (a prompt after a turn),
// of `clawkit --version` (the floor of any answer) and of `--statusline --scan`, interleaved run by run. Each line is
// checked equal to the scan's; a mismatch is a failed row.
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {findNode24} from './node24.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(root, 'bin', 'run.js')
const AGENTS = Number(process.env.BENCH_SL_AGENTS ?? 3)
const SESSIONS = Number(process.env.BENCH_SL_SESSIONS ?? 1000)
const CALLS = Number(process.env.BENCH_SL_CALLS ?? 40)
const RUNS = Number(process.env.BENCH_SL_RUNS ?? 9)

const n24 = findNode24()
if (n24.error) {
  console.log(`skipped: ${n24.error}`)
  process.exit(0)
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-bench-statusline-'))
const state = path.join(dir, 'state')
const now = Date.now()
let seed = 7
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
const hex = (n) => Array.from({length: n}, () => Math.floor(rnd() * 16).toString(16)).join('')
let bytes = 0
const actives = []
fs.mkdirSync(state, {recursive: true})
fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify({agents: {list: Array.from({length: AGENTS}, (_, i) => ({id: `a${i}`, ...(i === 0 ? {default: true} : {})}))}}))
for (let a = 0; a < AGENTS; a++) {
  const sdir = path.join(state, 'agents', `a${a}`, 'sessions')
  fs.mkdirSync(sdir, {recursive: true})
  const index = {}
  for (let s = 0; s < SESSIONS; s++) {
    const id = `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`
    // One session in a hundred is active (calls up to now); the others end somewhere in the year before.
    const active = s % 100 === 0
    const end = active ? now - 60_000 : now - Math.floor(rnd() * 365 * 86_400_000)
    const lines = [JSON.stringify({type: 'session', version: 3, id, timestamp: new Date(end - 86_400_000).toISOString(), cwd: '/w'})]
    for (let c = 0; c < CALLS; c++) {
      const t = end - (CALLS - c) * 60_000
      lines.push(JSON.stringify({type: 'message', id: hex(8), parentId: null, timestamp: new Date(t - 500).toISOString(), message: {role: 'user', content: [{type: 'text', text: 'a question of some length '.repeat(4)}], timestamp: t - 500}}))
      lines.push(JSON.stringify({type: 'message', id: hex(8), parentId: null, timestamp: new Date(t).toISOString(), message: {role: 'assistant', content: [{type: 'text', text: 'an answer of some length '.repeat(8)}], provider: 'anthropic', model: 'claude-sonnet-4', usage: {input: 1200, output: 300, cacheRead: 5000, cacheWrite: 0, totalTokens: 6500, cost: {total: Math.round(rnd() * 1e7) / 1e9}}, timestamp: t}}))
    }
    const text = `${lines.join('\n')}\n`
    bytes += text.length
    fs.writeFileSync(path.join(sdir, `${id}.jsonl`), text)
    index[`agent:a${a}:s${s}`] = {sessionId: id, updatedAt: end}
    if (active) actives.push(path.join(sdir, `${id}.jsonl`))
  }
  fs.writeFileSync(path.join(sdir, 'sessions.json'), JSON.stringify(index))
}
console.error(`bench: ${AGENTS * SESSIONS} transcripts, ${AGENTS * SESSIONS * CALLS} calls, ${(bytes / 1024 ** 2).toFixed(0)} MiB in ${state}`)

const env = {...process.env, HOME: path.join(dir, 'home'), CLAWKIT_DATA_DIR: path.join(dir, 'data'), CLAWKIT_CACHE_DIR: path.join(dir, 'cache'), CLAWKIT_CONFIG_DIR: path.join(dir, 'config'), NO_COLOR: '1', TZ: 'Europe/Berlin'}
for (const k of Object.keys(env)) if (k.startsWith('OPENCLAW_') || k === 'NODE_OPTIONS') delete env[k]
const time = (...args) => {
  const t = process.hrtime.bigint()
  const r = spawnSync(n24.bin, [bin, ...args], {env, encoding: 'utf8', maxBuffer: 64 * 1024 ** 2})
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status}: ${r.stderr}`)
  return {ms, out: r.stdout}
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const build = time('index', '--state-dir', state)
console.error(`bench: catalog built in ${(build.ms / 1000).toFixed(1)} s`)
const rows = {version: [], warm: [], afterTurn: [], scan: []}
let failed = ''
for (let i = 0; i < RUNS; i++) {
  rows.version.push(time('--version').ms)
  const warm = time('sessions', 'usage', '--statusline', '--state-dir', state)
  rows.warm.push(warm.ms)
  // A turn appended to an active session, as a prompt after a reply sees it.
  const t = Date.now()
  fs.appendFileSync(actives[i % actives.length], `${JSON.stringify({type: 'message', id: hex(8), parentId: null, timestamp: new Date(t).toISOString(), message: {role: 'assistant', content: [], provider: 'anthropic', model: 'claude-sonnet-4', usage: {input: 1, output: 1, totalTokens: 2, cost: {total: 0.01}}, timestamp: t}})}\n`)
  const after = time('sessions', 'usage', '--statusline', '--state-dir', state)
  rows.afterTurn.push(after.ms)
  const scan = time('sessions', 'usage', '--statusline', '--scan', '--state-dir', state)
  rows.scan.push(scan.ms)
  if (scan.out !== after.out) failed = `catalog "${after.out.trim()}" != scan "${scan.out.trim()}"`
}
console.log(`\n| command (${AGENTS * SESSIONS} transcripts, ${AGENTS * SESSIONS * CALLS} calls, ${(bytes / 1024 ** 2).toFixed(0)} MiB; Node ${spawnSync(n24.bin, ['--version'], {encoding: 'utf8'}).stdout.trim()}) | median ms of ${RUNS} |`)
console.log('|---|---|')
console.log(`| clawkit --version (floor) | ${median(rows.version).toFixed(0)} |`)
console.log(`| sessions usage --statusline (warm catalog, nothing changed) | ${median(rows.warm).toFixed(0)} |`)
console.log(`| sessions usage --statusline (one turn appended before each run) | ${median(rows.afterTurn).toFixed(0)} |`)
console.log(`| sessions usage --statusline --scan | ${median(rows.scan).toFixed(0)} |`)
if (failed) console.log(`failed: ${failed}`)
console.log(`line: ${rows.warm.length ? time('sessions', 'usage', '--statusline', '--state-dir', state).out.trim() : ''}`)
if (!process.env.BENCH_KEEP) fs.rmSync(dir, {recursive: true, force: true})
