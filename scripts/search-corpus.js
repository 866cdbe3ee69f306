// The search benchmark's corpus (issue 18), shared by scripts/bench.js (local search rows) and
// scripts/bench-fleet-search.js (the same store synced into a replica), so both time the same bytes.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * A JSON-era store of many transcripts (BENCH_SEARCH_BYTES, 1 GiB; 32 KiB to 2 MiB each, a few reset archives) made
 * of user and assistant text, tool calls and tool results, from a seeded generator: the same bytes on every machine.
 * Kept in BENCH_CACHE_DIR (default <tmp>/clawkit-bench-cache) and reused while its parameters are unchanged.
 */
export function searchCorpus(bytes) {
  const cacheRoot = process.env.BENCH_CACHE_DIR ?? path.join(os.tmpdir(), 'clawkit-bench-cache')
  const state = path.join(cacheRoot, `search-v1-${bytes}`)
  const done = path.join(state, '.complete')
  if (fs.existsSync(done)) return {state, ...JSON.parse(fs.readFileSync(done, 'utf8'))}
  fs.rmSync(state, {recursive: true, force: true})
  const sessionsDir = path.join(state, 'agents', 'main', 'sessions')
  fs.mkdirSync(sessionsDir, {recursive: true})
  let seed = 0x2f6b1d
  // mulberry32: small, fast and the same everywhere.
  const rnd = () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const vocab = (
    'the a to of and in is it you that for on with this be are as was have not but at can what your from or by an if will all ' +
    'my there so do one about would when which they get out up more like just file server config error deploy build test run ' +
    'request response user session agent model token cache channel message send reply update check list read write path ' +
    'directory function value string number object array null true false return import export module package version ' +
    'install script command output input stream buffer line json yaml docker container image node process memory disk ' +
    'network port host address database query table index schema migration backup restore log warning debug trace'
  ).split(' ')
  // Zipf-like: early words far more often than late ones.
  const word = () => vocab[Math.floor(vocab.length * rnd() ** 2.2)]
  const sentence = (n) => {
    const w = []
    for (let i = 0; i < n; i++) w.push(word())
    return w.join(' ')
  }
  const NEEDLE = 'kubeconfig'
  const store = {}
  let total = 0
  let files = 0
  let lines = 0
  let needleLines = 0
  const t0 = Date.now()
  const start = Date.parse('2026-06-01T00:00:00Z')
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
      const needle = rnd() < 0.002
      const text = sentence(8 + Math.floor(rnd() * 120)) + (needle ? ` ${NEEDLE} ${sentence(5)}` : '')
      const kind = n % 4
      let message
      if (kind === 1) message = {role: 'user', content: text, timestamp: at}
      else if (kind === 2) message = {role: 'assistant', content: [{type: 'text', text}, {type: 'toolCall', id: `call_${n}`, name: 'exec', arguments: {command: `${word()} ${word()} --${word()}`}}], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage: {input: 900 + n, output: 40, cacheRead: 12000, cacheWrite: 0, totalTokens: 12940 + n, cost: {input: 0.0027, output: 0.0006, cacheRead: 0.0036, cacheWrite: 0, total: 0.0069}}, stopReason: 'toolUse', timestamp: at}
      else if (kind === 3) message = {role: 'toolResult', toolCallId: `call_${n - 1}`, toolName: 'exec', content: [{type: 'text', text: `${text}\n${sentence(40 + Math.floor(rnd() * 400))}`}], isError: false, timestamp: at}
      else message = {role: 'assistant', content: [{type: 'text', text}], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage: {input: 1200 + n, output: 300, cacheRead: 12000, cacheWrite: 0, totalTokens: 13500 + n, cost: {input: 0.0036, output: 0.0045, cacheRead: 0.0036, cacheWrite: 0, total: 0.0117}}, stopReason: 'stop', timestamp: at}
      const eid = n.toString(16).padStart(8, '0')
      const line = JSON.stringify({type: 'message', id: eid, parentId: parent, timestamp: new Date(at).toISOString(), message})
      parent = eid
      out.push(line)
      written += Buffer.byteLength(line) + 1
      lines++
      if (needle) needleLines++
    }
    // One session in fifty was reset: its first half is an archive, the live transcript the rest.
    const key = i % 3 === 0 ? `agent:main:telegram:group:-100${i}` : `agent:main:telegram:direct:${i}`
    if (i % 50 === 7 && out.length > 4) {
      const half = Math.floor(out.length / 2)
      const archivedAt = new Date(at - (out.length - half) * 1000).toISOString().replaceAll(':', '-')
      fs.writeFileSync(path.join(sessionsDir, `${id}.jsonl.reset.${archivedAt}`), `${out.slice(0, half).join('\n')}\n`)
      const newId = `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`
      const rest = [JSON.stringify({type: 'session', version: 3, id: newId, timestamp: new Date(at - (out.length - half) * 1000).toISOString(), cwd: '/bench'}), ...out.slice(half)]
      fs.writeFileSync(path.join(sessionsDir, `${newId}.jsonl`), `${rest.join('\n')}\n`)
      store[key] = {sessionId: newId, updatedAt: at, sessionStartedAt: at - (out.length - half) * 1000}
    } else {
      fs.writeFileSync(path.join(sessionsDir, `${id}.jsonl`), `${out.join('\n')}\n`)
      store[key] = {sessionId: id, updatedAt: at}
    }
    total += written
  }
  fs.writeFileSync(path.join(sessionsDir, 'sessions.json'), JSON.stringify(store, null, 2))
  const info = {needle: NEEDLE, files, bytes: total, lines, needleLines}
  fs.writeFileSync(done, JSON.stringify(info))
  console.error(`bench: generated the search corpus (${files} transcripts, ${(total / 1024 ** 3).toFixed(2)} GiB) in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${state}`)
  return {state, ...info}
}
