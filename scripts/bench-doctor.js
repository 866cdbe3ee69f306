#!/usr/bin/env node
// Times `clawkit doctor --json` and `clawkit status --json` on a generated 10 000-session store (median of N runs).
// Usage: npm run build && node scripts/bench-doctor.js [--sessions 10000] [--runs 5] [--orphans 0] [--keep]
import {execFileSync, spawnSync} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(root, 'bin', 'run.js')
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : def
}
const SESSIONS = arg('sessions', 10_000)
const RUNS = arg('runs', 5)
const ORPHANS = arg('orphans', 0)

function transcript(sessionId, t0) {
  const iso = (ms) => new Date(ms).toISOString()
  const lines = [
    {type: 'session', version: 3, id: sessionId, timestamp: iso(t0), cwd: '/home/user/.openclaw/workspace'},
    {type: 'model_change', id: 'a0000001', parentId: null, timestamp: iso(t0 + 1), provider: 'mockant', modelId: 'claude-mock'},
    {type: 'message', id: 'a0000002', parentId: 'a0000001', timestamp: iso(t0 + 2), message: {role: 'user', content: [{type: 'text', text: `hello ${sessionId} `.repeat(20)}], timestamp: t0 + 2}},
    {
      type: 'message',
      id: 'a0000003',
      parentId: 'a0000002',
      timestamp: iso(t0 + 3),
      message: {role: 'assistant', content: [{type: 'text', text: 'Echo '.repeat(60)}], api: 'anthropic-messages', provider: 'mockant', model: 'claude-mock', usage: {input: 7030, output: 12, cacheRead: 0, cacheWrite: 0, totalTokens: 7042, cost: {input: 0.02, output: 0.0002, cacheRead: 0, cacheWrite: 0, total: 0.0202}}, stopReason: 'stop', timestamp: t0 + 3},
    },
  ]
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n'
}

function generate(stateDir) {
  const dir = path.join(stateDir, 'agents', 'main', 'sessions')
  fs.mkdirSync(dir, {recursive: true, mode: 0o700})
  for (const d of [stateDir, path.join(stateDir, 'agents'), path.join(stateDir, 'agents', 'main'), dir]) fs.chmodSync(d, 0o700)
  const store = {}
  const now = Date.now()
  for (let i = 0; i < SESSIONS; i++) {
    const id = randomUUID()
    const t0 = now - (SESSIONS - i) * 60_000
    const file = path.join(dir, `${id}.jsonl`)
    fs.writeFileSync(file, transcript(id, t0), {mode: 0o600})
    store[i === SESSIONS - 1 ? 'agent:main:main' : `agent:main:telegram:direct:${100000 + i}`] = {
      sessionId: id,
      updatedAt: t0 + 3,
      sessionFile: file,
      chatType: 'direct',
      modelProvider: 'mockant',
      model: 'claude-mock',
      contextTokens: 200000,
      inputTokens: 7030,
      outputTokens: 12,
      totalTokens: 7030,
      totalTokensFresh: true,
    }
  }
  for (let i = 0; i < ORPHANS; i++) {
    const id = randomUUID()
    fs.writeFileSync(path.join(dir, `${id}.jsonl`), transcript(id, now - i), {mode: 0o600})
  }
  fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(store, null, 2), {mode: 0o600})
  fs.writeFileSync(path.join(stateDir, 'openclaw.json'), '{ agents: { defaults: { model: { primary: "mockant/claude-mock" } } } }', {mode: 0o600})
}

/** CPU time (user + sys, ms) of waited-for children, from /proc/self/stat (Linux); undefined elsewhere. */
function childCpuMs() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(f[13]) + Number(f[14])) * 1000) / 100 // cutime + cstime, in USER_HZ (100)
  } catch {
    return undefined
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

function time(args, env) {
  const wall = []
  const cpu = []
  let last
  for (let i = 0; i < RUNS; i++) {
    const c0 = childCpuMs()
    const t = process.hrtime.bigint()
    last = spawnSync(process.execPath, [bin, ...args], {env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024})
    wall.push(Number(process.hrtime.bigint() - t) / 1e6)
    const c1 = childCpuMs()
    if (c0 !== undefined && c1 !== undefined) cpu.push(c1 - c0)
  }
  return {median: median(wall), min: Math.min(...wall), max: Math.max(...wall), cpu: cpu.length ? median(cpu) : undefined, last}
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-bench-doctor-'))
const state = path.join(tmp, 'state')
const t0 = Date.now()
generate(state)
const du = execFileSync('du', ['-sh', state], {encoding: 'utf8'}).split('\t')[0]
console.log(`generated ${SESSIONS} sessions${ORPHANS ? ` + ${ORPHANS} orphans` : ''} (${du}) in ${Date.now() - t0} ms at ${state}`)
const env = {...process.env, HOME: tmp, NO_COLOR: '1', OPENCLAW_GATEWAY_PORT: '9'}
delete env.OPENCLAW_STATE_DIR
const version = spawnSync(process.execPath, [bin, '--version'], {env, encoding: 'utf8'})
const results = {}
for (const [name, args, target] of [
  ['doctor --json', ['doctor', '--json', '--state-dir', state], 2000],
  ['status --json', ['status', '--json', '--state-dir', state], 300],
  ['--version (node + oclif startup)', ['--version'], undefined],
]) {
  const r = time(args, env)
  results[name] = r
  let note = ''
  if (name.startsWith('doctor')) {
    const doc = JSON.parse(r.last.stdout)
    note = ` findings=${doc.findings.length} exit=${r.last.status}`
  } else if (name.startsWith('status')) {
    const doc = JSON.parse(r.last.stdout)
    note = ` sessions=${doc.sessions.count} transcripts=${doc.transcripts.files}`
  }
  const verdict = target === undefined ? '' : r.median <= target ? ` (target <= ${target} ms: ok)` : ` (target <= ${target} ms: MISSED)`
  const cpu = r.cpu === undefined ? '' : `, cpu ${r.cpu.toFixed(0)} ms`
  console.log(`${name.padEnd(34)} median ${r.median.toFixed(0)} ms wall${cpu}  [min ${r.min.toFixed(0)}, max ${r.max.toFixed(0)}, ${RUNS} runs]${verdict}${note}`)
}
console.log(`node ${process.version}, ${os.cpus().length} cpu(s) ${os.cpus()[0]?.model ?? ''}; ${version.stdout.trim()}`)
if (!process.argv.includes('--keep')) fs.rmSync(tmp, {recursive: true, force: true})
