// Appending entries to a transcript under a lock of their own: withTranscript, then the locked transcript's append.
// Written once over SessionStore for every backend (callers that hold the lock already append through the tx).
import type {AppendResult, NewEntry, SessionStore, TranscriptAppendOptions, TranscriptRef} from './types.js'

/** `LockedTranscript.append` under the transcript's lock, taken and released for this append alone. */
export function appendTo(store: SessionStore, t: TranscriptRef, items: NewEntry[], opts: TranscriptAppendOptions & {lockTimeoutMs?: number} = {}): Promise<AppendResult> {
  return store.withTranscript(t, (tx) => tx.append(items, opts), {timeoutMs: opts.lockTimeoutMs})
}
