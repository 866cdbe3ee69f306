// SessionStore.stats() for backends whose index is a map of rows (the JSON layout, the memory twin): the counting
// rules in one place, so that every backend answers status alike.
import {finiteNumber} from '../../util/values.js'
import {resolveAgentIdFromKey} from '../session-key.js'
import type {FoundEntry, SessionStoreData, StoreStats} from '../types.js'
import {isEntryObject} from './index-scan.js'

/** A candidate for the newest rows, its updatedAt read once (the insertion compares it again and again). */
interface Candidate {
  found: FoundEntry
  at: number
}

/**
 * The sessions of `data` (`global`, `unknown` and non-object rows are not sessions), their newest updatedAt and the
 * `newest` most recent, newest first. `ofAgent`: a store several agents share counts only the keys of that agent
 * (unscoped keys belong to `storeAgentId`, the store's first agent). A function of its own, not a loop in a caller:
 * on 10 000 sessions V8 optimizes whatever function holds this loop, and Node waits at exit for a compile still running.
 */
export function statsOfIndex(data: SessionStoreData, storeAgentId: string, opts: {newest?: number; ofAgent?: string; keys?: boolean} = {}): StoreStats {
  const n = opts.newest ?? 0
  const top: Candidate[] = []
  let sessions = 0
  let last: number | null = null
  for (const key of Object.keys(data)) {
    const entry = data[key]
    if (key === 'global' || key === 'unknown' || !isEntryObject(entry)) continue
    if (opts.ofAgent !== undefined && resolveAgentIdFromKey(key, storeAgentId) !== opts.ofAgent) continue
    sessions++
    const updatedAt = finiteNumber(entry.updatedAt) ?? null
    if (updatedAt !== null && (last === null || updatedAt > last)) last = updatedAt
    if (n > 0) pushNewest(top, {found: {storedKey: key, entry}, at: updatedAt ?? Number.NEGATIVE_INFINITY}, n)
  }
  return {sessions, lastUpdatedAt: last, newest: top.map((c) => c.found), events: null, ...(opts.keys ? {keys: Object.keys(data)} : {})}
}

/** Keep the n newest without sorting everything (10 000 sessions, 10 kept): insertion into a short sorted list. */
function pushNewest(top: Candidate[], item: Candidate, n: number): void {
  if (top.length === n && item.at - top[n - 1].at <= 0) return
  let i = top.length
  while (i > 0 && item.at - top[i - 1].at > 0) i--
  top.splice(i, 0, item)
  if (top.length > n) top.pop()
}
