// The fleet rows of `npm run bench` (issue 19): a throwaway PostgreSQL cluster (Debian's initdb/pg_ctl, 127.0.0.1, a
// temp dir) holding four hosts, each a copy of the benchmark's own 10k-session index, and
// `sessions list --store-url <url> --all-hosts --limit 100` timed against the local `sessions list --limit 100` of one
// host. The rows are inserted directly (no `clawkit sync` needed): entries only, as docs/fleet.md lays them out.
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {freePort, pgBin, pgRunner} from './pg-cluster.js'

/** The SQL of clawkit's migrations, read from src/fleet/schema.ts (plain SQL in template literals, no interpolation). */
function migrationsSql(root) {
  const text = fs.readFileSync(path.join(root, 'src', 'fleet', 'schema.ts'), 'utf8')
  return [...text.matchAll(/sql: `([^`]*)`/g)].map((m) => m[1])
}

/**
 * Returns the table rows ([name, result]) of the fleet benchmark, or [[name, {skipped}]] without PostgreSQL. `storeFile`
 * is the benchmark's generated sessions.json; `stateDir` the local state dir it belongs to.
 */
export async function fleetRows({root, dir, storeFile, stateDir, label, measure, hosts = 4}) {
  const bin = pgBin()
  if (!bin) return [['fleet rows', {skipped: 'no PostgreSQL server binaries (apt-get install postgresql)'}]]
  const pgDir = fs.mkdtempSync(path.join('/tmp', 'clawkit-bench-pg-'))
  const root0 = typeof process.getuid === 'function' && process.getuid() === 0
  const run = pgRunner(bin)
  if (root0) execFileSync('chown', ['-R', 'postgres:postgres', pgDir])
  const data = path.join(pgDir, 'data')
  const port = await freePort()
  run('initdb', ['-D', data, '-U', 'bench', '-A', 'trust', '-E', 'UTF8', '--no-sync'])
  run('pg_ctl', ['-D', data, '-o', `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${pgDir} -c fsync=off -c synchronous_commit=off`, '-l', path.join(pgDir, 'log'), '-w', 'start'])
  const url = `postgres://bench@127.0.0.1:${port}/postgres`
  try {
    const {default: pg} = await import('pg')
    const client = new pg.Client({connectionString: url})
    await client.connect()
    const t0 = Date.now()
    // The migrations' bookkeeping table, as migrate() records it, so that clawkit reads the schema as current.
    await client.query('CREATE TABLE clawkit_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())')
    for (const [i, sql] of migrationsSql(root).entries()) {
      await client.query(sql)
      await client.query('INSERT INTO clawkit_schema_migrations (version, name) VALUES ($1, $2)', [i + 1, 'bench'])
    }
    const store = JSON.parse(fs.readFileSync(storeFile, 'utf8'))
    const keys = Object.keys(store)
    for (let h = 1; h <= hosts; h++) {
      const host = `host-${h}`
      await client.query('INSERT INTO clawkit_hosts (host, last_sync_at) VALUES ($1, now())', [host])
      await client.query("INSERT INTO clawkit_agents (host, agent_id, era, store_path) VALUES ($1, 'main', 'json', $2)", [host, storeFile])
      for (let at = 0; at < keys.length; at += 2000) {
        const part = keys.slice(at, at + 2000)
        await client.query(
          "INSERT INTO clawkit_entries (host, agent_id, session_key, session_id, updated_at, entry) SELECT $1, 'main', k, s, u, e::jsonb FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[]) AS x(k, s, u, e)",
          [host, part, part.map((k) => store[k].sessionId), part.map((k) => store[k].updatedAt - h), part.map((k) => JSON.stringify(store[k]))],
        )
      }
    }
    await client.query('ANALYZE')
    await client.end()
    console.error(`fleet: ${hosts} x ${keys.length} sessions inserted in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
    return [
      [`sessions list --limit 100 --json (local, one host, ${label})`, measure(['sessions', 'list', '--limit', '100', '--json', '--state-dir', stateDir])],
      [`sessions list --store-url --all-hosts --limit 100 --json (fleet, ${hosts} x ${label})`, measure(['sessions', 'list', '--store-url', url, '--all-hosts', '--limit', '100', '--json'])],
      [`sessions list --store-url --all-hosts --limit 100 (table, fleet, ${hosts} x ${label})`, measure(['sessions', 'list', '--store-url', url, '--all-hosts', '--limit', '100'])],
      [`status --store-url --json (fleet, ${hosts} x ${label})`, measure(['status', '--store-url', url, '--json'])],
    ]
  } finally {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
    } finally {
      fs.rmSync(pgDir, {recursive: true, force: true})
    }
  }
}
