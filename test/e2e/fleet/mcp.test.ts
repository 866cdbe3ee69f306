// `clawkit mcp --store-url`: the same tools on the fleet replica (a real PostgreSQL holding two JSON-era hosts), each
// giving what its command gives with --store-url; host and allHosts work as --host and --all-hosts do.
import {afterAll, beforeAll, expect, it} from 'vitest'

import {baseEnv, COMPACTION, copyFixture, json, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {fleetRunners, seedHost} from '../../support/fleet-seed.js'
import {call, callError, connectMcp, type McpSession} from '../../support/mcp.js'
import {describePg, PG_PASSWORD, usePg} from '../../support/postgres.js'

const HOSTS: Record<string, string> = {}
let url = ''
const {fleet, ok} = fleetRunners(HOSTS, () => url)
const withoutAge = (doc: any) => ({...doc, sessions: doc.sessions.map(({ageMs: _a, ...row}: any) => row)})

describePg('clawkit mcp --store-url: the tools on the fleet replica', () => {
  const pg = usePg()
  let s: McpSession

  beforeAll(async () => {
    url = pg.db()
    HOSTS.alpha = copyFixture(TWO_AGENTS)
    HOSTS.beta = copyFixture(COMPACTION)
    for (const [host, stateDir] of Object.entries(HOSTS)) await seedHost(url, {host, stateDir})
    s = await connectMcp(['--store-url', url], baseEnv(tempDir()))
  }, 180_000)
  afterAll(async () => s?.close())

  it('each tool gives its command\'s --store-url --json: list, history, lineage, search, usage by host, export; the password appears nowhere', async () => {
    const cli = async (args: string[]) => json<any>(ok(await fleet([...args, '--json'])))
    expect(withoutAge(await call(s, 'sessions_list', {allHosts: true, allAgents: true, limit: 'all'}))).toEqual(withoutAge(await cli(['sessions', 'list', '--all-hosts', '--all-agents'])))
    expect(withoutAge(await call(s, 'sessions_list', {host: 'beta'}))).toEqual(withoutAge(await cli(['sessions', 'list', '--host', 'beta', '--limit', '50'])))
    expect(await call(s, 'sessions_history', {session: 'agent:work:main', limit: 3})).toEqual(await cli(['sessions', 'history', 'agent:work:main', '--limit', '3']))
    expect(await call(s, 'sessions_history', {session: 'main', host: 'beta', limit: 2, offset: 1})).toEqual(await cli(['sessions', 'history', 'main', '--host', 'beta', '--limit', '2', '--offset', '1']))
    expect(await call(s, 'sessions_lineage', {session: 'main', host: 'alpha'})).toEqual(await cli(['sessions', 'lineage', 'main', '--host', 'alpha']))
    expect(await call(s, 'sessions_search', {pattern: 'exec', allAgents: true})).toEqual(await cli(['sessions', 'search', 'exec', '--all-agents']))
    expect(await call(s, 'sessions_usage', {by: 'host', allAgents: true, limit: 'all'})).toEqual(await cli(['sessions', 'usage', '--by', 'host', '--all-agents']))
    const page = await call(s, 'sessions_export', {session: 'main', host: 'alpha', maxChars: 1000})
    expect(page).toMatchObject({host: 'alpha', key: 'agent:main:main', redacted: true})
    const md = ok(await fleet(['sessions', 'export', 'main', '--host', 'alpha', '--format', 'md']))
    expect(page.markdown.replace(/^- Exported: .*$/m, '')).toBe(md.stdout.slice(0, 1000).replace(/^- Exported: .*$/m, ''))
    // A session on two hosts needs --host, as the command says.
    const ambiguous = await fleet(['sessions', 'history', 'main', '--json'])
    expect(ambiguous.code).toBe(2)
    expect(await callError(s, 'sessions_history', {session: 'main'})).toEqual(json<any>(ambiguous).error)
    expect(s.stderr()).not.toContain(PG_PASSWORD)
  })
})
