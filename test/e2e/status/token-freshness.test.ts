// One rule for whether a session's token total is fresh, in `sessions list` and `status` alike. A JSON-era row follows
// OpenClaw 2026.4.27 (resolveFreshSessionTotalTokens in its dist: fresh unless `totalTokensFresh === false`); the
// SQLite era's rule is in token-freshness.sqlite.test.ts.
import fs from 'node:fs'

import {expect, it} from 'vitest'

import {baseEnv, copyFixture, json, readIndexFile, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {freePort} from '../../support/net.js'

it('JSON era: a stale total (totalTokensFresh false) is unknown in both, one without the flag is fresh in both', async () => {
  const state = copyFixture(TWO_AGENTS)
  for (const [agent, fresh] of [['main', false], ['work', undefined]] as const) {
    const file = sessionsJsonPath(state, agent)
    const data = readIndexFile(file)
    const entry = data[`agent:${agent}:main`]
    if (fresh === undefined) delete entry.totalTokensFresh
    else entry.totalTokensFresh = fresh
    fs.writeFileSync(file, JSON.stringify(data, null, 2))
  }
  const env = baseEnv(tempDir(), {OPENCLAW_GATEWAY_PORT: String(await freePort())})
  const list = json(await runCli(['sessions', 'list', '--all-agents', '--json', '--state-dir', state], {env}))
  const status = json(await runCli(['status', '--json', '--state-dir', state], {env}))
  const pick = (rows: {key: string; totalTokensFresh: boolean}[]) => Object.fromEntries(rows.map((r) => [r.key, r.totalTokensFresh]))
  expect(pick(list.sessions)).toEqual({'agent:main:main': false, 'agent:work:main': true})
  expect(pick(status.sessions.recent)).toEqual(pick(list.sessions))
  const cell = (out: string, key: string) => new RegExp(`${key}\\s.*?((?:unknown|[\\d.]+k?)/\\S+ \\(\\S+\\))`).exec(out)?.[1]
  const listTable = (await runCli(['sessions', 'list', '--all-agents', '--state-dir', state], {env})).stdout
  const statusTable = (await runCli(['status', '--state-dir', state], {env})).stdout
  expect(cell(listTable, 'agent:main:main')).toBe('unknown/200k (?%)')
  expect(cell(statusTable, 'agent:main:main')).toBe('unknown/200k (?%)')
  expect(cell(statusTable, 'agent:work:main')).toBe(cell(listTable, 'agent:work:main'))
  expect(cell(statusTable, 'agent:work:main')).toMatch(/^[\d.]+k\/200k \(\d+%\)$/)
})
