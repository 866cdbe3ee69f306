// The index as `SessionStore.update` hands it to a mutator, for a SQLite store: every key, each entry parsed on first use.
//
// Why: an agent turn updates one key twice, and handing its mutator every entry parsed (~14 KB of JSON each in a real
// OpenClaw store) would cost about a second per update on 10k sessions. Keys come from one cheap query; an entry is
// read and parsed when the mutator first reads it, and only the keys the mutator read or wrote are compared and
// written back. To a mutator it is an ordinary record: keys in store order, `in`, get, set and delete.
import type {SessionEntry, SessionStoreData} from '../types.js'
import type {SqlDatabase} from './driver.js'

export interface LazyEntries {
  data: SessionStoreData
  /**
   * The keys the mutator read, set or deleted: `before` with their stored entries, `after` with their entries now (a
   * deleted key is missing from `after`), as writeEntryChangesTx compares them.
   */
  changes(): {before: SessionStoreData; after: SessionStoreData}
}

/** Listable nodes only (entry_valid 1), as readEntriesTx gives them; must run inside the caller's transaction. */
export function lazyEntries(db: SqlDatabase): LazyEntries {
  const keys: string[] = db
    .prepare('SELECT session_key FROM session_nodes WHERE entry_valid = 1 ORDER BY session_key')
    .all()
    .map((r) => String(r.session_key))
  const present = new Set(keys)
  const original = new Map<string, SessionEntry | undefined>()
  const current = new Map<string, SessionEntry | undefined>()
  const order = [...keys]
  const one = db.prepare('SELECT entry_json FROM session_nodes WHERE session_key = ? AND entry_valid = 1')

  function load(key: string): SessionEntry | undefined {
    if (current.has(key)) return current.get(key)
    if (!present.has(key)) return undefined
    let entry: SessionEntry | undefined
    try {
      const parsed = JSON.parse(String(one.get(key)?.entry_json ?? 'null'))
      entry = parsed && typeof parsed === 'object' && !Array.isArray(parsed) && typeof parsed.sessionId === 'string' ? (parsed as SessionEntry) : undefined
    } catch {
      entry = undefined
    }
    // The original is a separate parse, so a mutator changing the entry in place is still seen as a change.
    original.set(key, entry === undefined ? undefined : (JSON.parse(JSON.stringify(entry)) as SessionEntry))
    current.set(key, entry)
    return entry
  }

  const target = Object.create(null) as SessionStoreData
  const data = new Proxy(target, {
    ownKeys: () => order.filter((k) => (current.has(k) ? current.get(k) !== undefined : present.has(k))),
    has: (_t, key) => typeof key === 'string' && (current.has(key) ? current.get(key) !== undefined : present.has(key)),
    get: (_t, key) => (typeof key === 'string' ? load(key) : undefined),
    set: (_t, key, value) => {
      if (typeof key !== 'string') return false
      if (!current.has(key)) load(key)
      if (!present.has(key) && !order.includes(key)) order.push(key)
      current.set(key, value as SessionEntry)
      return true
    },
    deleteProperty: (_t, key) => {
      if (typeof key !== 'string') return true
      if (!current.has(key)) load(key)
      current.set(key, undefined)
      return true
    },
    // Enumerable and configurable without parsing: Object.keys and for..in list a key without reading its entry.
    getOwnPropertyDescriptor: (_t, key) => {
      if (typeof key !== 'string') return undefined
      const exists = current.has(key) ? current.get(key) !== undefined : present.has(key)
      return exists ? {configurable: true, enumerable: true, writable: true, value: current.get(key)} : undefined
    },
    defineProperty: (_t, key, desc) => {
      if (typeof key !== 'string' || !('value' in desc)) return false
      if (!current.has(key)) load(key)
      if (!present.has(key) && !order.includes(key)) order.push(key)
      current.set(key, desc.value as SessionEntry)
      return true
    },
    getPrototypeOf: () => null,
  })
  return {
    data,
    changes() {
      const before = Object.create(null) as SessionStoreData
      const after = Object.create(null) as SessionStoreData
      for (const [k, e] of current) {
        const was = original.get(k)
        if (was !== undefined) before[k] = was
        if (e !== undefined) after[k] = e
      }
      return {before, after}
    },
  }
}
