// The main thread's side of a build worker (build-worker.ts): starts it, hands it the transcripts to read in the order the
// refresh will write them, and gives each transcript's chunks back in order (RemoteRead). The worker reads at most
// AHEAD bytes beyond what was written, so a slow writer never holds the whole store in memory. Any failure of the worker
// makes each transcript not yet written a local read (refresh.ts reads it itself), never a wrong one.
import {Worker} from 'node:worker_threads'

import {importCatalogWorker} from '../lazy.js'
import type {BuildJob, ToWorker, WorkerData} from './build-worker.js'
import type {RemoteChunk, RemoteRead} from './remote.js'

/** How far the worker may read ahead of the writes, in bytes of transcript. */
const AHEAD = 64 * 1024 * 1024

interface Pending {
  chunks: RemoteChunk[]
  waiter?: (c: RemoteChunk) => void
  done: boolean
}

const failed = (message: string): RemoteChunk => ({error: {message}}) as RemoteChunk

export class BuildPipe {
  private readonly pending = new Map<number, Pending>()
  private next = 0
  private failure?: string
  private closed = false

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: {job: number; chunk: RemoteChunk}) => {
      const p = this.pending.get(m.job)
      if (!p) return
      if (p.waiter) {
        const w = p.waiter
        p.waiter = undefined
        w(m.chunk)
      } else p.chunks.push(m.chunk)
    })
    const fail = (why: string) => {
      this.failure ??= why
      for (const p of this.pending.values()) {
        if (p.waiter) {
          const w = p.waiter
          p.waiter = undefined
          w(failed(why))
        }
      }
    }
    worker.on('error', (error) => fail(`the build worker failed: ${error.message}`))
    worker.on('exit', (code) => {
      if (!this.closed) fail(`the build worker stopped (exit ${code})`)
    })
  }

  /** A worker, or undefined where none can run (clawkit run from its sources, or Workers unavailable). */
  static async start(chunkBytes: number, env: Record<string, string | undefined> = process.env): Promise<BuildPipe | undefined> {
    const file = env.CLAWKIT_CATALOG_WORKER_FILE || (await importCatalogWorker()).workerEntry
    if (!file) return undefined
    const data: WorkerData = {kind: 'clawkit-catalog-build', chunkBytes, ahead: AHEAD}
    try {
      return new BuildPipe(new Worker(file, {workerData: data, stdout: false, stderr: false}))
    } catch {
      return undefined
    }
  }

  /** Queues a transcript (read from `mark`); its chunks are read with the handle returned, in the order submitted. */
  submit(file: string, mark: TranscriptMarkLike, markText: string | null): RemoteRead {
    const job = this.next++
    const p: Pending = {chunks: [], done: false}
    this.pending.set(job, p)
    const msg: ToWorker = {jobs: [{job, file, ...(mark ? {mark} : {})} as BuildJob]}
    this.worker.postMessage(msg)
    const take = (): Promise<RemoteChunk> => {
      if (p.chunks.length > 0) return Promise.resolve(p.chunks.shift()!)
      if (this.failure) return Promise.resolve(failed(this.failure))
      return new Promise((resolve) => (p.waiter = resolve))
    }
    const finish = () => {
      p.done = true
      this.pending.delete(job)
    }
    return {
      markText,
      next: async () => {
        const c = await take()
        if (c.error || c.last) finish()
        return c
      },
      drain: async () => {
        while (!p.done) {
          const c = await take()
          if (c.error || c.last) finish()
          if (!c.error) this.written(c.bytes)
        }
      },
      done: (c) => this.written(c.bytes),
    }
  }

  private written(bytes: number): void {
    if (!this.failure && bytes > 0) this.worker.postMessage({written: bytes} satisfies ToWorker)
  }

  /** Ends the worker (what it read ahead and was not written is dropped). */
  async close(): Promise<void> {
    this.closed = true
    await this.worker.terminate()
  }
}

type TranscriptMarkLike = BuildJob['mark']
