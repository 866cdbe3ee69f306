// The catalog's build worker: a thread that reads JSONL transcripts as readSince reads them (store/locator-read.ts), and
// digests their lines (digest.ts: spans, their full-text tokens, calls, unreadable lines) into chunks for the main
// thread, which only writes them (one writer: build-pipe.ts and refresh.ts). Reading, parsing and tokenizing take about
// as long as SQLite takes to insert what they give, so on two cores a first build takes about half the time.
// Bundled on its own (dist/vendor/catalog-worker.cjs, through src/lazy.ts), loaded only by a build.
import {isMainThread, parentPort, workerData} from 'node:worker_threads'

import {readSinceAtLocator} from '../store/locator-read.js'
import type {TranscriptMark} from '../store/types.js'
import {Digest} from './digest.js'
import type {RemoteChunk} from './remote.js'

/** workerData.kind of a build worker. */
export const BUILD_WORKER = 'clawkit-catalog-build'

/** This module's own file when it is a bundle a Worker can run (dist/vendor/catalog-worker.cjs); undefined from source. */
export const workerEntry: string | undefined = typeof __filename === 'string' && __filename.endsWith('.cjs') ? __filename : undefined

/** A transcript to read: its file, the mark to read from, and how many bytes of lines make a chunk. */
export interface BuildJob {
  job: number
  file: string
  mark?: TranscriptMark
}

/** To the worker: transcripts to read (in order), bytes the main thread has written (it reads at most `ahead` more). */
export type ToWorker = {jobs: BuildJob[]} | {written: number} | {end: true}

export interface WorkerData {
  kind: typeof BUILD_WORKER
  /** A chunk ends after this many bytes of lines. */
  chunkBytes: number
  /** How many bytes the worker may have read beyond what the main thread wrote. */
  ahead: number
}

/** The worker's loop: each job in turn, each in chunks, waiting while it is `ahead` bytes ahead of the writes. */
function run(data: WorkerData): void {
  const port = parentPort!
  const queue: BuildJob[] = []
  let sent = 0
  let written = 0
  let ended = false
  let wake: (() => void) | undefined
  const poke = () => {
    const w = wake
    wake = undefined
    w?.()
  }
  port.on('message', (m: ToWorker) => {
    if ('jobs' in m) queue.push(...m.jobs)
    else if ('written' in m) written += m.written
    else ended = true
    poke()
  })
  const wait = () => new Promise<void>((resolve) => (wake = resolve))
  const post = (job: number, chunk: RemoteChunk) => {
    sent += chunk.bytes
    port.postMessage({job, chunk}, chunk.tokens.byteLength > 0 ? [chunk.tokens.buffer as ArrayBuffer] : [])
  }
  const loop = async () => {
    for (;;) {
      while (queue.length === 0 && !ended) await wait()
      const job = queue.shift()
      if (!job) break
      try {
        const since = await readSinceAtLocator(job.file, job.mark, {verify: 'ends'})
        const head = {rewritten: since.rewritten, unchanged: since.unchanged}
        const digest = new Digest()
        let bytes = 0
        const take = (last: boolean): RemoteChunk => {
          const mark = since.mark()
          digest.close(mark.bytes)
          // A copy of the tokens, moved to the main thread (the digest's buffer is used again).
          const out = digest.out()
          const tokens = new Uint8Array(out.tokens.byteLength)
          tokens.set(out.tokens)
          const chunk: RemoteChunk = {...head, last, mark, ...out, tokens, bytes}
          digest.clear()
          bytes = 0
          return chunk
        }
        for await (const l of since.lines) {
          bytes += digest.line(l)
          if (bytes >= data.chunkBytes) post(job.job, take(false))
          while (sent - written > data.ahead && !ended) await wait()
          if (ended) break
        }
        if (ended) break
        post(job.job, take(true))
      } catch (error) {
        const e = error as {code?: string; message?: string}
        port.postMessage({job: job.job, chunk: {error: {...(typeof e.code === 'string' ? {code: e.code} : {}), message: String(e.message ?? error)}}})
      }
    }
  }
  loop().then(
    () => port.close(),
    (error: unknown) => {
      throw error
    },
  )
}

if (!isMainThread && (workerData as WorkerData | undefined)?.kind === BUILD_WORKER) run(workerData as WorkerData)
