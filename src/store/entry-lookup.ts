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
 * findEntryIn for many keys over one index, each stored key folded once: a cleanup of 2 700 keys over an index of
 * 10 000 folded every stored key for every key it looked up (27 million folds, most of a 45 s apply). Its answers are
 * findEntryIn's at the moment of each call, as long as keys leave the index only through removeAll (entries may be
 * replaced in place).
 */
export class EntryLookup {
  private readonly byKey = new Map<string, string[]>()

  constructor(private readonly data: SessionStoreData) {
    // Object.keys order, kept per folded key: ties are broken as findEntryIn breaks them.
    for (const k of Object.keys(data)) {
      const folded = normalizeSessionKey(k)
      const same = this.byKey.get(folded)
      if (same) same.push(k)
      else this.byKey.set(folded, [k])
    }
  }

  find(key: string): FoundEntry | undefined {
    const want = normalizeSessionKey(key)
    let best: FoundEntry | undefined
    for (const k of this.byKey.get(want) ?? []) {
      const e = this.data[k]
      if (!e || typeof e !== 'object') continue
      if (!best || (e.updatedAt ?? 0) > (best.entry.updatedAt ?? 0) || (k === want && (e.updatedAt ?? 0) === (best.entry.updatedAt ?? 0))) best = {storedKey: k, entry: e}
    }
    return best
  }

  /** Every spelling of `key` deleted from the index, as OpenClaw's migrateAndPruneGatewaySessionStoreKey folds them. */
  removeAll(key: string): void {
    const want = normalizeSessionKey(key)
    for (const k of this.byKey.get(want) ?? []) delete this.data[k]
    this.byKey.delete(want)
  }
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
