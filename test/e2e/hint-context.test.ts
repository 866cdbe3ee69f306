// A hint that names a clawkit command keeps the user's context: after `--state-dir X` (or `--profile`, `--dev`) the
// command it suggests carries the same flag, so it can be pasted as it is and acts on the same state dir.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, jsonError, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../support/cli.js'
import {freePort} from '../support/net.js'

describe('hints keep the state dir the user named', () => {
  it('doctor\'s "--fix" line, an error\'s hint (human and --json), and status\'s doctor line carry --state-dir X', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir(), {OPENCLAW_GATEWAY_PORT: String(await freePort())})
    const doctor = await runCli(['doctor', '--state-dir', state], {env})
    expect(doctor.stdout).toContain(`Run "clawkit doctor --fix --state-dir ${state}" to repair`)
    const missing = await runCli(['sessions', 'history', 'agent:main:nope', '--state-dir', state], {env})
    expect(missing.stderr).toContain(`hint: List sessions with "clawkit sessions list --all-agents --state-dir ${state}".`)
    const j = await runCli(['sessions', 'history', 'agent:main:nope', '--state-dir', state, '--json'], {env})
    expect(jsonError(j).suggestions).toEqual([`List sessions with "clawkit sessions list --all-agents --state-dir ${state}".`])
    const status = await runCli(['status', '--state-dir', state], {env})
    expect(status.stdout).toContain(`run "clawkit doctor --state-dir ${state}" for all`)
  })

  it('a path that needs quoting is quoted for the shell; --profile and --dev are kept as given', async () => {
    const home = tempDir()
    const spaced = copyFixture(TWO_AGENTS, path.join(tempDir(), 'my state'))
    const env = baseEnv(home)
    const r = await runCli(['sessions', 'history', 'agent:main:nope', '--state-dir', spaced], {env})
    expect(r.stderr).toContain(`"clawkit sessions list --all-agents --state-dir '${spaced}'"`)
    copyFixture(TWO_AGENTS, path.join(home, '.openclaw-work'))
    expect((await runCli(['sessions', 'history', 'agent:main:nope', '--profile', 'work'], {env})).stderr).toContain('"clawkit sessions list --all-agents --profile work"')
    copyFixture(TWO_AGENTS, path.join(home, '.openclaw-dev'))
    expect((await runCli(['sessions', 'history', 'agent:main:nope', '--dev'], {env})).stderr).toContain('"clawkit sessions list --all-agents --dev"')
    // Nothing named: the hint is the plain command.
    expect((await runCli(['sessions', 'history', 'agent:main:nope'], {env: baseEnv(tempDir())})).stderr).toContain('"clawkit sessions list --all-agents".')
  })

  it('an unknown agent id names the agents there and points to "clawkit status" (not "openclaw agents list"), with the context', async () => {
    const state = copyFixture(TWO_AGENTS)
    const r = await runCli(['sessions', 'list', '--agent', 'nobody', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(`Error: Unknown agent id "nobody"; the agents here are main, work.\n  hint: "clawkit status --state-dir ${state}" shows each agent with its store.\n`)
    expect(r.stderr).not.toContain('openclaw agents list')
  })

  it('every line of doctor\'s human output that names a clawkit command carries the context, findings\' messages included', async () => {
    const state = copyFixture(TWO_AGENTS)
    const dir = path.dirname(sessionsJsonPath(state))
    // A stale lock (fixable: the "--fix" line) and a pid-less one's message that names "clawkit doctor".
    fs.writeFileSync(path.join(dir, 'sessions.json.lock'), JSON.stringify({pid: 999_999_999, createdAt: new Date(0).toISOString()}))
    const doctor = await runCli(['doctor', '--state-dir', state], {env: baseEnv(tempDir())})
    const naming = doctor.stdout.split('\n').filter((l) => l.includes('"clawkit '))
    expect(naming.length, doctor.stdout).toBeGreaterThan(0)
    for (const line of naming) expect(line, line).toMatch(new RegExp(`"clawkit [^"]*--state-dir ${state.replaceAll('/', '\\/')}"`))
  })
})
