// A transcript read by the locator its store handed out, for a thread that holds no store (the catalog's build worker,
// which gets locators from the main thread's SessionReader): the file layout's readSince, so the lines, marks and
// rewrite checks are exactly the store's. A database locator (`<db>#<sessionId>`) is not readable this way: its events
// are rows, read through the store itself.
import {ClawkitError} from '../errors.js'
import {readTranscriptSince} from './file/transcript-stream.js'
import type {MarkCheck, TranscriptMark, TranscriptSince} from './types.js'

export async function readSinceAtLocator(locator: string, mark: TranscriptMark | undefined, opts: {verify?: MarkCheck} = {}): Promise<TranscriptSince> {
  if (locator.includes('#')) throw new ClawkitError(`${locator} is a database session; it is read through its store, not by locator.`, {code: 'E_INTERNAL'})
  return readTranscriptSince(locator, mark, opts)
}
