// The runaway detector: a session whose spend in the last hour is far above its own usual rate (a heartbeat or cron
// loop that suddenly calls the model every few seconds). Only sessions updated in the last hour are read, each its own
// current transcript from its end (at most RUNAWAY.maxCalls calls), so `status` can ask on every run.
import type {ReadableState} from '../store/state.js'
import type {SessionStoreData} from '../store/types.js'
import {transcriptOrNone} from '../store/session-id.js'
import type {Runaway} from './budget-types.js'
import {callFieldsOf, priceCall} from './usage.js'

/** The rule, in numbers (docs/sessions.md "Runaway sessions"). */
export const RUNAWAY = {
  /** The window looked at. */
  windowMs: 3_600_000,
  /** The history its usual rate comes from: the 7 days before the window. */
  historyMs: 7 * 86_400_000,
  /** Below this spend in the window a session is never a runaway (pennies are not worth a page). */
  minUsd: 1,
  /** With a usual rate: the window's spend at least this many times it. */
  factor: 5,
  /** Fewer active hours than this in the history: no usual rate yet. */
  minActiveHours: 3,
  /** Without a usual rate: the window's spend at least this. */
  newUsd: 5,
  /**
   * At most this many of a transcript's last calls are read (from its end, as `history` reads): a month-long main
   * session of a gigabyte costs status no more than a short one. A runaway's hour is well within it.
   */
  maxCalls: 5000,
  /**
   * At most this many of an agent's most recently updated sessions are looked at (those updated within the window):
   * more sessions than that active in one hour is a fleet, not a runaway to page about from `status`.
   */
  maxSessions: 1000,
} as const

/**
 * The rule: spend in the last hour of at least $1, and at least 5 times the session's usual spend per active hour over
 * the 7 days before, or, for a session with fewer than 3 active hours in those days (no usual rate yet), at least $5.
 * Averaging over active hours, not all hours, keeps a session used one hour a day from looking like a runaway every
 * time it is used, while a heartbeat (active every hour) is held to its steady rate.
 */
export function isRunaway(lastHourUsd: number, usualHourUsd: number | null): boolean {
  if (lastHourUsd < RUNAWAY.minUsd) return false
  return usualHourUsd === null ? lastHourUsd >= RUNAWAY.newUsd : lastHourUsd >= RUNAWAY.factor * usualHourUsd
}

/** Runaway sessions of the agents, most spent first. */
export async function findRunaways(state: ReadableState, o: {agents: string[]; now: Date; index?: (agentId: string) => SessionStoreData | undefined}): Promise<Runaway[]> {
  const now = o.now.getTime()
  const from = now - RUNAWAY.windowMs
  const out: Runaway[] = []
  for (const agentId of o.agents) {
    let store
    try {
      store = state.store(agentId)
    } catch {
      // An agent whose store cannot be opened here (a SQLite era on an old Node) has no runaway to name.
      continue
    }
    const active: {key: string; sessionId: string; entry: Parameters<typeof store.transcriptOf>[0]}[] = []
    try {
      // The newest rows, not every entry: a database answers them from its updated_at index, and a JSON index status
      // has already read is passed in (`index`) instead of being parsed a second time.
      const st = await store.stats({newest: RUNAWAY.maxSessions, index: o.index?.(agentId)})
      for (const {storedKey: key, entry} of st.newest) {
        if (typeof entry.updatedAt === 'number' && entry.updatedAt >= from && typeof entry.sessionId === 'string') active.push({key, sessionId: entry.sessionId, entry})
      }
    } catch {
      // An index that cannot be read is doctor's finding; it names no runaway.
      continue
    }
    for (const a of active) {
      // An entry whose id names no transcript is doctor's finding, not a runaway; the rest are read.
      const ref = transcriptOrNone(store, a.entry, a.key)
      if (!ref?.exists) continue
      let last = 0
      let calls = 0
      let history = 0
      const hours = new Set<number>()
      const read = await store.tail(ref, {limit: RUNAWAY.maxCalls, count: (e) => e.type === 'message' && (e as {message?: {role?: unknown}}).message?.role === 'assistant'})
      for (const e of read?.entries ?? []) {
        const f = callFieldsOf(e as unknown as Record<string, unknown>)
        if (!f || f.t === undefined || f.t > now) continue
        const c = priceCall(state.config, f).call.costUsd
        if (f.t > from) {
          last += c
          calls++
        } else if (f.t >= from - RUNAWAY.historyMs) {
          history += c
          hours.add(Math.floor(f.t / 3_600_000))
        }
      }
      const usual = hours.size >= RUNAWAY.minActiveHours ? Math.round((history / hours.size) * 1e9) / 1e9 : null
      last = Math.round(last * 1e9) / 1e9
      if (isRunaway(last, usual)) out.push({agentId, key: a.key, sessionId: a.sessionId, lastHourUsd: last, usualHourUsd: usual, lastHourCalls: calls})
    }
  }
  return out.sort((a, b) => b.lastHourUsd - a.lastHourUsd)
}
