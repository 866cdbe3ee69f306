// What a build worker hands the catalog's writer (build-pipe.ts, refresh.ts): a transcript's chunks as digest.ts made
// them in the worker, and the mark each ends at. Kept apart so the worker's code and the writer's share the shapes
// without importing each other.
import type {TranscriptMark} from '../store/types.js'
import type {CallOut, PartsOut, SpanOut} from './digest.js'

/** A transcript as a build worker reads it: its chunks in order (build-pipe.ts), and the mark it was read from. */
export interface RemoteRead {
  markText: string | null
  /** Set once the transcript's rows were written from the worker's chunks. */
  used?: boolean
  next(): Promise<RemoteChunk>
  /** Lets the rest of its chunks go (the transcript is read here instead). */
  drain(): Promise<void>
  /** Tells the worker a chunk was written (it reads ahead a bounded amount). */
  done(chunk: RemoteChunk): void
}

/** One chunk of a transcript read by a build worker: what a Digest gave for its lines, and the mark after them. */
export interface RemoteChunk extends PartsOut {
  rewritten: boolean
  unchanged: boolean
  last: boolean
  mark: TranscriptMark
  spans: SpanOut[]
  calls: CallOut[]
  bad: number[]
  lastLine: number
  bytes: number
  error?: {code?: string; message: string}
}
