#!/usr/bin/env node
// `npm run bench`: times read commands on a generated 10k-session store and a 1 GiB transcript (median of several
// runs, peak RSS). Results go to stdout as a Markdown table; copy them into BENCHMARKS.md. Not part of `npm test`.
// Environment: BENCH_SESSIONS (10000), BENCH_TRANSCRIPT_BYTES (1 GiB), BENCH_RUNS (9), BENCH_SHAPE (small | openclaw),
// BENCH_KEEP=1 keeps the generated state dir.
// The SQLite-era rows (after the table above; BENCH_SQLITE=0 skips them, BENCH_SQLITE=only runs only them): a generated
// OpenClaw 2026.9.6 database (scripts/gen-sqlite-store.js, BENCH_SQLITE_SESSIONS sessions, one of BENCH_SQLITE_EVENTS
// events) and the same sessions as a JSON-era store, everything on Node 24 (scripts/node24.js), peak RSS by
// /usr/bin/time. The peer is `openclaw sessions --json --limit all` 2026.9.6 from the interop cache (npm run
// test:interop installs it), BENCH_PEER_RUNS runs (3). A command that fails, or prints fewer rows than it should,
// gives a row "failed: <one line>" instead of a time.
import {spawnSync} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {searchCorpus} from './search-corpus.js'

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

function measure(args, n = runs) {
  const times = []
  const rss = []
  const probe = path.join(dir, 'rss')
  for (let i = 0; i < n + 1; i++) {
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

const exportRuns = Number(process.env.BENCH_EXPORT_RUNS ?? 3)

const sqliteMode = process.env.BENCH_SQLITE ?? '1'
// BENCH_SEARCH=0 skips the search and usage rows over a 1 GiB store of many transcripts; =only runs only them.
const searchMode = process.env.BENCH_SEARCH ?? '1'
// BENCH_CATALOG=0 skips the local catalog's rows (scripts/bench-catalog.js); =only runs only them.
const catalogMode = process.env.BENCH_CATALOG ?? '1'
// BENCH_LIST=only runs only the two list-against-floor comparisons (issue 28), each with its OpenClaw peer alternating:
// the default 10k small-entry JSON store (no transcript) and the SQLite era's generated database.
const listOnly = process.env.BENCH_LIST === 'only'
const others = catalogMode !== 'only' && !listOnly
if (listOnly) {
  generateStore()
  await jsonListRows()
  await sqliteRows({listOnly: true})
}
if (others && sqliteMode !== 'only' && searchMode !== 'only') {
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
    // Exports stream the whole transcript: fewer runs (each writes as much as it reads), to a file so that no pipe
    // buffers the output; peak RSS is the figure that matters (issue 17: under 150 MiB for 1 GiB).
    ...['md', 'html', 'jsonl'].map((f) => [`sessions export --format ${f} --out FILE (${sizeLabel})`, ['sessions', 'export', 'agent:main:main', '--format', f, '--out', path.join(dir, `export.${f}`), '--force', '--state-dir', state], exportRuns]),
  ]
  console.log(`node ${process.version}, ${os.cpus().length} cores, ${runs} runs each (median / min / max wall ms, peak RSS)\n`)
  console.log('| command | median ms | min | max | peak RSS MiB |')
  console.log('|---|---|---|---|---|')
  for (const [name, args, n] of cases) {
    const m = measure(args, n)
    console.log(`| ${name} | ${m.median.toFixed(0)} | ${m.min.toFixed(0)} | ${m.max.toFixed(0)} | ${m.rssMiB.toFixed(0)} |`)
  }
  await jsonListRows()
  // The fleet replica (issue 19): BENCH_FLEET=0 skips it; BENCH_FLEET_HOSTS (4) copies of this index.
  if (process.env.BENCH_FLEET !== '0') {
    const {fleetRows} = await import('./bench-fleet.js')
    const rows = await fleetRows({root, dir, storeFile: path.join(sessionsDir, 'sessions.json'), stateDir: state, label, measure, hosts: Number(process.env.BENCH_FLEET_HOSTS ?? 4)})
    for (const [name, m] of rows) console.log(m.skipped ? `| ${name} | skipped: ${m.skipped} | | | |` : `| ${name} | ${m.median.toFixed(0)} | ${m.min.toFixed(0)} | ${m.max.toFixed(0)} | ${m.rssMiB.toFixed(0)} |`)
  }
}
if (others && sqliteMode !== '0' && searchMode !== 'only') await sqliteRows()
if (others && searchMode !== '0' && sqliteMode !== 'only') await searchRows()
// The `clawkit sync` rows (scripts/bench-sync.js: BENCH_SYNC_SESSIONS, BENCH_SYNC_BYTES); BENCH_SYNC=0 skips them.
if (others && process.env.BENCH_SYNC !== '0' && sqliteMode !== 'only' && searchMode !== 'only') spawnSync(process.execPath, [path.join(root, 'scripts', 'bench-sync.js')], {stdio: 'inherit'})
// Fleet search against local search (scripts/bench-fleet-search.js: BENCH_FLEET_SEARCH_BYTES, _RUNS); BENCH_FLEET=0 skips it.
if (others && process.env.BENCH_FLEET !== '0' && sqliteMode !== 'only' && searchMode !== 'only') spawnSync(process.execPath, [path.join(root, 'scripts', 'bench-fleet-search.js')], {stdio: 'inherit'})
// The local catalog's rows (scripts/bench-catalog.js, issue 28; Node 24): BENCH_CATALOG=0 skips them, =only runs only them.
if (catalogMode !== '0' && !listOnly && sqliteMode !== 'only' && searchMode !== 'only') await (await import('./bench-catalog.js')).catalogRows()
if (!keep) fs.rmSync(dir, {recursive: true, force: true})

/** The line worth showing of a failed run: a --json error envelope's message, else the first non-empty line. */
function oneLine(stdout, stderr) {
  try {
    const message = parseDoc(stdout).error?.message
    if (message) return message.length > 200 ? `${message.slice(0, 200)}\u2026` : message
  } catch {}
  return String(stderr || stdout).split('\n').map((l) => l.trim()).find(Boolean) ?? '(no output)'
}

/**
 * Runs `node args` runs+1 times (the first warms the page cache and is checked by `check(stdout)`, which returns an
 * error line or undefined); wall time and, through /usr/bin/time when present, peak RSS of the process tree's largest
 * process. Returns {failed} on the first failure instead of throwing, so the table always completes.
 */
function measureNode(node, args, {env, runs: n, check}) {
  const timeBin = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined
  const rssFile = path.join(dir, 'rss-time')
  const times = []
  const rss = []
  for (let i = 0; i < n + 1; i++) {
    const [cmd, argv] = timeBin ? [timeBin, ['-f', '%M', '-o', rssFile, node, ...args]] : [node, args]
    const t0 = process.hrtime.bigint()
    const r = spawnSync(cmd, argv, {env, cwd: dir, maxBuffer: 1024 ** 3, encoding: 'utf8'})
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    if (r.status !== 0) return {failed: `exit ${r.status}: ${oneLine(r.stdout, r.stderr)}`}
    if (i === 0) {
      console.error(`bench: ${path.basename(args[0])} ${args.slice(1, 3).join(' ')}: first run ${ms.toFixed(0)} ms`)
      const wrong = check?.(r.stdout)
      if (wrong) return {failed: wrong}
      continue
    }
    times.push(ms)
    if (timeBin) rss.push(Number(fs.readFileSync(rssFile, 'utf8').trim().split('\n').at(-1)) * 1024)
  }
  const sorted = [...times].sort((a, b) => a - b)
  return {median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted.at(-1), rssMiB: rss.length ? Math.max(...rss) / 1024 ** 2 : NaN}
}

/** OpenClaw prints banners and logs around its JSON; the document starts at the first brace. */
function parseDoc(stdout) {
  const start = stdout.indexOf('{')
  return JSON.parse(start < 0 ? stdout : stdout.slice(start))
}

async function sqliteRows({listOnly = false} = {}) {
  const {findNode24, cacheRoot} = await import('./node24.js')
  const n24 = findNode24()
  if (n24.error) {
    console.log(`\nSQLite-era rows skipped: ${n24.error}`)
    return
  }
  const sqSessions = Number(process.env.BENCH_SQLITE_SESSIONS ?? sessions)
  const sqEvents = Number(process.env.BENCH_SQLITE_EVENTS ?? 1_000_000)
  const peerRuns = Number(process.env.BENCH_PEER_RUNS ?? 3)
  const sqState = path.join(dir, 'sqlite-state')
  const jsonState = path.join(dir, 'sqlite-json-state')
  const home = path.join(dir, 'home')
  fs.mkdirSync(home, {recursive: true})
  const gen = spawnSync(n24.bin, [path.join(root, 'scripts', 'gen-sqlite-store.js'), '--out', sqState, '--json-out', jsonState, '--sessions', String(sqSessions), '--big-events', String(sqEvents)], {stdio: ['ignore', 'inherit', 'inherit']})
  if (gen.status !== 0) throw new Error('scripts/gen-sqlite-store.js failed')
  const sLabel = sqSessions >= 1000 && sqSessions % 1000 === 0 ? `${sqSessions / 1000}k` : String(sqSessions)
  const eLabel = sqEvents >= 1e6 && sqEvents % 1e6 === 0 ? `${sqEvents / 1e6}M` : String(sqEvents)
  const env = {...process.env, HOME: home, NO_COLOR: '1'}
  for (const k of Object.keys(env)) if (k.startsWith('OPENCLAW_') || k === 'NODE_OPTIONS') delete env[k]
  const listCheck = (stdout) => {
    const doc = parseDoc(stdout)
    const rows = doc.sessions?.length ?? 0
    return rows === sqSessions ? undefined : `listed ${rows} of ${sqSessions} sessions (count ${doc.count})`
  }
  const historyCheck = (stdout) => {
    // --limit counts messages; the entries between them (custom, model_change...) are printed too.
    const n = (parseDoc(stdout).entries ?? []).filter((e) => e.type === 'message').length
    return n === 20 ? undefined : `printed ${n} messages, not 20`
  }
  const peer = path.join(cacheRoot(), 'openclaw-2026.9.6', 'node_modules', 'openclaw', 'openclaw.mjs')
  const rows = [
    [`clawkit sessions list --json (SQLite, ${sLabel})`, () => measureNode(n24.bin, [bin, 'sessions', 'list', '--json', '--state-dir', sqState], {env, runs, check: listCheck})],
    [
      `openclaw 2026.9.6 sessions --json --limit all (SQLite, ${sLabel})`,
      () => (fs.existsSync(peer) ? measureNode(n24.bin, [peer, 'sessions', '--json', '--limit', 'all'], {env: {...env, OPENCLAW_STATE_DIR: sqState}, runs: peerRuns, check: listCheck}) : {skipped: `not installed at ${peer}; run npm run test:interop once`}),
    ],
    [`clawkit sessions list --json (JSON store, same ${sLabel})`, () => measureNode(n24.bin, [bin, 'sessions', 'list', '--json', '--state-dir', jsonState], {env, runs, check: listCheck})],
    [`clawkit sessions history --limit 20 --json (SQLite, ${eLabel} events)`, () => measureNode(n24.bin, [bin, 'sessions', 'history', 'agent:main:main', '--limit', '20', '--json', '--state-dir', sqState], {env, runs, check: historyCheck})],
    [`clawkit sessions history --limit 20 --json (JSON store, same ${eLabel} events)`, () => measureNode(n24.bin, [bin, 'sessions', 'history', 'agent:main:main', '--limit', '20', '--json', '--state-dir', jsonState], {env, runs, check: historyCheck})],
  ]
  const db = path.join(sqState, 'agents', 'main', 'agent', 'openclaw-agent.sqlite')
  const peerOf = () => (fs.existsSync(peer) ? {name: 'openclaw 2026.9.6 sessions --json --limit all', args: [peer, 'sessions', '--json', '--limit', 'all'], env: {...env, OPENCLAW_STATE_DIR: sqState}, runs: peerRuns, check: listCheck} : undefined)
  if (listOnly) {
    listAgainstFloor({node: n24.bin, env, state: sqState, era: 'sqlite', floorArgs: (bytes) => ['sqlite', db, String(bytes)], label: `${sLabel} sessions, ${eLabel} events in agent:main:main, Node ${n24.version}`, peer: peerOf()})
    return
  }
  const dbBytes = fs.statSync(db).size
  console.log(`\nSQLite era: node ${n24.version}, database ${(dbBytes / 1e6).toFixed(0)} MB; ${runs} runs each, openclaw ${peerRuns} (median / min / max wall ms, peak RSS)\n`)
  console.log('| command | median ms | min | max | peak RSS MiB |')
  console.log('|---|---|---|---|---|')
  const results = []
  for (const [name, run] of rows) {
    const m = run()
    results.push(m)
    if (m.skipped) console.log(`| ${name} | skipped: ${m.skipped} | | | |`)
    else if (m.failed) console.log(`| ${name} | failed: ${m.failed.replaceAll('|', '/')} | | | |`)
    else console.log(`| ${name} | ${m.median.toFixed(0)} | ${m.min.toFixed(0)} | ${m.max.toFixed(0)} | ${Number.isNaN(m.rssMiB) ? '' : m.rssMiB.toFixed(0)} |`)
  }
  const [ours, theirs] = results
  if (ours?.median && theirs?.median) console.log(`\nratio openclaw / clawkit sessions list (SQLite): ${(theirs.median / ours.median).toFixed(2)}x faster (target: at least 10x)`)
  listAgainstFloor({node: n24.bin, env, state: sqState, era: 'sqlite', floorArgs: (bytes) => ['sqlite', db, String(bytes)], label: `${sLabel} sessions, Node ${n24.version}`, peer: peerOf()})
}

/**
 * The JSON era's list against its floor on the default 10k small-entry store: on this Node (20 on the project's
 * machine), then on Node 24 beside OpenClaw 2026.4.27's `sessions --json` (it needs Node 22.14+), all alternating.
 */
async function jsonListRows() {
  const floorArgs = () => ['json', path.join(sessionsDir, 'sessions.json')]
  const what = `${label} sessions, ${(indexBytes / 1e6).toFixed(1)} MB index`
  listAgainstFloor({state, era: 'json', floorArgs, label: `${what}, Node ${process.version}`})
  const {findNode24, cacheRoot} = await import('./node24.js')
  const n24 = findNode24()
  if (n24.error) return console.log(`\nThe JSON-era list on Node 24 beside OpenClaw 2026.4.27 skipped: ${n24.error}`)
  const home = path.join(dir, 'home')
  fs.mkdirSync(home, {recursive: true})
  const env = {...process.env, HOME: home, NO_COLOR: '1'}
  for (const k of Object.keys(env)) if (k.startsWith('OPENCLAW_') || k === 'NODE_OPTIONS') delete env[k]
  const oc = path.join(cacheRoot(), 'openclaw-2026.4.27', 'node_modules', 'openclaw', 'openclaw.mjs')
  const check = (stdout) => {
    const doc = parseDoc(stdout)
    const rows = doc.sessions?.length ?? 0
    return rows === sessions ? undefined : `listed ${rows} of ${sessions} sessions (count ${doc.count})`
  }
  // OpenClaw caps a store read at session.maintenance.maxEntries (500 by default) before it lists: its own config file
  // (outside the state dir, which clawkit reads too) raises the cap so that it lists all the sessions clawkit lists.
  const ocConfig = path.join(dir, 'openclaw-peer.json')
  fs.writeFileSync(ocConfig, JSON.stringify({session: {maintenance: {maxEntries: sessions * 2}}}))
  const peer = fs.existsSync(oc) ? {name: 'openclaw 2026.4.27 sessions --json', args: [oc, 'sessions', '--json'], env: {...env, OPENCLAW_STATE_DIR: state, OPENCLAW_CONFIG_PATH: ocConfig}, runs: Number(process.env.BENCH_PEER_RUNS ?? 3), check} : undefined
  if (!peer) console.log(`\nOpenClaw 2026.4.27 not installed at ${oc} (npm run test:interop installs it): its row is left out`)
  listAgainstFloor({node: n24.bin, env, state, era: 'json', floorArgs, label: `${what}, Node ${n24.version}`, peer})
}

/**
 * `sessions list --json` against a floor (scripts/list-floor.js: what no list can avoid), alternating run by run so
 * that the machine's drift hits both alike (issue 28: at most 1.6x the SQLite floor, 1.2x the JSON one). `era`: which.
 */
function listAgainstFloor({node = process.execPath, env = process.env, state, era, floorArgs, label, peer}) {
  const time = (args, e = env) => {
    const t0 = process.hrtime.bigint()
    const r = spawnSync(node, args, {env: e, cwd: dir, maxBuffer: 1024 ** 3, encoding: 'utf8'})
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    if (r.status !== 0) throw new Error(`${args.slice(0, 3).join(' ')}: exit ${r.status}: ${oneLine(r.stdout, r.stderr)}`)
    return {ms, bytes: Buffer.byteLength(r.stdout), stdout: r.stdout}
  }
  const first = time([bin, 'sessions', 'list', '--json', '--state-dir', state])
  // The peer (OpenClaw's own list on the same store, when given) runs in the first peer.runs rounds of the same
  // alternation, after a warm-up whose document is checked; a failure is a row, not an abort.
  let peerFailed
  if (peer) {
    try {
      peerFailed = peer.check?.(time(peer.args, peer.env).stdout)
    } catch (error) {
      peerFailed = error.message
    }
  }
  const list = []
  const floor = []
  const theirs = []
  for (let i = 0; i < runs; i++) {
    list.push(time([bin, 'sessions', 'list', '--json', '--state-dir', state]).ms)
    floor.push(time([path.join(root, 'scripts', 'list-floor.js'), ...floorArgs(first.bytes)]).ms)
    if (peer && !peerFailed && i < peer.runs) theirs.push(time(peer.args, peer.env).ms)
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const target = era === 'sqlite' ? 1.6 : 1.2
  console.log(`\nThe list against its floor (${label}, alternating, ${runs} runs each${peer ? `, the peer's ${peer.runs} in the first rounds` : ''}; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; median ms)\n`)
  console.log('| command | median ms | ratio to the floor | target |')
  console.log('|---|---|---|---|')
  console.log(`| clawkit sessions list --json (${era === 'sqlite' ? 'SQLite' : 'JSON era'}, ${(first.bytes / 1e6).toFixed(1)} MB document) | ${med(list).toFixed(0)} | ${(med(list) / med(floor)).toFixed(2)}x | at most ${target}x |`)
  console.log(`| floor: node scripts/list-floor.js ${floorArgs(first.bytes)[0]} (${era === 'sqlite' ? "Node's start, json_valid of every entry, the document's bytes written" : "Node's start, the index read, parsed and stringified (compact) to stdout"}) | ${med(floor).toFixed(0)} | | |`)
  if (peerFailed) console.log(`| ${peer.name} | failed: ${String(peerFailed).replaceAll('|', '/')} | | |`)
  else if (peer) console.log(`| ${peer.name} (${theirs.length} runs) | ${med(theirs).toFixed(0)} | ${(med(theirs) / med(floor)).toFixed(2)}x; clawkit is ${(med(theirs) / med(list)).toFixed(2)}x faster | |`)
}

/** Wall time of a plain command, runs+1 times (the first warms the page cache); median/min/max ms. */
function measureCmd(cmd, args, n) {
  const times = []
  let stdout = ''
  for (let i = 0; i < n + 1; i++) {
    const t0 = process.hrtime.bigint()
    const r = spawnSync(cmd, args, {maxBuffer: 256 * 1024 ** 2, encoding: 'utf8'})
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    if (r.error) return {failed: r.error.message}
    if (r.status !== 0 && r.status !== 1) return {failed: `exit ${r.status}: ${oneLine(r.stdout, r.stderr)}`}
    stdout = r.stdout
    if (i > 0) times.push(ms)
  }
  const sorted = [...times].sort((a, b) => a - b)
  return {median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted.at(-1), stdout}
}

/**
 * `sessions search` against ripgrep on the same files in the same run (issue 18: within 2x of `rg -c <literal>`), and
 * `sessions usage` over the same store. rg comes from Debian's `ripgrep` package; without it the rg rows say so.
 */
async function searchRows() {
  const corpus = searchCorpus(Number(process.env.BENCH_SEARCH_BYTES ?? 1024 ** 3))
  const n = Number(process.env.BENCH_SEARCH_RUNS ?? 5)
  const sessionsDir = path.join(corpus.state, 'agents', 'main', 'sessions')
  const rgFound = spawnSync('rg', ['--version'], {encoding: 'utf8'})
  const rg = rgFound.error ? undefined : rgFound.stdout.split('\n')[0]
  const search = (extra) => measure(['sessions', 'search', corpus.needle, '--state-dir', corpus.state, '--include-archived', '--json', ...extra], n)
  // The same files as the search: transcripts and archives (not sessions.json).
  const rgArgs = (flags) => [...flags, corpus.needle, '--glob', '*.jsonl*', sessionsDir]
  const rows = []
  const rgRow = (label, flags) => {
    if (!rg) return rows.push([label, {skipped: 'rg not found: apt-get install -y ripgrep'}])
    rows.push([label, measureCmd('rg', rgArgs(flags), n)])
  }
  // Interleaved, so that a drift of the machine's speed hits both sides alike.
  rgRow(`rg -c ${corpus.needle} (case-sensitive)`, ['-c'])
  const s = search([])
  rows.push([`clawkit sessions search ${corpus.needle} --include-archived --json (smart case: ignores case)`, s])
  rgRow(`rg -c -S ${corpus.needle} (smart case, as clawkit)`, ['-c', '-S'])
  const upper = corpus.needle.toUpperCase()
  rows.push([`clawkit sessions search ${upper} --include-archived --json (case-sensitive, no hit)`, measure(['sessions', 'search', upper, '--state-dir', corpus.state, '--include-archived', '--json'], n)])
  if (rg) rows.push([`rg -c ${upper} (no hit)`, measureCmd('rg', rgArgs(['-c']).map((a) => (a === corpus.needle ? upper : a)), n)])
  // What no Node reader avoids: its start and one copy of every byte (no search at all), in the same minutes.
  const floor = measureCmd(process.execPath, [path.join(root, 'scripts', 'read-floor.js'), sessionsDir], n)
  rows.push(['node scripts/read-floor.js (reads the same files, searches nothing)', floor])
  rows.push(['clawkit sessions usage --json (same store)', measure(['sessions', 'usage', '--state-dir', corpus.state, '--json'], n)])
  console.log(`\nSearch: ${corpus.files} transcripts, ${(corpus.bytes / 1024 ** 3).toFixed(2)} GiB, ${corpus.lines} lines, "${corpus.needle}" on ${corpus.needleLines} of them; ${n} runs each after a warm-up; ${rg ?? 'rg not found'}\n`)
  console.log('| command | median ms | min | max | peak RSS MiB |')
  console.log('|---|---|---|---|---|')
  for (const [name, m] of rows) {
    if (m.skipped) console.log(`| ${name} | skipped: ${m.skipped} | | | |`)
    else if (m.failed) console.log(`| ${name} | failed: ${m.failed.replaceAll('|', '/')} | | | |`)
    else console.log(`| ${name} | ${m.median.toFixed(0)} | ${m.min.toFixed(0)} | ${m.max.toFixed(0)} | ${m.rssMiB === undefined ? '' : m.rssMiB.toFixed(0)} |`)
  }
  const rgCs = rows.find(([name]) => name.startsWith('rg -c kube'))?.[1]
  const rgSmart = rows.find(([name]) => name.startsWith('rg -c -S'))?.[1]
  if (rgCs?.median && rgSmart?.median) {
    console.log(`\nratio clawkit search / rg -c: ${(s.median / rgCs.median).toFixed(2)}; / rg -c -S: ${(s.median / rgSmart.median).toFixed(2)} (target: within 2x)`)
    if (floor.median) console.log(`ratio of the read floor alone / rg -c: ${(floor.median / rgCs.median).toFixed(2)}; / rg -c -S: ${(floor.median / rgSmart.median).toFixed(2)}`)
  }
  // Both must find the generated needle lines (one hit each: the needle is in one text of the line).
  const doc = spawnSync(process.execPath, [bin, 'sessions', 'search', corpus.needle, '--state-dir', corpus.state, '--include-archived', '--limit', '1', '--json'], {encoding: 'utf8', env: {...process.env, HOME: dir}})
  const count = doc.status === 0 ? JSON.parse(doc.stdout).count : `failed (exit ${doc.status})`
  const rgCount = rgSmart?.stdout ? rgSmart.stdout.split('\n').filter(Boolean).reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(':') + 1)), 0) : 'n/a'
  console.log(`hits: clawkit ${count}, rg -c -S ${rgCount}, generated ${corpus.needleLines}; the read floor read ${floor.stdout?.trim() ?? 'n/a'} bytes (corpus ${corpus.bytes})`)
}
