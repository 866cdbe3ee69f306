#!/usr/bin/env node
// Prototype of a design that lost (BENCHMARKS.md, "The --json document in pieces; two parallel reads of the SQLite list
// that lost"): the SQLite-era list's read of session_nodes split at the median key between this process and a worker
// thread or a child process, each on its own read-only connection, one snapshot proven by PRAGMA data_version unchanged
// from before the split to after both reads. Only the read is timed (rows are not built); time each mode as a whole
// process, e.g. `/usr/bin/time node24 scripts/list-split-prototype.js <db> serial|thread|process`.
//   SHOW=1 prints the main thread's half, the wait for the other half, and the total.
import {spawn} from 'node:child_process'
import {Worker} from 'node:worker_threads'

const [file, mode = 'serial'] = process.argv.slice(2)
if (!file || !['serial', 'thread', 'process'].includes(mode)) {
  console.error('usage: node scripts/list-split-prototype.js <openclaw-agent.sqlite> serial|thread|process')
  process.exit(2)
}
const {DatabaseSync} = process.getBuiltinModule('node:sqlite')
// The columns and the projection of src/store/sqlite/read.ts (iterateEntries with the list's omitted fields).
const ENTRY = "CASE WHEN json_valid(entry_json) THEN json_remove(entry_json, '$.skillsSnapshot', '$.systemPromptReport', '$.contextBudgetStatus') ELSE entry_json END"
const select = (where) =>
  `SELECT session_key, current_session_id, ${ENTRY}, entry_valid, updated_at, parent_session_key, spawned_by, fork_source_session_key, owner_actor_type, owner_actor_id, owner_assigned_by_type, owner_assigned_by_id, owner_assigned_at FROM session_nodes ${where} ORDER BY session_key`
// The other half's reader: its entries as one JSON array text (parsed in one call here), the other columns as they are.
const OTHER_HALF = `
const {DatabaseSync} = process.getBuiltinModule('node:sqlite')
function read(file, sql, from) {
  const db = new DatabaseSync(file, {readOnly: true})
  db.exec('PRAGMA query_only = 1')
  db.exec('BEGIN')
  const s = db.prepare(sql)
  s.setReturnArrays(true)
  const entries = []
  const rest = []
  for (const a of s.iterate(from)) {
    entries.push(a[2])
    a[2] = null
    rest.push(a)
  }
  db.exec('COMMIT')
  db.close()
  return {text: '[' + entries.join(',') + ']', rest}
}
`
const t0 = performance.now()
const db = new DatabaseSync(file, {readOnly: true})
db.exec('PRAGMA query_only = 1')
const rows = []
const take = (a, entry) => rows.push({key: a[0], entry, valid: a[3], updatedAt: a[4]})
let show = ''
db.exec('BEGIN')
if (mode === 'serial') {
  const s = db.prepare(select(''))
  s.setReturnArrays(true)
  for (const a of s.iterate()) take(a, JSON.parse(a[2]))
} else {
  const before = db.prepare('PRAGMA data_version').get().data_version
  const n = db.prepare('SELECT count(*) AS n FROM session_nodes').get().n
  const from = db.prepare('SELECT session_key AS k FROM session_nodes ORDER BY session_key LIMIT 1 OFFSET ?').get(Math.floor(n / 2)).k
  const sql = select('WHERE session_key >= ?')
  let other
  if (mode === 'thread') {
    const w = new Worker(`${OTHER_HALF}\nconst {parentPort, workerData: d} = require('node:worker_threads')\nparentPort.postMessage(read(d.file, d.sql, d.from))`, {eval: true, workerData: {file, sql, from}})
    other = new Promise((resolve, reject) => {
      w.once('message', resolve)
      w.once('error', reject)
    })
  } else {
    const child = spawn(process.execPath, ['-e', `${OTHER_HALF}\nconst r = read(...process.argv.slice(1))\nprocess.stdout.write(r.text + '\\n' + JSON.stringify(r.rest))`, file, sql, from], {stdio: ['ignore', 'pipe', 'inherit']})
    const chunks = []
    child.stdout.on('data', (d) => chunks.push(d))
    other = new Promise((resolve, reject) => {
      child.on('error', reject)
      child.on('close', (code) => {
        if (code !== 0) return reject(new Error(`the child exited ${code}`))
        const text = Buffer.concat(chunks).toString()
        const nl = text.indexOf('\n')
        resolve({text: text.slice(0, nl), rest: JSON.parse(text.slice(nl + 1))})
      })
    })
  }
  const s = db.prepare(select('WHERE session_key < ?'))
  s.setReturnArrays(true)
  for (const a of s.iterate(from)) take(a, JSON.parse(a[2]))
  const t1 = performance.now()
  const {text, rest} = await other
  const t2 = performance.now()
  const entries = JSON.parse(text)
  for (let i = 0; i < rest.length; i++) take(rest[i], entries[i])
  db.exec('COMMIT')
  if (db.prepare('PRAGMA data_version').get().data_version !== before) throw new Error('the database changed between the two reads: read it again in one')
  show = `main half ${(t1 - t0).toFixed(0)} ms, waited ${(t2 - t1).toFixed(0)} ms, `
}
if (db.isTransaction) db.exec('COMMIT')
if (process.env.SHOW) console.error(`${mode}: ${rows.length} rows; ${show}total ${(performance.now() - t0).toFixed(0)} ms`)
