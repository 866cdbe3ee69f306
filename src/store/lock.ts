// OpenClaw's cross-process lock protocol: an O_EXCL regular file `<file>.lock` holding {pid, createdAt, starttime}.
// Implemented by hand because lock libraries use a directory at the same path, which OpenClaw cannot see (oclif-notes section 6.1).
import {AsyncLocalStorage} from 'node:async_hooks'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {ClawkitError, fileError, LockTimeoutError} from '../errors.js'
import {isPidAlive, processesHoldingFile, readProcessStartTime} from '../os/process.js'
import {describePathKind, openRegularSync} from '../os/safe-open.js'
import {randomUUID} from './random-id.js'

export interface LockPayload {
  pid?: number
  createdAt?: string
  starttime?: number
  /** Builds before 2026-02-13 wrote `startedAt` (epoch ms). */
  startedAt?: number
}

export interface LockOptions {
  /** Give up after this long (OpenClaw default 10 s). */
  timeoutMs?: number
  /** A lock older than this is stale whatever its pid (OpenClaw default 30 min). */
  staleMs?: number
  /** Stop waiting when this fires (Ctrl-C, a turn timeout): E_LOCK_WAIT_ABORTED. */
  signal?: AbortSignal
  /** Called once, when the lock is found held and the wait begins: who holds it (pid from the lock file, if any). */
  onWait?: (wait: {lockPath: string; holderPid?: number; timeoutMs: number}) => void
}

export type StaleReason = 'missing-pid' | 'dead-pid' | 'recycled-pid' | 'invalid-createdAt' | 'too-old' | 'not-held'

export interface LockInspection {
  lockPath: string
  payload?: LockPayload
  /** Empty when the lock is live. */
  staleReasons: StaleReason[]
  stale: boolean
  ageMs: number
  mtimeMs: number
  /**
   * For a lock without a valid pid: the live processes that have the file open (Linux), i.e. who holds it. Undefined
   * when the payload names a pid, or when open files cannot be inspected here.
   */
  holders?: number[]
}

function envMs(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === '') return fallback
  const n = Number(raw)
  return Number.isFinite(n) && n >= 0 ? n : fallback
}

/** OpenClaw's defaults, tunable with the env vars later OpenClaw versions read (store-format.md section 3.3). */
export const DEFAULT_LOCK_TIMEOUT_MS = envMs('OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS', 10_000)
export const DEFAULT_STALE_MS = envMs('OPENCLAW_SESSION_WRITE_LOCK_STALE_MS', 30 * 60 * 1000)

const held = new Map<string, {fd: number; count: number; refresh?: NodeJS.Timeout}>()
let exitHookInstalled = false

/** `<realpath(dirname(file))>/<basename(file)>.lock`, as OpenClaw computes it. */
export function lockPathFor(file: string): string {
  const dir = path.dirname(path.resolve(file))
  let real = dir
  try {
    real = fs.realpathSync(dir)
  } catch {
    // The directory may not exist yet; OpenClaw falls back to the unresolved path too.
  }
  return path.join(real, `${path.basename(file)}.lock`)
}

function parsePayload(text: string): LockPayload | undefined {
  try {
    const v = JSON.parse(text)
    return v && typeof v === 'object' ? (v as LockPayload) : undefined
  } catch {
    return undefined
  }
}

/** A lock payload is a few dozen bytes; anything past this is not a lock written by OpenClaw or clawkit. */
const MAX_LOCK_BYTES = 64 * 1024

/**
 * The lock's mtime and payload text, or undefined when it vanished or is not a regular file. Opened without blocking
 * and checked on the descriptor: a FIFO named like a lock blocked this synchronous read for good, and with it every
 * signal handler (SIGTERM was ignored).
 */
function readLockFile(lockPath: string): {text: string; mtimeMs: number} | undefined {
  let fd: number
  let st: fs.Stats
  try {
    ;({fd, stat: st} = openRegularSync(lockPath, {what: 'Lock file'}))
  } catch {
    return undefined
  }
  try {
    const buf = Buffer.alloc(Math.min(st.size, MAX_LOCK_BYTES))
    const n = fs.readSync(fd, buf, 0, buf.length, 0)
    return {text: buf.toString('utf8', 0, n), mtimeMs: st.mtimeMs}
  } catch {
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * A lock file whose payload names no pid is, by OpenClaw's rules, kept until its mtime is staleMs (30 min) old,
 * because it could be a lock whose holder has created it and not written it yet. That moment lasts microseconds, and
 * both OpenClaw and clawkit keep a lock's descriptor open for as long as they hold it. So past this grace, a pid-less
 * lock that no live process has open is garbage (an empty file left by a crash, a hand edit), and is reclaimed.
 */
export const UNREADABLE_LOCK_GRACE_MS = 2000

/**
 * Who holds a lock, as every message names it (a waiting writer, its timeout, doctor): the payload's pid when it is a
 * real one, else the process that has a pid-less lock file open. `{"pid": -1}` names nobody.
 */
export function lockHolderPid(info: LockInspection): number | undefined {
  const pid = info.payload?.pid
  return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? pid : info.holders?.[0]
}

/** Who held each pid-less lock when it was last inspected: the next poll of a wait checks them first. */
const lastHolders = new Map<string, number[]>()

/** Apply OpenClaw's stale rules to an existing lock file. Returns undefined when the lock vanished (or is not a file). */
export function inspectLock(lockPath: string, opts: {staleMs?: number; now?: number} = {}): LockInspection | undefined {
  const staleMs = opts.staleMs ?? DEFAULT_STALE_MS
  const now = opts.now ?? Date.now()
  const read = readLockFile(lockPath)
  if (!read) return undefined
  const {text, mtimeMs} = read
  const payload = parsePayload(text)
  const reasons: StaleReason[] = []
  const pid = payload?.pid
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) reasons.push('missing-pid')
  else if (!isPidAlive(pid)) reasons.push('dead-pid')
  else if (typeof payload?.starttime === 'number') {
    const current = readProcessStartTime(pid)
    if (current !== undefined && current !== payload.starttime) reasons.push('recycled-pid')
  }
  let createdMs: number | undefined
  if (typeof payload?.createdAt === 'string') createdMs = Date.parse(payload.createdAt)
  else if (typeof payload?.startedAt === 'number') createdMs = payload.startedAt
  if (createdMs === undefined || !Number.isFinite(createdMs)) reasons.push('invalid-createdAt')
  const ageMs = now - (createdMs !== undefined && Number.isFinite(createdMs) ? createdMs : mtimeMs)
  if (ageMs > staleMs) reasons.push('too-old')

  // Payload problems alone (missing pid, bad createdAt) also describe a lock whose holder has not finished writing
  // it yet, so OpenClaw reclaims those only once the file's mtime is older than staleMs. clawkit also reclaims them
  // once past a short grace when no live process has the file open (UNREADABLE_LOCK_GRACE_MS says why).
  let stale = reasons.length > 0
  let holders: number[] | undefined
  const payloadOnly = reasons.every((r: StaleReason) => r === 'missing-pid' || r === 'invalid-createdAt')
  if (stale && payloadOnly && now - mtimeMs <= staleMs) {
    stale = false
    if (reasons.includes('missing-pid')) {
      holders = processesHoldingFile(lockPath, lastHolders.get(lockPath))?.filter((p) => p !== process.pid || held.has(lockPath))
      if (holders?.length) lastHolders.set(lockPath, holders)
      else lastHolders.delete(lockPath)
      if (holders && holders.length === 0 && now - mtimeMs > UNREADABLE_LOCK_GRACE_MS) {
        stale = true
        ;(reasons as StaleReason[]).push('not-held')
      }
    }
  }
  // Our own pid without a hold in this process is an orphan left by an earlier crash of ... this very pid number.
  if (!stale && pid === process.pid && !held.has(lockPath)) {
    stale = true
    reasons.push('dead-pid')
  }
  return {lockPath, payload, staleReasons: stale ? reasons : [], stale, ageMs, mtimeMs, ...(holders ? {holders} : {})}
}

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  const releaseAll = () => {
    for (const [lockPath, h] of held) {
      if (h.refresh) clearInterval(h.refresh)
      removeIfOurs(lockPath, h.fd)
      try {
        fs.closeSync(h.fd)
      } catch {}
    }
    held.clear()
  }
  process.once('exit', releaseAll)
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGQUIT', 'SIGHUP'] as const) {
    const onSignal = () => {
      // A command with its own handler (an agent turn saving what it received on Ctrl-C) owns the shutdown and
      // still holds its locks while it writes; the 'exit' hook releases them afterwards.
      if (process.listenerCount(sig) > 1) return
      releaseAll()
      process.removeListener(sig, onSignal)
      // Re-raise with the default handler so the exit status still says "killed by signal".
      process.kill(process.pid, sig)
    }
    process.on(sig, onSignal)
  }
}

/** This process's start time as the kernel counts it, read once (/proc/self/stat): it never changes while it runs. */
let ownStartTime: {value: number | undefined} | undefined

function lockPayloadText(): string {
  ownStartTime ??= {value: readProcessStartTime(process.pid)}
  const starttime = ownStartTime.value
  const payload: LockPayload = {pid: process.pid, createdAt: new Date().toISOString()}
  if (starttime !== undefined) payload.starttime = starttime
  return JSON.stringify(payload, null, 2)
}

/** `<lock>.<pid>.<8 hex>.tmp`: the private file a lock is linked from (see createLockFile). */
export function lockScratchPath(lockPath: string, pid: number = process.pid): string {
  return `${lockPath}.${pid}.${randomUUID().slice(0, 8)}.tmp`
}

/**
 * Names a lock scratch file. One outlives its acquisition only when the process was killed between creating it and
 * removing it; it holds a lock payload, never session data, so it is neither an index temp file nor a recovery source.
 */
export const LOCK_SCRATCH_RE = /\.lock\.(\d+)\.[0-9a-f]{8}\.tmp$/

/**
 * An acquisition lives for microseconds, so a scratch file is a leftover once it is a minute old, or a few seconds
 * old with its pid gone. The few seconds matter: a writer in another pid namespace (a container sharing the state
 * dir) looks dead from here, and removing its scratch between its open and its link would fail its command.
 */
export function lockScratchIsLeftover(pid: number, ageMs: number): boolean {
  return ageMs > 60_000 || (ageMs > 5000 && !isPidAlive(pid))
}

/**
 * Create the lock file with its payload already inside, or return undefined when it exists. A plain O_EXCL open
 * followed by a write leaves an empty lock file if the process is killed in between, and OpenClaw's rules keep a
 * pid-less lock for 30 minutes: every writer would time out. Writing a private temp file and hard-linking it into
 * place is just as exclusive (link fails with EEXIST) and the lock is never seen empty. Filesystems without hard
 * links fall back to O_EXCL + write.
 */
function createLockFile(lockPath: string, attempt = 1): number | undefined {
  const tmp = lockScratchPath(lockPath)
  let fd: number
  try {
    fd = fs.openSync(tmp, 'wx', 0o600)
  } catch {
    return createLockFileDirect(lockPath)
  }
  try {
    fs.writeSync(fd, lockPayloadText())
    fs.linkSync(tmp, lockPath)
    return fd
  } catch (error) {
    fs.closeSync(fd)
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return undefined
    // Our scratch file vanished between open and link (doctor --fix in another namespace, a tmp cleaner): try again.
    if (code === 'ENOENT' && attempt < 3) return createLockFile(lockPath, attempt + 1)
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS' || code === 'EXDEV') return createLockFileDirect(lockPath)
    throw error
  } finally {
    fs.rmSync(tmp, {force: true})
  }
}

function createLockFileDirect(lockPath: string): number | undefined {
  let fd: number
  try {
    fd = fs.openSync(lockPath, 'wx', 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined
    throw error
  }
  fs.writeSync(fd, lockPayloadText())
  return fd
}

export interface LockHandle {
  lockPath: string
  release(): Promise<void>
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, {once: true})
  })
}

/**
 * Take `<file>.lock` with OpenClaw's protocol: O_EXCL create, pretty JSON payload, stale reclaim, backoff
 * `min(1000, 50·attempt)`, timeout error naming the holder. Re-entrant within this process.
 */
export async function acquireLock(file: string, opts: LockOptions = {}): Promise<LockHandle> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS
  const staleMs = opts.staleMs ?? DEFAULT_STALE_MS
  const lockPath = lockPathFor(file)
  const existing = held.get(lockPath)
  if (existing) {
    existing.count++
    return {lockPath, release: () => releaseLock(lockPath)}
  }
  installExitHook()
  const started = Date.now()
  let attempt = 0
  let lastHolder: number | undefined
  let waitAnnounced = false
  for (;;) {
    attempt++
    await fsp.mkdir(path.dirname(lockPath), {recursive: true, mode: 0o700})
    let fd: number | undefined
    try {
      fd = createLockFile(lockPath)
    } catch (error) {
      // Writing the payload (a full disk) fails on a descriptor, and Node's message then names no file.
      throw fileError(error, lockPath, 'create the lock file')
    }
    if (fd !== undefined) {
      held.set(lockPath, {fd, count: 1, refresh: startRefresh(fd, staleMs)})
      return {lockPath, release: () => releaseLock(lockPath)}
    }
    const info = inspectLock(lockPath, {staleMs})
    if (info) {
      lastHolder = lockHolderPid(info)
      // A reclaimed lock is retried at once; one we could not remove is waited on like a live one.
      if (info.stale && reclaimStaleLock(lockPath, info)) continue
    } else {
      const kind = lockPathKind(lockPath)
      if (kind === 'missing') continue // released between our create and our read: retry at once
      if (kind === 'other') {
        throw new ClawkitError(
          `${lockPath} exists but is not a lock file (it is ${describePathKind(lockPath) ?? 'not a regular file'}; lock libraries such as proper-lockfile create directories). ` +
            'OpenClaw cannot see such a lock either; remove it once the tool that made it is gone.',
          {code: 'E_FOREIGN_LOCK'},
        )
      }
      // A regular file we cannot read: someone else's lock; wait for it like a live one.
    }
    const elapsed = Date.now() - started
    if (elapsed >= timeoutMs) throw new LockTimeoutError(lockPath, timeoutMs, lastHolder)
    if (!waitAnnounced) {
      waitAnnounced = true
      opts.onWait?.({lockPath, holderPid: Number.isInteger(lastHolder) ? lastHolder : undefined, timeoutMs})
    }
    if (opts.signal?.aborted) throw lockWaitAborted(lockPath, lastHolder)
    await sleep(Math.min(1000, 50 * attempt, Math.max(1, timeoutMs - elapsed)), opts.signal)
    if (opts.signal?.aborted) throw lockWaitAborted(lockPath, lastHolder)
  }
}

function lockWaitAborted(lockPath: string, holder: number | undefined): ClawkitError {
  return new ClawkitError(`Stopped waiting for ${lockPath} (held by pid ${holder ?? 'unknown'}); nothing was written.`, {code: 'E_LOCK_WAIT_ABORTED'})
}

/**
 * Remove a stale lock only if it is still the same file we judged: another contender may have reclaimed it and
 * taken a fresh lock in between, and deleting that one would break mutual exclusion.
 */
export function reclaimStaleLock(lockPath: string, info: LockInspection): boolean {
  try {
    const read = readLockFile(lockPath)
    if (!read) return false
    const current = parsePayload(read.text)
    if (read.mtimeMs !== info.mtimeMs || current?.pid !== info.payload?.pid || current?.createdAt !== info.payload?.createdAt) return false
    fs.rmSync(lockPath, {force: true})
    return true
  } catch {
    return false
  }
}

/**
 * Contenders call a lock older than staleMs stale (OpenClaw's too-old rule). A long hold (an agent turn with
 * --timeout 0) rewrites its own payload with a fresh createdAt well before that, through the descriptor it holds,
 * so the file keeps its inode and OpenClaw's age check keeps seeing a live lock.
 */
function startRefresh(fd: number, staleMs: number): NodeJS.Timeout | undefined {
  const every = Math.max(1000, Math.min(5 * 60_000, Math.floor(staleMs / 3)))
  const timer = setInterval(() => {
    try {
      const text = lockPayloadText()
      fs.ftruncateSync(fd, 0)
      fs.writeSync(fd, text, 0)
    } catch {
      // Best effort: a failed refresh only means the old createdAt stays.
    }
  }, every)
  timer.unref()
  return timer
}

function lockPathKind(lockPath: string): 'missing' | 'file' | 'other' {
  try {
    return fs.lstatSync(lockPath).isFile() ? 'file' : 'other'
  } catch {
    return 'missing'
  }
}

/**
 * Remove the lock file only if it is still the one we created (same inode as our open descriptor). If another
 * process judged it stale and replaced it, deleting the path would drop *their* live lock.
 */
function removeIfOurs(lockPath: string, fd: number): void {
  try {
    const mine = fs.fstatSync(fd)
    const now = fs.statSync(lockPath)
    if (mine.ino === now.ino && mine.dev === now.dev) fs.rmSync(lockPath, {force: true})
  } catch {
    // Already gone, or our descriptor is closed: nothing of ours to remove.
  }
}

async function releaseLock(lockPath: string): Promise<void> {
  const h = held.get(lockPath)
  if (!h) return
  h.count--
  if (h.count > 0) return
  held.delete(lockPath)
  if (h.refresh) clearInterval(h.refresh)
  removeIfOurs(lockPath, h.fd)
  try {
    fs.closeSync(h.fd)
  } catch {}
}

/** Lock paths the current async call chain holds through withLock: there, taking one again re-enters. */
const chainLocks = new AsyncLocalStorage<ReadonlySet<string>>()
/** In-process queue per lock path: the last contender's turn, so two chains of one process take turns FIFO. */
const queues = new Map<string, Promise<void>>()

/**
 * Run `fn` holding `<file>.lock`. Re-entrant within one async call chain (a reset holds a transcript's lock and takes
 * it again to archive it), exclusive between chains: two concurrent calls in one process take turns, just as two
 * processes do through the lock file. This is the promise the store interface makes (the memory twin keeps the same
 * one), so a feature that runs two writers at once cannot interleave their appends on either backend.
 */
export async function withLock<T>(file: string, fn: () => Promise<T> | T, opts: LockOptions = {}): Promise<T> {
  const lockPath = lockPathFor(file)
  const mine = chainLocks.getStore()
  if (mine?.has(lockPath)) return fn()
  if (opts.signal?.aborted) throw lockWaitAborted(lockPath, process.pid)
  // Only a real in-process wait shortens what is left for the lock file (and the timeout the error names).
  const contended = queues.has(lockPath)
  const prev = queues.get(lockPath) ?? Promise.resolve()
  let release!: () => void
  const turn = prev.then(() => new Promise<void>((resolve) => (release = resolve)))
  queues.set(lockPath, turn)
  const started = Date.now()
  const timeoutMs = opts.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS
  try {
    await waitInProcess(prev, lockPath, timeoutMs, opts)
    const lock = await acquireLock(file, contended ? {...opts, timeoutMs: Math.max(0, timeoutMs - (Date.now() - started))} : opts)
    try {
      return await chainLocks.run(new Set([...(mine ?? []), lockPath]), fn)
    } finally {
      await lock.release()
    }
  } finally {
    // `release` is set once `prev` settles; a contender that gave up still passes its turn on when it comes.
    void prev.then(() => release())
    if (queues.get(lockPath) === turn) void turn.then(() => queues.get(lockPath) === turn && queues.delete(lockPath))
  }
}

/** Wait for the previous in-process holder, bounded by the same timeout and signal as the lock file wait. */
async function waitInProcess(prev: Promise<void>, lockPath: string, timeoutMs: number, opts: LockOptions): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  // A free queue settles before this timer fires, so only a real wait is announced.
  const announce = setTimeout(() => opts.onWait?.({lockPath, holderPid: process.pid, timeoutMs}), 0)
  try {
    await Promise.race([
      prev,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new LockTimeoutError(lockPath, timeoutMs, process.pid)), timeoutMs)
        onAbort = () => reject(lockWaitAborted(lockPath, process.pid))
        opts.signal?.addEventListener('abort', onAbort, {once: true})
      }),
    ])
  } finally {
    clearTimeout(announce)
    clearTimeout(timer)
    if (onAbort) opts.signal?.removeEventListener('abort', onAbort)
  }
}
