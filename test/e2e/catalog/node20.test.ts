// On a Node without node:sqlite (Node 20, or 22 before 22.15) there is no catalog: searches and usage scan as before,
// with the same --json documents, and say so once (per data dir) on stderr; `clawkit index` says why it cannot build.
// These run where that is the case (npm test's Node 20 pass); on Node 24 the catalog's own suites run instead.
import {describe, expect, it} from 'vitest'

import {baseEnv, json, jsonError, runCli, tempDir, TWO_AGENTS, copyFixture} from '../../support/cli.js'
import {SQLITE_OK} from '../../support/sqlite.js'

describe('without node:sqlite', () => {
  it.skipIf(SQLITE_OK)('search and usage scan and say so once per data dir on stderr, never on stdout; index fails with the reason, --status and --drop still answer', async () => {
    const env = baseEnv(tempDir())
    const state = copyFixture(TWO_AGENTS)
    const first = await runCli(['sessions', 'search', 'the', '--all-agents', '--json', '--state-dir', state], {env})
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).toMatch(/^clawkit: the local catalog needs node:sqlite \(Node 22\.15 or later\); this is Node 20\.[\d.]+; reading every transcript instead/)
    expect(json<{engine: string}>(first).engine).toBe('scan')
    const second = await runCli(['sessions', 'usage', '--all-agents', '--json', '--state-dir', state], {env})
    expect(second.code).toBe(0)
    expect(second.stderr).toBe('')
    expect(json<{source: string}>(second).source).toBe('scan')
    const index = await runCli(['index', '--json', '--state-dir', state], {env})
    expect(index.code).toBe(1)
    expect(jsonError(index).code).toBe('E_NODE_TOO_OLD')
    const status = await runCli(['index', '--status', '--json', '--state-dir', state], {env})
    expect(json<{catalog: {state: string; reason: string}}>(status).catalog).toMatchObject({state: 'unavailable', reason: expect.stringContaining('Node 22.15')})
    expect((await runCli(['index', '--drop', '--json', '--state-dir', state], {env})).code).toBe(0)
    expect((await runCli(['status', '--state-dir', state], {env})).stdout).toMatch(/Catalog\s+unavailable, needs Node 22\.15/)
  })
})
