// status never states a count it did not read: a store it could not read (a SQLite-era agent on Node 20, a damaged
// database, an index that does not parse) is "unknown", not "sessions 0 · no activity" and "no sessions yet".
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, json, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {freePort} from '../../support/net.js'
import {IMPORTED_96, SQLITE_OK} from '../../support/sqlite.js'

async function status(state: string, flags: string[] = []) {
  return runCli(['status', '--state-dir', state, ...flags], {env: baseEnv(tempDir(), {OPENCLAW_GATEWAY_PORT: String(await freePort())})})
}

/** The labelled line of the screen that starts with `label`, and the lines after the `Sessions` heading. */
function screen(stdout: string) {
  const lines = stdout.split('\n')
  const at = lines.lastIndexOf('Sessions')
  return {line: (label: string) => lines.find((l) => l.startsWith(label)) ?? '', sessions: lines.slice(at + 1).join('\n')}
}

function expectNothingClaimed(stdout: string, agents: string[]) {
  const s = screen(stdout)
  expect(s.line('Agents')).toContain(`sessions unknown (${agents.join(', ')} unreadable)`)
  expect(s.line('Agents')).not.toMatch(/sessions 0|no activity/)
  expect(s.sessions).not.toContain('no sessions yet')
  expect(s.sessions).toContain(`not read: the store${agents.length > 1 ? 's' : ''} of ${agents.join(', ')} could not be read (see Agents above)`)
}

describe('status with stores it cannot read', () => {
  it('a damaged SQLite database (any Node): sessions unknown, no "no sessions yet", "?" in the agents table, unreadable in --json', async () => {
    const state = copyFixture(TWO_AGENTS)
    // A database file that is not one: the agent is SQLite-era by its file, and its store cannot be opened.
    for (const a of ['main', 'work']) {
      fs.mkdirSync(path.join(state, 'agents', a, 'agent'), {recursive: true})
      fs.writeFileSync(path.join(state, 'agents', a, 'agent', 'openclaw-agent.sqlite'), 'not a database, just bytes '.repeat(200))
    }
    const r = await status(state, ['--all'])
    expect(r.code, r.stderr).toBe(0)
    expectNothingClaimed(r.stdout, ['main', 'work'])
    const table = r.stdout.split('\n').filter((l) => /^(main|work) /.test(l))
    expect(table).toHaveLength(2)
    for (const row of table) {
      expect(row.split(/\s+/)[2]).toBe('?')
      // A SQLite-era agent's transcripts are rows in its database: no file count is claimed for it.
      expect(row).toContain('in database')
    }
    const doc = json<{agents: {unreadable: string[]; agents: {id: string; storeError: string | null}[]}}>(await status(state, ['--json']))
    expect(doc.agents.unreadable).toEqual(['main', 'work'])
    expect(doc.agents.agents.every((a) => a.storeError !== null)).toBe(true)
  })

  it('an index that does not parse beside a readable one: "at least" the sessions read, and the agent line says unknown', async () => {
    const state = copyFixture(TWO_AGENTS)
    fs.writeFileSync(sessionsJsonPath(state, 'main'), '{"agent:main:main": {')
    const r = await status(state)
    expect(r.code, r.stderr).toBe(0)
    const s = screen(r.stdout)
    expect(s.line('Agents')).toContain('sessions at least 1 (main unreadable)')
    const mainLine = r.stdout.split('\n').find((l) => l.trimStart().startsWith('main:'))!
    expect(mainLine).toContain('main: sessions unknown (index unreadable)')
    expect(mainLine).not.toContain('0 session(s)')
    expect(s.sessions).toContain('agent:work:main')
    expect(s.sessions).toContain('main\'s sessions could not be read and are not listed')
    const doc = json<{agents: {unreadable: string[]}}>(await status(state, ['--json']))
    expect(doc.agents.unreadable).toEqual(['main'])
  })

  it.skipIf(SQLITE_OK)('a SQLite-era state dir on Node 20 (no node:sqlite): nothing counted is claimed', async () => {
    const r = await status(copyFixture(IMPORTED_96))
    expect(r.code, r.stderr).toBe(0)
    expectNothingClaimed(r.stdout, ['main', 'work'])
    expect(r.stdout).toContain('needs Node 22.15 or later')
  })

  it('a readable state dir is unchanged: unreadable is empty and the count is stated', async () => {
    const state = copyFixture(TWO_AGENTS)
    const r = await status(state)
    expect(screen(r.stdout).line('Agents')).toMatch(/sessions 2 · last activity/)
    expect(json<{agents: {unreadable: string[]}}>(await status(state, ['--json'])).agents.unreadable).toEqual([])
  })
})
