// Opening files that must be regular files: OpenClaw's sessions.json, transcripts, locks, openclaw.json, workspace files.
//
// Why: a plain open() of a FIFO blocks until a writer appears (forever, and a synchronous open blocks the event loop so
// that not even SIGTERM's handler runs), a read of /dev/zero never ends, and a directory fails with a bare EISDIR that
// names no path. So a file is opened with O_NONBLOCK (which makes open() of a FIFO return at once and changes nothing
// for a regular file), the *opened* descriptor is fstat'ed (no race with a stat before the open: what is checked is
// what is read), and anything but a regular file is refused with an error that names the path and what it is.
import fs from 'node:fs'
import fsp, {type FileHandle} from 'node:fs/promises'

import {ClawkitError} from '../errors.js'
import {formatBytes} from '../text/bytes.js'

const C = fs.constants
/** O_NONBLOCK and O_NOCTTY do not exist on Windows, where a FIFO cannot be opened this way anyway. */
const NONBLOCK = (C.O_NONBLOCK ?? 0) | (C.O_NOCTTY ?? 0)
export const READ_FLAGS = C.O_RDONLY | NONBLOCK

/** "a directory", "a FIFO (named pipe)", …: what a non-regular file is, for messages. */
export function describeFileKind(st: fs.Stats): string {
  if (st.isDirectory()) return 'a directory'
  if (st.isFIFO()) return 'a FIFO (named pipe)'
  if (st.isCharacterDevice()) return 'a character device'
  if (st.isBlockDevice()) return 'a block device'
  if (st.isSocket()) return 'a socket'
  if (st.isSymbolicLink()) return 'a symbolic link'
  return 'not a regular file'
}

/**
 * What `p` is where it is not a regular file, as an open would meet it (a symlink followed): undefined for a regular
 * file or a path that does not exist, "a dangling symlink" for a link to nothing (or a loop of links).
 */
export function describePathKind(p: string): string | undefined {
  let st: fs.Stats
  try {
    st = fs.statSync(p)
  } catch {
    try {
      return fs.lstatSync(p).isSymbolicLink() ? 'a dangling symlink' : undefined
    } catch {
      return undefined
    }
  }
  return st.isFile() ? undefined : describeFileKind(st)
}

export interface RegularFileOptions {
  /** What the file is, capitalised, for the message: "Transcript", "Session store", "Config", "Lock file". */
  what: string
  /** What the user should do, one sentence. */
  advice?: string
}

/** The path exists but is not a regular file (directory, FIFO, device, socket), so clawkit does not read it. */
export class NotRegularFileError extends ClawkitError {
  readonly path: string
  readonly kind: string
  constructor(file: string, kind: string, opts: RegularFileOptions) {
    super(`${opts.what} ${file} is ${kind}, not a regular file; clawkit only reads regular files.${opts.advice ? ` ${opts.advice}` : ''}`, {code: 'E_NOT_A_FILE'})
    this.path = file
    this.kind = kind
  }
}

/** A file read whole is larger than anything of its kind can sanely be (a device, a runaway log named like it). */
export class FileTooLargeError extends ClawkitError {
  readonly path: string
  constructor(file: string, size: number, maxBytes: number, opts: RegularFileOptions) {
    super(`${opts.what} ${file} is ${formatBytes(size)}, more than the ${formatBytes(maxBytes)} clawkit reads as a whole; it cannot be a valid file of its kind.${opts.advice ? ` ${opts.advice}` : ''}`, {code: 'E_FILE_TOO_LARGE'})
    this.path = file
  }
}

/** Errors of open() itself that mean "special file" (ENXIO: a socket, or a FIFO opened for writing with no reader). */
function openErrorKind(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException)?.code
  if (code === 'EISDIR') return 'a directory'
  if (code === 'ENXIO') return 'a special file (a socket or a FIFO)'
  return undefined
}

/** Open `file` for reading, refusing anything but a regular file. ENOENT and other errno errors pass through. */
export async function openRegular(file: string, opts: RegularFileOptions, flags: number = READ_FLAGS, mode = 0o600): Promise<{fh: FileHandle; stat: fs.Stats}> {
  let fh: FileHandle
  try {
    fh = await fsp.open(file, flags | NONBLOCK, mode)
  } catch (error) {
    const kind = openErrorKind(error)
    if (kind) throw new NotRegularFileError(file, kind, opts)
    throw error
  }
  let stat: fs.Stats
  try {
    stat = await fh.stat()
  } catch (error) {
    await fh.close().catch(() => {})
    throw error
  }
  if (!stat.isFile()) {
    await fh.close().catch(() => {})
    throw new NotRegularFileError(file, describeFileKind(stat), opts)
  }
  return {fh, stat}
}

/** openRegular for synchronous callers. */
export function openRegularSync(file: string, opts: RegularFileOptions, flags: number = READ_FLAGS): {fd: number; stat: fs.Stats} {
  let fd: number
  try {
    fd = fs.openSync(file, flags | NONBLOCK, 0o600)
  } catch (error) {
    const kind = openErrorKind(error)
    if (kind) throw new NotRegularFileError(file, kind, opts)
    throw error
  }
  let stat: fs.Stats
  try {
    stat = fs.fstatSync(fd)
  } catch (error) {
    fs.closeSync(fd)
    throw error
  }
  if (!stat.isFile()) {
    fs.closeSync(fd)
    throw new NotRegularFileError(file, describeFileKind(stat), opts)
  }
  return {fd, stat}
}

export interface ReadWholeOptions extends RegularFileOptions {
  /** Refuse a file larger than this (FileTooLargeError) instead of reading it. */
  maxBytes?: number
}

/** The whole content of a regular file. */
export async function readRegularFile(file: string, opts: ReadWholeOptions): Promise<Buffer> {
  const {fh, stat} = await openRegular(file, opts)
  try {
    if (opts.maxBytes !== undefined && stat.size > opts.maxBytes) throw new FileTooLargeError(file, stat.size, opts.maxBytes, opts)
    return await fh.readFile()
  } finally {
    await fh.close().catch(() => {})
  }
}

/** readRegularFile for synchronous callers. */
export function readRegularFileSync(file: string, opts: ReadWholeOptions): Buffer {
  const {fd, stat} = openRegularSync(file, opts)
  try {
    if (opts.maxBytes !== undefined && stat.size > opts.maxBytes) throw new FileTooLargeError(file, stat.size, opts.maxBytes, opts)
    return fs.readFileSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** The size of `file`, or undefined when it does not exist; anything but a regular file is refused. */
export async function regularFileSize(file: string, opts: RegularFileOptions): Promise<number | undefined> {
  let fh: FileHandle
  let stat: fs.Stats
  try {
    ;({fh, stat} = await openRegular(file, opts))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  await fh.close().catch(() => {})
  return stat.size
}
