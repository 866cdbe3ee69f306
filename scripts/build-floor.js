#!/usr/bin/env node
// The floor of the catalog's first build (issue 28: at most 50x one scan), timed by `npm run bench` beside `clawkit
// index` on the same corpus: Node's start, every transcript read and each line parsed, the parts search reads taken
// from it (partsOf, as the catalog does), each part's distinct folded tokens (dist/catalog/tokens.js TokenWriter, the
// catalog's own) inserted as one row of a words table of the catalog's definition (contentless, detail=none, dense
// rowids per transcript), a commit every 16 MiB and one merge at the end. No vocabulary, no spans, no ledger, no marks,
// no listing: a lower bound of the build.
//   node scripts/build-floor.js DIR DB [words2]   (Node 22.15+) two threads, as the catalog's build worker splits it: a
//                                                 worker reads, parses and makes the tokens, the main thread inserts
//   node scripts/build-floor.js DIR DB words      the same on one thread
// Prints: <files> <bytes read> <parts> <text bytes>
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {isMainThread, parentPort, Worker, workerData} from 'node:worker_threads'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const [dir, file, mode = 'words2'] = process.argv.slice(2)
const {partsOf} = await import(path.join(root, 'dist', 'sessions', 'search-text.js'))
const {TokenWriter, WORDS_TOKENIZE} = await import(path.join(root, 'dist', 'catalog', 'tokens.js'))

/** Every transcript of `dir` in order, each line parsed, each part's tokens written: endFile(writer, ends, bytes) per file. */
function digest(dir, endFile) {
  const w = new TokenWriter()
  for (const name of fs.readdirSync(dir).sort()) {
    if (!name.includes('.jsonl')) continue
    const buf = fs.readFileSync(path.join(dir, name))
    const ends = []
    let textBytes = 0
    let at = 0
    while (at < buf.length) {
      let end = buf.indexOf(10, at)
      if (end < 0) end = buf.length
      const line = buf.toString('utf8', at, end)
      at = end + 1
      let value
      try {
        value = JSON.parse(line)
      } catch {
        continue
      }
      if (!value || typeof value !== 'object') continue
      for (const p of partsOf(value)) {
        textBytes += Buffer.byteLength(p.text)
        if (w.add(p.text) > 0) ends.push(w.len)
      }
    }
    endFile(w, ends, buf.length, textBytes)
    w.reset()
    w.resetVocab()
  }
}

// words2's worker: each file's parts' tokens in one buffer, posted per file; at most 8 files ahead of the inserts.
if (!isMainThread) {
  const {dir, shared} = workerData
  const done = new Int32Array(shared)
  let sent = 0
  digest(dir, (w, ends, bytes, textBytes) => {
    const tokens = new Uint8Array(w.len)
    tokens.set(w.buf.subarray(0, w.len))
    parentPort.postMessage({tokens, ends, bytes, textBytes}, [tokens.buffer])
    sent++
    while (sent - Atomics.load(done, 0) > 8) Atomics.wait(done, 0, Atomics.load(done, 0), 50)
  })
  parentPort.postMessage({end: true})
} else await main()

async function main() {
  if (!dir || !file || !['words', 'words2'].includes(mode)) {
    console.error('usage: node scripts/build-floor.js DIR DB [words2|words]')
    process.exit(2)
  }
  const {DatabaseSync} = process.getBuiltinModule('node:sqlite')
  for (const s of ['', '-wal', '-shm']) fs.rmSync(`${file}${s}`, {force: true})
  const db = new DatabaseSync(file)
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = NORMAL')
  db.exec(`CREATE VIRTUAL TABLE words USING fts5(tokens, content='', contentless_delete=1, tokenize="${WORDS_TOKENIZE.replaceAll('"', '""')}", detail=none)`)
  db.exec(`INSERT INTO words(words, rank) VALUES ('hashsize', ${16 * 1024 * 1024})`)
  const insert = db.prepare('INSERT INTO words(rowid, tokens) VALUES (?, ?)')
  let files = 0
  let bytes = 0
  let parts = 0
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
  // Rowids as the catalog's: the file's number << 32 | the part's number in it.
  let base = 0n
  let n = 0
  const endFile = (b) => {
    files++
    bytes += b
    batch += b
    base = BigInt(files) << 32n
    n = 0
    commitEvery()
  }
  if (mode === 'words2') {
    const shared = new SharedArrayBuffer(4)
    const done = new Int32Array(shared)
    const worker = new Worker(fileURLToPath(import.meta.url), {workerData: {dir, shared}, argv: process.argv.slice(2)})
    await new Promise((resolve, reject) => {
      worker.on('error', reject)
      worker.on('message', (m) => {
        if (m.end) return resolve()
        let from = 0
        for (const end of m.ends) {
          insert.run(base + BigInt(n++), m.tokens.subarray(from, end))
          from = end
          parts++
        }
        textBytes += m.textBytes
        endFile(m.bytes)
        Atomics.add(done, 0, 1)
        Atomics.notify(done, 0)
      })
    })
    await worker.terminate()
  } else {
    digest(dir, (w, ends, b, t) => {
      let from = 0
      for (const end of ends) {
        insert.run(base + BigInt(n++), w.buf.subarray(from, end))
        from = end
        parts++
      }
      textBytes += t
      endFile(b)
    })
  }
  db.exec('COMMIT')
  db.exec("INSERT INTO words(words) VALUES ('optimize')")
  db.close()
  for (const s of ['', '-wal', '-shm']) fs.rmSync(`${file}${s}`, {force: true})
  console.log(`${files} ${bytes} ${parts} ${textBytes}`)
}
