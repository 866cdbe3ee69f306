// A separate process that drives clawkit's SQLite write primitives (dist/store/sqlite/write.js) on Node 24, for tests
// that need real concurrent writers, a kill -9 inside a transaction, or a Node with node:sqlite while vitest runs on 20.
//   node sqlite-write-worker.mjs act <db> <json>          -> one act ({op, ...}), its result as JSON on stdout
//   node sqlite-write-worker.mjs append <db> <sid> <n> <tag> -> n appends, each its own BEGIN IMMEDIATE
//   node sqlite-write-worker.mjs hang <db> <sid> <n>       -> BEGIN IMMEDIATE, n appends, prints "inside", never commits
//   node sqlite-write-worker.mjs owner <stateDir>          -> {owner, refusal}: findStateOwner and assertNoGatewayOwner
//   node sqlite-write-worker.mjs hold <db> <ms>            -> BEGIN IMMEDIATE (no write), prints "inside", ROLLBACK after ms
//                                                             (a maintenance pass holding the write lock, as OpenClaw's do)
//   node sqlite-write-worker.mjs holds <db> <rounds> <ms>  -> `hold` <rounds> times in a row (0: until stdin ends), a
//                                                             20 ms pause between; prints "inside" once it first holds it
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const {openAgentDb} = await import(path.join(ROOT, 'dist/store/sqlite/driver.js'))
const w = await import(path.join(ROOT, 'dist/store/sqlite/write.js'))

const [mode, db, ...rest] = process.argv.slice(2)
const agentId = process.env.WORKER_AGENT ?? 'main'

function user(text) {
  return {type: 'message', message: {role: 'user', content: text, timestamp: Date.now()}}
}

try {
  if (mode === 'append') {
    const [sid, n, tag] = rest
    const h = openAgentDb(db, {write: true, agentId})
    for (let i = 0; i < Number(n); i++) w.appendChained(h, sid, [user(`${tag} ${i}`)])
    h.db.close()
  } else if (mode === 'hang') {
    const [sid, n] = rest
    const h = openAgentDb(db, {write: true, agentId})
    h.db.exec('BEGIN IMMEDIATE')
    const leaf = w.currentLeafTx(h.db, sid)
    w.appendEventsTx(h.db, sid, w.chainNew(Array.from({length: Number(n)}, (_, i) => user(`doomed ${i}`)), leaf, new Date()))
    process.stdout.write('inside\n')
    setInterval(() => {}, 1000)
  } else if (mode === 'hold') {
    const [ms] = rest
    const {DatabaseSync} = process.getBuiltinModule('node:sqlite')
    const d = new DatabaseSync(db)
    d.exec('PRAGMA busy_timeout = 5000')
    d.exec('BEGIN IMMEDIATE')
    process.stdout.write('inside\n')
    setTimeout(() => {
      d.exec('ROLLBACK')
      d.close()
      process.stdout.write('released\n')
    }, Number(ms))
  } else if (mode === 'holds') {
    const [rounds, ms] = rest.map(Number)
    const {DatabaseSync} = process.getBuiltinModule('node:sqlite')
    const d = new DatabaseSync(db)
    d.exec('PRAGMA busy_timeout = 60000')
    let open = true
    process.stdin.on('end', () => (open = false)).resume()
    for (let i = 0; rounds === 0 ? open : i < rounds; i++) {
      d.exec('BEGIN IMMEDIATE')
      if (i === 0) process.stdout.write('inside\n')
      await new Promise((r) => setTimeout(r, ms))
      d.exec('ROLLBACK')
      await new Promise((r) => setTimeout(r, 20))
    }
    d.close()
    process.stdout.write('released\n')
  } else if (mode === 'owner') {
    // Who owns the state dir <db> (here a state dir, not a database): the probe, then the refusal it leads to.
    const owner = w.findStateOwner(db) ?? null
    let refusal = null
    try {
      w.assertNoGatewayOwner(db)
    } catch (error) {
      refusal = {message: error.message, code: error.code, exitCode: error.exitCode, suggestions: error.suggestions}
    }
    process.stdout.write(`${JSON.stringify({owner, refusal})}\n`)
  } else if (mode === 'act') {
    const a = JSON.parse(rest[0])
    const h = openAgentDb(db, {write: true, agentId: a.agentId ?? agentId})
    const now = a.now ? new Date(a.now) : undefined
    let out
    if (a.op === 'new') out = w.newSession(h, {agentId: a.agentId ?? agentId, key: a.key, sessionId: a.sessionId, cwd: a.cwd, now, entry: a.entry, items: a.items})
    else if (a.op === 'append') out = w.appendChained(h, a.sessionId, a.items, {date: now})
    else if (a.op === 'entry') {
      // An agent turn's closing entry write: the stored entry with a few fields changed.
      const node = w.readNodeTx(h.db, a.key)
      out = w.writeEntry(h, {agentId: a.agentId ?? agentId, key: a.key, entry: {...node.entry, ...a.patch}})
    } else if (a.op === 'reset') out = w.resetSession(h, {agentId: a.agentId ?? agentId, key: a.key, cwd: a.cwd, now})
    else if (a.op === 'leaf') out = {leaf: w.currentLeaf(h.db, a.sessionId)}
    else throw new Error(`unknown op ${a.op}`)
    h.db.close()
    process.stdout.write(`${JSON.stringify(out)}\n`)
  } else throw new Error(`unknown mode ${mode}`)
} catch (error) {
  process.stdout.write(`${JSON.stringify({error: {message: error.message, code: error.code, suggestions: error.suggestions}})}\n`)
  process.exitCode = 3
}
