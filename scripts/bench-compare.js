#!/usr/bin/env node
// Paired comparison of two clawkit checkouts on the same command lines: runs alternate (old, new / new, old) so that
// the drift of a shared machine hits both sides alike, then prints each side's median and the median paired saving.
// Usage: node scripts/bench-compare.js <old bin/run.js> <new bin/run.js> <runs> "<args>" ["<args>" ...]
// Exit codes 0 and 3 (doctor warnings) count as success. Not part of `npm test`.
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const [oldBin, newBin, runsArg, ...cases] = process.argv.slice(2)
if (!oldBin || !newBin || !cases.length) {
  console.error('usage: node scripts/bench-compare.js <old bin/run.js> <new bin/run.js> <runs> "<args>" ...')
  process.exit(2)
}
const runs = Number(runsArg)
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

// Each side keeps its own code cache: two builds sharing one cache dir would evict each other's cache on every run
// (load-bundle keeps only the current build's), and both would then be timed compiling from source.
const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-compare-cache-'))
const cacheDirs = new Map([oldBin, newBin].map((bin, i) => [bin, path.join(cacheRoot, String(i))]))
process.on('exit', () => fs.rmSync(cacheRoot, {recursive: true, force: true}))

function time(bin, args) {
  const t0 = process.hrtime.bigint()
  const env = {...process.env, CLAWKIT_CACHE_DIR: cacheDirs.get(bin)}
  const r = spawnSync(process.execPath, [bin, ...args], {env, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1024 ** 3})
  if (r.status !== 0 && r.status !== 3) throw new Error(`${bin} ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return Number(process.hrtime.bigint() - t0) / 1e6
}

console.log(`| command | old median ms | new median ms | median paired saving ms |\n|---|---|---|---|`)
for (const line of cases) {
  const args = line.split(' ').filter(Boolean)
  time(oldBin, args) // warm the page cache for both
  time(newBin, args)
  const olds = []
  const news = []
  const saved = []
  for (let i = 0; i < runs; i++) {
    const [first, second] = i % 2 ? [newBin, oldBin] : [oldBin, newBin]
    const a = time(first, args)
    const b = time(second, args)
    const [o, n] = first === oldBin ? [a, b] : [b, a]
    olds.push(o)
    news.push(n)
    saved.push(o - n)
  }
  console.log(`| \`${line.replace(/--state-dir \S+/g, '').trim()}\` | ${median(olds).toFixed(0)} | ${median(news).toFixed(0)} | ${median(saved).toFixed(0)} |`)
}
