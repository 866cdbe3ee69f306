// `agent -m` on a session whose transcript lock another live process holds: it says on stderr that it waits and for
// whom, and waits as OpenClaw does (the session write lock's acquire timeout, 10 s unless
// OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS says otherwise), not the 600 s turn timeout in silence.
import {spawn} from 'node:child_process'
import fs from 'node:fs'

import {afterEach, describe, expect, it} from 'vitest'

import {json, runCli, TWO_AGENTS} from '../support/cli.js'
import {agentEnvs, sessionFile, transcriptLines} from './setup.js'

const make = agentEnvs()
const children: Array<ReturnType<typeof spawn>> = []
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
})

/** A live process holding `<file>.lock` with OpenClaw's payload until it is told to let go (or killed). */
async function holdLock(file: string): Promise<{pid: number; release(): Promise<void>}> {
  const script = `
    const fs = require('node:fs')
    const lock = process.argv[1] + '.lock'
    const fd = fs.openSync(lock, 'wx')
    fs.writeSync(fd, JSON.stringify({pid: process.pid, createdAt: new Date().toISOString()}, null, 2))
    fs.closeSync(fd)
    process.stdout.write('locked\\n')
    process.stdin.once('data', () => { fs.rmSync(lock); process.exit(0) })
  `
  const child = spawn(process.execPath, ['-e', script, file], {stdio: ['pipe', 'pipe', 'inherit']})
  children.push(child)
  let out = ''
  child.stdout!.setEncoding('utf8').on('data', (d) => (out += d))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  for (let i = 0; i < 400 && !out.includes('locked'); i++) await new Promise((r) => setTimeout(r, 10))
  expect(out).toContain('locked')
  return {
    pid: child.pid!,
    async release() {
      child.stdin!.write('go\n')
      await exited
    },
  }
}

describe('agent -m on a transcript lock held by a live process', () => {
  it('by default waits the 10 s of OpenClaw\'s lock rule (not the 600 s turn timeout), saying so and naming the holder', async () => {
    const a = await make({fixture: TWO_AGENTS})
    const file = sessionFile(a.state, 'agent:main:main')
    const before = fs.readFileSync(file, 'utf8')
    const holder = await holdLock(file)
    const t0 = Date.now()
    const r = await a.run(['agent', '--agent', 'main', '-m', 'hi'], {timeoutMs: 40_000})
    const took = Date.now() - t0
    expect(r.code).toBe(1)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines[0]).toBe(`Waiting for pid ${holder.pid} (an OpenClaw run or another clawkit) to finish with this session; its lock is ${file}.lock. Giving up after 10 s.`)
    expect(lines[1]).toMatch(new RegExp(`^Error: session file locked \\(timeout 10000ms\\): pid=${holder.pid} `))
    expect(took).toBeGreaterThanOrEqual(10_000)
    expect(took).toBeLessThan(25_000)
    // Nothing ran and nothing was written.
    expect(a.mock.messageRequests()).toHaveLength(0)
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
  }, 45_000)

  it('OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS tunes the wait; under --json the notice is on stderr and the envelope on stdout', async () => {
    const a = await make({fixture: TWO_AGENTS})
    const file = sessionFile(a.state, 'agent:main:main')
    const holder = await holdLock(file)
    const r = await runCli(['agent', '--agent', 'main', '-m', 'hi', '--json', '--state-dir', a.state], {env: {...a.env, OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS: '1500'}})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`Waiting for pid ${holder.pid} `)
    expect(r.stderr).toContain('Giving up after 1.5 s.')
    expect(json(r).error).toMatchObject({code: 'E_LOCK_TIMEOUT', exitCode: 1})
    expect(json(r).error.message).toContain(`pid=${holder.pid}`)
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
    const turn = a.run(['agent', '--agent', 'main', '-m', 'after the wait'])
    await new Promise((r) => setTimeout(r, 1500))
    await holder.release()
    const r = await turn
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`Waiting for pid ${holder.pid} `)
    expect(r.stdout).toBe('Echo: after the wait\n')
    expect(transcriptLines(file).at(-1).message.content[0].text).toBe('Echo: after the wait')
  })
})
