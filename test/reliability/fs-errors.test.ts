// File-system errors name their file and say what to do: a full disk for real (a small tmpfs, only where this process
// may mount one: root with CAP_SYS_ADMIN; skipped cleanly elsewhere), a directory where a transcript belongs. An agent
// turn that is stored but whose index update failed still gives the user the reply (also tested without a mount).
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {afterAll, afterEach, describe, expect, it} from 'vitest'

import {agentEnvs, transcriptLines} from '../e2e/agent/setup.js'
import {copyFixture, json, jsonError, runCli, sessionsJsonPath, TWO_AGENTS} from '../support/cli.js'

const mounts: string[] = []

/** CAP_SYS_ADMIN (bit 21 of CapEff) in this process: without it mount(2) fails, so nothing is tried. */
function hasSysAdmin(): boolean {
  try {
    const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1]
    return hex !== undefined && (BigInt(`0x${hex}`) & (1n << 21n)) !== 0n
  } catch {
    return false
  }
}

/** A fresh tmpfs of `size`, or the reason none can be mounted here (not root, no mount(8), a container without CAP_SYS_ADMIN). */
function mountTmpfs(size: string): string | {skip: string} {
  if (process.platform !== 'linux') return {skip: 'tmpfs mounts need Linux'}
  if (!hasSysAdmin()) return {skip: 'no CAP_SYS_ADMIN (run as root to test ENOSPC on a tmpfs; the torn-index test below covers the stored turn without it)'}
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-enospc-'))
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], {encoding: 'utf8', timeout: 10_000})
  if (r.status !== 0) {
    fs.rmSync(dir, {recursive: true, force: true})
    return {skip: `cannot mount a tmpfs (${(r.error?.message ?? r.stderr).trim() || `mount exited ${r.status}`}); run as root with CAP_SYS_ADMIN to test ENOSPC`}
  }
  mounts.push(dir)
  return dir
}

function unmountAll(): void {
  for (const dir of mounts.splice(0)) {
    spawnSync('umount', ['-l', dir])
    fs.rmSync(dir, {recursive: true, force: true})
  }
}

/** Fills the file system of `dir` until only `leaveBytes` are free (tmpfs counts whole pages). */
function fillDevice(dir: string, leaveBytes: number): void {
  const avail = Number(fs.statfsSync(dir).bavail) * Number(fs.statfsSync(dir).bsize)
  const fd = fs.openSync(path.join(dir, 'filler'), 'w')
  const block = Buffer.alloc(64 * 1024)
  let left = Math.max(0, avail - leaveBytes)
  try {
    while (left > 0) left -= fs.writeSync(fd, block, 0, Math.min(block.length, left))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
  } finally {
    fs.closeSync(fd)
  }
}

const probe = mountTmpfs('64k')
const skipReason = typeof probe === 'string' ? undefined : probe.skip
unmountAll()

afterEach(unmountAll)
afterAll(unmountAll)

describe.skipIf(skipReason !== undefined)(`ENOSPC on a real tmpfs${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const setup = agentEnvs()

  /** The two-agents fixture on a 2 MB tmpfs, with main's index padded to ~300 KB so that rewriting it cannot fit. */
  function fullState(leaveBytes: number): string {
    const mnt = mountTmpfs('2m') as string
    const state = copyFixture(TWO_AGENTS, path.join(mnt, 'state'))
    const file = sessionsJsonPath(state)
    const index = JSON.parse(fs.readFileSync(file, 'utf8'))
    index['agent:main:padding'] = {sessionId: 'padding-0001', updatedAt: 1, note: 'x'.repeat(300_000)}
    fs.writeFileSync(file, JSON.stringify(index, null, 2))
    fillDevice(mnt, leaveBytes)
    return state
  }

  for (const asJson of [false, true]) {
    it(`agent -m: the turn fits, the index rewrite does not: the error names sessions.json and the transcript, and the reply is kept${asJson ? ' (--json has the reply and the error)' : ''}`, async () => {
      const e = await setup()
      const state = fullState(64 * 1024)
      e.mock.push({kind: 'text', text: 'a reply worth keeping'})
      const r = await runCli(['agent', '-m', 'hi', '--agent', 'main', ...(asJson ? ['--json'] : []), '--state-dir', state], {env: {...e.env, ANTHROPIC_BASE_URL: e.mock.url}})
      expect(r.code).toBe(1)
      const transcript = path.join(path.dirname(sessionsJsonPath(state)), '0caed29d-8df6-4457-a9cd-00bb9d2b22e3.jsonl')
      const last = transcriptLines(transcript).at(-1)
      expect(last.message).toMatchObject({role: 'assistant', content: [{type: 'text', text: 'a reply worth keeping'}], stopReason: 'stop'})
      const message = `The turn is stored in ${transcript}, but the session index could not be updated: Cannot write ${sessionsJsonPath(state)}: no space left on the device (ENOSPC).`
      if (asJson) {
        const doc = json(r)
        expect(doc.payloads).toEqual([{text: 'a reply worth keeping', mediaUrl: null}])
        expect(doc.meta.agentMeta.sessionFile).toBe(transcript)
        expect(doc.error).toMatchObject({code: 'E_ENOSPC', exitCode: 1, message})
        expect(doc.error!.suggestions![0]).toContain('do not send the message again')
      } else {
        expect(r.stdout).toBe('a reply worth keeping\n')
        const lines = r.stderr.trimEnd().split('\n')
        expect(lines).toEqual([`Error: ${message}`, expect.stringMatching(/^ {2}hint: free disk space; do not send the message again/)])
      }
    })
  }

  it('a device with no room at all: every writer names the file it could not write, never a bare "ENOSPC: ..., write"', async () => {
    const e = await setup()
    const state = fullState(0)
    const env = {...e.env, ANTHROPIC_BASE_URL: e.mock.url}
    // Each writer with the exit code it fails with and, under --json, its error code. Doctor is no failing command: its
    // --json document lists the repair that could not be written as a finding (no error envelope) and exits 3, findings left.
    const cases: [string[], number, string | undefined][] = [
      [['agent', '-m', 'hi', '--agent', 'main'], 1, undefined],
      [['agent', '-m', 'hi', '--agent', 'main', '--json'], 1, 'E_ENOSPC'],
      [['sessions', 'reset', 'main'], 1, undefined],
      [['sessions', 'reset', 'main', '--json'], 1, 'E_ENOSPC'],
      [['doctor', '--fix', '--yes', '--json'], 3, undefined],
    ]
    for (const [args, code, jsonCode] of cases) {
      const r = await runCli([...args, '--state-dir', state], {env})
      const text = args.includes('--json') ? r.stdout : r.stderr
      expect(text, args.join(' ')).not.toMatch(/ENOSPC: no space left on device, write/)
      expect(text, args.join(' ')).toMatch(new RegExp(`Cannot [a-z ]+ ${state.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\S+: no space left on the device \\(ENOSPC\\)`))
      expect(r.code, args.join(' ')).toBe(code)
      if (args.includes('--json')) expect((JSON.parse(r.stdout) as {error?: {code: string}}).error?.code, args.join(' ')).toBe(jsonCode)
    }
    expect(e.mock.messageRequests()).toHaveLength(0)
  })
})

describe('file-system errors name their file', () => {
  it('a directory named like the transcript: history (text and --json) names it and says what to do, not a bare EISDIR', async () => {
    const state = copyFixture(TWO_AGENTS)
    const transcript = path.join(path.dirname(sessionsJsonPath(state)), '0caed29d-8df6-4457-a9cd-00bb9d2b22e3.jsonl')
    fs.rmSync(transcript)
    fs.mkdirSync(transcript)
    const r = await runCli(['sessions', 'history', 'main', '--state-dir', state])
    expect(r.code).toBe(1)
    // One line: the path, what it is, and what to do (the regular-file check refuses it before any read).
    expect(r.stderr.trimEnd().split('\n')).toEqual([`Error: Transcript ${transcript} is a directory, not a regular file; clawkit only reads regular files. Move it out of the sessions directory (the session then reads as empty) or put the real transcript file in its place.`])
    expect(r.stderr).not.toMatch(/illegal operation on a directory/)
    const error = jsonError(await runCli(['sessions', 'history', 'main', '--json', '--state-dir', state]))
    expect(error).toMatchObject({code: 'E_NOT_A_FILE', exitCode: 1})
    expect(error.message).toContain(transcript)
  })
})

// No mount needed: a real failure any user can cause. While the model call is in flight, another program leaves
// sessions.json unparseable (a torn, non-atomic write); the turn is already in the transcript, the index update
// after it must refuse to overwrite what it cannot read, and the user still gets the reply and a one-line error.
describe('an index made unreadable during the turn (TurnStoredError without a tmpfs)', () => {
  const setup = agentEnvs()
  const TORN = '{\n  "agent:main:main": {\n    "sessionId": "0caed29d-8df6-4457-a9cd'

  for (const asJson of [false, true]) {
    it(`agent -m: sessions.json torn mid-turn: the reply is printed and stored, the torn index is left as it is, exit 1${asJson ? ' (--json has the reply and the error)' : ''}`, async () => {
      let file = ''
      const e = await setup({fixture: TWO_AGENTS, mock: {fallback: () => (fs.writeFileSync(file, TORN), {kind: 'text', text: 'a reply worth keeping'})}})
      file = sessionsJsonPath(e.state)
      const transcript = path.join(path.dirname(file), '0caed29d-8df6-4457-a9cd-00bb9d2b22e3.jsonl')
      const r = await e.run(['agent', '-m', 'hi', '--agent', 'main', ...(asJson ? ['--json'] : [])])
      expect(r.code, r.stderr).toBe(1)
      expect(e.mock.messageRequests()).toHaveLength(1)
      expect(transcriptLines(transcript).at(-1).message).toMatchObject({role: 'assistant', content: [{type: 'text', text: 'a reply worth keeping'}], stopReason: 'stop'})
      // Never lose data: the index the turn could not read is not rewritten.
      expect(fs.readFileSync(file, 'utf8')).toBe(TORN)
      const start = `The turn is stored in ${transcript}, but the session index could not be updated: `
      if (asJson) {
        const doc = json(r)
        expect(doc.payloads).toEqual([{text: 'a reply worth keeping', mediaUrl: null}])
        expect(doc.error!.exitCode).toBe(1)
        expect(doc.error!.message.startsWith(start), doc.error!.message).toBe(true)
        expect(doc.error!.message).toContain(file)
        expect(doc.error!.suggestions![0]).toContain('do not send the message again')
      } else {
        expect(r.stdout).toBe('a reply worth keeping\n')
        const lines = r.stderr.trimEnd().split('\n')
        expect(lines[0].startsWith(`Error: ${start}`), lines[0]).toBe(true)
        expect(lines[0]).toContain(file)
        expect(lines.slice(1)).toEqual([expect.stringMatching(/^ {2}hint: .*do not send the message again/)])
      }
    })
  }
})
