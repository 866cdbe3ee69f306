// The embedded backend: OpenClaw's sessions.json, read without a lock and rewritten atomically under sessions.json.lock.
import fsp from 'node:fs/promises'

import {CorruptFileError, jsonErrorPosition} from '../errors.js'
import {isEnoent, writeFileAtomic} from './fs-util.js'
import {DEFAULT_LOCK_TIMEOUT_MS, withLock} from './lock.js'
import type {SessionStore, SessionStoreData, StoreRef, UpdateOptions} from './types.js'

/** Exactly OpenClaw's serialization: JSON.stringify(store, null, 2), no trailing newline. */
export function serializeStore(data: SessionStoreData): string {
  return JSON.stringify(data, null, 2)
}

/** Parse sessions.json text; an unparseable or non-object file is a CorruptFileError, never an empty store. */
export function parseStoreText(text: string, file: string): SessionStoreData {
  // A 0-byte file is what a crash mid-write leaves behind (openclaw#77783); it holds no sessions but it is not a
  // healthy store either, so it is reported rather than silently read as empty.
  if (text.trim() === '') throw new CorruptFileError(file, 'the file is empty')
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new CorruptFileError(file, (error as Error).message.replace(/ in JSON at position \d+.*$/, ''), jsonErrorPosition(text, error))
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new CorruptFileError(file, `the top level is ${Array.isArray(parsed) ? 'an array' : String(parsed === null ? 'null' : typeof parsed)}, expected an object of session entries`)
  }
  return parsed as SessionStoreData
}

export async function readStoreFile(file: string): Promise<{data: SessionStoreData; text?: string; exists: boolean}> {
  let text: string
  try {
    text = await fsp.readFile(file, 'utf8')
  } catch (error) {
    if (isEnoent(error)) return {data: {}, exists: false}
    throw error
  }
  return {data: parseStoreText(text, file), text, exists: true}
}

export class FileSessionStore implements SessionStore {
  readonly ref: StoreRef

  constructor(ref: StoreRef) {
    this.ref = ref
  }

  async read(): Promise<SessionStoreData> {
    return (await readStoreFile(this.ref.path)).data
  }

  async update<T>(mutator: (data: SessionStoreData) => T | Promise<T>, opts: UpdateOptions = {}): Promise<T> {
    return withLock(
      this.ref.path,
      async () => {
        const {data, text} = await readStoreFile(this.ref.path)
        const result = await mutator(data)
        const next = serializeStore(data)
        // Same skip as OpenClaw: an unchanged store is not rewritten (keeps mtime, avoids needless I/O).
        if (next !== text) await writeFileAtomic(this.ref.path, next)
        return result
      },
      {timeoutMs: opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS},
    )
  }
}
