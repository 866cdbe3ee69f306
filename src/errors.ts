// Typed errors shared by the core library; commands map them to exit codes and JSON error envelopes.

/** Documented process exit codes (README "Exit codes"). */
export const ExitCode = {
  ok: 0,
  /** Runtime failure: unknown session, corrupt file, lock timeout, API or channel failure. */
  failure: 1,
  /** Usage error: bad flags, bad arguments, unknown agent, conflicting options. */
  usage: 2,
  /** doctor: warnings remain (no errors). */
  doctorWarnings: 3,
  /** doctor: errors remain. */
  doctorErrors: 4,
  /** agent: the turn hit --timeout and was aborted (the partial reply is kept), as timeout(1) reports. */
  timeout: 124,
  /** agent: interrupted by SIGINT (128 + 2). */
  interrupted: 130,
  /** agent: terminated by SIGTERM (128 + 15). */
  terminated: 143,
} as const

export class ClawkitError extends Error {
  readonly code: string
  readonly exitCode: number
  readonly suggestions?: string[]

  constructor(message: string, opts: {code: string; exitCode?: number; suggestions?: string[]; cause?: unknown}) {
    super(message, opts.cause === undefined ? undefined : {cause: opts.cause})
    this.name = new.target.name
    this.code = opts.code
    this.exitCode = opts.exitCode ?? ExitCode.failure
    this.suggestions = opts.suggestions
  }
}

/** Bad input from the user (flags, arguments, ids). */
export class UsageError extends ClawkitError {
  constructor(message: string, code = 'E_USAGE', suggestions?: string[]) {
    super(message, {code, exitCode: ExitCode.usage, suggestions})
  }
}

/** A file exists but cannot be parsed; it is reported and never overwritten. */
export class CorruptFileError extends ClawkitError {
  readonly path: string
  readonly position?: {line: number; column: number}

  constructor(path: string, detail: string, position?: {line: number; column: number}) {
    const where = position ? ` at line ${position.line}, column ${position.column}` : ''
    super(`${path} is not valid JSON${where}: ${detail}. The file was left untouched; run "clawkit doctor" to inspect it or restore it from a backup.`, {
      code: 'E_CORRUPT_STORE',
    })
    this.path = path
    this.position = position
  }
}

export class LockTimeoutError extends ClawkitError {
  readonly lockPath: string
  readonly holderPid?: number

  constructor(lockPath: string, timeoutMs: number, holderPid?: number) {
    super(
      `session file locked (timeout ${timeoutMs}ms): pid=${holderPid ?? 'unknown'} ${lockPath}. ` +
        (holderPid === undefined
          ? // Only a pid-less lock whose holders cannot be looked up (not Linux) or a lock file we may not read gets here.
            'The lock names no process; if no OpenClaw gateway or clawkit is running, remove the lock file ("clawkit doctor" shows it).'
          : 'Another process (an OpenClaw gateway or another clawkit) is writing; retry when it finishes, or run "clawkit doctor" if that process is gone.'),
      {code: 'E_LOCK_TIMEOUT'},
    )
    this.lockPath = lockPath
    this.holderPid = holderPid
  }
}

export class NotFoundError extends ClawkitError {
  constructor(message: string, code = 'E_NOT_FOUND', suggestions?: string[]) {
    super(message, {code, exitCode: ExitCode.failure, suggestions})
  }
}

/** Locate a JSON.parse error in the text so the message can name line and column. */
export function jsonErrorPosition(text: string, err: unknown): {line: number; column: number} | undefined {
  const msg = err instanceof Error ? err.message : String(err)
  const m = /position (\d+)/.exec(msg)
  let offset: number
  if (m) offset = Number(m[1])
  else if (/Unexpected end of JSON input/.test(msg)) offset = text.length
  else return undefined
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  const column = offset - before.lastIndexOf('\n')
  return {line, column}
}
