// A corpus with many unique tokens for scripts/bench-word-index.js (issue 28): the search corpus's kind of store
// (scripts/search-corpus.js: user and assistant text, tool calls and results from the same seeded word list), where
// every line also carries what real transcripts are full of and a word index must keep in its vocabulary: request ids,
// uuids, commit and content hashes, base64 blobs, paths with ids. Kept in BENCH_CACHE_DIR like the search corpus.
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

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

/**
 * A small store of the texts where folding is easy to get wrong (the Kelvin sign, the long s, ß, dotted İ, final
 * sigma, micro sign, ligatures, combining marks, surrogate pairs and a lone surrogate, `_`), a line that is not JSON and
 * an entry with no time, with the needles to try on it: the word index must answer each exactly as `--scan` does.
 */
export function edgeCorpus(dir) {
  const sessionsDir = path.join(dir, 'agents', 'main', 'sessions')
  fs.mkdirSync(sessionsDir, {recursive: true})
  const texts = ['Kelvin \u212Aelvin kelvin KELVIN', 'long \u017Ftop stop STOP', 'stra\u00DFe STRASSE strasse', '\u0130stanbul istanbul ISTANBUL', '\u03A3\u039F\u03A6\u039F\u03A3 \u03C3\u03BF\u03C6\u03BF\u03C2 sofos', 'caf\u00E9 CAF\u00C9 cafe\u0301', 'emoji \uD83D\uDE00ok lone\uD800x', 'snake_case_word foo-bar baz.qux', '\u00B5s \u039Cs \u03BCs', 'tab\there new\nline', '\uFB01le \uFB00 file']
  const t = Date.parse('2026-01-01T00:00:01Z')
  const lines = [JSON.stringify({type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/'})]
  texts.forEach((x, i) => lines.push(JSON.stringify({type: 'message', id: `e${i}`, parentId: null, timestamp: new Date(t + i * 1000).toISOString(), message: {role: i % 2 ? 'user' : 'assistant', content: [{type: 'text', text: x}], timestamp: t + i * 1000}})))
  lines.push('{not json kelvin stop')
  lines.push(JSON.stringify({type: 'message', id: 'nt', parentId: null, message: {role: 'user', content: 'no time kelvin stop'}}))
  const id = '00000000-0000-4000-8000-000000000001'
  fs.writeFileSync(path.join(sessionsDir, `${id}.jsonl`), `${lines.join('\n')}\n`)
  fs.writeFileSync(path.join(sessionsDir, 'sessions.json'), JSON.stringify({'agent:main:main': {sessionId: id, updatedAt: t}}))
  const needles = ['kelvin', 'Kelvin', 'stop', '\u017Ftop', 'strasse', 'stra\u00DFe', 'istanbul', '\u0130stanbul', '\u03C3\u03BF\u03C6\u03BF\u03C2', '\u03A3\u039F\u03A6\u039F\u03A3', 'caf\u00E9', 'cafe', '\u00B5s', '\u03BCs', 'ok', 'snake_case', 'foo-bar', 'le', '\uFB01le', 'time kelvin', 'emoji', 'not json']
  return {state: dir, sessionsDir, needles}
}
