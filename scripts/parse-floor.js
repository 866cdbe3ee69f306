#!/usr/bin/env node
// The floor of an exact count of a common literal with a full-text index that keeps no positions (issue 28; the
// catalog's, within its 0.5x size bound): the index can only say which spans of lines hold the literal's trigrams, so
// every line that holds the literal must be read and parsed to learn whether it is in the text search reads. This does
// only that: Node's start, every transcript read once (1 MiB reads), each line holding the literal as bytes (as written:
// a lower bound on the lines a case-insensitive search parses) parsed with JSON.parse once; no search text, no output
// but the count. `npm run bench` times it beside the catalog's common-literal search and rg.
//   node scripts/parse-floor.js DIR LITERAL      prints: <lines parsed> <bytes read>
import fs from 'node:fs'
import path from 'node:path'

const [dir, literal] = process.argv.slice(2)
if (!dir || !literal) {
  console.error('usage: node scripts/parse-floor.js DIR LITERAL')
  process.exit(2)
}
const needle = Buffer.from(literal)
let parsed = 0
let bytes = 0
for (const name of fs.readdirSync(dir)) {
  if (!name.includes('.jsonl')) continue
  const buf = fs.readFileSync(path.join(dir, name))
  bytes += buf.length
  let at = buf.indexOf(needle)
  while (at >= 0) {
    const start = buf.lastIndexOf(10, at) + 1
    let end = buf.indexOf(10, at)
    if (end < 0) end = buf.length
    try {
      JSON.parse(buf.toString('utf8', start, end))
    } catch {}
    parsed++
    at = buf.indexOf(needle, end)
  }
}
console.log(`${parsed} ${bytes}`)
