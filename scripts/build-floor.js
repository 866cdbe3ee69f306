#!/usr/bin/env node
// The floor of the catalog's first build (issue 28: at most 50x one scan), timed by `npm run bench` beside `clawkit
// index` on the same corpus: Node's start, every transcript read and each line parsed, the text search reads taken from
// it (searchTextOf, as the catalog does), lines grouped into spans of 8 KiB as the catalog groups them, and the spans'
// text inserted into an FTS5 table of the catalog's definition (contentless, trigram, detail=none) with a commit every
// 16 MiB and one merge at the end. No ledger, no marks, no listing: a lower bound of the build.
//   node scripts/build-floor.js DIR DB            (Node 22.15+) prints: <files> <bytes read> <spans> <text bytes>
//   node scripts/build-floor.js DIR DB distinct   the design measured against it: each span's distinct trigrams (found
//                                                 in JavaScript; case folded per UTF-16 unit, ASCII by a bitmap) given
//                                                 to FTS5's ascii tokenizer as one token each, instead of the text to
//                                                 its trigram tokenizer: fewer tokens to insert, the same postings
//                                                 for ASCII text. A timing prototype only: its folding is not SQLite's.
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const [dir, file, mode = 'trigram'] = process.argv.slice(2)
if (!dir || !file || !['trigram', 'distinct'].includes(mode)) {
  console.error('usage: node scripts/build-floor.js DIR DB [distinct]')
  process.exit(2)
}
const {searchTextOf} = await import(path.join(root, 'dist', 'sessions', 'search-text.js'))
const {DatabaseSync} = process.getBuiltinModule('node:sqlite')
for (const s of ['', '-wal', '-shm']) fs.rmSync(`${file}${s}`, {force: true})
const db = new DatabaseSync(file)
db.exec('PRAGMA journal_mode = WAL')
db.exec('PRAGMA synchronous = NORMAL')
db.exec(`CREATE VIRTUAL TABLE fts USING fts5(text, content='', contentless_delete=1, tokenize='${mode === 'distinct' ? 'ascii' : 'trigram'}', detail=none)`)
const insert = db.prepare('INSERT INTO fts(rowid, text) VALUES (?, ?)')

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
const flush = (texts) => {
  if (texts.length === 0) return
  const text = texts.join('\n')
  textBytes += Buffer.byteLength(text)
  insert.run(++spans, mode === 'distinct' ? distinct(text) : text)
}
for (const name of fs.readdirSync(dir).sort()) {
  if (!name.includes('.jsonl')) continue
  const buf = fs.readFileSync(path.join(dir, name))
  files++
  bytes += buf.length
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
      flush(texts)
      batch += spanBytes
      texts = []
      spanBytes = 0
    }
    if (batch >= 16 * 1024 * 1024) {
      db.exec('COMMIT')
      db.exec('BEGIN IMMEDIATE')
      batch = 0
    }
  }
  flush(texts)
}
db.exec('COMMIT')
db.exec("INSERT INTO fts(fts) VALUES ('optimize')")
db.close()
for (const s of ['', '-wal', '-shm']) fs.rmSync(`${file}${s}`, {force: true})
console.log(`${files} ${bytes} ${spans} ${textBytes}`)
