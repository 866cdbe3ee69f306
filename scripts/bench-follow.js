#!/usr/bin/env node
// What `sessions history --follow` costs (issue 31): the CPU an idle follow uses over two spans (every thread of the
// process, from /proc/<pid>/task/*/schedstat, in ns), and how long after a write lands its line is printed (the write
// through clawkit's store library, timed from its return to the line on the follower's stdout), on a JSON-era and a
// SQLite-era copy of the real fixtures. Linux only (/proc).
// Usage: npm run build && $(node scripts/node24.js) scripts/bench-follow.js [--idle 30] [--writes 50] [--node20 <path>]
// The script runs on Node 24 (the SQLite writes need node:sqlite); the JSON-era follow runs on --node20 (default: the
// `node` on PATH), the SQLite-era one on this Node.
import {execFileSync, spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(root, 'bin', 'run.js')
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : def
}
const IDLE_S = Number(arg('idle', 30))
const WRITES = Number(arg('writes', 50))
const NODE20 = arg('node20', execFileSync('sh', ['-c', 'command -v node'], {encoding: 'utf8'}).trim())
const lib = await import(path.join(root, 'dist', 'store', 'index.js'))
const {OpenClawState} = await import(path.join(root, 'dist', 'store', 'state.js'))

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** CPU time of every thread of `pid` so far, in ns. */
function cpuNs(pid) {
  let total = 0
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
    } catch {}
  }
  return total
}

function copyFixture(name) {
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-bench-follow-'))
  fs.cpSync(path.join(root, 'test', 'fixtures', name), path.join(dest, 'state'), {recursive: true})
  execFileSync('chmod', ['-R', 'u+w', dest])
  return path.join(dest, 'state')
}

function startFollow(node, state) {
  const env = {...process.env, HOME: path.dirname(state), NO_COLOR: '1'}
  for (const k of Object.keys(env)) if (k.startsWith('OPENCLAW_') || k.startsWith('CLAWKIT_')) delete env[k]
  const child = spawn(node, [bin, 'sessions', 'history', 'main', '--follow', '--json', '--limit', '1', '--state-dir', state], {env, stdio: ['ignore', 'pipe', 'inherit']})
  const waiters = []
  let partial = ''
  child.stdout.setEncoding('utf8').on('data', (d) => {
    const at = performance.now()
    const parts = (partial + d).split('\n')
    partial = parts.pop()
    for (const text of parts) for (const w of [...waiters]) if (w.match(text)) w.resolve(at)
  })
  return {
    child,
    /** When the first line `match` accepts arrives (ms, performance.now()). */
    next: (match) => new Promise((resolve) => waiters.push({match, resolve: (at) => (waiters.splice(waiters.findIndex((w) => w.match === match), 1), resolve(at))})),
  }
}

function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]
}

async function measure(era, node, state, write) {
  const f = startFollow(node, state)
  await f.next((t) => JSON.parse(t).kind === 'session')
  await sleep(1000)
  // Two spans: the first holds V8's one-time clean-up after start-up (a GC some seconds after the allocations stop).
  const idle0 = cpuNs(f.child.pid)
  await sleep(IDLE_S * 1000)
  const idle1 = cpuNs(f.child.pid)
  await sleep(IDLE_S * 1000)
  const idleMs = [(idle1 - idle0) / 1e6, (cpuNs(f.child.pid) - idle1) / 1e6]
  const latencies = []
  const cpu0 = cpuNs(f.child.pid)
  for (let i = 0; i < WRITES; i++) {
    const text = `bench line ${i}`
    const seen = f.next((t) => t.includes(`"text":"${text}"`))
    await write(text)
    const wrote = performance.now()
    latencies.push((await seen) - wrote)
    await sleep(200)
  }
  const busyMs = (cpuNs(f.child.pid) - cpu0) / 1e6
  f.child.kill('SIGINT')
  const code = await new Promise((r) => f.child.on('close', r))
  return {era, node: execFileSync(node, ['--version'], {encoding: 'utf8'}).trim(), idleMs, latencies, busyMs, code}
}

const rows = []
{
  const state = copyFixture('openclaw-2026.4.27-two-agents')
  const file = path.join(state, 'agents', 'main', 'sessions', '0caed29d-8df6-4457-a9cd-00bb9d2b22e3.jsonl')
  rows.push(await measure('JSON (appendEntries)', NODE20, state, (text) => lib.appendEntries(file, [{type: 'message', message: {role: 'user', content: [{type: 'text', text}], timestamp: Date.now()}}])))
}
{
  const state = copyFixture('openclaw-2026.9.6-native')
  const st = OpenClawState.open({stateDir: state})
  const store = st.store('main')
  const t = store.transcriptOf((await store.findEntry('agent:main:main')).entry, 'agent:main:main')
  rows.push(await measure('SQLite (store.append)', process.execPath, state, (text) => store.append(t, [{type: 'message', message: {role: 'user', content: [{type: 'text', text}], timestamp: Date.now()}}])))
  st.close()
}

console.log(`| store | Node | idle CPU, ${IDLE_S} s from 1 s after start; the ${IDLE_S} s after | latency p50 / p95 / max (${WRITES} writes, 200 ms apart) | CPU for the ${WRITES} writes | exit on Ctrl-C |`)
console.log('|---|---|---|---|---|---|')
for (const r of rows) {
  const ms = (x) => `${x.toFixed(1)} ms`
  console.log(`| ${r.era} | ${r.node} | ${ms(r.idleMs[0])}; ${ms(r.idleMs[1])} | ${ms(quantile(r.latencies, 0.5))} / ${ms(quantile(r.latencies, 0.95))} / ${ms(Math.max(...r.latencies))} | ${ms(r.busyMs)} | ${r.code} |`)
}
