#!/usr/bin/env node
// The floor of the catalog's first build (issue 28: at most 50x one scan), timed by `npm run bench` beside `clawkit
// index` on the same corpus: Node's start, every transcript read and each line parsed, the text search reads taken from
// it (searchTextOf, as the catalog does), lines grouped into spans of 8 KiB as the catalog groups them, and the spans
// inserted into an FTS5 table (contentless, detail=none) with a commit every 16 MiB and one merge at the end. No
// ledger, no marks, no listing: a lower bound of the build.
//   node scripts/build-floor.js DIR DB            (Node 22.15+) prints: <files> <bytes read> <spans> <text bytes>
//   node scripts/build-floor.js DIR DB trigram    the same: the spans' text to FTS5's trigram tokenizer (the catalog's
//                                                 schema 2)
//   node scripts/build-floor.js DIR DB distinct   the prototype timed before schema 3: each span's distinct trigrams
//                                                 (case folded per UTF-16 unit, base-36 names) to the ascii tokenizer
//   node scripts/build-floor.js DIR DB tokens     the catalog's schema 3: each span's distinct trigrams as the catalog
//                                                 makes them (dist/catalog/tokens.js) to its tokenizer, one thread
//   node scripts/build-floor.js DIR DB tokens2    the same on two threads, as the catalog's build worker splits it: a
//                                                 worker reads, parses and makes the tokens, the main thread inserts
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {isMainThread, parentPort, Worker, workerData} from 'node:worker_threads'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const [dir, file, mode = 'trigram'] = process.argv.slice(2)
const {searchTextOf} = await import(path.join(root, 'dist', 'sessions', 'search-text.js'))
const {TokenWriter, FTS_TOKENIZE} = await import(path.join(root, 'dist', 'catalog', 'tokens.js'))

/** Every transcript of `dir` in order, each line parsed, its searched text in spans of 8 KiB: span(texts, bytes), endFile(). */
function digest(dir, span, endFile) {
  for (const name of fs.readdirSync(dir).sort()) {
    if (!name.includes('.jsonl')) continue
    const buf = fs.readFileSync(path.join(dir, name))
    let texts = []
    let spanBytes = 0
    let at = 0
    while (at < buf.length) {
      let end = buf.indexOf(10, at)
      if (end < 0) end = buf.length
      const line = buf.toString('utf8', at, end)
      spanBytes += end + 1 - at
      at = end + 1
      let value
      try {
        value = JSON.parse(line)
      } catch {
        continue
      }
      const t = value && typeof value === 'object' ? searchTextOf(value) : null
      if (t) texts.push(t)
      if (spanBytes >= 8192) {
        span(texts, spanBytes)
        texts = []
        spanBytes = 0
      }
    }
    span(texts, spanBytes)
    endFile(buf.length)
  }
}

// tokens2's worker: the tokens of each file's spans in one buffer, posted per file; at most 8 files ahead of the inserts.
if (!isMainThread) {
  const {dir, shared} = workerData
  const done = new Int32Array(shared)
  const w = new TokenWriter()
  let ends = []
  let textBytes = 0
  let sent = 0
  digest(
    dir,
    (texts) => {
      if (texts.length === 0) return
      const text = texts.join('\n')
      textBytes += Buffer.byteLength(text)
      w.add(text)
      ends.push(w.len)
    },
    (bytes) => {
      const out = new Uint8Array(w.len)
      out.set(w.buf.subarray(0, w.len))
      parentPort.postMessage({tokens: out, ends, bytes, textBytes}, [out.buffer])
      w.reset()
      ends = []
      textBytes = 0
      sent++
      while (sent - Atomics.load(done, 0) > 8) Atomics.wait(done, 0, Atomics.load(done, 0), 50)
    },
  )
  parentPort.postMessage({end: true})
} else await main()

async function main() {
if (!dir || !file || !['trigram', 'distinct', 'tokens', 'tokens2'].includes(mode)) {
  console.error('usage: node scripts/build-floor.js DIR DB [trigram|distinct|tokens|tokens2]')
  process.exit(2)
}
const {DatabaseSync} = process.getBuiltinModule('node:sqlite')
for (const s of ['', '-wal', '-shm']) fs.rmSync(`${file}${s}`, {force: true})
const db = new DatabaseSync(file)
db.exec('PRAGMA journal_mode = WAL')
db.exec('PRAGMA synchronous = NORMAL')
const tokenize = mode === 'trigram' ? "'trigram'" : mode === 'distinct' ? "'ascii'" : `"${FTS_TOKENIZE.replaceAll('"', '""')}"`
db.exec(`CREATE VIRTUAL TABLE fts USING fts5(text, content='', contentless_delete=1, tokenize=${tokenize}, detail=none)`)
const insert = db.prepare('INSERT INTO fts(rowid, text) VALUES (?, ?)')
const tokenWriter = new TokenWriter()

const bits = new Uint8Array(1 << 18)
const seen = new Int32Array(1 << 16)
/** A span's distinct trigrams as tokens: ASCII ones by a bitmap of their 21-bit codes, others by a Set. */
function distinct(s) {
  const l = s.toLowerCase()
  let out = ''
  let n = 0
  let other
  for (let i = 0; i + 2 < l.length; i++) {
    const a = l.charCodeAt(i)
    const b = l.charCodeAt(i + 1)
    const c = l.charCodeAt(i + 2)
    if ((a | b | c) < 128) {
      const k = (a << 14) | (b << 7) | c
      const m = 1 << (k & 7)
      if ((bits[k >> 3] & m) === 0) {
        bits[k >> 3] |= m
        if (n < seen.length) seen[n++] = k
        out += `g${k.toString(36)} `
      }
    } else (other ??= new Set()).add(l.slice(i, i + 3))
  }
  for (let i = 0; i < n; i++) bits[seen[i] >> 3] = 0
  if (other) for (const g of other) out += `u${[...g].map((ch) => ch.codePointAt(0).toString(36)).join('x')} `
  return out
}

let files = 0
let bytes = 0
let spans = 0
let textBytes = 0
let batch = 0
db.exec('BEGIN IMMEDIATE')
const commitEvery = () => {
  if (batch >= 16 * 1024 * 1024) {
    db.exec('COMMIT')
    db.exec('BEGIN IMMEDIATE')
    batch = 0
  }
}
if (mode === 'tokens2') {
  const shared = new SharedArrayBuffer(4)
  const done = new Int32Array(shared)
  const worker = new Worker(fileURLToPath(import.meta.url), {workerData: {dir, shared}, argv: process.argv.slice(2)})
  await new Promise((resolve, reject) => {
    worker.on('error', reject)
    worker.on('message', (m) => {
      if (m.end) return resolve()
      let from = 0
      for (const end of m.ends) {
        insert.run(++spans, m.tokens.subarray(from, end))
        from = end
      }
      files++
      bytes += m.bytes
      batch += m.bytes
      textBytes += m.textBytes
      commitEvery()
      Atomics.add(done, 0, 1)
      Atomics.notify(done, 0)
    })
  })
  await worker.terminate()
} else {
  digest(
    dir,
    (texts, n) => {
      batch += n
      if (texts.length === 0) return
      const text = texts.join('\n')
      textBytes += Buffer.byteLength(text)
      if (mode === 'tokens') {
        tokenWriter.reset()
        const len = tokenWriter.add(text)
        insert.run(++spans, tokenWriter.buf.subarray(0, len))
      } else insert.run(++spans, mode === 'distinct' ? distinct(text) : text)
      commitEvery()
    },
    (n) => {
      files++
      bytes += n
    },
  )
}
db.exec('COMMIT')
db.exec("INSERT INTO fts(fts) VALUES ('optimize')")
db.close()
for (const s of ['', '-wal', '-shm']) fs.rmSync(`${file}${s}`, {force: true})
console.log(`${files} ${bytes} ${spans} ${textBytes}`)
}
