import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {baseEnv, COMPACTION, copyFixture, json, readIndexFile, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {freePort} from '../../support/net.js'

async function status(state: string, flags: string[] = [], extraEnv: Record<string, string> = {}) {
  const r = await runCli(['status', '--json', '--state-dir', state, ...flags], {env: baseEnv(tempDir(), {OPENCLAW_GATEWAY_PORT: String(await freePort()), ...extraEnv})})
  return {r, doc: json(r)}
}

const servers: net.Server[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()))
})

describe('status --json', () => {
  it('mirrors OpenClaw\'s sessions summary: paths, count, defaults, recent and byAgent with remainingTokens and percentUsed', async () => {
    const state = copyFixture(TWO_AGENTS)
    const {r, doc} = await status(state)
    expect(r.code, r.stderr).toBe(0)
    const mainEntry = readIndexFile(sessionsJsonPath(state, 'main'))['agent:main:main']
    const workEntry = readIndexFile(sessionsJsonPath(state, 'work'))['agent:work:main']
    expect(doc.stateDir).toBe(state)
    expect(doc.stateDirReason).toBe('--state-dir flag')
    expect(doc.configPath).toBe(path.join(state, 'openclaw.json'))
    expect(doc.sessions.paths).toEqual([sessionsJsonPath(state, 'main'), sessionsJsonPath(state, 'work')])
    expect(doc.sessions.count).toBe(2)
    expect(doc.sessions.defaults).toEqual({model: 'claude-mock', contextTokens: 200_000})
    expect(doc.sessions.recent.map((s: any) => s.key)).toEqual(['agent:work:main', 'agent:main:main'])
    expect(doc.sessions.recent[1]).toMatchObject({
      agentId: 'main',
      kind: 'direct',
      sessionId: mainEntry.sessionId,
      updatedAt: mainEntry.updatedAt,
      totalTokens: mainEntry.totalTokens,
      totalTokensFresh: true,
      remainingTokens: 200_000 - Number(mainEntry.totalTokens),
      percentUsed: Math.round((Number(mainEntry.totalTokens) / 200_000) * 100),
      model: 'claude-mock',
      contextTokens: 200_000,
      flags: [`id:${mainEntry.sessionId}`],
    })
    expect(doc.sessions.recent[1].age).toBeGreaterThan(0)
    expect(doc.sessions.byAgent.map((a: any) => [a.agentId, a.path, a.count, a.recent.map((s: any) => s.key)])).toEqual([
      ['main', sessionsJsonPath(state, 'main'), 1, ['agent:main:main']],
      ['work', sessionsJsonPath(state, 'work'), 1, ['agent:work:main']],
    ])
    expect(doc.agents.defaultId).toBe('main')
    expect(doc.agents.totalSessions).toBe(2)
    const sizes = ['main', 'work'].map((a) => fs.statSync(path.join(state, 'agents', a, 'sessions', `${a === 'main' ? mainEntry.sessionId : workEntry.sessionId}.jsonl`)).size)
    expect(doc.agents.agents.map((a: any) => [a.id, a.sessionsCount, a.transcripts.files, a.transcripts.bytes, a.lastUpdatedAt])).toEqual([
      ['main', 1, 1, sizes[0], mainEntry.updatedAt],
      ['work', 1, 1, sizes[1], workEntry.updatedAt],
    ])
    expect(doc.transcripts).toEqual({files: 2, bytes: sizes[0] + sizes[1]})
    expect(doc.lastActivity).toMatchObject({key: 'agent:work:main', agentId: 'work', updatedAt: workEntry.updatedAt})
    // the moved fixture: cheap doctor checks see the relocated sessionFiles
    expect(doc.doctor).toEqual({errors: 0, warnings: 2, info: 0, ids: ['session-file-relocated'], checks: 'cheap'})
  })

  it('excludes the global and unknown keys (as OpenClaw status does) and keeps only the 10 newest in recent', async () => {
    const state = tempDir()
    const store: Record<string, unknown> = {global: {sessionId: 'g', updatedAt: Date.now()}, unknown: {sessionId: 'u', updatedAt: Date.now()}}
    for (let i = 0; i < 25; i++) store[`agent:main:telegram:group:${i}`] = {sessionId: `s-${i}`, updatedAt: 1_700_000_000_000 + i * 1000, chatType: 'group', fastMode: i % 2 === 0, elevatedLevel: 'on'}
    fs.mkdirSync(path.dirname(sessionsJsonPath(state)), {recursive: true})
    fs.writeFileSync(sessionsJsonPath(state), JSON.stringify(store, null, 2))
    const {doc} = await status(state)
    expect(doc.sessions.count).toBe(25)
    expect(doc.sessions.recent).toHaveLength(10)
    expect(doc.sessions.recent[0]).toMatchObject({key: 'agent:main:telegram:group:24', kind: 'group', totalTokens: null, remainingTokens: null, percentUsed: null})
    expect(doc.sessions.recent[0].flags).toEqual(['fast', 'elevated:on', 'id:s-24'])
    expect(doc.sessions.recent[1].flags).toEqual(['fast:off', 'elevated:on', 'id:s-23'])
    expect(doc.sessions.recent.some((s: any) => s.key === 'global' || s.key === 'unknown')).toBe(false)
  })

  it('a shared session.store serves two agents: rows go to the agent in the key, recent merges both, ties keep agent order, no updatedAt sorts last', async () => {
    const state = tempDir()
    const shared = path.join(state, 'shared', 'sessions.json')
    fs.mkdirSync(path.dirname(shared), {recursive: true})
    fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify({session: {store: shared}, agents: {list: [{id: 'main', default: true}, {id: 'work'}]}}))
    fs.writeFileSync(
      shared,
      JSON.stringify({
        'agent:work:b': {sessionId: 'b', updatedAt: 300},
        'agent:main:a': {sessionId: 'a', updatedAt: 100},
        'agent:main:d': {sessionId: 'd'},
        'agent:main:c': {sessionId: 'c', updatedAt: 300},
        'legacy-unscoped': {sessionId: 'l', updatedAt: 200},
      }),
    )
    const {doc} = await status(state)
    const keys = (rows: {key: string}[]) => rows.map((r) => r.key)
    expect(doc.sessions.count).toBe(5)
    expect(keys(doc.sessions.recent)).toEqual(['agent:main:c', 'agent:work:b', 'legacy-unscoped', 'agent:main:a', 'agent:main:d'])
    const byAgent = Object.fromEntries(doc.sessions.byAgent.map((a: {agentId: string; count: number; recent: {key: string}[]}) => [a.agentId, [a.count, keys(a.recent)]]))
    expect(byAgent).toEqual({main: [4, ['agent:main:c', 'legacy-unscoped', 'agent:main:a', 'agent:main:d']], work: [1, ['agent:work:b']]})
    expect(doc.sessions.recent.at(-1)).toMatchObject({key: 'agent:main:d', updatedAt: null, age: null})
    expect(doc.agents.agents.map((a: {id: string; lastUpdatedAt: number | null}) => [a.id, a.lastUpdatedAt])).toEqual([
      ['main', 300],
      ['work', 300],
    ])
  })

  it('gateway probe: a real listener on 127.0.0.1 is reachable (with the race warning); a closed port is not', async () => {
    const state = copyFixture(COMPACTION)
    const srv = net.createServer((sock) => sock.destroy())
    servers.push(srv)
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
    const {port} = srv.address() as net.AddressInfo
    const up = await status(state, [], {OPENCLAW_GATEWAY_PORT: String(port)})
    expect(up.doc.gateway).toMatchObject({host: '127.0.0.1', port, portSource: 'env', url: `ws://127.0.0.1:${port}`, reachable: true, error: null})
    expect(up.doc.gateway.warning).toContain('can race')
    expect(typeof up.doc.gateway.connectLatencyMs).toBe('number')
    const closed = await freePort()
    const down = await status(state, [], {OPENCLAW_GATEWAY_PORT: String(closed)})
    expect(down.doc.gateway).toMatchObject({port: closed, reachable: false, connectLatencyMs: null, warning: null})
    expect(down.doc.gateway.error).toContain('refused')
    const human = await runCli(['status', '--state-dir', state], {env: baseEnv(tempDir(), {OPENCLAW_GATEWAY_PORT: String(port)})})
    expect(human.stdout).toMatch(new RegExp(`^Gateway +listening on 127\\.0\\.0\\.1:${port} \\(\\d+ ms, port from env\\)$`, 'm'))
    expect(human.stdout).toContain('warning: A gateway is listening')
  })

  it('the gateway port comes from config gateway.port when the env var is unset', async () => {
    const state = copyFixture(COMPACTION)
    const port = await freePort()
    const cfg = path.join(state, 'openclaw.json')
    fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace(/^\{/, `{ gateway: { port: ${port} },`))
    const r = await runCli(['status', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(json(r).gateway).toMatchObject({port, portSource: 'config', reachable: false})
  })
})

describe('status (human)', () => {
  it('one screen: state dir and why, config, agents with store paths, usage, doctor line, sessions table; --all adds the agents table', async () => {
    const state = copyFixture(COMPACTION)
    const env = baseEnv(tempDir(), {OPENCLAW_GATEWAY_PORT: String(await freePort())})
    const r = await runCli(['status', '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    const out = r.stdout
    expect(out).toMatch(new RegExp(`^State dir +${state} \\(--state-dir flag\\)$`, 'm'))
    expect(out).toMatch(/^Agents +1 · default main · sessions 2 · last activity \S+ ago \(agent:main:main\)$/m)
    expect(out).toContain(`main: 2 session(s), 2 transcript(s)`)
    expect(out).toContain(sessionsJsonPath(state))
    expect(out).toMatch(new RegExp(`^Doctor +0 error\\(s\\), 2 warning\\(s\\), 0 info · cheap checks; run "clawkit doctor --state-dir ${state}" for all \\(session-file-relocated\\)$`, 'm'))
    expect(out).toMatch(/^Gateway +not listening on 127\.0\.0\.1:\d+ \(connection refused, port from env\)$/m)
    expect(out).toMatch(/^Key +Kind +Age +Model +Tokens$/m)
    expect(out).toMatch(/^agent:main:main +direct +\S+ ago +claude-small +25k\/48k \(52%\)$/m)
    // keys over 32 characters are shortened
    expect(out).toMatch(/^agent:main:explicit:0a1b2c3d-00… +direct/m)
    expect(out).not.toContain('Bootstrap file')
    const all = await runCli(['status', '--all', '--state-dir', state], {env})
    expect(all.stdout).toMatch(/^Agent +Bootstrap file +Sessions +Active +Transcripts +Store$/m)
    expect(all.stdout).toMatch(new RegExp(`^main +ABSENT +2 +\\S+ ago +2 / [\\d.]+ KiB +${sessionsJsonPath(state)}$`, 'm'))
  })

  it('an empty state dir: no sessions yet, exit 0', async () => {
    const state = tempDir()
    const r = await runCli(['status', '--state-dir', state], {env: baseEnv(tempDir(), {OPENCLAW_GATEWAY_PORT: String(await freePort())})})
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('no sessions yet')
  })
})
