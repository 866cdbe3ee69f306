// Who holds a pid-less lock open is found in /proc/<pid>/fd. stat() of such a link follows it to the file, which can
// hang on a dead network mount and costs a syscall per descriptor on the host; the link's text (readlink, which
// touches no filesystem) says which descriptors can be the lock at all. Counted with strace, on the real CLI: no
// timing involved.
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import type {DoctorResult} from '../../src/commands/doctor.js'
import {baseEnv, BIN, copyFixture, json, tempDir, TWO_AGENTS, waitUntil} from '../support/cli.js'

const straceWorks = process.platform === 'linux' && spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', 'true']).status === 0

const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
})

/** A live process with `lock` open (as its holder keeps it) and `extra` unrelated descriptors (/dev/null). */
async function holdOpen(lock: string, extra: number): Promise<number> {
  const script = `
    const fs = require('node:fs')
    const fds = []
    for (let i = 0; i < Number(process.argv[2]); i++) fds.push(fs.openSync('/dev/null', 'r'))
    // The lock last: a scan that stops at the first match still goes past every other descriptor.
    fds.push(fs.openSync(process.argv[1], 'r'))
    process.stdout.write('ready\\n')
    process.stdin.resume()
  `
  const child = spawn(process.execPath, ['-e', script, lock, String(extra)], {stdio: ['pipe', 'pipe', 'inherit']})
  children.push(child)
  let out = ''
  child.stdout!.setEncoding('utf8').on('data', (d) => (out += d))
  await waitUntil(() => out.includes('ready'), 'the holder to open its files')
  return child.pid!
}

/** Run the CLI under strace; returns its exit code, output and the syscall trace lines. */
function traced(args: string[], env: Record<string, string>): {code: number | null; stdout: string; stderr: string; trace: string[]} {
  const out = path.join(tempDir(), 'trace.txt')
  const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=openat,stat,lstat,newfstatat,statx', '-o', out, process.execPath, BIN, ...args], {env, encoding: 'utf8', timeout: 120_000})
  return {code: r.status, stdout: r.stdout, stderr: r.stderr, trace: fs.readFileSync(out, 'utf8').split('\n')}
}

function world(): {state: string; lock: string; env: Record<string, string>} {
  const state = copyFixture(TWO_AGENTS)
  const lock = path.join(state, 'agents', 'main', 'sessions', 'sessions.json.lock')
  // No pid in it: only the process that has it open says it is held. Older than the grace, so not-held would reclaim it.
  fs.writeFileSync(lock, 'garbage')
  const old = new Date(Date.now() - 10_000)
  fs.utimesSync(lock, old, old)
  return {state, lock, env: baseEnv(tempDir())}
}

describe.skipIf(!straceWorks)('finding the holder of a pid-less lock', () => {
  it('doctor stats only the holder descriptor whose name can be the lock, not each of its 300 other descriptors', async () => {
    const w = world()
    const holder = await holdOpen(w.lock, 300)
    const r = traced(['doctor', '--json', '--state-dir', w.state], w.env)
    const f = json<DoctorResult>(r).findings.find((x) => x.path === w.lock)
    expect(f, r.stderr).toMatchObject({id: 'live-lock', details: {pid: holder}})
    const stats = r.trace.filter((l) => /\b(stat|lstat|newfstatat|statx)\(/.test(l) && l.includes(`"/proc/${holder}/fd/`))
    expect(stats.length, stats.slice(0, 5).join('\n')).toBeLessThanOrEqual(1)
  }, 150_000)

  it('a writer waiting on it scans /proc once per wait, not on every poll, and still names the holder when it gives up', async () => {
    const w = world()
    const holder = await holdOpen(w.lock, 10)
    const r = traced(['sessions', 'reset', 'main', '--state-dir', w.state], {...w.env, OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS: '3000'})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`pid=${holder} ${w.lock}`)
    // About ten polls in 3 s (backoff 50, 100, … 1000 ms); each used to list every process.
    const scans = r.trace.filter((l) => /openat\(AT_FDCWD, "\/proc", /.test(l))
    expect(scans.length).toBeLessThanOrEqual(1)
  }, 150_000)
})
