// Small filesystem primitives with OpenClaw's durability rules: atomic replace, private modes, dir fsync.
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {fileError} from '../errors.js'
import {openRegular, type RegularFileOptions} from '../os/safe-open.js'
import {randomUUID} from './random-id.js'

export const DIR_MODE = 0o700
export const FILE_MODE = 0o600

/** mkdir -p with 0700 for every directory it creates (existing ones are left alone). */
export async function ensurePrivateDir(dir: string): Promise<void> {
  const missing: string[] = []
  let cur = path.resolve(dir)
  while (!fs.existsSync(cur)) {
    missing.unshift(cur)
    const parent = path.dirname(cur)
    if (parent === cur) break
    cur = parent
  }
  for (const d of missing) {
    try {
      await fsp.mkdir(d, {mode: DIR_MODE})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw fileError(error, d, 'create the directory')
    }
    // mkdir's mode is filtered by the umask; chmod makes 0700 hold whatever the umask is.
    await fsp.chmod(d, DIR_MODE).catch(() => {})
  }
}

/**
 * Where a path lands once every link in it is followed, also when its last parts do not exist yet (a directory about
 * to be created): the nearest existing ancestor's real path, with the missing parts after it. A path is compared with
 * another by this, never by its spelling: a link to a directory is that directory.
 */
export function realLocation(p: string): string {
  let cur = path.resolve(p)
  const rest: string[] = []
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(cur), ...rest)
    } catch {
      const parent = path.dirname(cur)
      if (parent === cur) return path.join(cur, ...rest)
      rest.unshift(path.basename(cur))
      cur = parent
    }
  }
}

/** Whether `p` is `dir` or inside it (both already resolved as the caller means them). */
export function isWithin(dir: string, p: string): boolean {
  const rel = path.relative(dir, p)
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel))
}

export async function fsyncDir(dir: string): Promise<void> {
  let fh: fsp.FileHandle | undefined
  try {
    fh = await fsp.open(dir, 'r')
    await fh.sync()
  } catch {
    // Best effort, as in OpenClaw: some filesystems refuse fsync on directories.
  } finally {
    await fh?.close().catch(() => {})
  }
}

/**
 * Replace `file` atomically: temp file `<file>.<uuid>.tmp` in the same directory (OpenClaw's name), mode 0600,
 * fsync, rename, fsync the directory. Readers see the old or the new content, never a mix.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, mode = FILE_MODE, opts: {syncDir?: boolean} = {}): Promise<void> {
  const dir = path.dirname(file)
  await ensurePrivateDir(dir)
  const tmp = `${file}.${randomUUID()}.tmp`
  let fh: fsp.FileHandle | undefined
  try {
    fh = await fsp.open(tmp, 'wx', mode)
    await fh.writeFile(data)
    await fh.sync()
    await fh.chmod(mode)
    await fh.close()
    fh = undefined
    await fsp.rename(tmp, file)
    // Off for a batch of files in one directory, which the caller syncs once after the last.
    if (opts.syncDir !== false) await fsyncDir(dir)
  } catch (error) {
    // Named by the file being replaced (the temp file is ours); it is unchanged, the temp file is removed below.
    throw fileError(error, file, 'write')
  } finally {
    await fh?.close().catch(() => {})
    await fsp.rm(tmp, {force: true}).catch(() => {})
  }
}

/**
 * Append bytes with O_APPEND and fsync; the file is created 0600 when missing. Only to a regular file: opened without
 * O_NONBLOCK, a FIFO would block the open until a reader appears.
 */
export async function appendDurable(file: string, data: string, mode = FILE_MODE, what: RegularFileOptions = {what: 'File'}): Promise<void> {
  const {fh} = await openRegular(file, what, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, mode).catch((error: unknown) => {
    throw fileError(error, file, 'open')
  })
  try {
    await fh.appendFile(data)
    await fh.sync()
  } catch (error) {
    throw fileError(error, file, 'append to')
  } finally {
    await fh.close()
  }
}

/** ISO time with ':' replaced by '-', OpenClaw's archive suffix format. */
export function archiveTimestamp(date = new Date()): string {
  return date.toISOString().replaceAll(':', '-')
}

/** ENOENT from Node, or the FileSystemError that names its file (code E_ENOENT). */
export function isEnoent(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code
  return code === 'ENOENT' || code === 'E_ENOENT'
}
