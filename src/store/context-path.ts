// The model context's path through a transcript that may be read lazily: which entries a turn's context needs parsed,
// over entries some of which are stubs (type, id and parentId only). Shared by the backends' context reads (the JSONL
// file's, file/context-read.ts, and the database's, sqlite/context.ts), so both follow the path the same way.
import {pathToLeaf} from './context.js'
import type {TranscriptEntry, TranscriptHeader} from './transcript-types.js'

export interface ContextRead {
  header?: TranscriptHeader
  /** The first line is not a session header (the writer refuses to continue such a file). */
  badHeader: boolean
  missingFinalNewline: boolean
  /** In file order, as readTranscript's entries; entries the context does not use may be stubs (type, id, parentId). */
  entries: TranscriptEntry[]
  /** The root-to-leaf path over `entries` (pathToLeaf's answer, so that the caller need not walk it again). */
  path: TranscriptEntry[]
  /** How many entries are stubs (0 after a whole read). */
  stubs: number
}

/** An entry not parsed yet: what a cheap read tells of it, and where to find it. */
export interface Stub {
  type: string
  id: string
  parentId: string | null
  /** Where the entry is: its line's index in a file, or its event's seq in a database. */
  at: number
}

const STUB = Symbol('stub')
/** An entry, or a stub standing in for one (its type, id and parentId are the stub's). */
export type Slot = TranscriptEntry & {[STUB]?: Stub}

/** The slot of an entry not parsed yet. */
export function stubSlot(type: string, id: string, parentId: string | null, at: number): Slot {
  return {type, id, parentId, timestamp: '', [STUB]: {type, id, parentId, at}} as Slot
}

/**
 * The leaf's root-to-leaf path over `entries` (in store order, some of them stubs), with every entry the model's
 * context uses parsed through `resolve` and put in place in `entries` too: the leaf (the last entry that resolves;
 * a torn tail is dropped as a whole read drops it), everything back to the last compaction and its first kept entry,
 * and before that only candidates for the newest thinking level and model, until both are found. Undefined when a
 * stub the context needs is not the entry it promised (then only a whole read is exact).
 */
export function contextPath(entries: Slot[], resolve: (stub: Stub) => TranscriptEntry | undefined): {path: TranscriptEntry[]; stubs: number} | undefined {
  const full = (slot: Slot): TranscriptEntry | undefined => (slot[STUB] ? resolve(slot[STUB]) : slot)
  while (entries.length > 0) {
    const last = full(entries.at(-1)!)
    if (last) {
      entries[entries.length - 1] = last
      break
    }
    entries.pop()
  }

  const path = pathToLeaf(entries)
  const indexOf = new Map<Slot, number>()
  for (let i = 0; i < entries.length; i++) if (entries[i][STUB]) indexOf.set(entries[i], i)
  /** Replace a path stub by its parsed entry; false when it does not parse (then only a whole read is exact). */
  const materialize = (p: number): boolean => {
    const slot = path[p] as Slot
    if (!slot[STUB]) return true
    const entry = full(slot)
    if (!entry || entry.id !== slot.id || (entry.parentId ?? null) !== slot.parentId || entry.type !== slot.type) return false
    entries[indexOf.get(slot)!] = entry
    path[p] = entry
    return true
  }
  // Walk back from the leaf: everything up to the last compaction and its first kept entry is parsed; before that,
  // only candidates for the newest thinking level and model, until both are found.
  let compactionSeen = false
  let keptAt = -1
  let inKeptRange = true
  let thinkingFound = false
  let modelFound = false
  for (let p = path.length - 1; p >= 0; p--) {
    const type = path[p].type
    const needed =
      inKeptRange ||
      (!thinkingFound && type === 'thinking_level_change') ||
      (!modelFound && (type === 'model_change' || type === 'message'))
    if (needed && !materialize(p)) return undefined
    const e = path[p] as Slot
    if (!e[STUB]) {
      if (e.type === 'thinking_level_change' && typeof e.thinkingLevel === 'string') thinkingFound = true
      else if (e.type === 'model_change' && typeof e.provider === 'string') modelFound = true
      else if (e.type === 'message') {
        const msg = (e as {message?: {role?: string; provider?: string; model?: string}}).message
        if (msg?.role === 'assistant' && msg.provider && msg.model) modelFound = true
      } else if (e.type === 'compaction' && !compactionSeen) {
        // The newest compaction on the path is the one in effect; its kept range starts at firstKeptEntryId, the way
        // buildSessionContext finds it (or nothing is kept when that id is not earlier on the path).
        compactionSeen = true
        keptAt = path.findIndex((x, i) => i < p && x.id === e.firstKeptEntryId)
        if (keptAt < 0) inKeptRange = false
      }
    }
    if (compactionSeen && p === keptAt) inKeptRange = false
    if (!inKeptRange && thinkingFound && modelFound) break
  }

  let stubs = 0
  for (const e of entries) if ((e as Slot)[STUB]) stubs++
  return {path, stubs}
}
