// The store as a repair sees it once it holds the locks it needs: the index as it is now and the files that exist
// now. Doctor plans from a scan taken without locks; a reset, an agent turn or another doctor may have moved on since,
// so every repair that depends on "nobody uses this file" decides again from this view (issue 14 item 2).
import fs from 'node:fs'
import path from 'node:path'

import {LockTimeoutError} from '../../../errors.js'
import {isEntryObject} from '../../file/index-scan.js'
import {isTranscriptFileName} from '../../file/transcript.js'
import {acquireLock, inspectLock, type LockHandle, lockHolderPid, lockPathFor, withLock} from '../../lock.js'
import type {SessionEntry, SessionStoreData} from '../../types.js'
import type {LiveStore} from '../types.js'
import {resolveFromScan, scanStore} from './scan.js'

/**
 * How long a repair waits for a transcript lock before leaving that file alone. Short on purpose: the holder is a
 * reset rotating the file or an agent turn writing it, and either way the file is not an orphan doctor should touch
 * now; the next doctor run sees how it ended.
 */
export const REPAIR_LOCK_WAIT_MS = 2000

/** The most transcript locks one repair step holds at once (each keeps a descriptor open until the step ends). */
export const MAX_LOCKS_PER_STEP = 200

export function liveStore(sessionsDir: string, data: SessionStoreData): LiveStore {
  let names: Set<string> | undefined
  let realSessionsDir: string | undefined
  let refs: {names: Set<string>; ids: Set<string>} | undefined
  const listing = () => {
    if (!names) {
      try {
        names = new Set(fs.readdirSync(sessionsDir))
      } catch {
        names = new Set()
      }
      try {
        realSessionsDir = fs.realpathSync(sessionsDir)
      } catch {
        realSessionsDir = sessionsDir
      }
    }
    return names
  }
  const note = (set: {names: Set<string>; ids: Set<string>}, key: string, e: SessionEntry) => {
    if (typeof e.sessionId === 'string' && e.sessionId.trim()) set.ids.add(e.sessionId.trim())
    // The stored name counts too, even where it resolves elsewhere: leaving a file alone is always safe.
    if (typeof e.sessionFile === 'string' && e.sessionFile.trim()) set.names.add(path.basename(e.sessionFile.trim()))
    try {
      set.names.add(path.basename(resolveFromScan({sessionsDir, realSessionsDir: realSessionsDir!, names: listing()}, e, key).path))
    } catch {}
  }
  const references = () => {
    if (!refs) {
      listing()
      refs = {names: new Set(), ids: new Set()}
      for (const [key, e] of Object.entries(data)) if (isEntryObject(e)) note(refs, key, e)
    }
    return refs
  }
  return {
    isLiveTranscript(file) {
      if (path.dirname(file) !== sessionsDir || !isTranscriptFileName(path.basename(file))) return false
      try {
        return fs.lstatSync(file).isFile()
      } catch {
        return false
      }
    },
    references(file, sessionId) {
      const r = references()
      return r.names.has(path.basename(file)) || (sessionId !== undefined && r.ids.has(sessionId))
    },
    heldBy(file) {
      const lockPath = lockPathFor(file)
      const st = fs.lstatSync(lockPath, {throwIfNoEntry: false})
      if (!st) return undefined
      // Not a regular file: nothing doctor should open (it could be a FIFO); count it as held.
      if (!st.isFile()) return `${path.basename(lockPath)} is not a lock file doctor can read`
      const info = inspectLock(lockPath)
      return info && !info.stale ? `pid ${lockHolderPid(info) ?? 'unknown'}` : undefined
    },
    added(key, entry) {
      if (refs) note(refs, key, entry)
    },
  }
}

/**
 * Take the locks of `files` (sorted, so two doctors never wait on each other in a cycle) before the store lock, the
 * order every OpenClaw writer uses. A file whose lock stays taken is reported in `busy` and must be left alone.
 */
export async function withTranscriptLocks<T>(files: string[], fn: (busy: Map<string, string>) => Promise<T>): Promise<T> {
  const held: LockHandle[] = []
  const busy = new Map<string, string>()
  try {
    for (const file of [...new Set(files)].sort()) {
      try {
        held.push(await acquireLock(file, {timeoutMs: REPAIR_LOCK_WAIT_MS}))
      } catch (error) {
        // Only a wait that ran out means another writer; a lock path that is a directory, a full disk or a read-only
        // file system leaves the file alone too, but says what it is, since running doctor again cannot help.
        if (error instanceof LockTimeoutError) {
          busy.set(file, `${path.basename(file)} is locked by another writer now (pid ${error.holderPid ?? 'unknown'}); left alone. Run doctor again once it is done.`)
        } else busy.set(file, `${path.basename(file)} left alone: ${(error as Error).message}`)
      }
    }
    return await fn(busy)
  } finally {
    for (const h of held.reverse()) await h.release()
  }
}

/** Run `fn` under the store lock with the index as it is now, without writing it (for decisions about files). */
export async function withLiveStore<T>(storePath: string, fn: (live: LiveStore) => Promise<T>): Promise<T> {
  return withLock(storePath, async () => {
    // scanStore reads a large index entry by entry (without the bulky fields), as the planning scan did.
    const scan = await scanStore([''], false, storePath)
    if (scan.storeError || scan.readError) throw new Error(`the index cannot be read now (${scan.storeError?.message ?? scan.readError}); nothing changed`)
    return fn(liveStore(path.dirname(storePath), scan.data ?? {}))
  })
}
