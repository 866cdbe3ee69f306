#!/usr/bin/env node
// Checks the word index prototype (scripts/word-index.js) against `sessions search --scan` on needles drawn from the
// store itself (seeded): substrings of searched texts, short and long, inside words and across word boundaries, with
// their case changed now and then (then the index is a superset, re-checked), so that both the exact path and the
// superset path are compared, count, badLines and every hit (the agent, key and where of a hit aside: the prototype
// does not keep the listing). Needs Node 22.15+ (node:sqlite) and `npm run build`.
//   node scripts/word-index-check.js <state dir> [needles, 40] [seed]
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const [state, n = '40', seedArg = '1'] = process.argv.slice(2)
if (!state) {
  console.error('usage: node scripts/word-index-check.js <state dir> [needles] [seed]')
  process.exit(2)
}
const {partsOf} = await import(path.join(root, 'dist', 'sessions', 'search-text.js'))
const sessionsDir = path.join(state, 'agents', 'main', 'sessions')
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-word-check-'))
const db = path.join(dir, 'words.sqlite')
const env = {...process.env, HOME: dir, CLAWKIT_DATA_DIR: path.join(dir, 'data'), NO_COLOR: '1'}
const run = (args) => {
  const r = spawnSync(process.execPath, args, {env, encoding: 'utf8', maxBuffer: 1024 ** 3})
  if (r.status !== 0) throw new Error(`${args.slice(0, 3).join(' ')}: exit ${r.status}: ${r.stderr.split('\n')[0]}`)
  return r.stdout
}
run([path.join(root, 'scripts', 'word-index.js'), 'build', sessionsDir, db])

let seed = Number(seedArg)
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
const texts = []
for (const name of fs.readdirSync(sessionsDir).filter((f) => f.includes('.jsonl')).sort()) {
  for (const line of fs.readFileSync(path.join(sessionsDir, name), 'utf8').split('\n')) {
    if (rnd() > 0.02) continue
    try {
      for (const p of partsOf(JSON.parse(line))) texts.push(p.text)
    } catch {}
  }
}
const needles = new Set()
while (needles.size < Number(n) && texts.length > 0) {
  const t = texts[Math.floor(rnd() * texts.length)]
  let needle
  if (rnd() < 0.5) {
    // Inside one run of word characters: the exact path.
    const words = t.match(/[0-9A-Za-z_\u0080-\uffff]{2,}/g) ?? []
    if (words.length === 0) continue
    const w = words[Math.floor(rnd() * words.length)]
    const len = 2 + Math.floor(rnd() * (w.length - 1))
    const at = Math.floor(rnd() * (w.length - len + 1))
    needle = w.slice(at, at + len)
  } else {
    const len = 2 + Math.floor(rnd() ** 2 * 24)
    const at = Math.floor(rnd() * Math.max(1, t.length - len))
    needle = t.slice(at, at + len)
  }
  if (!needle.trim() || needle.startsWith('-')) continue
  if (rnd() < 0.15) needle = needle[0].toUpperCase() + needle.slice(1)
  needles.add(needle)
}
const pick = (hits) => JSON.stringify(hits.map(({agentId: _a, key: _k, where: _w, ...h}) => h))
let same = 0
const differ = []
const kinds = {exact: 0, superset: 0, fallback: 0}
for (const needle of needles) {
  const w = JSON.parse(run([path.join(root, 'scripts', 'word-index.js'), 'query', db, needle]))
  const s = JSON.parse(run([path.join(root, 'bin', 'run.js'), 'sessions', 'search', needle, '--include-archived', '--json', '--scan', '--state-dir', state]))
  kinds[w.fallback ? 'fallback' : w.exact ? 'exact' : 'superset']++
  if (w.fallback) continue
  if (w.count === s.count && w.badLines === s.badLines && pick(w.hits) === pick(s.hits)) same++
  else differ.push(`${JSON.stringify(needle)}: ${w.count} against ${s.count}`)
}
console.log(JSON.stringify({needles: needles.size, ...kinds, sameAsScan: same, differ}))
fs.rmSync(dir, {recursive: true, force: true})
process.exit(differ.length > 0 ? 1 : 0)
