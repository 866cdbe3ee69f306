import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, ROOT, runCli, tempDir, TWO_AGENTS} from '../support/cli.js'

const HEAVY = ['@anthropic-ai/sdk', '/ora/', 'cli-table3']

describe('read commands stay light', () => {
  it.each([
    [['sessions', 'list', '--json']],
    [['sessions', 'list']],
    [['sessions', 'history', 'main', '--json']],
    [['sessions', 'history', 'main']],
    [['status', '--json']],
    [['doctor', '--json']],
  ])('%j imports neither the Anthropic SDK, ora nor cli-table3', async (args) => {
    const state = copyFixture(TWO_AGENTS)
    const trace = path.join(tempDir(), 'imports.txt')
    const env = baseEnv(tempDir(), {NODE_OPTIONS: `--import ${path.join(ROOT, 'test/support/trace-imports.mjs')}`, CLAWKIT_TRACE_IMPORTS: trace})
    const r = await runCli([...args, '--state-dir', state], {env})
    expect([0, 3], r.stderr).toContain(r.code) // doctor exits 3 on the fixture's warnings
    const loaded = fs.readFileSync(trace, 'utf8')
    expect(loaded).toContain(`/dist/commands/${args[0]}`) // the trace really saw the command load
    for (const heavy of HEAVY) expect(loaded, heavy).not.toContain(heavy)
  })

  it('the README quick-start command works on the committed demo state', async () => {
    const r = await runCli(['sessions', 'list', '--state-dir', 'examples/demo-state', '--all-agents'], {env: baseEnv(tempDir())})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Sessions listed: 3')
    expect(r.stdout).toMatch(/^main\s+group\s+agent:main:teleg\.\.\.567890/m)
  })

  it('colours the tokens cell only when asked (FORCE_COLOR) and never under NO_COLOR or a pipe', async () => {
    const state = copyFixture(TWO_AGENTS)
    const plain = await runCli(['sessions', 'list', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(plain.stdout).not.toMatch(/\u001B\[/)
    const forced = await runCli(['sessions', 'list', '--state-dir', state], {env: baseEnv(tempDir(), {NO_COLOR: undefined, FORCE_COLOR: '1'})})
    expect(forced.stdout).toMatch(/\u001B\[2m9\.7k\/200k \(5%\)\u001B\[22m/)
  })
})
