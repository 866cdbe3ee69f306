// `status --watch`: the status computed again when an agent's store changes (store/watch.ts's notifications) and every
// few seconds (ages move, a gateway starts), never more than once a second, with the sessions that changed since the
// previous computation marked for a while.
import type {OpenClawState} from '../store/state.js'
import {type StoreWatcher, canWatch, watchStore} from '../store/watch.js'
import {getStatus, type StatusOptions, type StatusResult} from './status.js'

/** How a frame's `active` (and renderStatus's) names a session: its agent and key. */
export function activeKey(agentId: string, key: string): string {
  return `${agentId}\u0000${key}`
}

export interface StatusFrame {
  result: StatusResult
  /** activeKey(agentId, key) of the sessions whose updatedAt moved in the last `activeMs`. */
  active: Set<string>
  /** When it was computed (ms). */
  at: number
}

export interface WatchStatusOptions {
  /** A fresh state for each computation (the config may change while it runs); closed after it. */
  open: () => OpenClawState
  status: Omit<StatusOptions, 'allKeys' | 'now'>
  /** Whether to collect every key (a table cuts keys to be unique among them). */
  allKeys: boolean
  signal: AbortSignal
  onFrame: (frame: StatusFrame, allKeys: string[] | undefined) => Promise<void>
  /** A computation at least this often, changed or not (ms). */
  tickMs?: number
  /** Never two computations closer than this (ms): a busy gateway rewrites its index on every turn. */
  minIntervalMs?: number
  /** How long a changed session stays marked (ms). */
  activeMs?: number
}

export async function watchStatus(opts: WatchStatusOptions): Promise<void> {
  const tickMs = opts.tickMs ?? 10_000
  const minIntervalMs = opts.minIntervalMs ?? 1000
  const activeMs = opts.activeMs ?? 10_000
  const seen = new Map<string, number | null>()
  const changedAt = new Map<string, number>()
  const watchers = new Map<string, StoreWatcher>()
  let first = true
  let last = 0
  let timer: NodeJS.Timeout | undefined
  let running = false
  let again = false

  const compute = async (): Promise<void> => {
    const state = opts.open()
    try {
      const now = Date.now()
      const allKeys: string[] | undefined = opts.allKeys ? [] : undefined
      const result = await getStatus(state, {...opts.status, now, allKeys})
      for (const r of result.sessions.recent) {
        const k = activeKey(r.agentId, r.key)
        // A row new to the top rows after the first look moved up because it changed.
        if (!first && seen.get(k) !== r.updatedAt) changedAt.set(k, now)
        seen.set(k, r.updatedAt)
      }
      first = false
      const active = new Set([...changedAt].filter(([, at]) => now - at < activeMs).map(([k]) => k))
      // Every agent's store is watched, those that appear later too.
      for (const id of state.allAgentIds()) {
        let store
        try {
          store = state.store(id)
        } catch {
          continue
        }
        if (watchers.has(store.ref.path) || !canWatch(store)) continue
        watchers.set(store.ref.path, watchStore(store, () => schedule(), {onFallback: () => undefined}))
      }
      await opts.onFrame({result, active, at: now}, allKeys)
    } finally {
      state.close()
    }
  }

  let fail: (error: unknown) => void = () => undefined
  const run = async () => {
    timer = undefined
    if (opts.signal.aborted) return
    if (running) {
      again = true
      return
    }
    running = true
    try {
      await compute()
    } catch (error) {
      fail(error)
      return
    } finally {
      running = false
      last = Date.now()
    }
    schedule(again ? 0 : tickMs)
    again = false
  }
  /** The next computation `delay` ms from now (a change: at once), never sooner than minIntervalMs after the last. */
  function schedule(delay = 0): void {
    if (opts.signal.aborted) return
    if (running) {
      again = true
      return
    }
    const at = Math.max(Date.now() + delay, last + minIntervalMs)
    if (timer && delay > 0) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(run, Math.max(0, at - Date.now()))
  }

  await new Promise<void>((resolve, reject) => {
    const stop = () => {
      if (timer) clearTimeout(timer)
      for (const w of watchers.values()) w.close()
      resolve()
    }
    fail = (error) => {
      if (timer) clearTimeout(timer)
      for (const w of watchers.values()) w.close()
      reject(error)
    }
    if (opts.signal.aborted) return stop()
    opts.signal.addEventListener('abort', stop, {once: true})
    void run()
  })
}
