// `sessions history --follow`: a session's tail as history shows it, then every entry as it lands, across resets, in
// both eras; with `all`, every session of one agent or of all of them. Woken by the store's file-system notifications
// (store/watch.ts), never by polling, and reads only what was appended (SessionStore.readSince from the last mark).
import path from 'node:path'

import {normalizeAgentId} from '../config/agent-id.js'
import {ClawkitError, NotFoundError, UsageError} from '../errors.js'
import {sqliteStorePath} from '../store/era.js'
import {normalizeSessionKey, parseAgentSessionKey, toAgentStoreSessionKey} from '../store/session-key.js'
import {transcriptOrNone} from '../store/session-id.js'
import type {OpenClawState} from '../store/state.js'
import type {BadLine, TranscriptEntry} from '../store/transcript-types.js'
import type {SessionStore, StoreRef, TranscriptLine, TranscriptMark, TranscriptRef, TranscriptSince} from '../store/types.js'
import {canWatch, type StoreChange, type StoreWatcher, watchStore} from '../store/watch.js'
import {type HistoryEntry, sessionHistory, type SessionsHistoryResult, toHistoryEntry} from './history.js'
import {LIST_OMITTED_FIELDS} from './list.js'
import {findArchivedSession, looksLikeKey, resolveSession} from './resolve.js'

/** What every line of `sessions history --follow --json` says about the session it comes from. */
export interface FollowLineBase {
  key: string
  agentId: string
  sessionId: string
}

/** One transcript entry, as `sessions history --json` gives it in `entries` (schemas/sessions-history.schema.json). */
export interface FollowEntryLine extends FollowLineBase {
  kind: 'entry'
  entry: HistoryEntry
  /** With --raw: the line as stored. */
  raw?: string
}

/**
 * The session a key is at: `start` (the follow of one key began; its tail's entries come next), `new` (a key that
 * did not exist appeared, or the one waited for), `reset` (the key moved to a new session; `previousSessionId` is the
 * one before), `deleted` (the key's entry is gone: it is waited for, and comes back as `new`).
 */
export interface FollowSessionLine extends FollowLineBase {
  kind: 'session'
  event: 'start' | 'new' | 'reset' | 'deleted'
  previousSessionId: string | null
  /** The transcript: a JSONL file, or `<database>#<sessionId>` in the SQLite era. */
  sessionFile: string
  /** `start` only: older entries exist before the first one shown (--limit). */
  truncated?: boolean
}

/** A stored line that cannot be read (not JSON, not an entry): said, never skipped silently. */
export interface FollowUnreadableLine extends FollowLineBase {
  kind: 'unreadable'
  /** Its line number (JSONL; blank lines count) or seq (SQLite). */
  line: number
  reason: BadLine['reason']
}

/** One line of `sessions history --follow --json` (schemas/sessions-follow.schema.json). */
export type SessionsFollowLine = FollowEntryLine | FollowSessionLine | FollowUnreadableLine

export interface FollowOptions {
  agent?: string
  /** The tail printed first (messages, as history's --limit); not with `all`. */
  limit?: number
  raw?: boolean
  /** Every session of --agent's store, or of every agent's: only what lands from now on. */
  all?: boolean
  /** End once no entry has landed for this long (ms). */
  untilIdleMs?: number
  signal?: AbortSignal
  /** The one key's tail, as `sessions history` reads it, before any line. */
  onStart?: (history: SessionsHistoryResult) => void | Promise<void>
  /** Every line after that, in order. */
  onLine: (line: SessionsFollowLine) => void | Promise<void>
  /** Notes for a person (stderr): waiting for a key, a watch that fell back to polling, a read that will be retried. */
  onNote?: (text: string) => void
  /** Once every store is watched: from then on nothing written is missed. With the sessions and stores followed. */
  onReady?: (followed: {sessions: number; stores: number}) => void
  /** How long notifications are gathered before the store is read (ms): one read for a burst of writes. */
  settleMs?: number
}

/** Why a follow ended. */
export type FollowEnd = 'idle' | 'aborted'

/** The entry a tracked session was last shown (or passed) at: lines after it are new. */
interface Anchor {
  id: string
  /** Its timestamp (ms): if a rewrite drops it, the entries after this time are the new ones. */
  at: number
}

/** A session being followed. */
interface Tracked {
  key: string
  agentId: string
  store: SessionStore
  sessionId: string
  ref: TranscriptRef
  /** Set once the transcript was read to its end; readSince goes on from here. */
  mark?: TranscriptMark
  /** Null: everything after the header is new (a session that began after the follow did). */
  anchor: Anchor | null
  /**
   * Read to its end at the first check, changed or not (one key's session): the read then starts from a mark when the
   * first line lands, which on a 1 GiB transcript would otherwise wait seconds for that whole first read.
   */
  eager?: boolean
}

/** A key followed in one store: its current session, or none while it has no entry. */
interface KeyFollow {
  key: string
  agentId: string
  current?: Tracked
}

/** One store followed, its watcher and its keys. */
interface StoreFollow {
  store: SessionStore
  /** The ref it was opened by: the agent's sessions.json while it is in the JSON era. */
  ref: StoreRef
  agentId: string
  watcher?: StoreWatcher
  keys: Map<string, KeyFollow>
  /** `all`: keys that appear are followed too. */
  all: boolean
}

const MISSING = new Set(['E_ENOENT', 'E_TRANSCRIPT_MISSING'])

/** Failures no retry mends: the follow ends with them. */
const LASTING = new Set(['E_NODE_TOO_OLD', 'E_SQLITE_SCHEMA_NEWER', 'E_SQLITE_SCHEMA_OLDER', 'E_SQLITE_NOT_AGENT_DB', 'E_STATE_DIR_NOT_FOUND'])

/** Reads retried in a row (500 ms apart) before a failure ends the follow. */
const MAX_FAILURES = 20

/** A read that failed because the transcript is not there (yet, or any more): waited out, not reported. */
function isMissing(error: unknown): boolean {
  return error instanceof ClawkitError && MISSING.has(error.code)
}

function anchorOf(e: {id?: unknown; timestamp?: unknown} | undefined): Anchor | null {
  if (!e || typeof e.id !== 'string') return null
  return {id: e.id, at: typeof e.timestamp === 'string' ? Date.parse(e.timestamp) : Number.NaN}
}

/** The lines `sessions history --follow --json` starts with for one key: its session, then its tail's entries. */
export function startLines(h: SessionsHistoryResult): SessionsFollowLine[] {
  const base = {key: h.key ?? '', agentId: h.agentId, sessionId: h.sessionId}
  const head: FollowSessionLine = {...base, kind: 'session', event: 'start', previousSessionId: null, sessionFile: h.sessionFile, truncated: h.truncated}
  return [head, ...h.entries.map((entry, i): FollowEntryLine => ({...base, kind: 'entry', entry, ...(h.raw ? {raw: h.raw[i]} : {})}))]
}

/**
 * Follows one key (`target`) or, with `all`, every session of the agent's store (every agent's without --agent) until
 * `signal` aborts or, with `untilIdleMs`, nothing lands for that long. A key that does not exist yet is waited for.
 */
export async function followSessions(state: OpenClawState, target: string | undefined, opts: FollowOptions): Promise<FollowEnd> {
  state.requireStateDir()
  const stores = new Map<string, StoreFollow>()
  const storeOf = (ref: StoreRef, agentId: string, all: boolean): StoreFollow => {
    let sf = stores.get(ref.path)
    if (!sf) {
      const store = state.storeFor(ref)
      if (!canWatch(store)) throw new UsageError(`--follow reads a local store as it is written; ${ref.path} cannot be watched.`, 'E_FOLLOW_UNSUPPORTED')
      stores.set(ref.path, (sf = {store, ref, agentId, keys: new Map(), all}))
    }
    return sf
  }

  if (opts.all) {
    const agents = opts.agent ? [state.requireAgent(opts.agent)] : state.allAgentIds()
    for (const agentId of agents) {
      const sf = storeOf(state.sessionStoreRef(agentId), agentId, true)
      // Only what lands from now on: each session's last entry is where its new ones begin.
      await eachLimited([...(await currentSessions(sf)).entries()], 8, async ([key, s]) => {
        const tail = await sf.store.tail(s.ref, {limit: 1}).catch((error: unknown) => (isMissing(error) ? undefined : Promise.reject(error)))
        sf.keys.set(key, {key, agentId: agentOfKey(key, agentId), current: {key, agentId: agentOfKey(key, agentId), store: sf.store, sessionId: s.sessionId, ref: s.ref, anchor: anchorOf(tail?.entries.at(-1))}})
      })
    }
  } else {
    const one = await resolveFollowKey(state, target ?? '', opts.agent)
    const sf = storeOf(one.ref, one.agentId, false)
    const kf: KeyFollow = {key: one.key, agentId: one.agentId}
    sf.keys.set(one.key, kf)
    if (one.exists) {
      const h = await sessionHistory(state, one.key, {agent: opts.agent, limit: opts.limit, raw: opts.raw})
      await opts.onStart?.(h)
      const ref = sf.store.transcriptOf({sessionId: h.sessionId, sessionFile: h.sessionFile}, one.key)
      kf.current = {key: one.key, agentId: one.agentId, store: sf.store, sessionId: h.sessionId, ref, anchor: anchorOf(h.entries.at(-1)), eager: true}
    } else {
      opts.onNote?.(`Waiting for ${one.key} to appear in ${one.ref.path} (Ctrl-C to stop).`)
    }
  }

  return new Promise<FollowEnd>((resolve, reject) => {
    let finished = false
    let idle: NodeJS.Timeout | undefined
    let settle: NodeJS.Timeout | undefined
    let retry: NodeJS.Timeout | undefined
    let running = false
    /** Reads that failed in a row (retried), and the last failure said (said once). */
    let failures = 0
    let lastNote: string | undefined
    /** Paths changed since the last read; undefined: anything may have. */
    let pending: Set<string> | undefined | null = null
    const settleMs = opts.settleMs ?? 25

    const end = (how: FollowEnd | Error) => {
      if (finished) return
      finished = true
      for (const t of [idle, settle, retry]) if (t) clearTimeout(t)
      for (const sf of stores.values()) sf.watcher?.close()
      opts.signal?.removeEventListener('abort', onAbort)
      if (how instanceof Error) reject(how)
      else resolve(how)
    }
    const onAbort = () => end('aborted')
    const armIdle = () => {
      if (opts.untilIdleMs === undefined || finished) return
      if (idle) clearTimeout(idle)
      idle = setTimeout(() => end('idle'), opts.untilIdleMs)
    }
    const emit = async (line: SessionsFollowLine) => {
      if (finished) return
      await opts.onLine(line)
      if (line.kind === 'entry') armIdle()
    }

    /** Gathers a burst of notifications into one read, and never runs two reads at once. */
    const wake = (change: StoreChange) => {
      if (finished) return
      if (pending !== undefined) {
        if (!change.paths) pending = undefined
        else {
          pending ??= new Set()
          for (const p of change.paths) pending.add(p)
        }
      }
      if (!running && !settle) settle = setTimeout(run, settleMs)
    }
    const run = async () => {
      settle = undefined
      if (finished) return
      const changed = pending
      pending = null
      if (changed === null) return
      running = true
      /** Read again shortly (a store mid-write); clean: nothing failed and no transcript held a stranger. */
      let failed = false
      let clean = true
      try {
        for (const sf of stores.values()) {
          try {
            const moved = moveEra(sf)
            if (await checkStore(sf, moved ? undefined : (changed ?? undefined))) {
              clean = false
              // A transcript holding a session its index does not name, for good: after that, wait for the next change.
              if (++failures <= MAX_FAILURES) failed = true
            }
          } catch (error) {
            clean = false
            // A store caught mid-write (an index being replaced, a database being created or busy): read again shortly,
            // a few times. What will not change by itself (a Node without node:sqlite, a schema too new) ends the follow.
            if (!(error instanceof ClawkitError) || error instanceof UsageError || LASTING.has(error.code) || ++failures > MAX_FAILURES) throw error
            failed = true
            if (error.message !== lastNote) opts.onNote?.(`Could not read ${sf.store.ref.path} (${error.message}); trying again.`)
            lastNote = error.message
          }
        }
      } catch (error) {
        running = false
        end(error as Error)
        return
      }
      running = false
      if (clean) {
        failures = 0
        lastNote = undefined
      }
      if (failed && !retry) {
        retry = setTimeout(() => {
          retry = undefined
          wake({})
        }, 500)
      }
      if (pending !== null && !settle) settle = setTimeout(run, settleMs)
    }

    /**
     * An agent whose database appeared (OpenClaw 2026.7+ started on the state dir, or imported its files): followed there
     * from now on. Its sessions keep their ids, so each goes on from its anchor in the database.
     */
    const moveEra = (sf: StoreFollow): boolean => {
      let ref: StoreRef
      try {
        ref = state.sessionStoreRef(sf.agentId)
      } catch {
        return false
      }
      if (ref.path === sf.store.ref.path || sf.ref.path !== state.storeRef(sf.agentId).path) return false
      const store = state.storeFor(ref)
      if (!canWatch(store)) return false
      sf.watcher?.close()
      sf.store = store
      sf.ref = ref
      for (const kf of sf.keys.values()) if (kf.current) kf.current.store = store
      sf.watcher = watchStore(store, wake, {onFallback: (why) => opts.onNote?.(`${why}: checking every second instead.`)})
      opts.onNote?.(`${sf.agentId}'s sessions are in its database now (${ref.path}): following them there.`)
      return true
    }

    /**
     * One store after a burst of notifications. `changed` holds the files named (JSON era); a database's notifications
     * name none, so there every key's index row and session is looked at (one small query each).
     */
    const checkStore = async (sf: StoreFollow, changed: Set<string> | undefined): Promise<boolean> => {
      if (!changed || changed.has(path.resolve(sf.store.ref.path))) await refreshKeys(sf)
      let again = false
      for (const kf of sf.keys.values()) {
        const t = kf.current
        if (!t || (changed && !changed.has(path.resolve(t.ref.locator)))) continue
        // Its file holds another session now, and the index does not say so yet: look again once it has been written.
        if ((await poll(t)) === 'foreign') again = true
      }
      sf.watcher?.add([...sf.keys.values()].flatMap((k) => (k.current ? [k.current.ref] : [])))
      return again
    }

    /** The index as it is now: new keys (all), a key's new session (a reset), a key gone. */
    const refreshKeys = async (sf: StoreFollow) => {
      if (sf.all) {
        const now = await currentSessions(sf)
        for (const [key, s] of now) {
          if (sf.keys.has(key)) continue
          const agentId = agentOfKey(key, sf.agentId)
          sf.keys.set(key, {key, agentId})
        }
        for (const kf of sf.keys.values()) await moveKey(sf, kf, now.get(kf.key))
        return
      }
      for (const kf of sf.keys.values()) {
        const hit = await sf.store.findEntry(kf.key)
        await moveKey(sf, kf, hit && typeof hit.entry.sessionId === 'string' ? {sessionId: hit.entry.sessionId, ref: sf.store.transcriptOf(hit.entry, kf.key)} : undefined)
      }
    }

    const moveKey = async (sf: StoreFollow, kf: KeyFollow, now: {sessionId: string; ref: TranscriptRef} | undefined) => {
      const t = kf.current
      if (t && now && now.sessionId === t.sessionId) {
        // The same session under another transcript name (a sessionFile moved): read it from its start, after the anchor.
        if (now.ref.locator !== t.ref.locator) {
          t.ref = now.ref
          t.mark = undefined
        }
        return
      }
      if (!t && !now) return
      if (t) await finishSession(t)
      if (!now) {
        await emit({key: kf.key, agentId: kf.agentId, sessionId: t!.sessionId, kind: 'session', event: 'deleted', previousSessionId: null, sessionFile: t!.ref.locator})
        kf.current = undefined
        return
      }
      kf.current = {key: kf.key, agentId: kf.agentId, store: sf.store, sessionId: now.sessionId, ref: now.ref, anchor: null}
      await emit({key: kf.key, agentId: kf.agentId, sessionId: now.sessionId, kind: 'session', event: t ? 'reset' : 'new', previousSessionId: t?.sessionId ?? null, sessionFile: now.ref.locator})
      await poll(kf.current)
    }

    /** What the key's old session got after the last read: read from where a reset moved it (the archive). */
    const finishSession = async (t: Tracked) => {
      const s = (await t.store.sessionsOf(t.key)).find((k) => k.sessionId === t.sessionId && k.transcript.exists)
      if (!s) return
      t.ref = s.transcript
      await poll(t)
    }

    /** Reads what landed in a tracked session and emits it; 'foreign' when its transcript now holds another session. */
    const poll = async (t: Tracked): Promise<'ok' | 'missing' | 'foreign'> => {
      let since: TranscriptSince
      let fromAnchor: boolean
      try {
        if (t.mark) {
          since = await t.store.readSince(t.ref, t.mark)
          if (since.unchanged) return 'ok'
          fromAnchor = since.rewritten
        } else {
          // Not read to its end yet: a cheap look at its last entry first, so an unchanged session is not read whole.
          if (t.anchor && !t.eager) {
            const tail = await t.store.tail(t.ref, {limit: 1})
            if (!tail) return 'missing'
            // Unchanged only if the anchor is still the last line: an unreadable line after it is news too.
            if (tail.entries.at(-1)?.id === t.anchor.id && tail.badLines.length === 0) return 'ok'
          }
          since = await t.store.readSince(t.ref)
          fromAnchor = true
        }
      } catch (error) {
        if (isMissing(error)) return 'missing'
        throw error
      }
      return drain(t, since, fromAnchor)
    }

    const drain = async (t: Tracked, since: TranscriptSince, fromAnchor: boolean): Promise<'ok' | 'foreign'> => {
      const anchor = t.anchor
      let skipping = fromAnchor && anchor !== null
      // While looking for the anchor: the entries after its time, shown if a rewrite dropped the anchor itself.
      const later: TranscriptLine[] = []
      const found: TranscriptLine[] = []
      for await (const l of since.lines) {
        const v = l.value as {type?: unknown; id?: unknown; timestamp?: unknown} | undefined
        if (v?.type === 'session') {
          // The file at this path is another session's now (a reset that kept the name, its index not written yet).
          if (typeof v.id === 'string' && v.id !== t.sessionId) return 'foreign'
          continue
        }
        if (!v && !l.bad) continue
        if (skipping) {
          if (v && v.id === anchor!.id) {
            skipping = false
            later.length = 0
          } else if (v && typeof v.timestamp === 'string' && Date.parse(v.timestamp) > anchor!.at) later.push(l)
          continue
        }
        found.push(l)
      }
      t.mark = since.mark()
      const lines = skipping ? [...later, ...found] : found
      for (const l of lines) {
        const base = {key: t.key, agentId: t.agentId, sessionId: t.sessionId}
        if (l.bad) {
          await emit({...base, kind: 'unreadable', line: l.line, reason: l.bad.reason})
          continue
        }
        const e = l.value as unknown as TranscriptEntry
        await emit({...base, kind: 'entry', entry: toHistoryEntry(e), ...(opts.raw ? {raw: l.raw} : {})})
        t.anchor = anchorOf(e) ?? t.anchor
      }
      return 'ok'
    }

    if (opts.signal?.aborted) return end('aborted')
    opts.signal?.addEventListener('abort', onAbort)
    try {
      for (const sf of stores.values()) {
        sf.watcher = watchStore(sf.store, wake, {onFallback: (why) => opts.onNote?.(`${why}: checking every second instead.`)})
        sf.watcher.add([...sf.keys.values()].flatMap((k) => (k.current ? [k.current.ref] : [])))
        // A JSON-era agent's database may appear while it is followed (moveEra): where it would be is watched too.
        if (sf.ref.path === state.storeRef(sf.agentId).path) sf.watcher.addDirs([path.dirname(sqliteStorePath(state.stateDir, sf.agentId))])
      }
    } catch (error) {
      end(error as Error)
      return
    }
    armIdle()
    opts.onReady?.({sessions: [...stores.values()].reduce((n, sf) => n + [...sf.keys.values()].filter((k) => k.current).length, 0), stores: stores.size})
    // What landed between the first read and the watch: read once now.
    wake({})
  })
}

/** Each key's current session in a store, by its normalized key (readRows: no entry is held whole; the fields a list never reads are dropped unparsed, and follow reads fewer still). */
async function currentSessions(sf: StoreFollow): Promise<Map<string, {sessionId: string; ref: TranscriptRef}>> {
  const rows = await sf.store.readRows((key, e) => (typeof e.sessionId === 'string' ? {key: normalizeSessionKey(key), sessionId: e.sessionId, sessionFile: e.sessionFile} : undefined), {omit: LIST_OMITTED_FIELDS})
  const out = new Map<string, {sessionId: string; ref: TranscriptRef}>()
  for (const r of rows.values()) {
    if (!r || r.key === 'global' || r.key === 'unknown') continue
    // An entry whose id names no transcript has nothing to follow; the other keys are followed.
    const ref = transcriptOrNone(sf.store, {sessionId: r.sessionId, sessionFile: r.sessionFile}, r.key)
    if (ref) out.set(r.key, {sessionId: r.sessionId, ref})
  }
  return out
}

/** The agent a key names (a store several agents share), else the store's own. */
function agentOfKey(key: string, storeAgent: string): string {
  const parsed = parseAgentSessionKey(key)
  return parsed ? normalizeAgentId(parsed.agentId) : storeAgent
}

/**
 * The key `sessions history --follow` follows: a key, a unique prefix or a key's current sessionId (as history finds
 * them); a key that is not there yet is waited for. An archived session never changes, so it is refused.
 */
async function resolveFollowKey(state: OpenClawState, target: string, agent: string | undefined): Promise<{key: string; agentId: string; ref: StoreRef; exists: boolean}> {
  try {
    const r = await resolveSession(state, target, {agent, allowPrefix: true})
    return {key: r.key, agentId: r.agentId, ref: r.ref, exists: true}
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error
    const raw = target.trim()
    if (!looksLikeKey(raw)) {
      const archived = await findArchivedSession(state, raw, agent)
      if (archived) {
        throw new UsageError(`${raw} is an archived session (${archived.archived.where}): it never changes, so there is nothing to follow.`, 'E_FOLLOW_ARCHIVED', [
          archived.key ? `follow its key instead: clawkit sessions history ${archived.key} --follow` : 'read it without --follow',
        ])
      }
      throw error
    }
    const agentOpt = agent ? state.requireAgent(agent) : undefined
    const key = toAgentStoreSessionKey(agentOpt ?? state.activeAgentId, raw)
    const agentId = agentOfKey(key, agentOpt ?? state.activeAgentId)
    return {key, agentId, ref: state.sessionStoreRef(agentId), exists: false}
  }
}

/** `fn` over `items`, at most `n` at once. */
async function eachLimited<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await fn(items[next++])
  }
  await Promise.all(Array.from({length: Math.min(n, items.length)}, worker))
}
