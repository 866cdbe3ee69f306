// Wording a new user tripped over: doubled full stops, nested parentheses, "model unknown", and a reset with no preview.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, json, jsonError, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../support/cli.js'
import {freePort} from '../support/net.js'
import {snapshot} from '../support/state-files.js'

const MAIN_ID = '0caed29d-8df6-4457-a9cd-00bb9d2b22e3'

describe('messages built from other messages end each sentence once', () => {
  it('doctor on an index with an unterminated string: no ".." before "Every session"', async () => {
    const state = copyFixture(TWO_AGENTS)
    fs.writeFileSync(sessionsJsonPath(state), '{"agent:main:main": {"sessionId": "abc')
    const r = await runCli(['doctor', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    const f = json(r).findings.find((x: any) => x.id === 'store-corrupt')
    expect(f!.message).toMatch(/: Unterminated string\. Every session of this store/)
    expect(f!.message).not.toContain('..')
  })

  it('doctor on an entry whose sessionId cannot name a file: the embedded message is not followed by a second full stop', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = sessionsJsonPath(state)
    const data = JSON.parse(fs.readFileSync(file, 'utf8'))
    data['agent:main:bad'] = {sessionId: '../escape', updatedAt: 1}
    fs.writeFileSync(file, JSON.stringify(data, null, 2))
    const r = await runCli(['doctor', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    const f = json(r).findings.find((x: any) => x.key === 'agent:main:bad')
    expect(f!.message).toContain('Run "clawkit sessions reset agent:main:bad"')
    expect(f!.message).not.toMatch(/\.\. /)
  })

  it('clawkit settings that are not JSON: one full stop before "Fix or delete the file"', async () => {
    const home = tempDir()
    const dir = path.join(home, '.config', 'clawkit')
    fs.mkdirSync(dir, {recursive: true})
    fs.writeFileSync(path.join(dir, 'config.json'), '[1]')
    const r = await runCli(['sessions', 'list', '--state-dir', copyFixture(TWO_AGENTS)], {env: baseEnv(home)})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('are invalid: expected an object. Fix or delete the file.')
  })
})

describe('status wording', () => {
  it('the gateway line has no nested parentheses and says "not listening" once (the --json error keeps the probe\'s words)', async () => {
    const port = await freePort()
    const r = await runCli(['status', '--state-dir', copyFixture(TWO_AGENTS)], {env: baseEnv(tempDir(), {OPENCLAW_GATEWAY_PORT: String(port)})})
    expect(r.code, r.stderr).toBe(0)
    const line = r.stdout.split('\n').find((l) => l.startsWith('Gateway'))!
    expect(line).toMatch(new RegExp(`^Gateway +not listening on 127\\.0\\.0\\.1:${port} \\(connection refused, port from env\\)$`))
    expect(line).not.toMatch(/\([^)]*\(/)
    expect(line.match(/listening/g)).toHaveLength(1)
    const j = await runCli(['status', '--json', '--state-dir', copyFixture(TWO_AGENTS)], {env: baseEnv(tempDir(), {OPENCLAW_GATEWAY_PORT: String(port)})})
    expect(json(j).gateway).toMatchObject({reachable: false, error: 'connection refused, no gateway listening'})
  })

  it('with no config, Defaults shows the model a turn would use (anthropic/claude-opus-4-6), not "unknown"', async () => {
    const state = path.join(tempDir(), 'state')
    fs.mkdirSync(path.join(state, 'agents', 'main', 'sessions'), {recursive: true, mode: 0o700})
    const r = await runCli(['status', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.stdout).toMatch(/^Defaults +model claude-opus-4-6 \(200k ctx\)$/m)
    const j = await runCli(['status', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(json(j).sessions.defaults).toEqual({model: 'claude-opus-4-6', contextTokens: 200_000})
  })
})

describe('sessions reset --dry-run', () => {
  it('shows what would be reset and archived, changes nothing, and prints the plan document under --json', async () => {
    const state = copyFixture(TWO_AGENTS)
    const before = snapshot(state)
    const r = await runCli(['sessions', 'reset', 'main', '--dry-run', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code, r.stderr).toBe(0)
    const transcript = path.join(state, 'agents', 'main', 'sessions', `${MAIN_ID}.jsonl`)
    expect(r.stdout).toContain(`[dry-run] would reset agent:main:main: ${MAIN_ID} → a new session id`)
    expect(r.stdout).toContain(`Would archive ${transcript} as ${transcript}.reset.`)
    expect(r.stdout).toMatch(/Would clear: .*inputTokens/)
    expect(r.stdout).toContain('Nothing was changed.')
    const j = await runCli(['sessions', 'reset', 'agent:work:main', '--dry-run', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(j.code, j.stderr).toBe(0)
    const plan = json(j)
    expect(Object.keys(plan)).toEqual(['dryRun', 'key', 'agentId', 'previousSessionId', 'transcript', 'archivedTranscript', 'clearedFields'])
    expect(plan).toMatchObject({dryRun: true, key: 'agent:work:main', agentId: 'work', transcript: expect.stringMatching(/\.jsonl$/), archivedTranscript: expect.stringMatching(/\.jsonl\.reset\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d/)})
    expect(snapshot(state)).toEqual(before)
    const missing = await runCli(['sessions', 'reset', 'nope', '--dry-run', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(missing.code).toBe(1)
    expect(jsonError(missing).code).toBe('E_SESSION_NOT_FOUND')
  })
})
