#!/usr/bin/env node
// The floors of `sessions list --json` on 10 000 sessions (issue 28: list within 1.6x and 1.2x of them), timed by
// `npm run bench` beside clawkit's list in the same run:
//   node scripts/list-floor.js json <sessions.json>        Node's start, one read of the index, JSON.parse, and the
//                                                          parsed index stringified (compact: the least a writer does)
//                                                          and written to stdout: no row is built.
//   node scripts/list-floor.js sqlite <db> <bytes>          (Node 22.15+) Node's start, every entry of session_nodes
//                                                          checked by SQLite's json_valid (one parse of each entry, as
//                                                          any reader of them pays), and <bytes> written to stdout (the
//                                                          size of clawkit's document): no row is built.
// Prints nothing else; the bench checks the byte count.
import fs from 'node:fs'

const [mode, file, bytes] = process.argv.slice(2)
const write = (buf) => {
  let at = 0
  while (at < buf.length) at += fs.writeSync(1, buf, at, buf.length - at)
}
if (mode === 'json') {
  const text = JSON.stringify(JSON.parse(fs.readFileSync(file, 'utf8')))
  write(Buffer.from(`${text}\n`))
} else if (mode === 'sqlite') {
  const {DatabaseSync} = process.getBuiltinModule('node:sqlite')
  const db = new DatabaseSync(file, {readOnly: true})
  const n = db.prepare('SELECT count(*) AS n FROM session_nodes WHERE json_valid(entry_json)').get().n
  db.close()
  if (!(n > 0)) throw new Error(`no valid entry in ${file}`)
  write(Buffer.alloc(Number(bytes), 0x20))
} else {
  console.error('usage: node scripts/list-floor.js json <sessions.json> | sqlite <db> <bytes>')
  process.exit(2)
}
