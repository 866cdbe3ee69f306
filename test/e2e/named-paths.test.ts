// A state dir or store the user named (flag, env, profile) that does not exist is an error naming the path; OpenClaw's
// default dir, when nothing was named, may be missing quietly.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, json, jsonError, runCli, tempDir, TWO_AGENTS} from '../support/cli.js'

const COMMANDS: string[][] = [
  ['sessions', 'list'],
  ['sessions'],
  ['sessions', 'history', 'main'],
  ['sessions', 'reset', 'main'],
  ['status'],
  // The writers: a typo must not create a new state dir holding a paid turn or a mirrored send.
  ['agent', '-m', 'hi'],
  ['agent', '--agent', 'main', '-m', 'hi'],
  ['message', 'send', '--channel', 'webhook', '-t', 'http://127.0.0.1:9/hook', '-m', 'hi'],
]

/** The ways to name a state dir, with the path each must report (`home`: the HOME of the run, `missing`: a missing dir). */
function namings(home: string, missing: string): {args: string[]; env?: Record<string, string>; path: string; why: string}[] {
  return [
    {args: ['--state-dir', missing], path: missing, why: '--state-dir'},
    {args: [], env: {OPENCLAW_STATE_DIR: missing}, path: missing, why: 'OPENCLAW_STATE_DIR'},
    {args: ['--profile', 'nope'], path: path.join(home, '.openclaw-nope'), why: '--profile nope'},
    {args: ['--dev'], path: path.join(home, '.openclaw-dev'), why: '--dev'},
    {args: [], env: {OPENCLAW_PROFILE: 'nope'}, path: path.join(home, '.openclaw-nope'), why: 'OPENCLAW_PROFILE=nope'},
  ]
}

describe('named paths that do not exist', () => {
  // One test per way of naming (each runs every command, text and --json): one test for all of them ran 80 CLI
  // processes and reached its timeout on a loaded machine.
  for (const why of namings('', '').map((n) => n.why)) {
    it(`${why} naming a missing dir: exit 2 and the path, for list, history, reset, status, agent and message send, and nothing is created`, async () => {
      const home = tempDir()
      const missing = path.join(tempDir(), 'nonexistent')
      const c = namings(home, missing).find((n) => n.why === why)!
      const env = baseEnv(home, c.env)
      for (const cmd of COMMANDS) {
        const r = await runCli([...cmd, ...c.args], {env})
        const label = `${cmd.join(' ')} ${c.why}`
        expect(r.code, label).toBe(2)
        expect(r.stdout, label).toBe('')
        expect(r.stderr, label).toContain(`State directory not found: ${c.path}`)
        expect(r.stderr, label).toContain(c.why)
        const j = await runCli([...cmd, ...c.args, '--json'], {env})
        expect(j.code, label).toBe(2)
        expect(jsonError(j), label).toMatchObject({code: 'E_STATE_DIR_NOT_FOUND', exitCode: 2})
        expect(jsonError(j).message, label).toContain(c.path)
      }
      // Nothing was created on the way.
      expect(fs.existsSync(missing)).toBe(false)
      expect(fs.readdirSync(home).filter((n) => n.startsWith('.openclaw'))).toEqual([])
    })
  }

  it('a state dir that is a file is named as not a directory', async () => {
    const file = path.join(tempDir(), 'file')
    fs.writeFileSync(file, 'x')
    const r = await runCli(['sessions', 'list', '--state-dir', file], {env: baseEnv(tempDir())})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`State directory is not a directory: ${file}`)
  })

  it('--store naming a missing sessions.json: exit 2 naming the path; an existing one lists', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const missing = path.join(tempDir(), 'nonexistent', 'sessions.json')
    const r = await runCli(['sessions', 'list', '--store', missing, '--state-dir', state], {env})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`Session store not found: ${missing}`)
    expect(r.stdout).not.toContain('No sessions found')
    const j = await runCli(['sessions', 'list', '--store', missing, '--json'], {env})
    expect(jsonError(j)).toMatchObject({code: 'E_STORE_NOT_FOUND', exitCode: 2})
    const ok = await runCli(['sessions', 'list', '--store', path.join(state, 'agents', 'work', 'sessions', 'sessions.json'), '--json'], {env})
    expect(ok.code, ok.stderr).toBe(0)
    expect(json(ok).count).toBeGreaterThan(0)
  })

  it('nothing named and no ~/.openclaw: OpenClaw\'s default dir stays quiet (list prints no sessions, status exits 0)', async () => {
    const env = baseEnv(tempDir())
    const list = await runCli(['sessions', 'list'], {env})
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toContain('No sessions found.')
    const status = await runCli(['status', '--json'], {env})
    expect(status.code, status.stderr).toBe(0)
    const history = await runCli(['sessions', 'history', 'main'], {env})
    expect(history.code).toBe(1)
    expect(history.stderr).toContain('Session not found: main')
  })
})
