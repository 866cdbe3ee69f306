// Locks held the way OpenClaw holds them, for tests of clawkit waiting on (or reclaiming) someone else's lock.
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import fs from 'node:fs'

import {waitUntil} from './cli.js'

/** A pid that is certainly dead: a child that has already exited. */
export function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {encoding: 'utf8'})
  return Number(r.stdout)
}

/** A lock file as OpenClaw writes one (or any text put there), with the given mtime when one is given. */
export function writeLockFile(lockPath: string, payload: unknown, mtime?: Date): string {
  fs.writeFileSync(lockPath, typeof payload === 'string' ? payload : JSON.stringify(payload, null, 2), {mode: 0o600})
  if (mtime) fs.utimesSync(lockPath, mtime, mtime)
  return lockPath
}

/** A live lock file with this test process's pid, as OpenClaw writes one (the test process is alive, so it is live). */
export function writeLiveLock(lockPath: string): void {
  fs.writeFileSync(lockPath, JSON.stringify({pid: process.pid, createdAt: new Date().toISOString()}, null, 2))
}

const holders = new Set<ChildProcess>()

/** Kill every holder still running (call from afterEach: a failed test must not leave a process holding a lock). */
export function killLockHolders(): void {
  for (const c of holders) c.kill('SIGKILL')
  holders.clear()
}

/**
 * Another live process takes `<file>.lock` exactly as OpenClaw does (O_EXCL create, `{pid, createdAt, starttime}`; no starttime where
 * there is no /proc)
 * and keeps it until release() (it then removes the lock and exits) or killLockHolders().
 */
export async function holdLockInChild(file: string): Promise<{pid: number; release(): Promise<void>}> {
  const script = `
    const fs = require('node:fs')
    const lock = process.argv[1] + '.lock'
    let starttime
    try { starttime = Number(fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[19]) } catch {}
    const fd = fs.openSync(lock, 'wx')
    fs.writeSync(fd, JSON.stringify({pid: process.pid, createdAt: new Date().toISOString(), starttime}, null, 2))
    fs.closeSync(fd)
    process.stdout.write('locked\\n')
    process.stdin.once('data', () => { fs.rmSync(lock); process.exit(0) })
  `
  const child = spawn(process.execPath, ['-e', script, file], {stdio: ['pipe', 'pipe', 'inherit']})
  holders.add(child)
  let out = ''
  child.stdout!.setEncoding('utf8').on('data', (d) => (out += d))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  await waitUntil(() => out.includes('locked'), `the lock holder to take ${file}.lock`)
  return {
    pid: child.pid!,
    async release() {
      child.stdin!.write('go\n')
      await exited
      holders.delete(child)
    },
  }
}
