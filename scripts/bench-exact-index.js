#!/usr/bin/env node
// The other design `npm run bench` measures beside the catalog for a common literal (issue 28): a trigram index WITH
// positions (FTS5 detail=full), one row per searchable part, which answers "how many parts hold this literal" from the
// index alone, without reading any transcript. It is what counting a common word faster than reading its lines takes,
// and it costs its size: the bench prints it against the text it covers (the bound for the catalog is 0.5x).
//   node scripts/bench-exact-index.js build <sessions dir> <db>    (Node 22.15+) builds it (cached by the caller)
//   node scripts/bench-exact-index.js count <db> <literal>         a whole process: open it and count the parts
// Exact for a lower-case ASCII literal: SQLite's trigram folding then equals the matcher's ignore-case (a text with a
// Kelvin sign aside, which the bench corpus has none of).
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const [mode, a, b] = process.argv.slice(2)
const {DatabaseSync} = process.getBuiltinModule('node:sqlite')

if (mode === 'build') {
  const {partsOf} = await import(path.join(root, 'dist', 'sessions', 'search.js'))
  for (const s of ['', '-wal', '-shm']) fs.rmSync(`${b}${s}`, {force: true})
  const db = new DatabaseSync(b)
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; CREATE VIRTUAL TABLE parts USING fts5(text, content='', tokenize='trigram', detail=full)")
  const ins = db.prepare('INSERT INTO parts(rowid, text) VALUES (?, ?)')
  let id = 0
  let textBytes = 0
  const t0 = Date.now()
  db.exec('BEGIN')
  for (const name of fs.readdirSync(a).filter((n) => n.includes('.jsonl')).sort()) {
    const buf = fs.readFileSync(path.join(a, name))
    for (let from = 0; ; ) {
      const nl = buf.indexOf(10, from)
      if (nl < 0) break
      let v
      try {
        v = JSON.parse(buf.toString('utf8', from, nl))
      } catch {}
      if (v && typeof v === 'object') {
        for (const p of partsOf(v)) {
          ins.run(++id, p.text)
          textBytes += Buffer.byteLength(p.text)
        }
      }
      from = nl + 1
    }
    if (id % 50000 < 300) db.exec('COMMIT; BEGIN')
  }
  db.exec('COMMIT')
  db.exec("INSERT INTO parts(parts) VALUES ('optimize')")
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  console.log(JSON.stringify({parts: id, textBytes, bytes: fs.statSync(b).size, buildMs: Date.now() - t0}))
} else if (mode === 'count') {
  const db = new DatabaseSync(a, {readOnly: true})
  console.log(db.prepare('SELECT count(*) AS n FROM parts WHERE parts MATCH ?').get(`"${b.replaceAll('"', '""')}"`).n)
} else {
  console.error('usage: node scripts/bench-exact-index.js build <sessions dir> <db> | count <db> <literal>')
  process.exit(2)
}
