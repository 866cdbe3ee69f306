// Test support for the fleet (issue 19): a throwaway PostgreSQL cluster from Debian's packages (initdb + pg_ctl in a temp
// dir, listening on 127.0.0.1 only, on a free port), one for the whole test run: the first test file that needs it
// starts it, every file gets databases of its own in it, and closing the run stops it (test-run.mjs). As root (CI) the
// server runs as the `postgres` user, since PostgreSQL refuses to run as root. Never a mock.
import {execFileSync, spawnSync} from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {afterAll, beforeAll, describe, inject, it} from 'vitest'

import {freePort} from './net.js'
import {type PgRecord, pgRecordPath} from './test-run.mjs'

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
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0

/** A PostgreSQL binary's argv, through runuser as `postgres` when we are root. */
function pgArgv(bin: string, args: string[]): string[] {
  const exe = path.join(PG_BIN!, bin)
  return isRoot() ? ['runuser', '-u', 'postgres', '--', exe, ...args] : [exe, ...args]
}

function runPg(bin: string, args: string[]): string {
  const [cmd, ...argv] = pgArgv(bin, args)
  return execFileSync(cmd, argv, {encoding: 'utf8', env: {...process.env, LC_ALL: 'C'}, stdio: ['pipe', 'pipe', 'pipe']})
}

/**
 * initdb + pg_ctl start in a fresh temp dir; password (scram) auth on 127.0.0.1, no Unix socket outside the dir. The
 * record (how to stop it) is written to `record` before the server starts, so that closing the run stops a server
 * that came up after pg_ctl gave up waiting for it.
 */
async function startCluster(record: string): Promise<PgRecord> {
  if (!PG_BIN) throw new Error('no PostgreSQL binaries')
  // Under /tmp, not the run dir (mode 0700, root's in CI): the server user must be able to reach it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-pg-'))
  fs.chmodSync(dir, 0o700)
  const data = path.join(dir, 'data')
  const pwfile = path.join(dir, 'pw')
  fs.writeFileSync(pwfile, `${PG_PASSWORD}\n`, {mode: 0o600})
  if (isRoot()) execFileSync('chown', ['-R', 'postgres:postgres', dir])
  runPg('initdb', ['-D', data, '-U', PG_SUPERUSER, '--pwfile', pwfile, '-A', 'scram-sha-256', '-E', 'UTF8', '--no-sync'])
  const port = await freePort()
  const rec: PgRecord = {dir, port, stop: pgArgv('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])}
  fs.writeFileSync(`${record}.tmp`, JSON.stringify(rec))
  fs.renameSync(`${record}.tmp`, record)
  // Every test file of the run shares it, two at a time, each with a few CLI children and clients of its own.
  const opts = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100`
  runPg('pg_ctl', ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '120', 'start'])
  return rec
}

function clusterOf(rec: PgRecord): PgCluster {
  const {dir, port} = rec
  const url = (db = 'postgres') => `postgres://${PG_SUPERUSER}:${PG_PASSWORD}@127.0.0.1:${port}/${db}`
  const psql = (sql: string, db = 'postgres') =>
    execFileSync(path.join(PG_BIN!, 'psql'), ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port), '-U', PG_SUPERUSER, '-d', db, '-c', sql], {
      encoding: 'utf8',
      env: {...process.env, PGPASSWORD: PG_PASSWORD},
    })
  return {
    dir,
    port,
    url,
    psql,
    createDb(name, owner) {
      psql(`CREATE DATABASE "${name}"${owner ? ` OWNER "${owner}"` : ''}`)
      return url(name)
    },
  }
}

/** Resolves once `file` exists (watching its dir: another worker is starting the cluster); fails on `failed` or after `ms`. */
function waitForFile(file: string, failed: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const dir = path.dirname(file)
    const check = () => {
      if (fs.existsSync(file)) return done()
      if (fs.existsSync(failed)) return done(new Error(`the test PostgreSQL cluster did not start (in another test file): ${fs.readFileSync(failed, 'utf8')}`))
    }
    const watcher = fs.watch(dir, check)
    // inotify misses nothing here, but a watch set up just after the file appeared sees no event: hence the checks.
    const backstop = setInterval(check, 500)
    const timer = setTimeout(() => done(new Error(`no test PostgreSQL cluster after ${ms / 1000} s: ${file} never appeared (the file starting it was killed?)`)), ms)
    function done(err?: Error) {
      watcher.close()
      clearInterval(backstop)
      clearTimeout(timer)
      if (err) reject(err)
      else resolve()
    }
    check()
  })
}

let shared: Promise<PgCluster> | undefined

/**
 * The run's cluster. The first caller in the run (mkdir of `pg.starting` is the lock, across workers and both passes of
 * npm test) starts it and writes `pg.ready`; every other caller waits for that file.
 */
export function runCluster(): Promise<PgCluster> {
  shared ??= (async () => {
    const run = inject('clawkitTestRun')
    if (!run) throw new Error('no test run dir: run the tests through vitest with vitest.config.ts (its globalSetup opens one)')
    const record = pgRecordPath(run)
    const ready = path.join(run, 'pg.ready')
    const failed = path.join(run, 'pg.failed')
    try {
      fs.mkdirSync(path.join(run, 'pg.starting'))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      await waitForFile(ready, failed, 150_000)
      return clusterOf(JSON.parse(fs.readFileSync(record, 'utf8')) as PgRecord)
    }
    try {
      const rec = await startCluster(record)
      fs.writeFileSync(ready, '')
      return clusterOf(rec)
    } catch (e) {
      fs.writeFileSync(failed, (e as Error).message)
      throw e
    }
  })()
  return shared
}

/**
 * The run's cluster for the calling test file, with databases of its own: `db()` makes one (a name no other file
 * uses), and they are dropped after the file's tests.
 */
export function usePg(): {readonly cluster: PgCluster; db(): string} {
  let cluster: PgCluster | undefined
  const tag = crypto.randomBytes(4).toString('hex')
  const made: string[] = []
  beforeAll(async () => {
    cluster = await runCluster()
  }, 180_000)
  afterAll(() => {
    // WITH (FORCE): a client the file left open must not keep its database alive.
    for (const name of made.splice(0)) cluster?.psql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  })
  return {
    get cluster() {
      if (!cluster) throw new Error('the PostgreSQL cluster is not started (usePg inside describePg)')
      return cluster
    },
    /** A fresh database for one test; its superuser URL. */
    db() {
      const name = `t_${tag}_${made.length + 1}`
      made.push(name)
      return this.cluster.createDb(name)
    },
  }
}
