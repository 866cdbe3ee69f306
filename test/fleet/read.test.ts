// Fleet reads through the real CLI (`--store-url`) on a real PostgreSQL holding three JSON-era hosts (copies of real
// OpenClaw 2026.4.27 state dirs): every read of the replica answers what the same command answers on the host itself,
// plus `host`. Fields that legitimately differ are named where they are dropped: a transcript's locator
// (`pg:<host>/<agent>#<sessionId>` instead of the host's path) and ageMs (taken at each run's own now).
import {beforeAll, describe, expect, it} from 'vitest'

import {baseEnv, COMPACTION, copyFixture, json, runCli, tempDir, TWO_AGENTS, type RunResult} from '../support/cli.js'
import {seedHost} from '../support/fleet-seed.js'
import {expectDoc} from '../support/schema-check.js'
import {describePg, PG_PASSWORD, usePg} from '../support/postgres.js'

const RESET_TWICE = 'openclaw-2026.4.27-reset-twice'

/** Each host's state dir, by host name. */
const HOSTS: Record<string, string> = {}
let url = ''

const env = () => baseEnv(tempDir())
const local = (host: string, args: string[]) => runCli([...args, '--state-dir', HOSTS[host]], {env: env()})
const fleet = (args: string[], extra: Record<string, string> = {}) => runCli([...args, '--store-url', url], {env: baseEnv(tempDir(), extra)})

function ok(r: RunResult): RunResult {
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0)
  return r
}

const withoutAge = <T extends {ageMs?: unknown}>(rows: T[]) => rows.map(({ageMs: _a, ...r}) => r)

describePg('fleet reads (--store-url) on a real PostgreSQL: three JSON-era hosts', () => {
  const pg = usePg()

  beforeAll(async () => {
    url = pg.db()
    HOSTS.alpha = copyFixture(TWO_AGENTS)
    HOSTS.beta = copyFixture(COMPACTION)
    HOSTS.gamma = copyFixture(RESET_TWICE)
    // beta's main key reset once by clawkit: an archive for lineage, history --include-archived and usage.
    ok(await local('beta', ['sessions', 'reset', 'agent:main:main', '--json']))
    for (const [host, stateDir] of Object.entries(HOSTS)) await seedHost(url, {host, stateDir, lastSyncAt: new Date(Date.now() - 90_000)})
  }, 180_000)

  it('sessions list --all-hosts --all-agents --json: the union of every host\'s local list, plus host, newest first', async () => {
    const r = expectDoc<any>(await fleet(['sessions', 'list', '--all-hosts', '--all-agents', '--json']), 'sessions-list')
    const expected: Record<string, unknown>[] = []
    for (const host of Object.keys(HOSTS)) for (const row of json(ok(await local(host, ['sessions', 'list', '--all-agents', '--json']))).sessions) expected.push({host, ...row})
    expected.sort((a, b) => (b.updatedAt as number) - (a.updatedAt as number))
    expect(withoutAge(r.sessions)).toEqual(withoutAge(expected))
    expect(r.sessions.map((s: {host: string}) => Object.keys(s)[0])).toEqual(expected.map(() => 'host'))
    expect(r).toMatchObject({path: null, hosts: ['alpha', 'beta', 'gamma'], allAgents: true, count: expected.length, totalCount: expected.length, hasMore: false, limitApplied: null})
    expect(r.stores.map((s: {host: string; agentId: string}) => `${s.host}/${s.agentId}`)).toEqual(['alpha/main', 'alpha/work', 'beta/main', 'gamma/main'])
  })

  it('sessions list --host, --agent, --limit and --active: cut by the database; count stays the true number', async () => {
    const one = json(ok(await fleet(['sessions', 'list', '--host', 'alpha', '--agent', 'work', '--json'])))
    const mine = json(ok(await local('alpha', ['sessions', 'list', '--agent', 'work', '--json'])))
    expect(withoutAge(one.sessions)).toEqual(withoutAge(mine.sessions.map((s: object) => ({host: 'alpha', ...s}))))
    const top = json(ok(await fleet(['sessions', 'list', '--limit', '2', '--json'])))
    expect(top).toMatchObject({count: 2, totalCount: 5, hasMore: true, limitApplied: 2})
    expect(top.sessions.map((s: {updatedAt: number}) => s.updatedAt)).toEqual([...top.sessions.map((s: {updatedAt: number}) => s.updatedAt)].sort((a, b) => b - a))
    // Only beta's key, reset a moment ago, was active in the last 10 minutes.
    const active = json(ok(await fleet(['sessions', 'list', '--active', '10', '--json'])))
    expect(active).toMatchObject({count: 1, totalCount: 1})
    expect(withoutAge(active.sessions)).toEqual(withoutAge(json(ok(await local('beta', ['sessions', 'list', '--active', '10', '--json']))).sessions.map((s: object) => ({host: 'beta', ...s}))))
    const table = ok(await fleet(['sessions', 'list', '--host', 'gamma']))
    expect(table.stdout).toContain('Fleet replica: 1 host(s) (gamma)')
    expect(table.stdout).toMatch(/^gamma\s+main\s+direct\s+agent:main:main/m)
  })

  it('an unknown host or agent is a usage error naming what there is; --host without --store-url is refused', async () => {
    const host = await fleet(['sessions', 'list', '--host', 'delta'])
    expect(host.code).toBe(2)
    expect(host.stderr).toContain('Unknown host "delta" in the fleet replica (hosts: alpha, beta, gamma)')
    expect((await fleet(['sessions', 'list', '--agent', 'nobody'])).code).toBe(2)
    const noUrl = await runCli(['sessions', 'list', '--host', 'alpha', '--state-dir', HOSTS.alpha], {env: env()})
    expect(noUrl.code).toBe(2)
    expect(noUrl.stderr).toContain('--host reads the fleet replica: add --store-url <url>')
  })

  it('CLAWKIT_STORE_URL alone never turns a local read into a fleet read', async () => {
    const r = await runCli(['sessions', 'list', '--json', '--state-dir', HOSTS.gamma], {env: baseEnv(tempDir(), {CLAWKIT_STORE_URL: url})})
    expect(json(ok(r))).not.toHaveProperty('hosts')
    expect(json(r).path).toContain(HOSTS.gamma)
  })

  it('a wrong password: one line naming the database, without any password, exit 1', async () => {
    const bad = url.replace(PG_PASSWORD, 'not-the-Password-9')
    for (const args of [['sessions', 'list'], ['sessions', 'list', '--json']]) {
      const r = await runCli([...args, '--store-url', bad], {env: env()})
      expect(r.code).toBe(1)
      const text = r.stdout + r.stderr
      expect(text).not.toContain('not-the-Password-9')
      expect(text).not.toContain(PG_PASSWORD)
      expect(text).toMatch(/could not connect to the fleet database at postgres:\/\/clawkit_admin@127\.0\.0\.1:\d+\/\S+: .*password/)
      if (args.includes('--json')) expect(json(r).error.code).toBe('E_STORE_DB')
      else expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2)
    }
  })
})

describe('fleet flags without a server', () => {
  it('--store-url with --state-dir is refused (one or the other)', async () => {
    const r = await runCli(['sessions', 'list', '--store-url', 'postgres://nobody@127.0.0.1:1/x', '--state-dir', tempDir()], {env: env()})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('give one or the other')
  })
})
