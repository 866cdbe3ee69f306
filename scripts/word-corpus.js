// A corpus with many unique tokens (issue 28): the search corpus's kind of store (scripts/search-corpus.js: user and
// assistant text, tool calls and results from the same seeded word list), where every line also carries what real
// transcripts are full of and a word index must keep in its vocabulary: request ids, uuids, commit and content hashes,
// base64 blobs, paths with ids. Kept in BENCH_CACHE_DIR like the search corpus. It measures the catalog's size where
// the vocabulary is large (BENCHMARKS.md, "The word index"):
//   node scripts/word-corpus.js [BYTES]     makes it (default 128 MiB) and prints its state dir; then, on Node 24,
//   clawkit index --state-dir DIR && clawkit index --status --state-dir DIR
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

export function uniqueCorpus(bytes) {
  const cacheRoot = process.env.BENCH_CACHE_DIR ?? path.join(os.tmpdir(), 'clawkit-bench-cache')
  const state = path.join(cacheRoot, `word-unique-v1-${bytes}`)
  const done = path.join(state, '.complete')
  if (fs.existsSync(done)) return {state, ...JSON.parse(fs.readFileSync(done, 'utf8'))}
  fs.rmSync(state, {recursive: true, force: true})
  const sessionsDir = path.join(state, 'agents', 'main', 'sessions')
  fs.mkdirSync(sessionsDir, {recursive: true})
  let seed = 0x51d7a3
  const rnd = () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  // Seeded random bytes (a counter through sha256): the same corpus everywhere.
  let ctr = 0
  const randomBytes = (n) => {
    const out = []
    while (out.length < n) out.push(...crypto.createHash('sha256').update(`${seed}:${ctr++}`).digest())
    return Buffer.from(out.slice(0, n))
  }
  const vocab = (
    'the a to of and in is it you that for on with this be are as was have not but at can what your from or by an if will all ' +
    'my there so do one about would when which they get out up more like just file server config error deploy build test run ' +
    'request response user session agent model token cache channel message send reply update check list read write path ' +
    'directory function value string number object array null true false return import export module package version ' +
    'install script command output input stream buffer line json yaml docker container image node process memory disk ' +
    'network port host address database query table index schema migration backup restore log warning debug trace'
  ).split(' ')
  const word = () => vocab[Math.floor(vocab.length * rnd() ** 2.2)]
  const sentence = (n) => Array.from({length: n}, word).join(' ')
  const hex = (n) => randomBytes(Math.ceil(n / 2)).toString('hex').slice(0, n)
  const uuid = () => {
    const h = hex(32)
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  }
  /** What a line of real tool output carries besides words: ids, hashes, blobs. */
  const noise = () => {
    const out = [`req_${randomBytes(9).toString('base64url')}`, uuid()]
    if (rnd() < 0.5) out.push(`commit ${hex(40)}`)
    if (rnd() < 0.3) out.push(randomBytes(48).toString('base64'))
    if (rnd() < 0.3) out.push(`/var/lib/app/${hex(8)}/data-${Math.floor(rnd() * 1e9)}.json`)
    return out.join(' ')
  }
  let total = 0
  let files = 0
  let lines = 0
  const start = Date.parse('2026-06-01T00:00:00Z')
  const store = {}
  while (total < bytes) {
    const i = files++
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`
    const size = Math.floor(32 * 1024 + rnd() * rnd() * 2 * 1024 * 1024)
    let at = start + i * 600_000
    const out = [JSON.stringify({type: 'session', version: 3, id, timestamp: new Date(at).toISOString(), cwd: '/bench'})]
    let written = out[0].length + 1
    let parent = null
    let n = 0
    while (written < size) {
      n++
      at += 1000
      const text = `${sentence(8 + Math.floor(rnd() * 120))}${rnd() < 0.002 ? ' kubeconfig' : ''} ${noise()}`
      const kind = n % 4
      let message
      if (kind === 1) message = {role: 'user', content: text, timestamp: at}
      else if (kind === 2) message = {role: 'assistant', content: [{type: 'text', text}, {type: 'toolCall', id: `call_${n}`, name: 'exec', arguments: {command: `${word()} ${word()} --id ${hex(12)}`}}], provider: 'anthropic', model: 'claude-sonnet-4-5', usage: {input: 900, output: 40, totalTokens: 940, cost: {total: 0.0069}}, timestamp: at}
      else if (kind === 3) message = {role: 'toolResult', toolCallId: `call_${n - 1}`, toolName: 'exec', content: [{type: 'text', text: `${text}\n${sentence(40 + Math.floor(rnd() * 400))}\n${noise()}\n${noise()}`}], isError: false, timestamp: at}
      else message = {role: 'assistant', content: [{type: 'text', text}], provider: 'anthropic', model: 'claude-sonnet-4-5', usage: {input: 1200, output: 300, totalTokens: 1500, cost: {total: 0.0117}}, timestamp: at}
      const eid = n.toString(16).padStart(8, '0')
      const line = JSON.stringify({type: 'message', id: eid, parentId: parent, timestamp: new Date(at).toISOString(), message})
      parent = eid
      out.push(line)
      written += Buffer.byteLength(line) + 1
      lines++
    }
    fs.writeFileSync(path.join(sessionsDir, `${id}.jsonl`), `${out.join('\n')}\n`)
    store[`agent:main:telegram:direct:${i}`] = {sessionId: id, updatedAt: at}
    total += written
  }
  fs.writeFileSync(path.join(sessionsDir, 'sessions.json'), JSON.stringify(store, null, 2))
  const info = {files, bytes: total, lines}
  fs.writeFileSync(done, JSON.stringify(info))
  return {state, ...info}
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const c = uniqueCorpus(Number(process.argv[2] ?? 128 * 1024 ** 2))
  console.log(`${c.state} (${c.files} transcripts, ${c.bytes} bytes)`)
}
