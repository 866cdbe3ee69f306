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
