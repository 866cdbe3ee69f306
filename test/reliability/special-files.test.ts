// Special files (FIFOs, directories, devices), unreadable locks and deeply nested JSON through the real CLI: every
// command ends within its timeout with one clear error naming the path, signals end it at once and leave no lock of
// its own behind, a garbage lock nobody holds is reclaimed, and a row too deep to write back is named, never dropped.
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import JSON5 from 'json5'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {DoctorResult} from '../../src/commands/doctor.js'
import {baseEnv, cliWith, copyFixture, type DocOf, json, jsonError, runCli, type RunningCli, type RunResult, startCli, tempDir, TWO_AGENTS, waitUntil} from '../support/cli.js'
import {writeLiveLock} from '../support/locks.js'
import {type MockAnthropic, startMockAnthropic} from '../support/mock-anthropic.js'

const STACK_RE = /^\s+at .+:\d+:\d+\)?$/m

let mock: MockAnthropic
beforeAll(async () => {
  // Every turn asks to read notes.txt first, so that a special file in the workspace reaches the read tool.
  mock = await startMockAnthropic({
    fallback: (body: any) => {
      const last = body.messages.at(-1)
      const afterTool = Array.isArray(last?.content) && last.content.some((b: any) => b.type === 'tool_result')
      return afterTool ? {kind: 'text', text: 'done'} : {kind: 'toolUse', calls: [{name: 'read', input: {path: 'notes.txt'}}]}
    },
  })
})
afterAll(async () => {
  await mock?.close()
})

interface World {
  root: string
  state: string
  sessions: string
  transcript: string
  workspace: string
  env: Record<string, string>
  run<const A extends readonly string[]>(args: A, opts?: {timeoutMs?: number; env?: Record<string, string>}): Promise<RunResult<DocOf<A>> & {ms: number}>
}

function world(): World {
  const root = tempDir('clawkit-special-')
  const state = copyFixture(TWO_AGENTS, path.join(root, 'state'))
  const sessions = path.join(state, 'agents', 'main', 'sessions')
  const id = JSON.parse(fs.readFileSync(path.join(sessions, 'sessions.json'), 'utf8'))['agent:main:main'].sessionId
  const workspace = path.join(root, 'workspace')
  fs.mkdirSync(workspace)
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'one\ntwo\n')
  // The fixture's workspace and provider point at /home/user and a fixed port: point both into this world.
  const configPath = path.join(state, 'openclaw.json')
  const config = JSON5.parse(fs.readFileSync(configPath, 'utf8'))
  config.agents.defaults.workspace = workspace
  config.models.providers.mockant.baseUrl = mock.url
  fs.writeFileSync(configPath, JSON.stringify(config, null, 2))
  const home = path.join(root, 'home')
  fs.mkdirSync(home)
  const env = baseEnv(home, {ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined})
  return {
    root,
    state,
    sessions,
    transcript: path.join(sessions, `${id}.jsonl`),
    workspace,
    env,
    async run<const A extends readonly string[]>(args: A, opts: {timeoutMs?: number; env?: Record<string, string>} = {}) {
      const started = Date.now()
      const r = await cliWith(['--state-dir', state], {env: {...env, ...opts.env}, cwd: home, timeoutMs: opts.timeoutMs ?? 20_000})(args)
      return {...r, ms: Date.now() - started}
    },
  }
}

/** Replace `file` by a FIFO (nobody ever writes to it: a blocking open of it never returns). */
function plantFifo(file: string): void {
  fs.rmSync(file, {force: true})
  // Node has no mkfifo; the coreutils binary is on every Linux CI image.
  if (spawnSync('mkfifo', [file]).status !== 0) throw new Error(`mkfifo ${file} failed`)
}

/** Lock files (and lock scratch files) in the sessions dir, except the ones a test planted. */
function locksIn(dir: string, except: string[] = []): string[] {
  return fs.readdirSync(dir).filter((n) => /\.lock($|\.)/.test(n) && !except.includes(path.join(dir, n)))
}

const COMMANDS: Array<{name: string; args: string[]}> = [
  {name: 'sessions list', args: ['sessions', 'list']},
  {name: 'sessions list --json', args: ['sessions', 'list', '--json']},
  {name: 'sessions history', args: ['sessions', 'history', 'main']},
  {name: 'sessions reset', args: ['sessions', 'reset', 'main']},
  {name: 'status', args: ['status']},
  {name: 'doctor --json', args: ['doctor', '--json']},
  {name: 'doctor --fix', args: ['doctor', '--fix', '--yes']},
  {name: 'agent -m', args: ['agent', '--agent', 'main', '-m', 'hi', '--timeout', '10']},
  {name: 'message send --dry-run', args: ['message', 'send', '--channel', 'telegram', '-t', '12345', '-m', 'hi', '--dry-run', '--json']},
]

/** Where a FIFO can sit: every path clawkit opens. */
const POSITIONS: Array<{name: string; plant: (w: World) => string}> = [
  {name: 'openclaw.json', plant: (w) => path.join(w.state, 'openclaw.json')},
  {name: 'sessions.json', plant: (w) => path.join(w.sessions, 'sessions.json')},
  {name: 'sessions.json.lock', plant: (w) => path.join(w.sessions, 'sessions.json.lock')},
  {name: 'transcript', plant: (w) => w.transcript},
  {name: 'transcript lock', plant: (w) => `${w.transcript}.lock`},
  {name: 'workspace file read by the agent', plant: (w) => path.join(w.workspace, 'notes.txt')},
  {name: 'workspace bootstrap file', plant: (w) => path.join(w.workspace, 'AGENTS.md')},
]

describe('special files never hang a command', () => {
  // One test per position (each runs every command on it): one test for all 63 runs took 37 s on a loaded machine.
  for (const p of POSITIONS) {
    it(`a FIFO as ${p.name}: every command ends within its timeout, with one clear error line and no lock of its own left behind`, async () => {
      const problems: string[] = []
      // Two at a time: the machine has two cores, and a hang shows up as a run killed at its timeout either way.
      for (let i = 0; i < COMMANDS.length; i += 2) {
        await Promise.all(
          COMMANDS.slice(i, i + 2).map(async (c) => {
            const w = world()
            const fifo = p.plant(w)
            plantFifo(fifo)
            const r = await w.run(c.args, {timeoutMs: 15_000})
            const label = `${c.name} with a FIFO as ${p.name}`
            if (r.signal) problems.push(`${label}: killed by ${r.signal} after ${r.ms} ms (hung)`)
            if (![0, 1, 2, 3, 4].includes(r.code ?? -1)) problems.push(`${label}: exit ${r.code}`)
            if (STACK_RE.test(r.stderr)) problems.push(`${label}: stack trace`)
            if (/Maximum call stack|EISDIR|E_UNEXPECTED/.test(r.stdout + r.stderr)) problems.push(`${label}: ${r.stderr.slice(0, 200)}`)
            const left = locksIn(w.sessions, [fifo])
            if (left.length > 0) problems.push(`${label}: left ${left.join(', ')}`)
          }),
        )
      }
      expect(problems).toEqual([])
    })
  }

  it('a FIFO as transcript, index, index lock or openclaw.json: the error names the path and says what it is', async () => {
    for (const [position, args] of [
      ['transcript', ['sessions', 'history', 'main']],
      ['sessions.json', ['sessions', 'list']],
      ['sessions.json', ['sessions', 'reset', 'main']],
      ['openclaw.json', ['sessions', 'list']],
    ] as const) {
      const w = world()
      const file = POSITIONS.find((p) => p.name === position)!.plant(w)
      plantFifo(file)
      const r = await w.run([...args])
      expect(r.signal, `${args.join(' ')} / ${position}`).toBeNull()
      expect(r.code).toBe(1)
      expect(r.stderr.split('\n')[0]).toContain(file)
      expect(r.stderr).toMatch(/is a FIFO \(named pipe\), not a regular file/)
    }
    // A FIFO named like the index lock: writers refuse it as a foreign lock, naming what it is.
    const wl = world()
    const lock = path.join(wl.sessions, 'sessions.json.lock')
    plantFifo(lock)
    const rl = await wl.run(['sessions', 'reset', 'main'])
    expect(rl.code).toBe(1)
    expect(rl.stderr.split('\n')[0]).toContain(`${lock} exists but is not a lock file (it is a FIFO (named pipe);`)
    // Through an in-dir symlink: the transcript is a link to a FIFO beside it.
    const w = world()
    const fifo = path.join(w.sessions, 'pipe.jsonl')
    plantFifo(fifo)
    fs.rmSync(w.transcript)
    fs.symlinkSync('pipe.jsonl', w.transcript)
    const r = await w.run(['sessions', 'history', 'main'])
    expect(r.signal).toBeNull()
    expect(r.stderr).toMatch(/is a FIFO \(named pipe\), not a regular file/)
  }, 60_000)

  it('doctor reports a FIFO transcript and a FIFO lock as findings (with the path), instead of hanging', async () => {
    const w = world()
    plantFifo(w.transcript)
    plantFifo(path.join(w.sessions, 'sessions.json.lock'))
    const r = await w.run(['doctor', '--json'])
    expect(r.signal).toBeNull()
    const doc = json(r)
    const ids = doc.findings.map((f: any) => `${f.id} ${f.path}`)
    expect(ids).toContain(`transcript-not-a-file ${w.transcript}`)
    expect(ids).toContain(`lock-not-a-file ${path.join(w.sessions, 'sessions.json.lock')}`)
  })

  it('a directory named like a transcript: history and agent name the path and what to do (no bare EISDIR)', async () => {
    const w = world()
    fs.rmSync(w.transcript)
    fs.mkdirSync(w.transcript)
    for (const args of [['sessions', 'history', 'main'], ['agent', '--agent', 'main', '-m', 'hi']]) {
      const r = await w.run(args)
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).not.toMatch(/EISDIR/)
      expect(r.stderr.split('\n')[0]).toBe(
        `Error: Transcript ${w.transcript} is a directory, not a regular file; clawkit only reads regular files. Move it out of the sessions directory (the session then reads as empty) or put the real transcript file in its place.`,
      )
    }
  })

  it('--store /dev/zero and session.store "/dev/zero": refused at once as a character device (memory stays bounded)', async () => {
    const w = world()
    const r1 = await w.run(['sessions', 'list', '--store', '/dev/zero'], {timeoutMs: 15_000})
    expect(r1.signal).toBeNull()
    expect(r1.stderr.split('\n')[0]).toMatch(/^Error: Session store \/dev\/zero is a character device, not a regular file/)
    const configPath = path.join(w.state, 'openclaw.json')
    const config = JSON.parse(fs.readFileSync(configPath, 'utf8'))
    config.session = {store: '/dev/zero'}
    fs.writeFileSync(configPath, JSON.stringify(config))
    for (const args of [['sessions', 'list'], ['sessions', 'history', 'main'], ['sessions', 'reset', 'main'], ['agent', '--agent', 'main', '-m', 'hi']]) {
      const r = await w.run(args, {timeoutMs: 15_000})
      expect(r.signal, args.join(' ')).toBeNull()
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stderr, args.join(' ')).toMatch(/Session store \/dev\/zero is a character device/)
    }
  }, 90_000)

  it('an openclaw.json or sessions.json far larger than any real one is refused with its size, before it is read', async () => {
    const w = world()
    const index = path.join(w.sessions, 'sessions.json')
    // Sparse files: the size is real, the disk use is not.
    fs.truncateSync(index, 600 * 1024 * 1024)
    const r = await w.run(['sessions', 'list'])
    expect(r.code).toBe(1)
    expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^Error: Session store ${index.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is 600 MiB, more than the 500 MiB clawkit reads as a whole`))
    const config = path.join(w.state, 'openclaw.json')
    fs.truncateSync(config, 20 * 1024 * 1024)
    const r2 = await w.run(['sessions', 'list'])
    expect(r2.code).toBe(1)
    expect(r2.stderr.split('\n')[0]).toBe(`Error: Config invalid: ${config}: it is over 16 MiB, far larger than any config. Fix the file (it is JSON5) or point OPENCLAW_CONFIG_PATH elsewhere.`)
  })
})

/** The CLI on this world, in the background: a test signals it while it waits or runs. */
function startIn(w: World, args: string[]): RunningCli {
  return startCli([...args, '--state-dir', w.state], {env: w.env})
}

/**
 * The target is that a signal ends the command within 1 s. That is measured and reported (a warning past
 * 1 s), but the hard bound is 5 s: a loaded 2-core CI can stall a process for longer than 1 s without any bug, while a
 * command that ignores the signal (waits out a 10 s lock or a 30 s model call) still fails it.
 */
function expectPromptExit(ms: number, what: string): void {
  if (ms > 1000) console.warn(`${what}: ended ${ms} ms after the signal (the target is 1 s)`)
  expect(ms, `${what}: ended ${ms} ms after the signal`).toBeLessThan(5000)
}

describe('signals end a waiting or running command at once (target 1 s) and release its locks', () => {
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    it(`${sig} while sessions reset waits for the index lock (holding the transcript lock): exits at once, transcript lock released`, async () => {
      const w = world()
      const storeLock = path.join(w.sessions, 'sessions.json.lock')
      writeLiveLock(storeLock)
      const child = startIn(w, ['sessions', 'reset', 'main'])
      // Reset takes the transcript lock, then waits on the index lock we hold: the signal lands in (or just before) that wait.
      await waitUntil(() => fs.existsSync(`${w.transcript}.lock`), 'reset to take the transcript lock')
      const sent = Date.now()
      child.kill(sig)
      const end = await child.exited
      expectPromptExit(end.at - sent, `reset, ${sig}`)
      expect(end.signal ?? end.code).not.toBe(0)
      expect(locksIn(w.sessions, [storeLock])).toEqual([])
    })

    it(`${sig} while agent -m waits for the transcript lock: exits at once, nothing written, no lock of its own left`, async () => {
      const w = world()
      const before = fs.readFileSync(w.transcript)
      writeLiveLock(`${w.transcript}.lock`)
      const child = startIn(w, ['agent', '--agent', 'main', '-m', 'hi', '--timeout', '60'])
      await waitUntil(() => child.stderr().includes('Waiting for pid'), 'the "Waiting for pid" notice')
      const sent = Date.now()
      child.kill(sig)
      const end = await child.exited
      expectPromptExit(end.at - sent, `agent lock wait, ${sig}`)
      expect(end.code).toBe(sig === 'SIGTERM' ? 143 : 130)
      expect(fs.readFileSync(w.transcript).equals(before)).toBe(true)
      expect(locksIn(w.sessions, [`${w.transcript}.lock`])).toEqual([])
    })
  }

  it('SIGTERM during a turn (the model is slow to answer): exits at once and releases the transcript lock', async () => {
    const slow = await startMockAnthropic({delayMs: 30_000})
    try {
      const w = world()
      const configPath = path.join(w.state, 'openclaw.json')
      const config = JSON.parse(fs.readFileSync(configPath, 'utf8'))
      config.models.providers.mockant.baseUrl = slow.url
      fs.writeFileSync(configPath, JSON.stringify(config))
      const child = startIn(w, ['agent', '--agent', 'main', '-m', 'hi', '--timeout', '60'])
      await waitUntil(() => slow.messageRequests().length > 0, 'the model request')
      expect(fs.existsSync(`${w.transcript}.lock`)).toBe(true)
      const sent = Date.now()
      child.kill('SIGTERM')
      const end = await child.exited
      expectPromptExit(end.at - sent, 'agent turn, SIGTERM')
      expect(end.code).toBe(143)
      expect(locksIn(w.sessions)).toEqual([])
    } finally {
      await slow.close()
    }
  })

  it('agent -m --timeout 2 with the transcript lock held: ends at its timeout (124), not after the lock timeout', async () => {
    const w = world()
    writeLiveLock(`${w.transcript}.lock`)
    const r = await w.run(['agent', '--agent', 'main', '-m', 'hi', '--timeout', '2'])
    // 124 and not the lock timeout's exit 1 (E_LOCK_TIMEOUT after 10 s): the turn's own timeout ended the wait.
    expect(r.code, r.stderr).toBe(124)
    expect(r.stderr).not.toMatch(/session file locked/)
    expect(locksIn(w.sessions, [`${w.transcript}.lock`])).toEqual([])
  })
})

describe('garbage and empty lock files', () => {
  // A fresh createdAt keeps OpenClaw's too-old rule out of it: only the missing pid and nobody holding the file count.
  const GARBAGE = ['garbage', '', '{"pid":-1}', '{"pid":"1234","createdAt":"<now>"}']

  for (const text of GARBAGE) {
    it(`lock file ${JSON.stringify(text)} that no process holds open: reset reclaims it, and doctor agrees it is stale`, async () => {
      const w = world()
      const lock = path.join(w.sessions, 'sessions.json.lock')
      fs.writeFileSync(lock, text.replace('<now>', new Date().toISOString()))
      const old = new Date(Date.now() - 10_000)
      fs.utimesSync(lock, old, old)
      const d = await w.run(['doctor', '--json'])
      const f = json<DoctorResult>(d).findings.find((x) => x.path === lock)
      expect(f).toMatchObject({id: 'stale-lock', fixable: true})
      expect(f!.details!.reasons).toContain('not-held')
      // A lock wait of 0 ms: reset succeeds only if it reclaims the lock on its first look, not after waiting.
      const r = await w.run(['sessions', 'reset', 'main'], {env: {OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS: '0'}})
      expect(r.code, r.stderr).toBe(0)
      expect(fs.existsSync(lock)).toBe(false)
    })
  }

  for (const content of ['garbage', '{"pid":-1}', '{"pid":0}']) {
    it(`a lock without a valid pid (${content}) that a live process holds open: the writer names that pid, and doctor says the same (held, leave it)`, async () => {
      const w = world()
      const lock = path.join(w.sessions, 'sessions.json.lock')
      fs.writeFileSync(lock, content)
      const fd = fs.openSync(lock, 'r')
      try {
        const r = await w.run(['sessions', 'reset', 'main'], {env: {OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS: '1500'}})
        expect(r.code).toBe(1)
        expect(r.stderr).toContain(`pid=${process.pid} ${lock}`)
        const d = await w.run(['doctor', '--json'])
        const f = json<DoctorResult>(d).findings.find((x) => x.path === lock)
        expect(f).toMatchObject({id: 'live-lock', details: {pid: process.pid}})
        expect(f!.message).toMatch(new RegExp(`^Lock held by live pid ${process.pid} .*Leave it`))
      } finally {
        fs.closeSync(fd)
      }
    })
  }
})

describe('deeply nested JSON', () => {
  function addDeepRow(w: World, depth: number): string {
    const index = path.join(w.sessions, 'sessions.json')
    // Built as text: JSON.stringify itself cannot write it.
    const text = fs.readFileSync(index, 'utf8').replace(/\n}\s*$/, `,\n  "agent:main:deep": {\n    "sessionId": "deep1",\n    "updatedAt": 1,\n    "x": ${'['.repeat(depth)}${']'.repeat(depth)}\n  }\n}`)
    fs.writeFileSync(index, text)
    return index
  }

  it('a row with 5 000-deep arrays: reads work, every writer refuses with an error naming the file and the row, and nothing is dropped', async () => {
    const w = world()
    const index = addDeepRow(w, 5000)
    const before = fs.readFileSync(index)
    const list = await w.run(['sessions', 'list', '--json'])
    expect(list.code, list.stderr).toBe(0)
    expect(json(list).count).toBe(2)
    for (const args of [['sessions', 'reset', 'main'], ['agent', '--agent', 'main', '-m', 'hi'], ['sessions', 'reset', 'main', '--json']]) {
      const r = await w.run(args)
      expect(r.code, args.join(' ')).toBe(1)
      const message = args.includes('--json') ? jsonError(r).message : r.stderr.split('\n')[0]
      expect(message).toContain(`Cannot write ${index}: the row "agent:main:deep" is nested too deeply`)
      expect(message).not.toMatch(/Maximum call stack/)
      expect(fs.readFileSync(index).equals(before)).toBe(true)
    }
  })

  it('tool-call arguments 5 000 deep in a transcript: history shows a note, agent refuses naming the entry and writes nothing', async () => {
    const w = world()
    const leaf = JSON.parse(fs.readFileSync(w.transcript, 'utf8').trimEnd().split('\n').at(-1)!).id
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`
    fs.appendFileSync(w.transcript, `{"type":"message","id":"deep0001","parentId":${JSON.stringify(leaf)},"timestamp":"2026-11-25T22:00:00.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_1","name":"read","arguments":{"path":${deep}}}],"provider":"mockant","model":"claude-mock","stopReason":"toolUse","timestamp":1}}\n`)
    const before = fs.readFileSync(w.transcript)
    const h = await w.run(['sessions', 'history', 'main', '--json'])
    expect(h.code, h.stderr).toBe(0)
    expect(json(h).entries.at(-1)!.toolCalls![0]!.arguments).toBe('[nested too deeply to show]')
    const a = await w.run(['agent', '--agent', 'main', '-m', 'hi'])
    expect(a.code).toBe(1)
    expect(a.stderr.split('\n')[0]).toBe(
      `Error: Transcript ${w.transcript} holds an entry (id "deep0001") nested too deeply (thousands of levels) to be sent to the model as JSON. Nothing was sent or written. Remove that line from the transcript by hand, or start over with "clawkit sessions reset agent:main:main --state-dir ${w.state}".`,
    )
    expect(fs.readFileSync(w.transcript).equals(before)).toBe(true)
    expect(mock.messageRequests().some((r: any) => JSON.stringify(r.body).includes('deep0001'))).toBe(false)
  })

  const DEEP = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
  const DEEP_CASES: Array<[string, (w: World) => void]> = [
    ['as the whole index', (w) => fs.writeFileSync(path.join(w.sessions, 'sessions.json'), DEEP)],
    ['in a row', (w) => addDeepRow(w, 100_000)],
    ['in openclaw.json', (w) => fs.writeFileSync(path.join(w.state, 'openclaw.json'), `{"x": ${DEEP}}`)],
  ]
  for (const [where, plant] of DEEP_CASES) {
    it(`100 000-deep arrays ${where}: one clear error or a normal result, never E_UNEXPECTED`, async () => {
      for (const args of [['sessions', 'list'], ['sessions', 'reset', 'main', '--json'], ['doctor', '--json']]) {
        const w = world()
        plant(w)
        const r = await w.run(args)
        const label = `${where}: ${args.join(' ')}`
        expect(r.signal, label).toBeNull()
        expect(r.stdout + r.stderr, label).not.toMatch(/Maximum call stack|E_UNEXPECTED/)
        expect(STACK_RE.test(r.stderr), label).toBe(false)
      }
    })
  }
})
