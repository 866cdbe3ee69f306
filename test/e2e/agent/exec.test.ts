// The exec tool's process handling, directly and through a CLI turn: timeouts, aborts and background jobs.
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {runTool} from '../../../src/agent/tools.js'
import {tempDir} from '../../support/cli.js'
import {agentEnvs, providerConfig, sessionFile, store, transcriptLines} from './setup.js'

const policy = {write: false, exec: true}
const leftovers: number[] = []

/** Running, not merely a zombie waiting to be reaped (kill(pid, 0) succeeds on zombies). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return true
  }
}

/** A SIGKILLed orphan is reaped by init asynchronously; poll (bounded) until it is gone. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 10))
  return !alive(pid)
}

function bgPid(text: string): number {
  const m = /bg=(\d+)/.exec(text)
  if (!m) throw new Error(`no bg pid in: ${text}`)
  leftovers.push(Number(m[1]))
  return Number(m[1])
}

const make = agentEnvs()
afterEach(async () => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  }
})

describe('exec tool process handling', () => {
  it('timeout kills the whole process group: `sleep 20; echo done` with timeout 1 returns a timeout error, and a background sleep dies too', async () => {
    const ws = tempDir()
    const out = await runTool('exec', {command: 'sleep 30 & echo bg=$!; sleep 20; echo done', timeout: 1}, {workspaceDir: ws}, policy)
    expect(out.isError).toBe(true)
    expect(out.text).toContain('timed out after 1 seconds')
    expect(out.text).not.toContain('done')
    expect(out.details).toMatchObject({status: 'failed', killed: 'timeout'})
    expect(await gone(bgPid(out.text))).toBe(true)
  }, 15_000)

  it('abort (Ctrl-C) kills the process group and settles the call even while a grandchild holds the output pipe', async () => {
    const ws = tempDir()
    const ac = new AbortController()
    const pending = runTool('exec', {command: 'sleep 30 & echo bg=$!; sleep 30'}, {workspaceDir: ws, signal: ac.signal}, policy)
    setTimeout(() => ac.abort(), 300)
    const out = await pending
    expect(out.isError).toBe(true)
    expect(out.text).toContain('Command aborted')
    expect(await gone(bgPid(out.text))).toBe(true)
  }, 15_000)

  it('a backgrounded child holding stdout (`sleep 30 & echo started`) does not hold the call: it returns while the job still runs', async () => {
    const ws = tempDir()
    const out = await runTool('exec', {command: 'sleep 30 & echo started bg=$!'}, {workspaceDir: ws}, policy)
    expect(out).toMatchObject({isError: false, details: {status: 'completed', exitCode: 0}})
    expect(out.text).toContain('started')
    // Returned before the 30 s job ended: the job is still alive now.
    expect(alive(bgPid(out.text))).toBe(true)
  }, 15_000)

  it('CLI: --timeout 2 while exec runs `sleep 20; echo done` -> exit 124 well before the sleep ends, tool result paired, lock released', async () => {
    const a = await make({config: (url) => providerConfig(url)})
    fs.mkdirSync(a.workspace, {recursive: true})
    a.mock.push({kind: 'toolUse', calls: [{name: 'exec', input: {command: 'sleep 30 & echo bg=$! > bg.txt; sleep 20; echo done'}}]}, {kind: 'text', text: 'never'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'run it', '--allow-exec', '--timeout', '2'], {timeoutMs: 15_000})
    expect(r.code, r.stderr).toBe(124)
    const file = sessionFile(a.state, 'agent:main:main')
    const msgs = transcriptLines(file).filter((l) => l.type === 'message').map((l) => l.message)
    const result = msgs.find((m) => m.role === 'toolResult')
    expect(result).toMatchObject({toolName: 'exec', isError: true})
    expect(result.content[0].text).not.toContain('done')
    expect(msgs.at(-1)).toMatchObject({role: 'assistant', stopReason: 'aborted', errorMessage: 'Request timed out.'})
    expect(store(a.state)['agent:main:main'].abortedLastRun).toBe(true)
    expect(fs.existsSync(`${file}.lock`)).toBe(false)
    expect(await gone(bgPid(fs.readFileSync(path.join(a.workspace, 'bg.txt'), 'utf8')))).toBe(true)
  }, 20_000)
})
