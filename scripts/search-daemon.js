#!/usr/bin/env node
// A prototype of another design for issue 28's rare-literal figure (at most 1.0x `rg -c`), measured by
// scripts/bench-search-daemon.js: a resident process keeps the catalog open and answers `sessions search` over a Unix
// socket, so that a search costs a small client's start and a round trip, not clawkit's start (oclif and the bundle,
// ~95 ms above Node's own) and the freshness pass. Freshness: `--watch` keeps the agent's view while inotify (fs.watch
// on the sessions dir) reports nothing and refreshes on the next request after any event; without it every request
// refreshes (the stat pass). Not clawkit's code: it runs the built library (dist/) as the CLI would.
//   node scripts/search-daemon.js STATE_DIR SOCKET [--watch]     serves until killed
//   node scripts/search-daemon.js --client SOCKET PATTERN [ARGS]  one search: the --json document on stdout
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)

if (args[0] === '--client') {
  const [, socket, pattern, ...rest] = args
  const c = net.connect(socket, () => c.end(JSON.stringify({pattern, includeArchived: rest.includes('--include-archived')})))
  c.pipe(process.stdout)
} else {
  const [stateDir, socket] = args
  const watch = args.includes('--watch')
  const {OpenClawState} = await import(path.join(root, 'dist', 'store', 'state.js'))
  const {CommandCatalog} = await import(path.join(root, 'dist', 'catalog', 'index.js'))
  const {sessionsSearch} = await import(path.join(root, 'dist', 'sessions', 'search.js'))
  const state = OpenClawState.open({stateDir, ignoreSettings: true})
  let cat
  let dirty = true
  if (watch) fs.watch(path.join(stateDir, 'agents', 'main', 'sessions'), () => (dirty = true))
  fs.rmSync(socket, {force: true})
  net
    .createServer({allowHalfOpen: true}, (conn) => {
      let body = ''
      conn.on('data', (d) => (body += d))
      conn.on('end', async () => {
        const q = JSON.parse(body)
        // A catalog per refresh: its views are the agents brought up to date; kept while nothing changed (--watch).
        if (!watch || dirty || !cat) {
          cat?.close()
          cat = new CommandCatalog(state, (l) => process.stderr.write(`${l}\n`))
          dirty = false
        }
        const r = await sessionsSearch(state, q.pattern, {includeArchived: q.includeArchived, index: cat.searchIndex()})
        conn.end(`${JSON.stringify(r, null, 2)}\n`)
      })
    })
    .listen(socket, () => process.stderr.write(`serving ${stateDir} on ${socket}${watch ? ' (watching)' : ''}\n`))
}
