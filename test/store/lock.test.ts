import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {LockTimeoutError} from '../../src/errors.js'
import {acquireLock, inspectLock, lockPathFor, withLock} from '../../src/store/lock.js'
import {tempDir} from '../support/cli.js'
import {deadPid, writeLockFile} from '../support/locks.js'
import {readProcessStartTime} from '../../src/os/process.js'

const children: ReturnType<typeof spawn>[] = []
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
})

function liveChild(): number {
  const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {stdio: 'ignore'})
  children.push(c)
  return c.pid!
}

/** The lock of `file`, written as OpenClaw writes one. */
const writeLock = (file: string, payload: unknown, mtime?: Date): string => writeLockFile(lockPathFor(file), payload, mtime)

describe('OpenClaw lock protocol', () => {
  it('writes the OpenClaw payload {pid, createdAt, starttime} in an O_EXCL lock file and removes it on release', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const lock = await acquireLock(file)
    const payload = JSON.parse(fs.readFileSync(lock.lockPath, 'utf8'))
    expect(payload.pid).toBe(process.pid)
    expect(Date.parse(payload.createdAt)).toBeGreaterThan(Date.now() - 10_000)
    expect(payload.starttime).toBe(readProcessStartTime(process.pid))
    expect(fs.readFileSync(lock.lockPath, 'utf8')).toContain('\n  "pid"') // pretty-printed, as OpenClaw writes it
    expect(fs.statSync(lock.lockPath).isFile()).toBe(true)
    await lock.release()
    expect(fs.existsSync(lock.lockPath)).toBe(false)
  })

  it('is re-entrant within one process', async () => {
    const file = path.join(tempDir(), 'x.jsonl')
    await withLock(file, async () => {
      await withLock(file, async () => {
        expect(fs.existsSync(lockPathFor(file))).toBe(true)
      })
      expect(fs.existsSync(lockPathFor(file))).toBe(true)
    })
    expect(fs.existsSync(lockPathFor(file))).toBe(false)
  })

  it('stale lock from a dead pid is reclaimed at once', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const pid = deadPid()
    writeLock(file, {pid, createdAt: new Date().toISOString(), starttime: 1})
    expect(inspectLock(lockPathFor(file))?.staleReasons).toContain('dead-pid')
    const started = Date.now()
    const lock = await acquireLock(file, {timeoutMs: 5000})
    expect(Date.now() - started).toBeLessThan(5000)
    expect(JSON.parse(fs.readFileSync(lock.lockPath, 'utf8')).pid).toBe(process.pid)
    await lock.release()
  })

  it('stale lock from a recycled pid (live pid, different starttime) is reclaimed', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const pid = liveChild()
    writeLock(file, {pid, createdAt: new Date().toISOString(), starttime: 1})
    expect(inspectLock(lockPathFor(file))?.staleReasons).toEqual(['recycled-pid'])
    await (await acquireLock(file, {timeoutMs: 2000})).release()
  })

  it('a lock older than staleMs is stale even with a live pid', () => {
    const file = path.join(tempDir(), 'sessions.json')
    const pid = liveChild()
    writeLock(file, {pid, createdAt: new Date(Date.now() - 31 * 60_000).toISOString(), starttime: readProcessStartTime(pid)})
    expect(inspectLock(lockPathFor(file))?.staleReasons).toEqual(['too-old'])
  })

  it('a lock without a pid is only reclaimed once its mtime is older than staleMs (its writer may still be filling it)', () => {
    const file = path.join(tempDir(), 'sessions.json')
    const lockPath = writeLock(file, '')
    expect(inspectLock(lockPath)?.stale).toBe(false)
    const old = new Date(Date.now() - 31 * 60_000)
    fs.utimesSync(lockPath, old, old)
    expect(inspectLock(lockPath)?.stale).toBe(true)
  })

  it('a live lock times out with a clear message naming the holder pid and the lock path', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const pid = liveChild()
    const lockPath = writeLock(file, {pid, createdAt: new Date().toISOString(), starttime: readProcessStartTime(pid)})
    const err = await acquireLock(file, {timeoutMs: 400}).catch((error) => error)
    expect(err).toBeInstanceOf(LockTimeoutError)
    expect(err.message).toContain(`session file locked (timeout 400ms): pid=${pid} ${lockPath}`)
    expect(fs.existsSync(lockPath)).toBe(true) // a live lock is never stolen
  })
})

describe('lock release on signals', () => {
  it('SIGTERM to a holder removes its lock file and still ends the process by the signal', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const script = `import {acquireLock} from ${JSON.stringify(path.resolve('dist/store/lock.js'))}
      await acquireLock(${JSON.stringify(file)}); process.stdout.write('locked\\n'); setInterval(() => {}, 1000)`
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {stdio: ['ignore', 'pipe', 'inherit']})
    children.push(child)
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
    expect(fs.existsSync(lockPathFor(file))).toBe(true)
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
    child.kill('SIGTERM')
    expect(await exited).toBe('SIGTERM')
    expect(fs.existsSync(lockPathFor(file))).toBe(false)
  })
})

describe('lock edge cases', () => {
  it('a directory at the lock path (proper-lockfile style) fails fast with a clear error instead of spinning', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    fs.mkdirSync(lockPathFor(file))
    const started = Date.now()
    const err = await acquireLock(file, {timeoutMs: 60_000}).catch((error) => error)
    expect(err.code).toBe('E_FOREIGN_LOCK')
    expect(err.message).toContain('is not a lock file')
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('release never deletes a lock that another process put in place after judging ours stale', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const lock = await acquireLock(file)
    // Another process removes our (supposedly stale) lock and takes its own.
    fs.rmSync(lock.lockPath)
    const theirs = JSON.stringify({pid: 1, createdAt: new Date().toISOString()}, null, 2)
    fs.writeFileSync(lock.lockPath, theirs)
    await lock.release()
    expect(fs.readFileSync(lock.lockPath, 'utf8')).toBe(theirs)
  })

  it('a long hold refreshes createdAt in place so contenders never see it as too old', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const lock = await acquireLock(file, {staleMs: 3000})
    const first = JSON.parse(fs.readFileSync(lock.lockPath, 'utf8'))
    const ino = fs.statSync(lock.lockPath).ino
    await new Promise((r) => setTimeout(r, 2300))
    const later = JSON.parse(fs.readFileSync(lock.lockPath, 'utf8'))
    expect(Date.parse(later.createdAt)).toBeGreaterThan(Date.parse(first.createdAt))
    expect(later.pid).toBe(process.pid)
    expect(fs.statSync(lock.lockPath).ino).toBe(ino)
    expect(inspectLock(lock.lockPath, {staleMs: 3000})?.stale).toBe(false)
    await lock.release()
    expect(fs.existsSync(lock.lockPath)).toBe(false)
  })
})

describe('aborting a lock wait', () => {
  it('an AbortSignal stops the wait on a live lock at once, leaving the holder\'s lock alone', async () => {
    const file = path.join(tempDir(), 'x.jsonl')
    const pid = liveChild()
    const lockPath = writeLock(file, {pid, createdAt: new Date().toISOString(), starttime: readProcessStartTime(pid)})
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 200)
    const started = Date.now()
    const err = await acquireLock(file, {timeoutMs: 30_000, signal: controller.signal}).catch((error) => error)
    expect(err.code).toBe('E_LOCK_WAIT_ABORTED')
    expect(Date.now() - started).toBeLessThan(5000)
    expect(fs.existsSync(lockPath)).toBe(true)
  })
})
