#!/usr/bin/env node
// The floor of any reader that keeps an index fresh: Node's start and one stat of every transcript (what the catalog does
// before a search when nothing changed), nothing else. `npm run bench` times it beside the catalog's search, rg and
// `clawkit --version` (Node's start plus the bundle). Prints how many files it stat'ed.
//   node scripts/stat-floor.js DIR
import fs from 'node:fs'
import path from 'node:path'

const dir = process.argv[2]
if (!dir) {
  console.error('usage: node scripts/stat-floor.js DIR')
  process.exit(2)
}
let files = 0
let bytes = 0
for (const name of fs.readdirSync(dir)) {
  if (!name.includes('.jsonl')) continue
  const st = fs.statSync(path.join(dir, name))
  files++
  bytes += st.size
}
console.log(`${files} ${bytes}`)
