// The index as a value, the same for every backend: a record from key to entry with no prototype, so that a key
// spelled `__proto__` or `constructor` is a row like any other.
import type {SessionStoreData} from './types.js'

/**
 * An empty index with no prototype. Keys are user data and may be spelled `__proto__`, `constructor` or `toString`: on
 * a plain object `data["__proto__"] = entry` sets the prototype instead of a row (the row is then lost on write), and
 * `data["constructor"]` reads Object. Every index object a writer sees comes from here or from storeDataFrom.
 */
export function emptyStoreData(): SessionStoreData {
  return Object.create(null) as SessionStoreData
}

/** A null-prototype copy of parsed entries (JSON.parse and Object.fromEntries give plain objects). */
export function storeDataFrom(entries: Iterable<readonly [string, unknown]> | object): SessionStoreData {
  const out = emptyStoreData() as Record<string, unknown>
  // Assignment into a null-prototype object makes `__proto__` an ordinary own key, as JSON.parse itself does.
  for (const [k, v] of Symbol.iterator in entries ? (entries as Iterable<readonly [string, unknown]>) : Object.entries(entries)) out[k] = v
  return out as SessionStoreData
}
