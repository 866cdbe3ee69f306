// One rule for whether a session's token total is fresh, in `sessions list` and `status` alike: the rule of the
// OpenClaw release whose store it is. A SQLite-era row follows 2026.9.6 (`totalTokensFresh === true` and
// `totalTokensVersion === 1`, resolveFreshSessionTotalTokens in its dist), so a row imported from 2026.4.27 (fresh, but
// without a version) is `unknown` in both, as `openclaw sessions` and `openclaw status` 2026.9.6 show it.
import {expect, it} from 'vitest'

import {baseEnv, copyFixture, json, runCli, tempDir} from '../../support/cli.js'
import {freePort} from '../../support/net.js'
import {describeSqlite, IMPORTED_96} from '../../support/sqlite.js'

describeSqlite('token freshness on a SQLite-era store', () => {
  it('the imported fixture: list and status agree on every row, in --json and in their tables', async () => {
    const state = copyFixture(IMPORTED_96)
    const env = baseEnv(tempDir(), {OPENCLAW_GATEWAY_PORT: String(await freePort())})
    const list = json(await runCli(['sessions', 'list', '--all-agents', '--json', '--state-dir', state], {env}))
    const status = json(await runCli(['status', '--json', '--state-dir', state], {env}))
    const listed = new Map(list.sessions.map((r) => [r.key, r.totalTokensFresh]))
    expect(status.sessions.recent.length).toBeGreaterThan(0)
    for (const r of status.sessions.recent) expect([r.key, r.totalTokensFresh]).toEqual([r.key, listed.get(r.key)])
    // The row the issue saw disagree: imported from 2026.4.27 (totalTokensFresh true, no totalTokensVersion).
    const work = status.sessions.recent.find((r) => r.key === 'agent:work:main')!
    expect(work).toMatchObject({totalTokensFresh: false, totalTokens: null, percentUsed: null, remainingTokens: null})
    const listTable = (await runCli(['sessions', 'list', '--all-agents', '--state-dir', state], {env})).stdout
    const statusTable = (await runCli(['status', '--state-dir', state], {env})).stdout
    const cell = (out: string) => /agent:work:main\s.*?((?:unknown|[\d.]+k?)\/\S+ \(\S+\))/.exec(out)?.[1]
    expect(cell(listTable)).toBe('unknown/200k (?%)')
    expect(cell(statusTable)).toBe('unknown/200k (?%)')
  })
})
