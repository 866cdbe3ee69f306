// In-process locks by name: FIFO between async call chains, re-entrant within one (the store interface's lock promise).
import {AsyncLocalStorage} from 'node:async_hooks'

/**
 * One lock per name, FIFO. Re-entrant within one async call chain, as OpenClaw's lock files are within a process (a
 * reset holds a transcript's lock and takes it again to archive it); concurrent callers wait their turn.
 */
export class ChainMutexes {
  private readonly tails = new Map<string, Promise<void>>()
  private readonly held = new AsyncLocalStorage<ReadonlySet<string>>()

  async run<T>(name: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const mine = this.held.getStore() ?? new Set<string>()
    if (mine.has(name)) return fn()
    const aborted = () => Object.assign(new Error(`Stopped waiting for the lock of ${name}`), {code: 'E_LOCK_WAIT_ABORTED'})
    if (signal?.aborted) throw aborted()
    const prev = this.tails.get(name) ?? Promise.resolve()
    let release!: () => void
    const done = new Promise<void>((resolve) => (release = resolve))
    const tail = prev.then(() => done)
    this.tails.set(name, tail)
    let onAbort: (() => void) | undefined
    try {
      // Like the file lock, an abort ends the wait at once rather than after the holder is done.
      await Promise.race([prev, new Promise<never>((_, reject) => signal?.addEventListener('abort', (onAbort = () => reject(aborted())), {once: true}))])
      return await this.held.run(new Set([...mine, name]), fn)
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort)
      // A waiter that gave up passes its turn on only once the holder before it is done.
      void prev.then(() => release())
      if (this.tails.get(name) === tail) void tail.then(() => this.tails.get(name) === tail && this.tails.delete(name))
    }
  }
}
