// Crash safety of `clawkit sync`: the real CLI process is SIGKILLed at seeded random moments while it uploads (small
// batches, so that a kill lands between and inside many transactions), with the host changing between trials (turns
// appended, a line edited, resets). After every kill the replica passes checkReplica; in the end one sync per host makes
// the replica exactly the local content. Then 4 hosts sync into one database at once, 10 rounds: nothing lost or doubled.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {checkReplica, diffReplica} from '../../../src/fleet/check.js'
import {connectPg, type PgClient} from '../../../src/fleet/pg.js'
import {OpenClawState} from '../../../src/store/state.js'
import {baseEnv, BIN, json, ROOT, runCli, tempDir} from '../../support/cli.js'
import {generateState, mutateState, seeded} from '../../support/fleet-store.js'
import {describePg, usePg} from '../../support/postgres.js'

const SEED = Number(process.env.CLAWKIT_CRASH_SEED ?? 19)
/** npm test's smoke count; `npm run test:deep` (CI) runs 60. */
const TRIALS = Number(process.env.CLAWKIT_SYNC_CRASH_TRIALS ?? 12)
const clients: PgClient[] = []
afterAll(async () => {
  await Promise.all(clients.map((c) => c.end()))
})

/**
 * The CLI as a child we can kill: after `kill.afterMs`, or as soon as `kill.when()` (polled every few ms) says so.
 * Resolves with its exit code and signal.
 */
function startSync(args: string[], env: Record<string, string>, kill: {afterMs?: number; when?: () => Promise<boolean>} = {}): Promise<{code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'sync', ...args], {cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    let done = false
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = kill.afterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), kill.afterMs)
    const poll = async () => {
      while (!done && kill.when) {
        if (await kill.when()) {
          child.kill('SIGKILL')
          return
        }
        await new Promise((r) => setTimeout(r, 3))
      }
    }
    void poll()
    child.on('error', reject)
    child.on('close', (code, signal) => {
      done = true
      if (timer) clearTimeout(timer)
      resolve({code, signal, stdout, stderr})
    })
  })
}

async function replicaEquals(c: PgClient, state: string, host: string): Promise<string[]> {
  const s = OpenClawState.open({stateDir: state, ignoreSettings: true, env: {HOME: tempDir()}})
  try {
    return (await diffReplica(s, c, host)).differences
  } finally {
    s.close()
  }
}

describePg('clawkit sync under SIGKILL and with concurrent hosts (real PostgreSQL)', () => {
  const pg = usePg()

  describe(`SIGKILLed at ${TRIALS} seeded random points (seed ${SEED})`, () => {
    let url = ''
    let c: PgClient
    let poller: PgClient
    let state = ''
    let env: Record<string, string> = {}
    const rnd = seeded(SEED)
    let noop = 0
    // Several hosts on one state dir: each one's first syncs have the whole store to upload, its later ones resume.
    const hosts = Array.from({length: 20}, (_, i) => `k${i}`)
    let killed = 0
    let killedMidUpload = 0
    const log: string[] = []

    beforeAll(async () => {
      url = pg.db()
      c = await connectPg(url)
      clients.push(c)
      state = path.join(tempDir(), 'state')
      generateState(state, {agents: ['main', 'work'], sessions: 8, lines: 24, seed: SEED})
      env = baseEnv(tempDir(), {CLAWKIT_SYNC_BATCH_ROWS: '2'})
      // How long a sync with nothing to do takes here: a fifth of the kills land within it (start-up, migration, lock,
      // reading the marks); the others once the replica holds a seeded number of this run's events (mid-upload).
      expect((await startSync(['--to', url, '--state-dir', state, '--host', 'probe', '--json'], env)).code).toBe(0)
      const t0 = Date.now()
      await startSync(['--to', url, '--state-dir', state, '--host', 'probe', '--json'], env)
      noop = Date.now() - t0
      poller = await connectPg(url)
      clients.push(poller)
    })
    const events = async (host: string, db: PgClient = c) => Number((await db.query<{n: number}>('SELECT count(*)::int AS n FROM clawkit_events WHERE host = $1', [host])).rows[0].n)

    // The trials in tests of CHUNK each (one scenario, in order: each test goes on from the state the last one left),
    // so that no test runs for minutes: 60 trials in one test took 137 s of its 180 s on a loaded machine, ten 28 s of 60.
    const CHUNK = 6
    for (let from = 0; from < TRIALS; from += CHUNK) {
      const to = Math.min(from + CHUNK, TRIALS)
      it(`trials ${from + 1}-${to}: the replica is consistent after every kill`, async () => {
        for (let i = from; i < to; i++) {
          if (i > 0 && rnd() < 0.4) log.push(mutateState(state, rnd, rnd() < 0.5 ? 'main' : 'work'))
          const host = hosts[i % hosts.length]
          const before = await events(host)
          const early = rnd() < 0.2
          const delay = Math.floor(rnd() * noop)
          const after = 1 + Math.floor(rnd() * 250)
          const how = early ? `after ${delay} ms` : `after ${after} events`
          const r = await startSync(['--to', url, '--state-dir', state, '--host', host, '--json'], env, early ? {afterMs: delay} : {when: async () => (await events(host, poller)) >= before + after})
          if (r.signal === 'SIGKILL') {
            killed++
            if ((await events(host)) > before) killedMidUpload++
          } else expect(r.code, `trial ${i}: ${r.stderr}`).toBe(0)
          const check = await checkReplica(c, host)
          expect(check.problems, `trial ${i} (seed ${SEED}, kill ${how}, ${log.at(-1) ?? 'no change'})`).toEqual([])
        }
      })
    }

    it('the kills landed mid-upload, after some batches committed', () => {
      // Otherwise this tests nothing.
      console.log(`sync crash: ${killed} of ${TRIALS} trials killed, ${killedMidUpload} after some batches committed (no-op sync ${noop} ms)`)
      expect(killed).toBeGreaterThanOrEqual(Math.floor(TRIALS * 0.7))
      expect(killedMidUpload).toBeGreaterThanOrEqual(Math.floor(TRIALS * 0.5))
    })

    // The completing syncs, five hosts at a time (they are independent), then each replica against the host.
    for (let i = 0; i < hosts.length; i += 5) {
      const some = hosts.slice(i, i + 5)
      it(`the next sync of ${some.join(', ')} ends with exactly the local content`, async () => {
        const runs = await Promise.all(some.map((host) => startSync(['--to', url, '--state-dir', state, '--host', host, '--json'], env)))
        for (const r of runs) expect(r.code, r.stderr).toBe(0)
        for (const host of some) {
          expect((await checkReplica(c, host)).problems, host).toEqual([])
          expect(await replicaEquals(c, state, host), host).toEqual([])
        }
      })
    }

    it('and once more: nothing left to upload', async () => {
      const again = json(await runCli(['sync', '--to', url, '--state-dir', state, '--host', hosts[0], '--json'], {env}))
      expect(again.total).toMatchObject({events: 0, entriesUpserted: 0})
    })
  })

  it('4 hosts syncing into one database at once, 10 rounds with changes between: 0 lost, 0 duplicated rows', async () => {
    const url = pg.db()
    const c = await connectPg(url)
    clients.push(c)
    const rnd = seeded(SEED + 1)
    const states = ['h0', 'h1', 'h2', 'h3'].map((host, i) => {
      const state = path.join(tempDir(), host)
      generateState(state, {agents: ['main', 'work'], sessions: 4, lines: 14, seed: SEED + 10 + i})
      return {host, state}
    })
    const env = baseEnv(tempDir(), {CLAWKIT_SYNC_BATCH_ROWS: '7'})
    for (let round = 0; round < 10; round++) {
      if (round > 0) for (const s of states) for (let k = 0; k < 2; k++) mutateState(s.state, rnd, rnd() < 0.5 ? 'main' : 'work')
      const runs = await Promise.all(states.map((s) => startSync(['--to', url, '--state-dir', s.state, '--host', s.host, '--json'], env)))
      for (const r of runs) expect(r.code, r.stderr).toBe(0)
      for (const s of states) {
        expect((await checkReplica(c, s.host)).problems, `round ${round} ${s.host}`).toEqual([])
        expect(await replicaEquals(c, s.state, s.host), `round ${round} ${s.host}`).toEqual([])
      }
      // Every local line is on the replica once: rows per host equal the local line count.
      for (const s of states) {
        let local = 0
        for (const agent of ['main', 'work']) {
          const dir = path.join(s.state, 'agents', agent, 'sessions')
          for (const f of fs.readdirSync(dir)) if (/\.jsonl(\.reset\..*)?$/.test(f)) local += fs.readFileSync(path.join(dir, f), 'utf8').split('\n').length - 1
        }
        const remote = Number((await c.query<{n: number}>('SELECT count(*)::int AS n FROM clawkit_events WHERE host = $1', [s.host])).rows[0].n)
        expect(remote, `round ${round} ${s.host}`).toBe(local)
      }
    }
  }, 180_000)
})
