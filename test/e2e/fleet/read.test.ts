// Fleet reads through the real CLI (`--store-url`) on a real PostgreSQL holding three JSON-era hosts (copies of real
// OpenClaw 2026.4.27 state dirs): every read of the replica answers what the same command answers on the host itself,
// plus `host`. Fields that legitimately differ are named where they are dropped: a transcript's locator
// (`pg:<host>/<agent>#<sessionId>` instead of the host's path) and ageMs (taken at each run's own now).
import fs from 'node:fs'
import path from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import {connectPg} from '../../../src/fleet/pg.js'
import {sessionHistory} from '../../../src/sessions/history.js'
import {SEARCH_TEXT_VERSION} from '../../../src/sessions/search-text.js'
import {sessionsUsage} from '../../../src/sessions/usage.js'
import type {OpenClawState} from '../../../src/store/state.js'

import {baseEnv, COMPACTION, copyFixture, json, jsonError, runCli, tempDir, TWO_AGENTS} from '../../support/cli.js'
import type {SessionsSearchResult} from '../../../src/commands/sessions/search.js'
import {fleetRunners, seedHost} from '../../support/fleet-seed.js'
import {inProcess} from '../../support/in-process.js'
import {poisonUsage} from '../../support/usage-sums.js'
import {expectDoc} from '../../support/schema-check.js'
import {describePg, PG_PASSWORD, usePg} from '../../support/postgres.js'
import type {SessionsHistoryResult} from '../../../src/commands/sessions/history.js'
import type {SessionsLineageResult} from '../../../src/commands/sessions/lineage.js'
import type {SessionsListResult} from '../../../src/commands/sessions/list.js'
import type {SessionsUsageResult} from '../../../src/commands/sessions/usage.js'
import type {FleetStatusResult} from '../../../src/fleet/status.js'
import type {BadLine} from '../../../src/store/transcript-types.js'

const RESET_TWICE = 'openclaw-2026.4.27-reset-twice'

/** Each host's state dir, by host name. */
const HOSTS: Record<string, string> = {}
let url = ''

const env = () => baseEnv(tempDir())
const {local, fleet, ok, withoutAge} = fleetRunners(HOSTS, () => url)

// A host's own answer computed in this process, as the command computes it from its flags (the replica's side is the
// real CLI, and both commands' local runs are tested through the CLI elsewhere): the most repeated comparisons here
// would otherwise start a second CLI process each.
const onHost = <T>(host: string, run: (state: OpenClawState) => Promise<T>): Promise<T> => inProcess(HOSTS[host], run)

describePg('fleet reads (--store-url) on a real PostgreSQL: three JSON-era hosts', () => {
  const pg = usePg()

  beforeAll(async () => {
    url = pg.db()
    HOSTS.alpha = copyFixture(TWO_AGENTS)
    HOSTS.beta = copyFixture(COMPACTION)
    HOSTS.gamma = copyFixture(RESET_TWICE)
    // beta's main key reset once by clawkit: an archive for lineage, history --include-archived and usage.
    ok(await local('beta', ['sessions', 'reset', 'agent:main:main', '--json']))
    // alpha's main transcript: implausible usage figures, a line that is not JSON and one that is not an object (without
    // "usage" either), so usage on the replica must count them as the host does.
    const live = path.join(HOSTS.alpha, 'agents', 'main', 'sessions', '0caed29d-8df6-4457-a9cd-00bb9d2b22e3.jsonl')
    fs.writeFileSync(live, `${poisonUsage(fs.readFileSync(live, 'utf8')).trimEnd()}\n{not json\n[1,2]\n${JSON.stringify({type: 'custom', customType: 'after', id: 'after', parentId: null, timestamp: '2026-11-26T12:00:00.000Z'})}\n`)
    for (const [host, stateDir] of Object.entries(HOSTS)) await seedHost(url, {host, stateDir, lastSyncAt: new Date(Date.now() - 90_000)})
  }, 180_000)

  it('sessions list --all-hosts --all-agents --json: the union of every host\'s local list, plus host, newest first', async () => {
    const r = expectDoc<SessionsListResult>(await fleet(['sessions', 'list', '--all-hosts', '--all-agents', '--json']), 'sessions-list')
    const expected: Record<string, unknown>[] = []
    for (const host of Object.keys(HOSTS)) for (const row of json(ok(await local(host, ['sessions', 'list', '--all-agents', '--json']))).sessions) expected.push({host, ...row})
    expected.sort((a, b) => (b.updatedAt as number) - (a.updatedAt as number))
    expect(withoutAge(r.sessions)).toEqual(withoutAge(expected))
    expect(r.sessions.map((s) => Object.keys(s)[0])).toEqual(expected.map(() => 'host'))
    expect(r).toMatchObject({path: null, hosts: ['alpha', 'beta', 'gamma'], allAgents: true, count: expected.length, totalCount: expected.length, hasMore: false, limitApplied: null})
    expect(r.stores?.map((s) => `${s.host}/${s.agentId}`)).toEqual(['alpha/main', 'alpha/work', 'beta/main', 'gamma/main'])
  })

  it('sessions list --host, --agent, --limit and --active: cut by the database; count stays the true number', async () => {
    const one = json(ok(await fleet(['sessions', 'list', '--host', 'alpha', '--agent', 'work', '--json'])))
    const mine = json(ok(await local('alpha', ['sessions', 'list', '--agent', 'work', '--json'])))
    expect(withoutAge(one.sessions)).toEqual(withoutAge(mine.sessions.map((s) => ({host: 'alpha', ...s}))))
    const top = json(ok(await fleet(['sessions', 'list', '--limit', '2', '--json'])))
    expect(top).toMatchObject({count: 2, totalCount: 5, hasMore: true, limitApplied: 2})
    expect(top.sessions.map((s) => s.updatedAt)).toEqual([...top.sessions.map((s) => s.updatedAt)].sort((a, b) => (b ?? 0) - (a ?? 0)))
    // Only beta's key, reset a moment ago, was active in the last 10 minutes.
    const active = json(ok(await fleet(['sessions', 'list', '--active', '10', '--json'])))
    expect(active).toMatchObject({count: 1, totalCount: 1})
    expect(withoutAge(active.sessions)).toEqual(withoutAge(json(ok(await local('beta', ['sessions', 'list', '--active', '10', '--json']))).sessions.map((s) => ({host: 'beta', ...s}))))
    // --usage: each row's cost so far, read from its transcript on the replica, as the host reads it from its own.
    const usage = json(ok(await fleet(['sessions', 'list', '--host', 'alpha', '--all-agents', '--usage', '--json'])))
    const usageHere = json(ok(await local('alpha', ['sessions', 'list', '--all-agents', '--usage', '--json'])))
    expect(usage.sessions.map((s) => [s.key, s.usage])).toEqual(usageHere.sessions.map((s) => [s.key, s.usage]))
    expect(usage.sessions.some((s) => (s.usage?.calls ?? 0) > 0)).toBe(true)
    const table = ok(await fleet(['sessions', 'list', '--host', 'gamma']))
    expect(table.stdout).toContain('Fleet replica: 1 host(s) (gamma)')
    expect(table.stdout).toMatch(/^gamma\s+main\s+direct\s+agent:main:main/m)
  })

  // One test per key (each runs its four flag sets on both sides): one test for all of them ran 44 CLI processes and
  // came close to its timeout on a loaded machine (issue 26).
  for (const [host, key] of [['alpha', 'agent:main:main'], ['alpha', 'agent:work:main'], ['beta', 'agent:main:main'], ['beta', 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001'], ['gamma', 'main']]) {
    it(`sessions history ${key} (also --raw and --include-archived) on ${host} equals the host's own, minus transcript locators`, async () => {
      // sessionFile / sessions[].sessionFile: `pg:<host>/<agent>#<sessionId>` on the replica, the host's path locally. An
      // unreadable line's position is a locator too: a byte offset in the host's file (its line unknown when read from
      // the end), a seq on the replica; the lines flagged, their reasons and previews must be the same.
      const bad = (b: BadLine[] | undefined) => b?.map((x) => ({...x, line: undefined, offset: undefined}))
      const strip = (d: SessionsHistoryResult) => ({...d, sessionFile: undefined, badLines: bad(d.badLines), sessions: d.sessions?.map((s) => ({...s, sessionFile: undefined}))})
      for (const extra of [['--limit', '3'], ['--limit', '50', '--raw'], ['--include-archived', '--limit', '40'], ['--include-archived', '--limit', '2', '--raw']]) {
        const args = ['sessions', 'history', key, ...extra, '--json']
        const limit = Number(extra[extra.indexOf('--limit') + 1])
        const mine = expectDoc<SessionsHistoryResult>(await fleet([...args, '--host', host]), 'sessions-history')
        const theirs = await onHost(host, (s) => sessionHistory(s, key, {limit, offset: 0, raw: extra.includes('--raw') || undefined, includeArchived: extra.includes('--include-archived') || undefined}))
        expect(strip(mine), `${host} ${args.join(' ')}`).toEqual(strip({host, ...theirs}))
        expect(mine.sessionFile).toMatch(new RegExp(`^pg:${host}/(main|work)#${theirs.sessionId}$`))
        if (host === 'alpha' && key === 'agent:main:main') expect(mine.badLines.map((b) => b.reason), args.join(' ')).toEqual(['invalid-json', 'not-an-object'])
      }
    })
  }

  it('sessions history: a key only one host has needs no --host; one every host has needs it, and the error names them', async () => {
    const work = json(ok(await fleet(['sessions', 'history', 'agent:work:main', '--json'])))
    expect(work.host).toBe('alpha')
    const ambiguous = await fleet(['sessions', 'history', 'main'])
    expect(ambiguous.code).toBe(2)
    expect(ambiguous.stderr).toContain('Session "main" exists on 3 hosts of the fleet replica (alpha, beta, gamma): pass --host <name>.')
    const text = ok(await fleet(['sessions', 'history', 'main', '--host', 'gamma', '--limit', '2']))
    expect(text.stdout).toMatch(/^Session agent:main:main \(\S+\) on host gamma\nTranscript: pg:gamma\/main#/)
    expect((await fleet(['sessions', 'history', 'agent:main:nope', '--json'])).code).toBe(1)
  })

  /** An export minus what legitimately differs: transcript locators (a path locally, pg:<host>/<agent>#<id> on the replica) and the time of export. */
  const exportText = (t: string) =>
    t
      .replace(/pg:[a-z]+\/[a-z]+#[0-9a-f-]+/g, '<transcript>')
      .replace(/\/[^\s`<"]*\/agents\/[a-z]+\/sessions\/[^\s`<"]+/g, '<transcript>')
      .replace(/Exported: [^\n<]*/g, 'Exported: <time>')
      .replace(/<dt>Exported<\/dt><dd>[^<]*<\/dd>/g, '<dt>Exported</dt><dd><time></dd>')

  for (const [host, key] of [['alpha', 'agent:work:main'], ['beta', 'agent:main:main'], ['gamma', 'main']]) {
    it(`sessions export ${key} (md, html, jsonl, --include-archived) from the replica equals ${host}'s own --redact export, byte for byte, where no transcript holds a credential known only from the host config`, async () => {
      for (const extra of [['--format', 'md'], ['--format', 'html'], ['--format', 'jsonl'], ['--format', 'md', '--include-archived'], ['--format', 'jsonl', '--include-archived']]) {
        const args = ['sessions', 'export', key, ...extra]
        const [fromReplica, fromHost] = await Promise.all([fleet([...args, '--host', host]), local(host, [...args, '--redact'])])
        const mine = ok(fromReplica)
        const theirs = ok(fromHost)
        expect(mine.stdout.length, `${host} ${args.join(' ')}`).toBeGreaterThan(0)
        expect(exportText(mine.stdout), `${host} ${args.join(' ')}`).toBe(exportText(theirs.stdout))
      }
    })
  }

  it('sessions export --json says host and redacted; --host alone is refused without --store-url', async () => {
    const out = `${tempDir()}/beta.md`
    const doc = json(ok(await fleet(['sessions', 'export', 'main', '--host', 'beta', '--out', out, '--json'])))
    expect(doc).toMatchObject({host: 'beta', key: 'agent:main:main', out, redacted: true})
    // --host alone reads nothing: it is refused without --store-url.
    const local1 = await runCli(['sessions', 'export', 'main', '--host', 'beta', '--state-dir', HOSTS.beta], {env: env()})
    expect(local1.code).toBe(2)
    expect(local1.stderr).toContain('--host reads the fleet replica: add --store-url <url>')
  })

  it('sessions lineage of each host\'s keys equals the host\'s own, minus transcript locators', async () => {
    for (const [host, key] of [['alpha', 'agent:main:main'], ['beta', 'agent:main:main'], ['gamma', 'agent:main:main']]) {
      const mine = expectDoc<SessionsLineageResult>(await fleet(['sessions', 'lineage', key, '--host', host, '--json']), 'sessions-lineage')
      const theirs = json(ok(await local(host, ['sessions', 'lineage', key, '--json'])))
      const strip = (d: SessionsLineageResult) => ({...d, sessions: d.sessions.map((s) => ({...s, transcript: undefined}))})
      expect(strip(mine)).toEqual(strip({host, ...theirs}))
    }
    // Lineages with archives really were compared: beta's key was reset once, gamma's twice by OpenClaw.
    expect(json(ok(await fleet(['sessions', 'lineage', 'main', '--host', 'gamma', '--json']))).sessions.map((s) => s.where)).toEqual(['reset-archive', 'reset-archive', 'live'])
    expect(ok(await fleet(['sessions', 'lineage', 'main', '--host', 'beta'])).stdout).toContain('Lineage of agent:main:main on host beta: 2 sessions')
  })

  it('history and lineage of an archived sessionId (gamma\'s .reset. archives) equal the host\'s own; no --host needed, only gamma has it', async () => {
    const archived = ['d8caeddb-04f7-465b-9b9e-21127366c273', '28bfe1c6-3dfd-46a2-8644-c20256d72837']
    const stripH = (d: SessionsHistoryResult) => ({...d, sessionFile: undefined})
    const stripL = (d: SessionsLineageResult) => ({...d, sessions: d.sessions.map((s) => ({...s, transcript: undefined}))})
    for (const id of archived) {
      const mine = expectDoc<SessionsHistoryResult>(await fleet(['sessions', 'history', id, '--limit', '50', '--json']), 'sessions-history')
      const theirs = json<SessionsHistoryResult>(ok(await local('gamma', ['sessions', 'history', id, '--limit', '50', '--json'])))
      expect(theirs.archived).toMatchObject({sessionId: id, where: 'reset-archive'})
      expect(stripH(mine)).toEqual(stripH({host: 'gamma', ...theirs}))
      const lineage = expectDoc<SessionsLineageResult>(await fleet(['sessions', 'lineage', id, '--json']), 'sessions-lineage')
      expect(stripL(lineage)).toEqual(stripL({host: 'gamma', ...json(ok(await local('gamma', ['sessions', 'lineage', id, '--json'])))}))
    }
  })

  for (const host of ['alpha', 'beta', 'gamma']) {
    it(`sessions usage --host ${host} (by session, key, model and day) equals the host's own`, async () => {
      for (const by of ['session', 'key', 'model', 'day']) {
        const mine = expectDoc<SessionsUsageResult>(await fleet(['sessions', 'usage', '--host', host, '--all-agents', '--by', by, '--json']), 'sessions-usage')
        // On Node 20 (this file's pass) the host's usage is a scan, as its CLI's would be.
        const theirs = await onHost(host, (s) => sessionsUsage(s, {by, allAgents: true, includeArchived: true, scan: true}))
        // `source` says where each read (replica, or the host's catalog or scan): the figures are the same.
        const strip = (d: SessionsUsageResult) => ({...d, hosts: undefined, source: undefined, removed: undefined, rows: d.rows.map((r) => ({...r, host: undefined}))})
        expect(strip(mine), `${host} --by ${by}`).toEqual(strip(theirs))
        expect(mine.source).toBe('replica')
        expect(mine.hosts).toEqual([host])
        if (by === 'session' || by === 'key') for (const r of mine.rows) expect(r.host).toBe(host)
        if (host === 'alpha') expect(mine, by).toMatchObject({badLines: 2, badValues: 6})
      }
    })
  }

  it('sessions usage --by host and the unprefixed fleet totals add up to the hosts\' own totals', async () => {
    const totals: Record<string, SessionsUsageResult['total']> = {}
    await Promise.all(Object.keys(HOSTS).map(async (host) => (totals[host] = json(ok(await local(host, ['sessions', 'usage', '--all-agents', '--json']))).total)))
    const byHost = json(ok(await fleet(['sessions', 'usage', '--by', 'host', '--json'])))
    expect(byHost.rows.map((r) => [r.group, r.host, r.calls, r.costUsd]).sort()).toEqual(Object.entries(totals).filter(([, t]) => t.calls > 0).map(([h, t]) => [h, h, t.calls, t.costUsd]).sort())
    const sessions = json(ok(await fleet(['sessions', 'usage', '--json'])))
    expect(sessions.rows.map((r) => r.group.split('/')[0]).sort()).toEqual(expect.arrayContaining(['alpha', 'beta', 'gamma']))
    expect(sessions.total.calls).toBe(Object.values(totals).reduce((n, t) => n + t.calls, 0))
    const table = ok(await fleet(['sessions', 'usage'])).stdout
    expect(table).toContain('on 3 host(s) of the fleet replica')
    // Several hosts: a Host column, since agent:main:main is on every host.
    expect(table).toMatch(/^Host +Key +Session /m)
    expect(table).toMatch(/^gamma +agent:main:main +\S+/m)
    expect(table).toMatch(new RegExp(`^Total +${sessions.total.calls} `, 'm'))
    const local1 = await runCli(['sessions', 'usage', '--by', 'host', '--state-dir', HOSTS.alpha], {env: env()})
    expect(local1.code).toBe(2)
    expect(local1.stderr).toContain('--by host groups the hosts of the fleet replica: add --store-url <url>')
  })

  for (const [pattern, extra, index] of [
    ['capital', [], 'pg_trgm'],
    ['france', ['--include-archived'], 'pg_trgm'],
    ['capit(a)l', ['--regex'], 'pg_trgm'],
    ['capital|zzqzz', ['--regex'], 'none'],
    ['capital', ['--scan'], 'none'],
  ] as const) {
    // The trigram index narrows a search (a --regex by the literal every match holds); a --regex with a top-level | and
    // --scan read everything.
    it(`sessions search --all-hosts ${[pattern, ...extra].join(' ')}: per host the same hits as the host's own search (plus host); replica index used: ${index}`, async () => {
      const [all, ...mine] = await Promise.all([
        fleet(['sessions', 'search', pattern, '--all-agents', '--limit', 'all', ...extra, '--json']).then((r) => expectDoc<SessionsSearchResult>(r, 'sessions-search')),
        ...Object.keys(HOSTS).map(async (host) => json<SessionsSearchResult>(ok(await local(host, ['sessions', 'search', pattern, '--all-agents', '--limit', 'all', ...extra, '--json'])))),
      ])
      const norm = (h: SessionsSearchResult['hits'][number]) => ({...h, transcript: undefined, host: undefined})
      expect(all.hosts).toEqual(['alpha', 'beta', 'gamma'])
      expect(all.replicaIndex).toBe(index)
      let total = 0
      for (const [i, host] of Object.keys(HOSTS).entries()) {
        const theirs = all.hits.filter((h) => h.host === host)
        expect(theirs.map(norm), host).toEqual(mine[i].hits.map(norm))
        total += mine[i].count
      }
      expect(all.count).toBe(total)
      expect(total).toBeGreaterThan(0)
    })
  }

  it('sessions search on rows an older clawkit wrote (an older search-text version): their transcripts are read in full, so a hit their search_text lacks is still found', async () => {
    const db = pg.db()
    await seedHost(db, {host: 'old', stateDir: HOSTS.alpha})
    const c = await connectPg(db)
    try {
      // As an older searchTextOf may have left them: the text of the hits missing from search_text, and the
      // transcripts marked with the version that wrote it.
      const hits = await c.query("UPDATE clawkit_events SET search_text = NULL WHERE host = 'old' AND search_text ILIKE '%bootstrap%'")
      expect(hits.rowCount).toBeGreaterThan(0)
      await c.query("UPDATE clawkit_transcripts SET search_text_version = $1 WHERE host = 'old'", [SEARCH_TEXT_VERSION - 1])
    } finally {
      await c.end()
    }
    const run = (args: string[]) => runCli(['sessions', 'search', 'bootstrap', '--all-agents', '--limit', 'all', ...args, '--json'], {env: env()})
    const theirs = json<SessionsSearchResult>(ok(await run(['--store-url', db])))
    const mine = json<SessionsSearchResult>(ok(await local('alpha', ['sessions', 'search', 'bootstrap', '--all-agents', '--limit', 'all', '--json'])))
    expect(mine.count).toBeGreaterThan(0)
    const norm = (h: SessionsSearchResult['hits'][number]) => ({...h, transcript: undefined, host: undefined})
    expect(theirs.hits.map(norm)).toEqual(mine.hits.map(norm))
    // The index still serves the rows of the current version (none here): the search went through it.
    expect(theirs.replicaIndex).toBe('pg_trgm')
  })

  it('status --store-url: every host, its last sync and lag, its agents with their era; --json', async () => {
    const r = expectDoc<FleetStatusResult>(await fleet(['status', '--json']), 'status-fleet')
    expect(r.storeUrl).not.toContain(PG_PASSWORD)
    expect(r.hosts.map((h) => h.host)).toEqual(['alpha', 'beta', 'gamma'])
    for (const h of r.hosts) {
      // Seeded as synced 90 s ago.
      expect(h.lagMs).toBeGreaterThanOrEqual(90_000)
      expect(h.lagMs).toBeLessThan(600_000)
      expect(h.syncInProgress).toBe(false)
    }
    expect(r.hosts[0].agents.map((a) => [a.agentId, a.era, a.sessions])).toEqual([['main', 'json', 1], ['work', 'json', 1]])
    expect(r.hosts[1]).toMatchObject({sessions: 2, lastActivity: {key: 'agent:main:main', agentId: 'main'}})
    const text = ok(await fleet(['status']))
    // The seed is 90 s old when the suite starts; a loaded machine may take minutes to get here.
    expect(text.stdout).toMatch(/^alpha: last sync \S+ \(lag \d+m ago\)/m)
    expect(text.stdout).toContain('  work: JSON era, 1 session(s), 1 transcript(s)')
    expect(text.stdout).not.toContain(PG_PASSWORD)
  })

  it('writes given --store-url refuse in one line, exit 2, and change nothing on the replica', async () => {
    const before = json(ok(await fleet(['sessions', 'list', '--json'])))
    for (const args of [
      ['sessions', 'reset', 'agent:main:main', '--host', 'alpha'].slice(0, 3),
      ['agent', '-m', 'hello'],
      ['message', 'send', '--channel', 'telegram', '--target', '1', '--message', 'hi'],
      ['doctor', '--fix'],
      ['doctor'],
    ]) {
      const r = await fleet(args)
      expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(2)
      expect(r.stderr).toMatch(/^Error: the fleet replica is for reading; run this on the host: clawkit /)
      expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2)
      const j = await fleet([...args, '--json'])
      expect(jsonError(j)).toMatchObject({code: 'E_REPLICA_READ_ONLY', exitCode: 2})
    }
    expect(withoutAge(json(ok(await fleet(['sessions', 'list', '--json']))).sessions)).toEqual(withoutAge(before.sessions))
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

  it('a role with SELECT on the clawkit_* tables only reads the fleet (the least a reader needs)', async () => {
    const db = new URL(url).pathname.slice(1)
    // Roles belong to the whole cluster, which the run's other files share: a name of this database's own.
    const role = `reader_${db}`
    pg.cluster.psql(`CREATE ROLE ${role} LOGIN PASSWORD '${PG_PASSWORD}'`)
    pg.cluster.psql(`GRANT CONNECT ON DATABASE "${db}" TO ${role}; GRANT USAGE ON SCHEMA public TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`, db)
    const reader = url.replace(/\/\/[^:]+:/, `//${role}:`)
    const mine = json(ok(await runCli(['sessions', 'list', '--json', '--store-url', reader], {env: env()})))
    expect(withoutAge(mine.sessions)).toEqual(withoutAge(json(ok(await fleet(['sessions', 'list', '--json']))).sessions))
    ok(await runCli(['sessions', 'history', 'main', '--host', 'gamma', '--store-url', reader], {env: env()}))
    ok(await runCli(['status', '--store-url', reader], {env: env()}))
  })

  it('CLAWKIT_STORE_URL alone never turns a local read into a fleet read', async () => {
    const r = await runCli(['sessions', 'list', '--json', '--state-dir', HOSTS.gamma], {env: baseEnv(tempDir(), {CLAWKIT_STORE_URL: url})})
    expect(json(ok(r))).not.toHaveProperty('hosts')
    expect(json(r).path).toContain(HOSTS.gamma)
  })

  it('a database sync never wrote to: one line saying so, and what to run; exit 1', async () => {
    const empty = pg.db()
    const r = await runCli(['sessions', 'list', '--store-url', empty], {env: env()})
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^Error: postgres:\/\/clawkit_admin@127\.0\.0\.1:\d+\/\S+ holds no fleet replica yet \(no clawkit_\* tables\)\n  hint: run "clawkit sync --to <url>" on each host first/)
    expect(r.stderr).not.toContain(PG_PASSWORD)
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
      if (args.includes('--json')) expect(jsonError(r).code).toBe('E_STORE_DB')
      else expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2)
    }
  })
})

describe('fleet flags without a server', () => {
  it('a --store-url that is not a PostgreSQL URL (another scheme, no URL, a port past 65535) is a usage error, password unshown', async () => {
    for (const bad of ['mysql://u:Sekr3t-1@127.0.0.1/db', 'notaurl', 'postgres://u:Sekr3t-1@127.0.0.1:99999/db', 'postgres://u:Sekr3t-1@[bad/db']) {
      const r = await runCli(['sessions', 'list', '--store-url', bad], {env: env()})
      expect(r.code, bad).toBe(2)
      expect(r.stderr).toMatch(/^Error: --store-url .* is not a PostgreSQL URL; give one like postgres:\/\/reader@db\.example:5432\/fleet, or libpq key=value pairs \(host=db\.example dbname=fleet user=reader\)\n$/)
      expect(r.stderr).not.toContain('Sekr3t-1')
    }
    // Another reachable-looking URL with nothing listening: a runtime failure (exit 1), still without the password.
    const down = await runCli(['sessions', 'history', 'main', '--store-url', 'postgres://u:Sekr3t-1@127.0.0.1:1/db'], {env: env()})
    expect(down.code).toBe(1)
    expect(down.stderr).toContain('could not connect to the fleet database at postgres://u@127.0.0.1:1/db: connect ECONNREFUSED')
    expect(down.stderr).not.toContain('Sekr3t-1')
  })

  it('sync --to, CLAWKIT_STORE_URL and --store-url refuse a URL of another scheme (http://x) as a usage error before any connection or DNS lookup', async () => {
    const state = copyFixture(TWO_AGENTS)
    const runs = [
      await runCli(['sync', '--to', 'http://x', '--state-dir', state, '--json'], {env: env()}),
      await runCli(['sync', '--state-dir', state, '--json'], {env: baseEnv(tempDir(), {CLAWKIT_STORE_URL: 'http://u:Sekr3t-1@x/db'})}),
      await runCli(['sessions', 'list', '--store-url', 'http://x', '--json'], {env: env()}),
    ]
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2)
      expect(jsonError(r)).toMatchObject({code: 'E_BAD_STORE_URL'})
      expect(jsonError(r).message).toMatch(/is not a PostgreSQL URL; give one like postgres:\/\/reader@db\.example:5432\/fleet, or libpq key=value pairs \(host=db\.example dbname=fleet user=reader\)/)
      expect(r.stdout + r.stderr).not.toContain('Sekr3t-1')
    }
  })

  it('a libpq key=value connection string (as psql takes it) is read as one: it connects where it says, password unshown', async () => {
    // Nothing listens on port 1: the error names 127.0.0.1:1, which only a parsed string could give.
    for (const cmd of [['sessions', 'list', '--store-url'], ['sync', '--state-dir', copyFixture(TWO_AGENTS), '--to']]) {
      const r = await runCli([...cmd, "host=127.0.0.1 port = 1 dbname=fleet user=reader password='Sekr3t 1\\'x'", '--json'], {env: env()})
      expect(r.code, r.stderr).toBe(1)
      expect(jsonError(r).code).toBe('E_STORE_DB')
      expect(jsonError(r).message).toContain('connect ECONNREFUSED 127.0.0.1:1')
      expect(r.stdout + r.stderr).not.toContain('Sekr3t')
    }
    // A keyword clawkit's client cannot honour, a bad quote, or several hosts: a usage error naming it.
    for (const [bad, says] of [
      ['host=db.example dbname=fleet target_session_attrs=read-write', 'target_session_attrs'],
      ["host=db.example dbname='fleet", 'unterminated'],
      ['host=a.example,b.example dbname=fleet', 'several hosts'],
    ]) {
      const r = await runCli(['sessions', 'list', '--store-url', bad, '--json'], {env: env()})
      expect(r.code, bad).toBe(2)
      expect(jsonError(r)).toMatchObject({code: 'E_BAD_STORE_URL'})
      expect(jsonError(r).message).toContain(says)
    }
  })

  it('--store-url with --state-dir is refused (one or the other)', async () => {
    const r = await runCli(['sessions', 'list', '--store-url', 'postgres://nobody@127.0.0.1:1/x', '--state-dir', tempDir()], {env: env()})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('give one or the other')
  })
})
