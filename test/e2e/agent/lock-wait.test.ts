// `agent -m` on a session whose transcript lock another live process holds: it says on stderr that it waits and for
// whom, and waits as OpenClaw does (the session write lock's acquire timeout, 10 s unless
// OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS says otherwise), not the 600 s turn timeout in silence.
import fs from 'node:fs'

import {afterEach, describe, expect, it} from 'vitest'

import {json, jsonError, runCli, startCli, TWO_AGENTS, waitUntil} from '../../support/cli.js'
import {holdLockInChild as holdLock, killLockHolders} from '../../support/locks.js'
import {agentEnvs, sessionFile, transcriptLines} from './setup.js'

const make = agentEnvs()
afterEach(killLockHolders)

describe('agent -m on a transcript lock held by a live process', () => {
  it('by default waits the 10 s of OpenClaw\'s lock rule (not the 600 s turn timeout), saying so and naming the holder', async () => {
    const a = await make({fixture: TWO_AGENTS})
    const file = sessionFile(a.state, 'agent:main:main')
    const before = fs.readFileSync(file, 'utf8')
    const holder = await holdLock(file)
    const t0 = Date.now()
    const r = await a.run(['agent', '--agent', 'main', '-m', 'hi'], {timeoutMs: 100_000})
    const took = Date.now() - t0
    expect(r.code).toBe(1)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines[0]).toBe(`Waiting for pid ${holder.pid} (an OpenClaw run or another clawkit) to finish with this session; its lock is ${file}.lock. Giving up after 10 s.`)
    expect(lines[1]).toMatch(new RegExp(`^Error: session file locked \\(timeout 10000ms\\): pid=${holder.pid} `))
    // It waited the full 10 s (a loaded machine only makes this longer), and far less than the 600 s turn timeout:
    // the upper bound is loose on purpose, as a busy 2-core CI can add many seconds of start-up.
    expect(took).toBeGreaterThanOrEqual(10_000)
    expect(took).toBeLessThan(90_000)
    // Nothing ran and nothing was written.
    expect(a.mock.messageRequests()).toHaveLength(0)
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
  }, 120_000)

  it('OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS tunes the wait; under --json the notice is on stderr and the envelope on stdout', async () => {
    const a = await make({fixture: TWO_AGENTS})
    const file = sessionFile(a.state, 'agent:main:main')
    const holder = await holdLock(file)
    const r = await runCli(['agent', '--agent', 'main', '-m', 'hi', '--json', '--state-dir', a.state], {env: {...a.env, OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS: '1500'}})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`Waiting for pid ${holder.pid} `)
    expect(r.stderr).toContain('Giving up after 1.5 s.')
    expect(jsonError(r)).toMatchObject({code: 'E_LOCK_TIMEOUT', exitCode: 1})
    expect(jsonError(r).message).toContain(`pid=${holder.pid}`)
  })

  it('a shorter --timeout ends the wait first (exit 124), and the notice says so', async () => {
    const a = await make({fixture: TWO_AGENTS})
    const holder = await holdLock(sessionFile(a.state, 'agent:main:main'))
    const r = await a.run(['agent', '--agent', 'main', '-m', 'hi', '--timeout', '1'])
    expect(r.code).toBe(124)
    expect(r.stderr).toContain(`Waiting for pid ${holder.pid} `)
    expect(r.stderr).toMatch(/Giving up after (1|0\.\d) s\./)
    expect(r.stderr).toContain('the turn was not run and nothing was written')
  })

  it('once the holder lets go the turn runs, after the notice', async () => {
    const a = await make({fixture: TWO_AGENTS})
    const file = sessionFile(a.state, 'agent:main:main')
    const holder = await holdLock(file)
    const turn = startCli(['agent', '--agent', 'main', '-m', 'after the wait', '--state-dir', a.state], {env: a.env})
    // Let go only once the turn says it waits: the release then happens mid-wait, whatever the machine's load.
    await waitUntil(() => turn.stderr().includes('Waiting for pid'), 'the "Waiting for pid" notice')
    await holder.release()
    const r = await turn.exited
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`Waiting for pid ${holder.pid} `)
    expect(r.stdout).toBe('Echo: after the wait\n')
    expect(transcriptLines(file).at(-1).message.content[0].text).toBe('Echo: after the wait')
  })
})
