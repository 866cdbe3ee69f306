import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, COMPACTION, copyFixture, json, jsonError, readIndexFile, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'

function expectedRow(stateDir: string, agent: string, key: string) {
  const entry = readIndexFile(sessionsJsonPath(stateDir, agent))[key]
  return {key, sessionId: entry.sessionId, updatedAt: entry.updatedAt, totalTokens: entry.totalTokens, inputTokens: entry.inputTokens, outputTokens: entry.outputTokens, contextTokens: entry.contextTokens, model: entry.model, modelProvider: entry.modelProvider}
}

/** OpenClaw 2026.4.x's row field order (cli-surface.md); a row leaves out the fields it has no value for. */
const ROW_ORDER = ['key', 'updatedAt', 'ageMs', 'sessionId', 'systemSent', 'abortedLastRun', 'thinkingLevel', 'verboseLevel', 'traceLevel', 'reasoningLevel', 'elevatedLevel', 'responseUsage', 'groupActivation', 'inputTokens', 'outputTokens', 'totalTokens', 'totalTokensFresh', 'model', 'modelProvider', 'providerOverride', 'modelOverride', 'contextTokens', 'agentId', 'kind']

describe('sessions list', () => {
  it('rows keep OpenClaw\'s field order with or without the rarely set fields (levels, overrides)', async () => {
    const state = tempDir()
    const dir = path.join(state, 'agents', 'main', 'sessions')
    fs.mkdirSync(dir, {recursive: true})
    const common = {sessionId: 's-common', updatedAt: 1_700_000_000_000, systemSent: true, inputTokens: 1, outputTokens: 2, totalTokens: 3, model: 'm', modelProvider: 'p', contextTokens: 1000}
    const every = {...common, sessionId: 's-every', updatedAt: 1_700_000_001_000, abortedLastRun: false, thinkingLevel: 'high', verboseLevel: 'on', traceLevel: 't', reasoningLevel: 'r', elevatedLevel: 'e', responseUsage: 'full', groupActivation: 'mention', providerOverride: 'po', modelOverride: 'mo'}
    const sparse = {sessionId: 's-sparse', verboseLevel: 'on'}
    fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify({'agent:main:a': common, 'agent:main:b': every, 'agent:main:c': sparse}, null, 2))
    const r = await runCli(['sessions', 'list', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code, r.stderr).toBe(0)
    const byKey = Object.fromEntries(json(r).sessions.map((s) => [s.key, s as Record<string, unknown>]))
    for (const key of ['agent:main:a', 'agent:main:b', 'agent:main:c']) {
      const fields = Object.keys(byKey[key])
      expect(fields, key).toEqual(ROW_ORDER.filter((f) => fields.includes(f)))
    }
    expect(Object.keys(byKey['agent:main:b'])).toEqual(ROW_ORDER)
    expect(byKey['agent:main:a']).not.toHaveProperty('thinkingLevel')
    expect(byKey['agent:main:c']).toMatchObject({verboseLevel: 'on', totalTokens: null, totalTokensFresh: false, kind: 'direct'})
    expect(byKey['agent:main:c']).not.toHaveProperty('updatedAt')
  })

  it('lists every fixture session of every agent with keys, ids, kinds and token figures from the files', async () => {
    for (const fixture of [TWO_AGENTS, COMPACTION]) {
      const state = copyFixture(fixture)
      const r = await runCli(['sessions', 'list', '--all-agents', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
      expect(r.code, r.stderr).toBe(0)
      const doc = json(r)
      expect(doc.path).toBeNull()
      expect(doc.allAgents).toBe(true)
      const expected: ReturnType<typeof expectedRow>[] = []
      for (const agent of fs.readdirSync(path.join(state, 'agents'))) {
        const file = sessionsJsonPath(state, agent)
        if (!fs.existsSync(file)) continue
        for (const key of Object.keys(readIndexFile(file))) expected.push(expectedRow(state, agent, key))
      }
      expect(doc.count).toBe(expected.length)
      expect(doc.sessions).toHaveLength(expected.length)
      for (const want of expected) {
        const row = doc.sessions.find((s) => s.key === want.key)
        expect(row, want.key).toMatchObject({...want, kind: 'direct', totalTokensFresh: true, agentId: want.key.split(':')[1]})
        expect(row!.ageMs).toBeGreaterThan(0)
      }
      // newest first
      const times = doc.sessions.map((s) => s.updatedAt)
      expect([...times].sort((a, b) => b! - a!)).toEqual(times)
    }
  })

  it('bare "sessions" lists the default agent store, like "openclaw sessions"', async () => {
    const state = copyFixture(TWO_AGENTS)
    const r = await runCli(['sessions', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    expect(doc.path).toBe(sessionsJsonPath(state, 'main'))
    expect(doc.sessions.map((s) => s.key)).toEqual(['agent:main:main'])
    expect(doc).not.toHaveProperty('allAgents')
  })

  it('prints OpenClaw-style rows: kind, key, age, model and the tokens cell', async () => {
    const state = copyFixture(COMPACTION)
    const r = await runCli(['sessions', 'list', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`Session store: ${sessionsJsonPath(state)}`)
    expect(r.stdout).toContain('Sessions listed: 2')
    expect(r.stdout).toMatch(/^Kind\s+Key\s+Age\s+Model\s+Tokens \(ctx %\)\s+Flags$/m)
    // 24756 / 48000 = 52%
    expect(r.stdout).toMatch(/^direct agent:main:main\s+\S+ ago\s+claude-small\s+25k\/48k \(52%\)\s+id:f1ea83b9-e3d9-43c8-b4e4-5d101bf3ee2f$/m)
    expect(r.stdout).toContain('agent:main:expli...000001')
    expect(r.stdout).not.toMatch(/\u001B\[/)
  })

  it('--limit caps rows; count is the rows returned and totalCount every match, as in OpenClaw 2026.9.6 (no silent 500 cap)', async () => {
    const state = tempDir()
    const store: Record<string, unknown> = {}
    const now = Date.now()
    for (let i = 0; i < 600; i++) store[`agent:main:telegram:group:${i}`] = {sessionId: `id-${i}`, updatedAt: now - i * 1000, chatType: 'group'}
    fs.mkdirSync(path.dirname(sessionsJsonPath(state)), {recursive: true})
    fs.writeFileSync(sessionsJsonPath(state), JSON.stringify(store, null, 2))
    const r = await runCli(['sessions', 'list', '--json', '--limit', '5', '--state-dir', state], {env: baseEnv(tempDir())})
    const doc = json(r)
    expect(doc).toMatchObject({count: 5, totalCount: 600, limitApplied: 5, hasMore: true})
    expect(doc.sessions.map((s) => s.key)).toEqual([0, 1, 2, 3, 4].map((i) => `agent:main:telegram:group:${i}`))
    expect(doc.sessions[0].kind).toBe('group')
    const all = json(await runCli(['sessions', 'list', '--json', '--state-dir', state], {env: baseEnv(tempDir())}))
    expect(all.sessions).toHaveLength(600)
    // Without --limit (clawkit's default is all) count and totalCount agree.
    expect(all).toMatchObject({count: 600, totalCount: 600, limitApplied: null, hasMore: false})
  })

  it('--active keeps recent rows and drops rows without updatedAt', async () => {
    const state = tempDir()
    const now = Date.now()
    fs.mkdirSync(path.dirname(sessionsJsonPath(state)), {recursive: true})
    fs.writeFileSync(
      sessionsJsonPath(state),
      JSON.stringify({'agent:main:main': {sessionId: 'a', updatedAt: now - 60_000}, 'agent:main:old': {sessionId: 'b', updatedAt: now - 3 * 3600_000}, global: {sessionId: 'c'}}, null, 2),
    )
    const doc = json(await runCli(['sessions', '--json', '--active', '10', '--state-dir', state], {env: baseEnv(tempDir())}))
    expect(doc.activeMinutes).toBe(10)
    expect(doc.sessions.map((s) => s.key)).toEqual(['agent:main:main'])
    const all = json(await runCli(['sessions', '--json', '--state-dir', state], {env: baseEnv(tempDir())}))
    expect(all.sessions.find((s) => s.key === 'global')!.kind).toBe('global')
  })

  it('rejects conflicting or invalid flags with OpenClaw messages and exit code 2', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const cases: [string[], string][] = [
      [['--agent', 'main', '--all-agents'], '--agent and --all-agents cannot be used together'],
      [['--store', '/tmp/x.json', '--agent', 'main'], '--store cannot be combined with --agent or --all-agents'],
      [['--agent', 'nobody'], 'Unknown agent id "nobody"; the agents here are main, work.'],
      [['--active', '0'], '--active must be a positive integer (minutes)'],
    ]
    for (const [flags, message] of cases) {
      const r = await runCli(['sessions', 'list', '--state-dir', state, ...flags], {env})
      expect(r.stderr).toContain(message)
      expect(r.code).not.toBe(0)
      const j = await runCli(['sessions', 'list', '--json', '--state-dir', state, ...flags], {env})
      expect(jsonError(j).message).toContain(message)
      expect(j.code).toBe(r.code)
    }
  })

  it('stale totals (totalTokensFresh: false): --json keeps the stored totalTokens as OpenClaw 2026.4.27 does; only the table says unknown', async () => {
    const state = tempDir()
    fs.mkdirSync(path.dirname(sessionsJsonPath(state)), {recursive: true})
    const now = Date.now()
    fs.writeFileSync(
      sessionsJsonPath(state),
      JSON.stringify({
        'agent:main:main': {sessionId: 'stale-1', updatedAt: now, totalTokens: 700, totalTokensFresh: false, contextTokens: 10_000},
        'agent:main:legacy': {sessionId: 'legacy-1', updatedAt: now - 1000, totalTokens: 800, contextTokens: 10_000},
        'agent:main:none': {sessionId: 'none-1', updatedAt: now - 2000, totalTokensFresh: false, contextTokens: 10_000},
      }, null, 2),
    )
    const env = baseEnv(tempDir())
    const byKey = Object.fromEntries(json(await runCli(['sessions', 'list', '--json', '--state-dir', state], {env})).sessions.map((s) => [s.key, s]))
    expect(byKey['agent:main:main']).toMatchObject({totalTokens: 700, totalTokensFresh: false})
    expect(byKey['agent:main:legacy']).toMatchObject({totalTokens: 800, totalTokensFresh: true})
    expect(byKey['agent:main:none']).toMatchObject({totalTokens: null, totalTokensFresh: false})
    const human = await runCli(['sessions', 'list', '--state-dir', state], {env})
    expect(human.stdout).toMatch(/^direct agent:main:main .* unknown\/10k \(\?%\)/m)
    // Below 1000 the count itself, as OpenClaw 2026.9's formatTokenCount prints it (2026.4 printed 0.8k).
    expect(human.stdout).toMatch(/^direct agent:main:legacy .* 800\/10k \(8%\)/m)
    // status follows OpenClaw's status JSON, where a stale total is null.
    const status = json(await runCli(['status', '--json', '--state-dir', state], {env}))
    expect(status.sessions.recent.find((r) => r.key === 'agent:main:main')).toMatchObject({totalTokens: null, totalTokensFresh: false, percentUsed: null, remainingTokens: null})
  })

  it('a state dir path with a bidi override (U+202E) is printed as <U+202E> in the headers of list, status and doctor', async () => {
    const state = copyFixture(TWO_AGENTS, path.join(tempDir(), 'st\u202Eate'))
    const env = baseEnv(tempDir())
    for (const cmd of [['sessions', 'list'], ['status'], ['doctor']]) {
      const r = await runCli([...cmd, '--state-dir', state], {env})
      expect(r.stdout, cmd.join(' ')).toContain('st<U+202E>ate')
      expect(r.stdout, cmd.join(' ')).not.toContain('\u202E')
    }
  })

  it('a missing sessions.json is an empty store, not an error', async () => {
    const state = tempDir()
    const r = await runCli(['sessions', 'list', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('No sessions found.')
  })
  it('--all-agents with one agent\'s index corrupt lists the others, names it in `unreadable` and on stderr, and exits 1', async () => {
    const state = copyFixture(TWO_AGENTS)
    const whole = json(await runCli(['sessions', 'list', '--all-agents', '--json', '--state-dir', state]))
    const work = sessionsJsonPath(state, 'work')
    fs.writeFileSync(work, '{"agent:work:main": {"sessionId": ')
    const r = await runCli(['sessions', 'list', '--all-agents', '--json', '--state-dir', state])
    expect(r.code, r.stderr).toBe(1)
    const doc = json(r)
    expect(doc.sessions.map((s) => s.key)).toEqual(whole.sessions.filter((s) => s.agentId !== 'work').map((s) => s.key))
    expect(doc.sessions.length).toBeGreaterThan(0)
    expect(doc.count).toBe(doc.sessions.length)
    expect(doc.unreadable).toEqual([{agentId: 'work', path: work, code: expect.stringMatching(/^E_/), message: expect.stringContaining(work)}])
    expect(r.stderr).toMatch(/^Warning: agent work was left out: .+; run "clawkit doctor" .*\n$/)
    // The table says the same, with the warning on stderr only.
    const t = await runCli(['sessions', 'list', '--all-agents', '--state-dir', state])
    expect(t.code).toBe(1)
    expect(t.stdout).not.toContain('Warning')
    expect(t.stderr).toContain('Warning: agent work was left out')
    // One agent asked for by name fails as before, and so does --all-agents when no agent can be read.
    const one = await runCli(['sessions', 'list', '--agent', 'work', '--json', '--state-dir', state])
    expect(one.code).toBe(1)
    expect(jsonError(one).code).toBe(doc.unreadable![0].code)
    fs.writeFileSync(sessionsJsonPath(state, 'main'), '[')
    const none = await runCli(['sessions', 'list', '--all-agents', '--json', '--state-dir', state])
    expect(none.code).toBe(1)
    expect(jsonError(none).message).toContain('sessions.json')
  })
})
