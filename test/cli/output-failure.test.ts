// stdout on a full device (`> /dev/full`): the command does its work, then says in one line that its output is lost,
// and exits 74; never a V8 stack trace, never a half-done command.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {agentEnvs, sessionFile, store, transcriptLines} from '../e2e/agent/setup.js'
import {baseEnv, BIN, copyFixture, readIndexFile, sessionsJsonPath, tempDir, TWO_AGENTS} from '../support/cli.js'

const FULL = '/dev/full'
const hasFull = fs.existsSync(FULL)

/** Runs the built CLI with its stdout fd opened on /dev/full, as the shell does for `> /dev/full`. */
function runToFull(args: string[], env: Record<string, string>): Promise<{code: number | null; stderr: string}> {
  const fd = fs.openSync(FULL, 'w')
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {env, stdio: ['ignore', fd, 'pipe']})
    fs.closeSync(fd)
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stderr})
    })
  })
}

function expectOutputFailure(r: {code: number | null; stderr: string}, label: string): void {
  expect(r.stderr, label).not.toMatch(/\n\s+at |node:internal|Node\.js v/)
  // autocomplete's progress line ("Building the autocomplete cache... done") is stderr output, not part of the error.
  const lines = r.stderr.trimEnd().split('\n').filter((l) => !l.startsWith('Building the autocomplete cache'))
  expect(lines, label).toHaveLength(2)
  expect(lines[0], label).toMatch(/^Error: .*completed, but its output could not be written to stdout \(ENOSPC: no space left on device\)\.$/)
  expect(lines[1], label).toMatch(/^ {2}hint: its work is done/)
  expect(r.code, label).toBe(74)
}

describe.skipIf(!hasFull)('stdout on a full device', () => {
  it('every command (text and --json) reports one line and exits 74 instead of a stack trace', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const commands: string[][] = [
      ['--version'],
      ['--help'],
      ['help', 'sessions'],
      ['sessions'],
      ['sessions', 'list'],
      ['sessions', 'list', '--json', '--all-agents'],
      ['sessions', 'history', 'main'],
      ['sessions', 'history', 'main', '--json'],
      ['status'],
      ['status', '--json'],
      ['message', 'send', '--channel', 'webhook', '-t', 'https://example.invalid/hook', '-m', 'hi', '--dry-run'],
      ['autocomplete', 'bash'],
    ]
    for (const args of commands) {
      const withState = args[0].startsWith('-') || args[0] === 'help' || args[0] === 'autocomplete' ? args : [...args, '--state-dir', state]
      expectOutputFailure(await runToFull(withState, env), args.join(' '))
    }
  }, 120_000)

  it('sessions reset resets (the new session is in the index), then says only that its output was lost', async () => {
    const state = copyFixture(TWO_AGENTS)
    const before = readIndexFile(sessionsJsonPath(state))['agent:main:main'].sessionId
    for (const args of [['sessions', 'reset', 'main'], ['sessions', 'reset', 'main', '--json']]) {
      const r = await runToFull([...args, '--state-dir', state], baseEnv(tempDir()))
      expectOutputFailure(r, args.join(' '))
      expect(r.stderr).toContain('"clawkit sessions reset" completed')
    }
    const after = readIndexFile(sessionsJsonPath(state))['agent:main:main']
    expect(after.sessionId).not.toBe(before)
    expect(fs.existsSync(path.join(state, 'agents', 'main', 'sessions', `${after.sessionId}.jsonl`))).toBe(true)
  })

  it('a command that ends with a code of its own keeps it: doctor with findings left exits 3, not 74', async () => {
    // The two-agents copy has warnings (relocated sessionFile paths, modes), so doctor's own code is 3.
    const state = copyFixture(TWO_AGENTS)
    for (const args of [['doctor'], ['doctor', '--json']]) {
      const r = await runToFull([...args, '--state-dir', state], baseEnv(tempDir()))
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at |node:internal/)
      expect(r.stderr.trimEnd().split('\n'), args.join(' ')).toEqual([
        'Error: "clawkit doctor" ended with exit code 3, and its output could not be written to stdout (ENOSPC: no space left on device).',
        "  hint: the exit code is the command's own; free space on that device or send the output elsewhere to see its report.",
      ])
      expect(r.code, args.join(' ')).toBe(3)
    }
  })

  it('a failing command keeps its own exit code and says that it failed', async () => {
    const r = await runToFull(['sessions', 'history', 'agent:main:nope', '--json', '--state-dir', copyFixture(TWO_AGENTS)], baseEnv(tempDir()))
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^Error: the command failed \(exit 1\), and its output could not be written to stdout/)
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(2)
  })
})

describe.skipIf(!hasFull)('agent -m with stdout on a full device', () => {
  const setup = agentEnvs()

  it('a timed-out turn keeps exit 124 (a script must still see the timeout), and its partial reply is stored', async () => {
    const e = await setup({fixture: TWO_AGENTS})
    e.mock.push({kind: 'stall', text: 'partial answer'})
    const r = await runToFull(['agent', '-m', 'slow', '--agent', 'main', '--timeout', '2', '--state-dir', e.state], e.env)
    expect(r.code).toBe(124)
    expect(r.stderr).toContain('"clawkit agent" ended with exit code 124, and its output could not be written to stdout')
    expect(r.stderr).not.toMatch(/\n\s+at |node:internal/)
    const last = transcriptLines(sessionFile(e.state, 'agent:main:main')).at(-1).message
    expect(last).toMatchObject({role: 'assistant', stopReason: 'aborted'})
  })

  for (const json of [false, true]) {
    it(`stores the paid reply before it reports the lost output${json ? ' (--json)' : ''}`, async () => {
      const e = await setup({fixture: TWO_AGENTS})
      e.mock.push({kind: 'text', text: 'the reply that was paid for'})
      const r = await runToFull(['agent', '-m', 'hi', '--agent', 'main', ...(json ? ['--json'] : []), '--state-dir', e.state], e.env)
      expectOutputFailure(r, 'agent')
      expect(r.stderr).toContain('"clawkit agent" completed')
      expect(e.mock.messageRequests()).toHaveLength(1)
      const lines = transcriptLines(sessionFile(e.state, 'agent:main:main'))
      const assistant = lines.filter((l) => l.type === 'message' && l.message.role === 'assistant').at(-1)
      expect(assistant.message.content).toEqual([{type: 'text', text: 'the reply that was paid for'}])
      expect(assistant.message.stopReason).toBe('stop')
      expect(lines.at(-2).message).toMatchObject({role: 'user', content: [{type: 'text', text: 'hi'}]})
      // The index update after the turn ran too.
      expect(store(e.state)['agent:main:main'].abortedLastRun).toBe(false)
    })
  }
})
