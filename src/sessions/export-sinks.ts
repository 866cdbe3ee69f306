// Where an export is written: stdout (a pipe, or a regular file through write(2) on fd 1), a file created beside its
// final name and renamed into place, or a page of it in memory (the MCP server's); writes are batched, and a reader
// that went away ends the export quietly.
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {fileError, isErrnoError, UsageError} from '../errors.js'

/** How much a file sink gathers before one write. */
const FLUSH_BYTES = 1024 * 1024

export interface Sink {
  write(s: string): Promise<void>
  close(): Promise<void>
  /** Give up: a file sink removes its temporary file and leaves the destination as it was. */
  abort?(): Promise<void>
  bytes: number
}

/** The reader of stdout went away (`| head`): the export stops quietly, as every command does on EPIPE. */
export class ReaderGone extends Error {}

/**
 * A page of the document in memory: the characters from `offset`, at most `maxChars` of them. The export stops reading
 * once it has them and one more (so `more` can say whether the document goes on), as it stops for a reader gone.
 */
export function pagedSink(offset: number, maxChars: number): {sink: Sink; page(): {text: string; more: boolean}} {
  const parts: string[] = []
  let seen = 0
  let kept = 0
  let more = false
  const sink: Sink = {
    bytes: 0,
    write: async (text) => {
      sink.bytes += Buffer.byteLength(text)
      const start = Math.max(0, offset - seen)
      seen += text.length
      if (start < text.length && kept < maxChars) {
        const piece = text.slice(start, start + maxChars - kept)
        parts.push(piece)
        kept += piece.length
        if (start + piece.length < text.length) more = true
      } else if (kept >= maxChars && start < text.length) more = true
      if (more) throw new ReaderGone()
    },
    close: async () => undefined,
  }
  return {sink, page: () => ({text: parts.join(''), more})}
}

/** Whether fd 1 is a regular file (`> FILE`). */
function stdoutIsFile(): boolean {
  try {
    return fs.fstatSync(1).isFile()
  } catch {
    return false
  }
}

/**
 * Stdout, honouring backpressure: a slow pipe never makes the export buffer the whole document. A regular file is
 * written with write(2) on fd 1 directly: Node's stream for it writes synchronously but defers each write's callback to
 * a tick that runs only once the export yields to the event loop, which a read-render-write loop over a file never
 * does, so every chunk stayed referenced until the end (a 317 MB transcript peaked at 403 MB of RSS).
 */
export function stdoutSink(): Sink {
  if (stdoutIsFile()) {
    return batched(async (text) => {
      const buf = Buffer.from(text)
      for (let off = 0; off < buf.length; ) off += fs.writeSync(1, buf, off, buf.length - off)
    }, 64 * 1024)
  }
  let failed: NodeJS.ErrnoException | undefined
  const fail = (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' ? new ReaderGone() : e)
  const put = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (failed) return reject(fail(failed))
      const ok = process.stdout.write(text, (e) => {
        if (e) {
          failed = e
          reject(fail(e))
        }
      })
      if (ok) return resolve()
      const done = (e?: NodeJS.ErrnoException) => {
        process.stdout.off('drain', done)
        process.stdout.off('error', done)
        if (e) reject(fail(e))
        else resolve()
      }
      process.stdout.on('drain', done)
      process.stdout.on('error', done)
    })
  // Gathered into 64 KiB writes: one write per message would be ~600 000 for a 1 GiB transcript.
  return batched(put, 64 * 1024)
}

/** A sink that gathers writes into batches of about `limit` bytes before `put`; `close` puts the rest. */
function batched(put: (text: string) => Promise<void>, limit: number, extra: Partial<Pick<Sink, 'close' | 'abort'>> = {}): Sink {
  let pending: string[] = []
  let pendingBytes = 0
  const flush = async () => {
    if (pending.length === 0) return
    const text = pending.join('')
    pending = []
    pendingBytes = 0
    await put(text)
  }
  const sink: Sink = {
    bytes: 0,
    write: async (s) => {
      const n = Buffer.byteLength(s)
      sink.bytes += n
      pending.push(s)
      pendingBytes += n
      if (pendingBytes >= limit) await flush()
    },
    close: async () => {
      try {
        await flush()
      } catch (error) {
        await extra.abort?.()
        throw error
      }
      await extra.close?.()
    },
    ...(extra.abort ? {abort: extra.abort} : {}),
  }
  return sink
}

/**
 * A file written beside its destination and moved into place when complete: a failed export never leaves half a file
 * under the name asked for. Without `force`, the final step is a hard link, which fails rather than replace a file
 * that appeared meanwhile.
 */
export async function fileSink(file: string, force: boolean): Promise<Sink> {
  if (!force && fs.existsSync(file)) throw new UsageError(`${file} already exists; nothing was written. Pass --force to overwrite it, or choose another --out.`, 'E_EXISTS')
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`)
  // The temp file is ours, not the user's: a failure names the file asked for, as the write it is.
  const asWrite = (error: unknown) => fileError(error, file, 'write')
  const fh = await fsp.open(tmp, 'wx', 0o600).catch((error: unknown) => {
    throw asWrite(error)
  })
  // One write per 1 MiB instead of one per message: a 1 GiB export is ~600 000 messages.
  const abort = async () => {
    await fh.close().catch(() => undefined)
    await fsp.rm(tmp, {force: true})
  }
  const close = async () => {
    try {
      await fh.sync()
      await fh.close()
      if (force) await fsp.rename(tmp, file)
      else {
        await fsp.link(tmp, file).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') throw new UsageError(`${file} already exists; nothing was written. Pass --force to overwrite it, or choose another --out.`, 'E_EXISTS')
          throw error
        })
        await fsp.unlink(tmp)
      }
    } catch (error) {
      throw isErrnoError(error) ? asWrite(error) : error
    } finally {
      await fsp.rm(tmp, {force: true})
    }
  }
  return batched((text) => fh.write(text).then(() => undefined), FLUSH_BYTES, {close, abort})
}

