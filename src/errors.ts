// Typed errors shared by the core library; commands map them to exit codes and JSON error envelopes.

/** Documented process exit codes (docs/cli.md, "Exit codes"). */
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
  /** store verify: the database differs from what OpenClaw imported (missing, extra or different events or keys). */
  storeDifferences: 5,
  /** sync: a partial sync; the agents this Node cannot read were skipped (listed in `skipped`), the others synced. */
  syncPartial: 6,
  /** sessions usage --max-cost/--check: a spend limit was passed or a runaway session found (a report printed all the same). */
  budgetExceeded: 7,
  /**
   * Nothing to work on, which is neither a success nor a failure: `store verify` on a state dir OpenClaw never imported,
   * `store export` with no SQLite store to export. EX_NOINPUT of sysexits.h (the input the command reads is not there).
   */
  nothingToDo: 66,
  /** The command did its work, but its output could not be written to stdout (a full disk): EX_IOERR of sysexits.h. */
  outputFailed: 74,
  /** agent: the turn hit --timeout and was aborted (the partial reply is kept), as timeout(1) reports. */
  timeout: 124,
  /** Interrupted by SIGINT (128 + 2): agent, and what runs until stopped (history --follow, status --watch, mcp). */
  interrupted: 130,
  /** Terminated by SIGTERM (128 + 15): as for `interrupted`. */
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
    super(`${path} is not valid JSON${where}: ${detail.replace(/[\s.]+$/, '')}. The file was left untouched; run "clawkit doctor" to inspect it or restore it from a backup.`, {
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

/** What to do about a failed file operation, by errno code; codes without a clear remedy get none. */
const FS_ADVICE: Record<string, {why: string; hint?: (path: string) => string}> = {
  ENOSPC: {why: 'no space left on the device', hint: () => 'free disk space there, then run the command again'},
  EDQUOT: {why: 'disk quota exceeded', hint: () => 'free space within your quota, then run the command again'},
  EACCES: {why: 'permission denied', hint: (p) => `check the owner and mode of ${p} and its directory ("clawkit doctor" reports them)`},
  EPERM: {why: 'operation not permitted', hint: (p) => `check the owner and mode of ${p} and its directory ("clawkit doctor" reports them)`},
  EROFS: {why: 'the file system is read-only', hint: () => 'run clawkit where the state dir is writable, or remount it read-write'},
  EISDIR: {why: 'it is a directory, not a file', hint: (p) => `move the directory ${p} out of the way; a file belongs there`},
  ENOTDIR: {why: 'a part of the path is not a directory', hint: (p) => `check the path ${p}`},
  ENOENT: {why: 'no such file or directory'},
  ELOOP: {why: 'too many levels of symbolic links', hint: (p) => `check the symbolic links on the path ${p}`},
  EMFILE: {why: 'too many open files', hint: () => 'raise the open-file limit (ulimit -n) or close other programs'},
  EIO: {why: 'an I/O error (a failing disk or network file system)', hint: () => 'check the disk or the mount, then run the command again'},
}

/**
 * A file operation that failed, naming the file: Node's own message for an operation on an open file (a write, a
 * read of a directory) names none ("ENOSPC: no space left on device, write"). The code stays `E_<errno code>`.
 */
export class FileSystemError extends ClawkitError {
  readonly path: string

  constructor(path: string, action: string, cause: NodeJS.ErrnoException) {
    const code = String(cause.code)
    const advice = FS_ADVICE[code]
    const why = advice?.why ?? String(cause.message).replace(/^[A-Z]+: /, '').replace(/, \w+( '.*')?$/, '')
    const hint = advice?.hint?.(path)
    super(`Cannot ${action} ${path}: ${why} (${code}).`, {code: `E_${code}`, cause, ...(hint ? {suggestions: [hint]} : {})})
    this.path = path
  }
}

/** `error` as a FileSystemError naming `path` when it is a Node file-system error; anything else is returned as is. */
export function fileError(error: unknown, path: string, action: string): unknown {
  if (error instanceof ClawkitError || !isErrnoError(error)) return error
  return new FileSystemError(path, action, error)
}

export function isErrnoError(error: unknown): error is NodeJS.ErrnoException {
  const e = error as NodeJS.ErrnoException | undefined
  return e instanceof Error && typeof e.code === 'string' && /^E[A-Z0-9]+$/.test(e.code) && (typeof e.syscall === 'string' || typeof e.errno === 'number')
}

/** The verb for a failed syscall, for errors that reach the user without a caller naming the operation. */
export function syscallAction(syscall: string | undefined): string {
  switch (syscall) {
    case 'mkdir':
      return 'create the directory'
    case 'rename':
      return 'rename'
    case 'unlink':
    case 'rmdir':
    case 'rm':
      return 'remove'
    case 'scandir':
    case 'opendir':
      return 'list'
    case 'chmod':
    case 'fchmod':
      return 'change the mode of'
    case 'write':
    case 'writev':
    case 'fsync':
    case 'ftruncate':
      return 'write'
    case 'copyfile':
      return 'copy'
    case 'link':
    case 'symlink':
      return 'link'
    default:
      return 'read'
  }
}
