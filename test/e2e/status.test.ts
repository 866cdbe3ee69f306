import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, json, jsonError, runCli, tempDir, TWO_AGENTS} from '../support/cli.js'

describe('status command', () => {
  it('runs with an invalid config (like OpenClaw status) and says so', async () => {
    const state = copyFixture(TWO_AGENTS)
    const {writeFileSync} = await import('node:fs')
    writeFileSync(`${state}/openclaw.json`, '{ nope', {mode: 0o600})
    const r = await runCli(['status', '--json', '--state-dir', state], {env: baseEnv(tempDir(), {OPENCLAW_GATEWAY_PORT: '9'})})
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    expect(doc.configError).toContain('Config invalid')
    expect(doc.doctor.ids).toContain('config-invalid')
    // agents found on disk are still shown
    expect(doc.agents.agents.map((a: any) => a.id)).toEqual(['main', 'work'])
  })

  it('rejects unknown flags with exit 2 and keeps stdout clean under --json errors', async () => {
    const r = await runCli(['status', '--nope'], {env: baseEnv(tempDir())})
    expect(r.code).toBe(2)
    const j = await runCli(['status', '--json', '--profile', 'bad name'], {env: baseEnv(tempDir())})
    expect(j.code).toBe(2)
    expect(jsonError(j).code).toBe('E_BAD_PROFILE')
  })
})
