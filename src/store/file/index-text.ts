// sessions.json as a file: OpenClaw's exact serialization, the parse that never mistakes a broken index for an empty
// one, and the read of the whole file (store.ts and the journal's index replay share them).
import {ClawkitError, CorruptFileError, jsonErrorPosition} from '../../errors.js'
import {FileTooLargeError, NotRegularFileError, readRegularFile} from '../../os/safe-open.js'
import {stripBom} from '../../text/bom.js'
import {isEnoent} from '../fs-util.js'
import {emptyStoreData} from '../index-data.js'
import type {SessionStoreData} from '../types.js'

/**
 * Exactly OpenClaw's serialization: JSON.stringify(store, null, 2), no trailing newline. JSON.parse reads arrays nested
 * hundreds of thousands deep, but JSON.stringify recurses and gives up after a few thousand levels ("Maximum call stack
 * size exceeded"); OpenClaw's own writer fails on such a row the same way. The row is named so that the user can fix
 * it: writers refuse (nothing is written) rather than drop a row they cannot write back.
 */
export function serializeStore(data: SessionStoreData, file = 'sessions.json'): string {
  try {
    return JSON.stringify(data, null, 2)
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    let row: string | undefined
    for (const key of Object.keys(data)) {
      try {
        JSON.stringify(data[key])
      } catch {
        row = key
        break
      }
    }
    const which = row === undefined ? 'a row' : `the row ${JSON.stringify(row.length > 120 ? `${row.slice(0, 120)}…` : row)}`
    throw new ClawkitError(`Cannot write ${file}: ${which} is nested too deeply to be written back as JSON (thousands of levels). Nothing was written. Remove or flatten that row by hand (its transcript is not affected).`, {code: 'E_STORE_TOO_DEEP', cause: error})
  }
}

/** Parse sessions.json text; an unparseable or non-object file is a CorruptFileError, never an empty store. */
export function parseStoreText(text: string, file: string): SessionStoreData {
  // After a byte order mark OpenClaw 2026.4.27 reads the whole index as empty and overwrites it on its next save;
  // clawkit reads past it, so that nothing treats a readable index as broken. A rewrite drops it (as OpenClaw's does).
  text = stripBom(text)
  // A 0-byte file is what a crash mid-write leaves behind (openclaw#77783); it holds no sessions but it is not a
  // healthy store either, so it is reported rather than silently read as empty.
  if (text.trim() === '') throw new CorruptFileError(file, 'the file is empty')
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    // V8 quotes the bytes around the error ("root:*:202"... is not valid JSON); the position is enough, and the quote
    // would copy file content (control characters, secrets from a wrongly named file) into the message.
    const detail = (error as Error).message.replace(/ in JSON at position \d+.*$/s, '').replace(/, ".*is not valid JSON$/s, '')
    throw new CorruptFileError(file, detail, jsonErrorPosition(text, error))
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new CorruptFileError(file, `the top level is ${Array.isArray(parsed) ? 'an array' : String(parsed === null ? 'null' : typeof parsed)}, expected an object of session entries`)
  }
  // The parsed object is fresh and ours: dropping its prototype costs nothing, where a copy into a new null-prototype
  // object cost ~5 ms and as much again in garbage collection on a 10k-session index (sessions list's hot path).
  // JSON.parse already made a "__proto__" key an own property; it stays one.
  return Object.setPrototypeOf(parsed, null) as SessionStoreData
}

/**
 * The most a sessions.json read as a whole may hold: V8 cannot make a string much longer (2^29 - 24 characters), so a
 * larger index could not be parsed by OpenClaw either. Larger files in OpenClaw's layout are scanned in chunks.
 */
export const MAX_WHOLE_INDEX_BYTES = 500 * 1024 * 1024

/** Advice for a sessions.json path that is not a regular file. */
const STORE_ADVICE = 'Point --store or session.store at a sessions.json file, or move this one out of the way (clawkit then sees no sessions).'

export const STORE_FILE = {what: 'Session store', advice: STORE_ADVICE, maxBytes: MAX_WHOLE_INDEX_BYTES}

/** EISDIR, EACCES, ENAMETOOLONG…: name the file and the reason instead of a bare errno message. */
export function unreadableStore(file: string, error: unknown): ClawkitError {
  // Already says which file and what to do.
  if (error instanceof NotRegularFileError || error instanceof FileTooLargeError) return error
  const e = error as NodeJS.ErrnoException
  const why = e.code === 'EISDIR' ? 'it is a directory' : e.code === 'EACCES' ? 'permission denied' : (e.code ?? e.message)
  return new ClawkitError(`Cannot read session store ${file}: ${why}. Point --store or session.store at a sessions.json file.`, {code: 'E_STORE_UNREADABLE', cause: error})
}

export async function readStoreFile(file: string): Promise<{data: SessionStoreData; text?: string; exists: boolean}> {
  let text: string
  try {
    text = (await readRegularFile(file, STORE_FILE)).toString('utf8')
  } catch (error) {
    if (isEnoent(error)) return {data: emptyStoreData(), exists: false}
    throw unreadableStore(file, error)
  }
  return {data: parseStoreText(text, file), text, exists: true}
}

