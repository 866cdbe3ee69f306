// One write of the SQLite era is one `BEGIN IMMEDIATE` transaction on a write handle: begun with OpenClaw's busy
// timeout and waited for (WRITE_WAIT_MS) while another writer holds the database, rolled back on any error, and the
// error mapped to one line naming the database.
import {ClawkitError, ExitCode} from '../../errors.js'
import {BUSY_TIMEOUT_MS, isSqliteBusy, mapSqliteError, type OpenedDb, type SqlDatabase} from './driver.js'

export function writeError(message: string, code: string, suggestions?: string[]): ClawkitError {
  return new ClawkitError(message, {code, exitCode: ExitCode.failure, suggestions})
}

export function requireTx(db: SqlDatabase): void {
  if (!db.isTransaction) throw new Error('SQLite write primitive called outside a BEGIN IMMEDIATE transaction')
}

/** node:sqlite's own failures (busy, read-only, corrupt, constraint) get the store's one-line mapping; others pass. */
function mapWriteError(path: string, error: unknown, waitedMs?: number): unknown {
  const code = (error as {code?: unknown})?.code
  return code === 'ERR_SQLITE_ERROR' || typeof (error as {errcode?: unknown})?.errcode === 'number' ? mapSqliteError(path, error, {action: 'write', waitedMs}) : error
}

function envMs(name: string, fallback: number): number {
  const raw = process.env[name]
  const n = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw)
  return Number.isFinite(n) && n >= 0 ? n : fallback
}

/**
 * How long one clawkit write waits in all for another writer's lock. OpenClaw's own policy (sqlite-transaction.ts,
 * sqlite-busy-timeout.ts in 2026.9.6) is one BEGIN IMMEDIATE under busy_timeout 5000, retried every 25 ms until that
 * 5 s deadline: enough inside the gateway, whose writers queue in-process (runOpenClawAgentWriteAdmission) and never
 * meet each other's locks. clawkit is another process, so OpenClaw's 1-17 s maintenance transactions reach it as
 * SQLITE_BUSY; it makes OpenClaw's attempt again and again, up to this total, because the write it is making is often
 * a reply the user has already seen. CLAWKIT_SQLITE_WRITE_WAIT_MS changes it (0: OpenClaw's single attempt).
 */
export const WRITE_WAIT_MS = envMs('CLAWKIT_SQLITE_WRITE_WAIT_MS', 60_000)

/** How a write waits for another writer: told once when the wait begins, ended by its signal. */
export interface WriteWait {
  /** The total wait (default WRITE_WAIT_MS); never less than one attempt of OpenClaw's busy timeout. */
  waitMs?: number
  /** Called once, when OpenClaw's first attempt found the database locked and clawkit keeps waiting. */
  onWait?: (info: {path: string; waitedMs: number; timeoutMs: number}) => void
  /** Stop waiting (Ctrl-C, a turn's --timeout): the busy error is thrown after the attempt in progress. */
  signal?: AbortSignal
}

/**
 * BEGIN IMMEDIATE with OpenClaw's busy timeout per attempt, repeated while another writer holds the lock and the wait
 * lasts. Each attempt blocks (SQLite's busy handler sleeps and retries inside it); the last one is shortened so the
 * total stays near `waitMs`. A failure names the write and how long it waited.
 */
function begin(h: Pick<OpenedDb, 'db' | 'path'>, wait: WriteWait = {}): void {
  const started = Date.now()
  const limit = wait.waitMs ?? WRITE_WAIT_MS
  let shortened = false
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        h.db.exec('BEGIN IMMEDIATE')
        return
      } catch (error) {
        const waited = Date.now() - started
        if (!isSqliteBusy(error) || waited >= limit || wait.signal?.aborted) throw mapSqliteError(h.path, error, {action: 'write', waitedMs: waited})
        if (attempt === 1) wait.onWait?.({path: h.path, waitedMs: waited, timeoutMs: limit})
        const left = limit - waited
        if (left < BUSY_TIMEOUT_MS) {
          h.db.exec(`PRAGMA busy_timeout = ${Math.max(1, Math.ceil(left))}`)
          shortened = true
        }
      }
    }
  } finally {
    if (shortened && h.db.isOpen) h.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  }
}

function rollback(h: Pick<OpenedDb, 'db' | 'path'>, error: unknown): never {
  if (h.db.isOpen && h.db.isTransaction) h.db.exec('ROLLBACK')
  throw mapWriteError(h.path, error)
}

/**
 * `fn` (which may await) inside one BEGIN IMMEDIATE transaction, rolled back whole on any error. A mutator's own
 * error comes back as thrown; SQLite's are mapped to one line naming the database.
 */
export async function immediateAsync<T>(h: Pick<OpenedDb, 'db' | 'path'>, fn: () => T | Promise<T>, wait?: WriteWait): Promise<T> {
  begin(h, wait)
  try {
    const result = await fn()
    h.db.exec('COMMIT')
    return result
  } catch (error) {
    return rollback(h, error)
  }
}

/** The synchronous form every act below uses. */
export function immediateWrite<T>(h: Pick<OpenedDb, 'db' | 'path'>, fn: () => T, wait?: WriteWait): T {
  begin(h, wait)
  try {
    const result = fn()
    h.db.exec('COMMIT')
    return result
  } catch (error) {
    return rollback(h, error)
  }
}
