#!/usr/bin/env node
// Fills the interop cache's shared plugin runtime of one OpenClaw release (<cache>/plugin-runtime-deps, which every
// interop test's state dir links to: test/reliability/support/interop.ts) before the tests run; scripts/interop.sh calls
// it once per release.
//   node scripts/interop-warm.mjs <openclaw.mjs> <version> <cache dir>
// Why: OpenClaw installs its plugins' runtime deps from npm into <state>/plugin-runtime-deps as it first needs them
// (2026.4.27: ~1.4 GB, some minutes). On a fresh cache the first test to run an agent turn paid for that inside its own
// timeout, and could fail on it. `openclaw doctor --fix` installs only part of them (the bundled plugins' declared deps:
// 15 packages, ~740 MB, for 2026.4.27); the rest (the model providers' SDKs, the agent runtime) are installed when an
// agent run loads them. So this runs both: the repair, then one real `agent --local` turn against the suite's mock
// Messages API (test/reliability/support/mock-anthropic.mjs), in a throwaway state dir whose config names only the mock
// provider, as the tests' configs do. That covers 31 of the 34 packages a whole interop run installs for 2026.4.27 (the
// other three, pure JavaScript, come with some test's first use of them). Done once per release (a marker file in the
// cache); a failure only warns (exit 0), and the tests then install what they need as before.
import {spawn} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const [entry, version, cache] = process.argv.slice(2)
if (!entry || !version || !cache) {
  console.error('usage: node scripts/interop-warm.mjs <openclaw.mjs> <version> <cache dir>')
  process.exit(2)
}
const deps = path.join(cache, 'plugin-runtime-deps')
const marker = path.join(deps, `.warmed-${version}`)
if (fs.existsSync(marker)) process.exit(0)

const say = (line) => process.stderr.write(`interop: ${line}\n`)
/**
 * A child to its end: its exit code (null if killed) and the tail of what it printed. After timeoutMs its whole process
 * group is killed (OpenClaw runs npm and its agent as children of its own).
 */
function run(args, env, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {env, cwd: env.HOME, stdio: ['ignore', 'pipe', 'pipe'], detached: true})
    let out = ''
    const keep = (d) => (out = (out + d).slice(-4000))
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {}
    }, timeoutMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, out})
    })
  })
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-interop-warm-'))
const state = path.join(tmp, 'state')
const home = path.join(tmp, 'home')
fs.mkdirSync(state, {recursive: true})
fs.mkdirSync(home, {recursive: true})
fs.mkdirSync(deps, {recursive: true})
fs.symlinkSync(deps, path.join(state, 'plugin-runtime-deps'))
const mock = spawn(process.execPath, [path.join(root, 'test', 'reliability', 'support', 'mock-anthropic.mjs'), path.join(tmp, 'requests.jsonl')], {stdio: ['ignore', 'pipe', 'inherit']})
let failed
try {
  const port = await new Promise((resolve, reject) => {
    mock.stdout.once('data', (d) => resolve(Number(String(d).trim())))
    mock.once('exit', (code) => reject(new Error(`the mock Messages API exited (${code})`)))
  })
  fs.writeFileSync(
    path.join(state, 'openclaw.json'),
    JSON.stringify({
      agents: {defaults: {model: {primary: 'mockant/claude-mock'}, workspace: path.join(state, 'workspace')}},
      models: {mode: 'merge', providers: {mockant: {baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk-ant-test', api: 'anthropic-messages', models: [{id: 'claude-mock', name: 'Mock Claude', reasoning: false, input: ['text'], cost: {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}, contextWindow: 200_000, maxTokens: 8192}]}}},
    }),
  )
  // The caller's environment without OpenClaw's or clawkit's settings, as the tests run OpenClaw (baseEnv in
  // test/support/cli.ts), but with NODE_EXTRA_CA_CERTS, which the tests drop for speed: the packages' install scripts
  // download over HTTPS with Node's own certificates, and behind a proxy with a certificate of its own they stalled
  // without it (seen here: npm waiting at 0 % CPU for 10 minutes).
  const env = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('OPENCLAW_') || k.startsWith('CLAWKIT_') || k === 'NODE_ENV' || k === 'DEBUG') continue
    env[k] = v
  }
  Object.assign(env, {HOME: home, NO_COLOR: '1', OPENCLAW_STATE_DIR: state})
  const started = Date.now()
  say(`openclaw@${version}: its plugins' runtime deps into ${deps} (once; doctor --fix, then one agent turn against a mock)`)
  for (const [what, args] of [
    ['doctor --fix', [entry, 'doctor', '--fix', '--non-interactive']],
    ['agent --local', [entry, 'agent', '--local', '--session-id', randomUUID(), '-m', 'warm-up', '--json']],
  ]) {
    const r = await run(args, env, 15 * 60_000)
    if (r.code !== 0) {
      failed = `${what} ${r.code === null ? 'was killed after 15 minutes' : `exited ${r.code}`}; its last lines:\n${r.out}`
      break
    }
  }
  if (!failed) {
    fs.writeFileSync(marker, `${new Date().toISOString()}\n`)
    say(`openclaw@${version}: plugin runtime ready in ${Math.round((Date.now() - started) / 1000)} s`)
  }
} catch (error) {
  failed = String(error?.message ?? error)
} finally {
  mock.kill()
  fs.rmSync(tmp, {recursive: true, force: true})
}
if (failed) say(`warning: openclaw@${version}'s plugin runtime was not filled (${failed.trim()})\nThe tests install what they need on their first agent turns instead.`)
