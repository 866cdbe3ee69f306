#!/usr/bin/env node
// The floor of any Node reader of a directory of transcripts: reads every *.jsonl* file under DIR once, through one
// reused 1 MiB buffer, and searches nothing. `npm run bench` times it beside `rg -c` and `sessions search` on the same
// files, so the table shows how much of search's time no Node program can avoid (start-up and copying the bytes from the
// page cache, which rg avoids by mapping the files). Prints the byte count, which the bench checks.
//   node scripts/read-floor.js DIR
import fs from 'node:fs'
import path from 'node:path'

const dir = process.argv[2]
if (!dir) {
  console.error('usage: node scripts/read-floor.js DIR')
  process.exit(2)
}
const buf = Buffer.allocUnsafe(1 << 20)
let bytes = 0
for (const name of fs.readdirSync(dir)) {
  if (!name.includes('.jsonl')) continue
  const fd = fs.openSync(path.join(dir, name), 'r')
  try {
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) bytes += n
  } finally {
    fs.closeSync(fd)
  }
}
console.log(bytes)
