#!/usr/bin/env node
// Benchmark `clawkit agent -m` against the instant mock Anthropic server: median wall time per turn and the part
// spent outside the model call (wall time minus the time the mock spent answering), and peak RSS.
// Usage: node scripts/bench-agent.js [N] [--grow MB]. --grow first grows the session's transcript to about MB
// megabytes of history followed by a compaction that keeps the last pair, as a long-lived main session looks.
// Turns run as async child processes: a blocking spawnSync would stop the in-process mock from answering.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {tsImport} from 'tsx/esm/api'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(root, 'bin', 'run.js')
const runs = Number(process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 15)
const growAt = process.argv.indexOf('--grow')
const growMb = growAt > 0 ? Number(process.argv[growAt + 1]) : 0

const {startMockAnthropic} = await tsImport('../test/support/mock-anthropic.ts', import.meta.url)
const mock = await startMockAnthropic()
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-bench-'))
const state = path.join(home, 'state')
// A named --state-dir must exist (clawkit refuses a missing one rather than start an empty state there).
fs.mkdirSync(state, {mode: 0o700})
const probe = path.join(home, 'rss')
const env = {...process.env, HOME: home, NO_COLOR: '1', ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: mock.url, NODE_OPTIONS: `--require ${path.join(root, 'scripts', 'rss-probe.cjs')}`, CLAWKIT_RSS_PROBE_FILE: probe}
for (const k of Object.keys(env)) if (k.startsWith('OPENCLAW_')) delete env[k]

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

function run(args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, [bin, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({code, ms: performance.now() - t0, out, err}))
  })
}

/** Append ~MB of user/assistant history to the main session's transcript, then a compaction keeping the last pair. */
function grow(mb) {
  const sessions = path.join(state, 'agents', 'main', 'sessions')
  const {sessionId} = JSON.parse(fs.readFileSync(path.join(sessions, 'sessions.json'), 'utf8'))['agent:main:main']
  const file = path.join(sessions, `${sessionId}.jsonl`)
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  const {provider, modelId} = lines.find((l) => l.type === 'model_change')
  let leaf = lines.at(-1).id
  let n = 0
  const out = []
  const add = (fields) => {
    const id = `b${(n++).toString(16).padStart(7, '0')}`
    out.push(JSON.stringify({type: fields.type, id, parentId: leaf, timestamp: new Date().toISOString(), ...fields}))
    leaf = id
    return id
  }
  const filler = 'history '.repeat(280)
  let bytes = 0
  let kept
  while (bytes < mb * 1024 * 1024) {
    kept = add({type: 'message', message: {role: 'user', content: [{type: 'text', text: `q${n} ${filler}`}], timestamp: n}})
    add({type: 'message', message: {role: 'assistant', content: [{type: 'text', text: `a${n} ${filler}`}], api: 'anthropic-messages', provider, model: modelId, usage: {input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0}}, stopReason: 'stop', timestamp: n}})
    bytes += out.at(-1).length + out.at(-2).length
  }
  add({type: 'compaction', summary: 'bench summary', firstKeptEntryId: kept, tokensBefore: 100000, details: {readFiles: [], modifiedFiles: []}, fromHook: false})
  fs.appendFileSync(file, `${out.join('\n')}\n`)
  return fs.statSync(file).size
}

const walls = []
const models = []
const overheads = []
const rss = []
// One warm-up turn creates the session (and warms the OS file cache), as a user's second call would find it.
await run(['agent', '--agent', 'main', '-m', 'warm up', '--state-dir', state, '--json'])
const grown = growMb > 0 ? grow(growMb) : 0
for (let i = 0; i < runs; i++) {
  const before = mock.messageRequests().length
  const r = await run(['agent', '--agent', 'main', '-m', `bench ${i}`, '--state-dir', state, '--json'])
  if (r.code !== 0) throw new Error(`run ${i} failed (${r.code}): ${r.err}`)
  const reqs = mock.messageRequests().slice(before)
  const modelMs = reqs.reduce((sum, q) => sum + ((q.finishedAt ?? q.receivedAt) - q.receivedAt), 0)
  walls.push(r.ms)
  models.push(modelMs)
  overheads.push(r.ms - modelMs)
  rss.push(Number(fs.readFileSync(probe, 'utf8')) / 1024 / 1024)
}
const versions = []
for (let i = 0; i < 5; i++) versions.push((await run(['--version'])).ms)
await mock.close()
fs.rmSync(home, {recursive: true, force: true})
const fmt = (n) => `${n.toFixed(0)} ms`
console.log(`clawkit agent -m, ${runs} turns against the instant mock (node ${process.version}, ${os.cpus().length} cpus)${grown ? `, transcript grown to ${(grown / 1024 / 1024).toFixed(1)} MB` : ''}`)
console.log(`  median wall time per turn:        ${fmt(median(walls))}`)
console.log(`  median time inside the model call: ${fmt(median(models))}`)
console.log(`  median overhead (outside model):  ${fmt(median(overheads))}  (target <= 400 ms)`)
console.log(`  median peak RSS:                   ${median(rss).toFixed(0)} MiB`)
console.log(`  for scale, \`clawkit --version\`:  ${fmt(median(versions))} (oclif start-up floor; overhead above it ${fmt(median(overheads) - median(versions))})`)
