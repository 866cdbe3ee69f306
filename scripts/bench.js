#!/usr/bin/env node
// `npm run bench`: times read commands on a generated 10k-session store and a 1 GiB transcript (median of several
// runs, peak RSS). Results go to stdout as a Markdown table; copy them into BENCHMARKS.md. Not part of `npm test`.
// Environment: BENCH_SESSIONS (10000), BENCH_TRANSCRIPT_BYTES (1 GiB), BENCH_RUNS (9), BENCH_SHAPE (small | openclaw),
// BENCH_KEEP=1 keeps the generated state dir.
import {spawnSync} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(root, 'bin', 'run.js')
const runs = Number(process.env.BENCH_RUNS ?? 9)
const transcriptBytes = Number(process.env.BENCH_TRANSCRIPT_BYTES ?? 1024 ** 3)
const sessions = Number(process.env.BENCH_SESSIONS ?? 10_000)
const keep = process.env.BENCH_KEEP === '1'
// BENCH_SHAPE=openclaw: every entry is a copy of a real OpenClaw 2026.4.27 entry from test/fixtures (~16 KB: its
// skillsSnapshot and systemPromptReport), instead of the default ~1 KB entry, to show how the index size itself scales.
const shape = process.env.BENCH_SHAPE ?? 'small'
if (shape !== 'small' && shape !== 'openclaw') throw new Error('BENCH_SHAPE must be small or openclaw')
const realEntry =
  shape === 'openclaw'
    ? Object.values(JSON.parse(fs.readFileSync(path.join(root, 'test', 'fixtures', 'openclaw-2026.4.27-two-agents', 'agents', 'main', 'sessions', 'sessions.json'), 'utf8')))[0]
    : undefined
const label = sessions >= 1000 && sessions % 1000 === 0 ? `${sessions / 1000}k` : String(sessions)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-bench-'))
const state = path.join(dir, 'state')
const sessionsDir = path.join(state, 'agents', 'main', 'sessions')
fs.mkdirSync(sessionsDir, {recursive: true})

let indexBytes = 0
function generateStore() {
  const now = Date.now()
  const store = {}
  const bigId = randomUUID()
  store['agent:main:main'] = {sessionId: bigId, updatedAt: now, sessionFile: path.join(sessionsDir, `${bigId}.jsonl`), chatType: 'direct', modelProvider: 'anthropic', model: 'claude-sonnet-4-5', contextTokens: 200000, inputTokens: 1200, outputTokens: 300, totalTokens: 18000, totalTokensFresh: true, cacheRead: 16000, cacheWrite: 800, estimatedCostUsd: 0.12}
  for (let i = 1; i < sessions; i++) {
    const id = randomUUID()
    const group = i % 3 === 0
    const key = group ? `agent:main:telegram:group:-100${i}` : `agent:main:telegram:direct:${i}`
    if (realEntry) {
      store[key] = {...structuredClone(realEntry), sessionId: id, updatedAt: now - i * 60_000, sessionFile: path.join(sessionsDir, `${id}.jsonl`), chatType: group ? 'group' : 'direct', totalTokens: 5000 + i}
      continue
    }
    store[key] = {
      sessionId: id,
      updatedAt: now - i * 60_000,
      sessionFile: path.join(sessionsDir, `${id}.jsonl`),
      chatType: group ? 'group' : 'direct',
      deliveryContext: {channel: 'telegram', to: `telegram:${i}`, accountId: 'default'},
      lastChannel: 'telegram',
      lastTo: `telegram:${i}`,
      lastAccountId: 'default',
      origin: {label: `user ${i}`, provider: 'telegram', surface: 'telegram', chatType: group ? 'group' : 'direct', from: `telegram:${i}`, to: `telegram:${i}`, accountId: 'default'},
      modelProvider: 'anthropic',
      model: 'claude-sonnet-4-5',
      contextTokens: 200000,
      inputTokens: 40 + (i % 500),
      outputTokens: 200 + (i % 300),
      totalTokens: 5000 + i,
      totalTokensFresh: true,
      cacheRead: 4000,
      cacheWrite: 100,
      estimatedCostUsd: 0.01 * (i % 7),
      systemSent: true,
      abortedLastRun: false,
      compactionCount: i % 2,
    }
  }
  const text = JSON.stringify(store, null, 2)
  fs.writeFileSync(path.join(sessionsDir, 'sessions.json'), text)
  indexBytes = Buffer.byteLength(text)
  return bigId
}

function generateTranscript(id) {
  const file = path.join(sessionsDir, `${id}.jsonl`)
  const fd = fs.openSync(file, 'w')
  fs.writeSync(fd, `${JSON.stringify({type: 'session', version: 3, id, timestamp: new Date().toISOString(), cwd: '/bench'})}\n`)
  let written = 0
  let parent = null
  let n = 0
  const filler = 'lorem ipsum dolor sit amet '.repeat(60)
  let chunk = []
  let chunkBytes = 0
  while (written < transcriptBytes) {
    const idHex = (n++).toString(16).padStart(8, '0')
    const user = n % 2 === 1
    const message = user
      ? {role: 'user', content: [{type: 'text', text: `question ${n} ${filler}`}], timestamp: n}
      : {role: 'assistant', content: [{type: 'text', text: `answer ${n} ${filler}`}], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage: {input: 10, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 30, cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0}}, stopReason: 'stop', timestamp: n}
    const line = `${JSON.stringify({type: 'message', id: idHex, parentId: parent, timestamp: new Date(n).toISOString(), message})}\n`
    parent = idHex
    chunk.push(line)
    chunkBytes += line.length
    written += line.length
    if (chunkBytes > 8 * 1024 * 1024) {
      fs.writeSync(fd, chunk.join(''))
      chunk = []
      chunkBytes = 0
    }
  }
  fs.writeSync(fd, chunk.join(''))
  fs.closeSync(fd)
  return fs.statSync(file).size
}

function measure(args) {
  const times = []
  const rss = []
  const probe = path.join(dir, 'rss')
  for (let i = 0; i < runs + 1; i++) {
    const t0 = process.hrtime.bigint()
    const r = spawnSync(process.execPath, [bin, ...args], {
      env: {...process.env, NODE_OPTIONS: `--require ${path.join(root, 'scripts', 'rss-probe.cjs')}`, CLAWKIT_RSS_PROBE_FILE: probe, HOME: dir, NO_COLOR: '1'},
      maxBuffer: 1024 ** 3,
    })
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    if (r.status !== 0) throw new Error(`clawkit ${args.join(' ')} failed: ${r.stderr}`)
    if (i === 0) continue // warm the page cache once
    times.push(ms)
    rss.push(Number(fs.readFileSync(probe, 'utf8')))
  }
  const sorted = [...times].sort((a, b) => a - b)
  return {median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted.at(-1), rssMiB: Math.max(...rss) / 1024 ** 2}
}

const t0 = Date.now()
const bigId = generateStore()
const size = generateTranscript(bigId)
console.error(`generated ${sessions} ${shape} sessions (index ${(indexBytes / 1e6).toFixed(1)} MB) and a ${(size / 1024 ** 3).toFixed(2)} GiB transcript in ${((Date.now() - t0) / 1000).toFixed(1)} s (${dir})`)

const sizeLabel = size >= 1024 ** 3 ? `${(size / 1024 ** 3).toFixed(0)} GiB` : `${Math.round(size / 1024 ** 2)} MiB`
const cases = [
  ['oclif floor: --version', ['--version']],
  [`sessions list --json (${label})`, ['sessions', 'list', '--json', '--state-dir', state]],
  [`sessions list (table, ${label})`, ['sessions', 'list', '--state-dir', state]],
  [`sessions history --limit 20 --json (${sizeLabel})`, ['sessions', 'history', 'agent:main:main', '--limit', '20', '--json', '--state-dir', state]],
  [`sessions history --limit 20 (${sizeLabel})`, ['sessions', 'history', 'agent:main:main', '--limit', '20', '--state-dir', state]],
]
console.log(`node ${process.version}, ${os.cpus().length} cores, ${runs} runs each (median / min / max wall ms, peak RSS)\n`)
console.log('| command | median ms | min | max | peak RSS MiB |')
console.log('|---|---|---|---|---|')
for (const [name, args] of cases) {
  const m = measure(args)
  console.log(`| ${name} | ${m.median.toFixed(0)} | ${m.min.toFixed(0)} | ${m.max.toFixed(0)} | ${m.rssMiB.toFixed(0)} |`)
}
if (!keep) fs.rmSync(dir, {recursive: true, force: true})
