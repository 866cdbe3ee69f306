// Test support for the fleet (issue 19): a throwaway PostgreSQL cluster from Debian's packages, started per test file
// in a temp dir (initdb + pg_ctl, listening on 127.0.0.1 only, on a free port) and stopped afterwards. As root (CI) the
// server runs as the `postgres` user, since PostgreSQL refuses to run as root. Never a mock.
import {execFileSync, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

import {afterAll, beforeAll, describe, it} from 'vitest'

/** The PostgreSQL bin dir (pg_config's, else the newest /usr/lib/postgresql/N/bin), or undefined when none. */
export function pgBinDir(): string | undefined {
  const r = spawnSync('pg_config', ['--bindir'], {encoding: 'utf8'})
  const fromConfig = r.status === 0 ? r.stdout.trim() : undefined
  if (fromConfig && fs.existsSync(path.join(fromConfig, 'initdb'))) return fromConfig
  const base = '/usr/lib/postgresql'
  const versions = fs.existsSync(base) ? fs.readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : []
  for (const v of versions) if (fs.existsSync(path.join(base, v, 'bin', 'initdb'))) return path.join(base, v, 'bin')
  return undefined
}

export const PG_BIN = pgBinDir()

/**
 * `describe` for suites that need a PostgreSQL server. Without one they are skipped, unless CLAWKIT_REQUIRE_PG=1 or
 * CI is set, where a missing server fails instead (.ci/run installs Debian's postgresql package).
 */
export const describePg: typeof describe = (PG_BIN
  ? describe
  : process.env.CLAWKIT_REQUIRE_PG === '1' || process.env.CI
    ? ((name: string) =>
        describe(name, () => {
          it('needs PostgreSQL (Debian: apt-get install postgresql)', () => {
            throw new Error('no PostgreSQL server binaries (initdb, pg_ctl) found; install Debian\'s postgresql package')
          })
        }))
    : describe.skip) as typeof describe

/** The superuser's password in every test cluster: tests check that it never appears in any output. */
export const PG_PASSWORD = 'pw-Sekret-7731'
export const PG_SUPERUSER = 'clawkit_admin'

export interface PgCluster {
  dir: string
  port: number
  /** A superuser URL for `db` (with the password). */
  url(db?: string): string
  /** Run SQL as the superuser through psql; returns stdout. */
  psql(sql: string, db?: string): string
  /** A new empty database, owned by `owner` when given. */
  createDb(name: string, owner?: string): string
  stop(): void
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.unref()
    s.on('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
  })
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0

/** Run a PostgreSQL binary, as `postgres` when we are root. */
function runPg(bin: string, args: string[], opts: {env?: NodeJS.ProcessEnv; input?: string} = {}): string {
  const exe = path.join(PG_BIN!, bin)
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args]
  return execFileSync(cmd, argv, {encoding: 'utf8', env: {...process.env, ...opts.env, LC_ALL: 'C'}, input: opts.input, stdio: ['pipe', 'pipe', 'pipe']})
}

/** initdb + pg_ctl start in a fresh temp dir; password (scram) auth on 127.0.0.1, no Unix socket outside the dir. */
export async function startPg(): Promise<PgCluster> {
  if (!PG_BIN) throw new Error('no PostgreSQL binaries')
  // Under /tmp, not the test temp root: the server user must be able to reach it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-pg-'))
  fs.chmodSync(dir, 0o700)
  const data = path.join(dir, 'data')
  const pwfile = path.join(dir, 'pw')
  fs.writeFileSync(pwfile, `${PG_PASSWORD}\n`, {mode: 0o600})
  if (isRoot()) execFileSync('chown', ['-R', 'postgres:postgres', dir])
  runPg('initdb', ['-D', data, '-U', PG_SUPERUSER, '--pwfile', pwfile, '-A', 'scram-sha-256', '-E', 'UTF8', '--no-sync'])
  const port = await freePort()
  const opts = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=60`
  runPg('pg_ctl', ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start'])
  const url = (db = 'postgres') => `postgres://${PG_SUPERUSER}:${PG_PASSWORD}@127.0.0.1:${port}/${db}`
  const psql = (sql: string, db = 'postgres') =>
    execFileSync(path.join(PG_BIN, 'psql'), ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port), '-U', PG_SUPERUSER, '-d', db, '-c', sql], {
      encoding: 'utf8',
      env: {...process.env, PGPASSWORD: PG_PASSWORD},
    })
  let stopped = false
  return {
    dir,
    port,
    url,
    psql,
    createDb(name, owner) {
      psql(`CREATE DATABASE "${name}"${owner ? ` OWNER "${owner}"` : ''}`)
      return url(name)
    },
    stop() {
      if (stopped) return
      stopped = true
      try {
        runPg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } finally {
        fs.rmSync(dir, {recursive: true, force: true})
      }
    },
  }
}

/** One cluster for the calling test file: started before its tests, stopped after them. */
export function usePg(): {readonly cluster: PgCluster; db(): string} {
  let cluster: PgCluster | undefined
  let n = 0
  beforeAll(async () => {
    cluster = await startPg()
  }, 120_000)
  afterAll(() => cluster?.stop())
  return {
    get cluster() {
      if (!cluster) throw new Error('the PostgreSQL cluster is not started (usePg inside describePg)')
      return cluster
    },
    /** A fresh database for one test; its superuser URL. */
    db() {
      return this.cluster.createDb(`t${process.pid}_${++n}`)
    },
  }
}
