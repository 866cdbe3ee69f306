#!/usr/bin/env node
// Benchmark `clawkit agent -m` against the instant mock Anthropic server: median wall time per turn and the part
// spent outside the model call (wall time minus the time the mock spent answering). Usage: node scripts/bench-agent.js [N]
// Turns run as async child processes: a blocking spawnSync would stop the in-process mock from answering.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {tsImport} from 'tsx/esm/api'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(root, 'bin', 'run.js')
const runs = Number(process.argv[2] ?? 15)

const {startMockAnthropic} = await tsImport('../test/support/mock-anthropic.ts', import.meta.url)
const mock = await startMockAnthropic()
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-bench-'))
const state = path.join(home, 'state')
const env = {...process.env, HOME: home, NO_COLOR: '1', ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: mock.url}
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

const walls = []
const models = []
const overheads = []
// One warm-up turn creates the session (and warms the OS file cache), as a user's second call would find it.
await run(['agent', '--agent', 'main', '-m', 'warm up', '--state-dir', state, '--json'])
for (let i = 0; i < runs; i++) {
  const before = mock.messageRequests().length
  const r = await run(['agent', '--agent', 'main', '-m', `bench ${i}`, '--state-dir', state, '--json'])
  if (r.code !== 0) throw new Error(`run ${i} failed (${r.code}): ${r.err}`)
  const reqs = mock.messageRequests().slice(before)
  const modelMs = reqs.reduce((sum, q) => sum + ((q.finishedAt ?? q.receivedAt) - q.receivedAt), 0)
  walls.push(r.ms)
  models.push(modelMs)
  overheads.push(r.ms - modelMs)
}
const versions = []
for (let i = 0; i < 5; i++) versions.push((await run(['--version'])).ms)
await mock.close()
fs.rmSync(home, {recursive: true, force: true})
const fmt = (n) => `${n.toFixed(0)} ms`
console.log(`clawkit agent -m, ${runs} turns against the instant mock (node ${process.version}, ${os.cpus().length} cpus)`)
console.log(`  median wall time per turn:        ${fmt(median(walls))}`)
console.log(`  median time inside the model call: ${fmt(median(models))}`)
console.log(`  median overhead (outside model):  ${fmt(median(overheads))}  (target <= 400 ms)`)
console.log(`  for scale, \`clawkit --version\`:  ${fmt(median(versions))} (oclif start-up floor; overhead above it ${fmt(median(overheads) - median(versions))})`)
