// Which row of an index a session key names, as OpenClaw resolves it: shared by every backend.
import {normalizeSessionKey} from './session-key.js'
import type {FoundEntry, SessionStoreData} from './types.js'

/** OpenClaw's resolveSessionStoreEntry: the entry under `key` or any spelling that lowercases to it, newest first (section 2.6). */
export function findEntryIn(data: SessionStoreData, key: string): FoundEntry | undefined {
  const want = normalizeSessionKey(key)
  let best: FoundEntry | undefined
  // Keys first, then only the matching entries: a SQLite store's update hands over a record that parses an entry
  // only when it is read (sqlite/lazy-entries.ts).
  for (const k of Object.keys(data)) {
    if (normalizeSessionKey(k) !== want) continue
    const e = data[k]
    if (!e || typeof e !== 'object') continue
    if (!best || (e.updatedAt ?? 0) > (best.entry.updatedAt ?? 0) || (k === want && (e.updatedAt ?? 0) === (best.entry.updatedAt ?? 0))) best = {storedKey: k, entry: e}
  }
  return best
}

/**
 * The entries whose current session is `sessionId`, newest updatedAt first (ties in index order): a store without an
 * index of current ids answers SessionReader.findBySessionId from its whole index this way.
 */
export function entriesWithSessionId(data: SessionStoreData, sessionId: string): FoundEntry[] {
  const hits: FoundEntry[] = []
  for (const [k, e] of Object.entries(data)) if (e && typeof e === 'object' && e.sessionId === sessionId) hits.push({storedKey: k, entry: e})
  return hits.sort((a, b) => (b.entry.updatedAt ?? 0) - (a.entry.updatedAt ?? 0))
}
