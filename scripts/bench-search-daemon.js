#!/usr/bin/env node
// Times the resident-search prototype (scripts/search-daemon.js) against `rg -c` and clawkit's own search on the search
// benchmark's corpus (scripts/search-corpus.js), interleaved round by round on Node 24: a rare and a common literal
// through the client (whole processes: Node's start, the socket, the answer printed), with a daemon that refreshes on
// every request and one that keeps its view while inotify reports nothing; beside `node -e 0`. Every client answer is
// checked against the CLI's. BENCH_DAEMON_RUNS (9).
import {spawn, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {findNode24} from './node24.js'
import {searchCorpus} from './search-corpus.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const runs = Number(process.env.BENCH_DAEMON_RUNS ?? 9)
const node = findNode24().bin
const corpus = searchCorpus(Number(process.env.BENCH_SEARCH_BYTES ?? 1024 ** 3))
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-bench-daemon-'))
const env = {...process.env, HOME: path.join(dir, 'home'), CLAWKIT_DATA_DIR: path.join(dir, 'data'), NO_COLOR: '1'}
fs.mkdirSync(env.HOME, {recursive: true})
const state = corpus.state
const sessionsDir = path.join(state, 'agents', 'main', 'sessions')
const daemon = path.join(root, 'scripts', 'search-daemon.js')
const time = (cmd, args) => {
  const t = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {env, maxBuffer: 256 * 1024 ** 2, encoding: 'utf8'})
  return {ms: Number(process.hrtime.bigint() - t) / 1e6, stdout: r.stdout, status: r.status}
}
const cli = (...a) => time(node, [path.join(root, 'bin', 'run.js'), ...a, '--state-dir', state])
console.error(`bench: building the catalog of ${state}`)
cli('index')
const servers = []
const start = async (socket, watch) => {
  const p = spawn(node, [daemon, state, socket, ...(watch ? ['--watch'] : [])], {env, stdio: ['ignore', 'ignore', 'pipe']})
  servers.push(p)
  await new Promise((resolve) => p.stderr.once('data', resolve))
}
const plain = path.join(dir, 'plain.sock')
const watched = path.join(dir, 'watched.sock')
await start(plain, false)
await start(watched, true)
const strip = (doc) => {
  const {engine: _e, stores: _s, ...rest} = JSON.parse(doc)
  return JSON.stringify(rest)
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
try {
  for (const needle of [corpus.needle, 'deploy']) {
    const s = {rg: [], cli: [], plain: [], watched: [], node: []}
    let ok = true
    for (let i = 0; i <= runs; i++) {
      const a = time('rg', ['-c', needle, sessionsDir])
      const b = cli('sessions', 'search', needle, '--include-archived', '--json')
      const c = time(node, [daemon, '--client', plain, needle, '--include-archived'])
      const d = time(node, [daemon, '--client', watched, needle, '--include-archived'])
      const e = time(node, ['-e', '0'])
      if (strip(c.stdout) !== strip(b.stdout) || strip(d.stdout) !== strip(b.stdout)) ok = false
      if (i === 0) continue
      s.rg.push(a.ms)
      s.cli.push(b.ms)
      s.plain.push(c.ms)
      s.watched.push(d.ms)
      s.node.push(e.ms)
    }
    const rg = median(s.rg)
    const line = (name, xs) => console.log(`| ${needle} | ${name} | ${median(xs).toFixed(0)} | ${(median(xs) / rg).toFixed(2)}x |`)
    console.log(`\n| needle | command (median of ${runs}, wall ms) | ms | against rg -c |\n|---|---|---|---|`)
    line('rg -c', s.rg)
    line('clawkit sessions search (catalog)', s.cli)
    line('client to a daemon that refreshes on each request', s.plain)
    line('client to a daemon that refreshes after an inotify event', s.watched)
    line('node -e 0', s.node)
    console.log(`answers: ${ok ? 'every client answer = the CLI\'s' : 'FAILED: a client answer differs from the CLI\'s'}`)
  }
} finally {
  for (const p of servers) p.kill()
  fs.rmSync(dir, {recursive: true, force: true})
}
