// What the benchmark scripts share to run a throwaway PostgreSQL cluster from Debian's packages (initdb + pg_ctl in a
// temp dir, as test/support/postgres.ts does for the tests): where the binaries are, a free port, and running one as
// the `postgres` user when we are root (PostgreSQL refuses to run as root).
import {execFileSync, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

/** pg_config's bin dir, else the newest /usr/lib/postgresql/N/bin; undefined when there is no server. */
export function pgBin() {
  const r = spawnSync('pg_config', ['--bindir'], {encoding: 'utf8'})
  if (r.status === 0 && fs.existsSync(path.join(r.stdout.trim(), 'initdb'))) return r.stdout.trim()
  const base = '/usr/lib/postgresql'
  const versions = fs.existsSync(base) ? fs.readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => b - a) : []
  for (const v of versions) if (fs.existsSync(path.join(base, v, 'bin', 'initdb'))) return path.join(base, v, 'bin')
  return undefined
}

/** A port on 127.0.0.1 nothing listens on right now. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.on('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const {port} = s.address()
      s.close(() => resolve(port))
    })
  })
}

/** A runner of `bin`'s programs, as `postgres` when we are root; returns stdout. */
export function pgRunner(bin) {
  const isRoot = process.getuid?.() === 0
  return (exe, args) => {
    const [cmd, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, exe), ...args]] : [path.join(bin, exe), args]
    return execFileSync(cmd, argv, {encoding: 'utf8', env: {...process.env, LC_ALL: 'C'}, stdio: ['ignore', 'pipe', 'pipe']})
  }
}

/**
 * initdb + pg_ctl start of a cluster in `dir` (default durability, scram password auth as user `bench`, 127.0.0.1 on a
 * free port, its socket in `dir`): the URL, the port, and `stop()`. `dir` must be reachable by `postgres` when root.
 */
export async function startBenchCluster(bin, dir) {
  const runPg = pgRunner(bin)
  const data = path.join(dir, 'pg')
  const pw = path.join(dir, 'pw')
  fs.writeFileSync(pw, 'bench-pw\n', {mode: 0o600})
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres:postgres', dir])
  runPg('initdb', ['-D', data, '-U', 'bench', '--pwfile', pw, '-A', 'scram-sha-256', '-E', 'UTF8'])
  const port = await freePort()
  runPg('pg_ctl', ['-D', data, '-o', `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir}`, '-l', path.join(dir, 'pg.log'), '-w', 'start'])
  return {url: `postgres://bench:bench-pw@127.0.0.1:${port}/postgres`, port, stop: () => runPg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])}
}
