// Wakes a live reader (`sessions history --follow`) when an agent's store may have changed: the file system's own
// notifications (fs.watch: inotify, FSEvents, ReadDirectoryChangesW) on the directories that hold the store's files,
// so an idle follow wakes for nothing and costs no CPU. Directories, not files: a transcript replaced by a rename (an
// atomic rewrite, a reset's archive) or one not created yet is seen there; a watch on the file would stay on the old one.
import fs from 'node:fs'
import path from 'node:path'

import {FileSessionStore} from './file/store.js'
import {SqliteSessionStore} from './sqlite/store.js'
import type {SessionStore, TranscriptRef} from './types.js'

/** What changed: the absolute paths of the files named by the notifications, or undefined when the store cannot tell. */
export interface StoreChange {
  paths?: ReadonlySet<string>
}

export interface StoreWatcher {
  /** Also watch the directories of these transcripts (a sessionFile outside the sessions dir, a new session's). */
  add(refs: readonly TranscriptRef[]): void
  /** Also watch these directories (JSON era: where the agent's database would appear, when OpenClaw moves it on). */
  addDirs(dirs: readonly string[]): void
  close(): void
}

export interface WatchOptions {
  /**
   * Told once when the file system gives no notifications here (the inotify watch limit reached, a file system without
   * them): the store is then checked every `pollMs` instead.
   */
  onFallback?: (why: string) => void
  pollMs?: number
  /**
   * Called after each look at which directories exist, before the watches are set (tests: a directory made right there
   * gives no notification, which only the look repeated after arming catches; test/store/watch.test.ts).
   */
  afterLook?: () => void
}

/** Whether watchStore can watch this store: the JSON files and the SQLite database can; the fleet replica cannot. */
export function canWatch(store: SessionStore): boolean {
  return store instanceof FileSessionStore || store instanceof SqliteSessionStore
}

/**
 * Calls `onChange` for every notification about the store's files (the caller coalesces them). JSON era: the
 * directory of sessions.json and of every transcript added, every file in them (a change of sessions.json names the
 * index, of a transcript its path). SQLite era: the database's directory, only the database, its write-ahead log and its
 * rollback journal (each commit writes one of them; a reader's shared-memory file is not among them, so a read never
 * wakes a reader), with no paths: a database cannot say which session a commit touched.
 * A directory that does not exist yet is watched through its nearest existing parent until it appears.
 */
export function watchStore(store: SessionStore, onChange: (change: StoreChange) => void, opts: WatchOptions = {}): StoreWatcher {
  if (!canWatch(store)) throw new Error(`watchStore: ${store.ref.path} is not a local store`)
  const sqlite = store instanceof SqliteSessionStore
  const db = store.ref.path
  const dbNames = new Set([path.basename(db), `${path.basename(db)}-wal`, `${path.basename(db)}-journal`])
  /** The directories asked for; each is watched directly once it exists, else through its nearest existing parent. */
  const wanted = new Set<string>([path.dirname(path.resolve(store.ref.path))])
  const watches = new Map<string, fs.FSWatcher>()
  let closed = false
  let poll: NodeJS.Timeout | undefined

  const fallback = (why: string) => {
    if (poll || closed) return
    for (const w of watches.values()) w.close()
    watches.clear()
    opts.onFallback?.(why)
    poll = setInterval(() => onChange({}), opts.pollMs ?? 1000)
  }

  const nearestExisting = (dir: string): string => {
    let d = dir
    for (;;) {
      try {
        if (fs.statSync(d).isDirectory()) return d
      } catch {}
      const up = path.dirname(d)
      if (up === d) return d
      d = up
    }
  }

  const targetsNow = () => new Set([...wanted].map(nearestExisting))

  /**
   * Watch what should be watched now: a directory that appeared replaces the parent it was watched through. A directory
   * created between the look and the watch gives no notification (OpenClaw makes agents/, agents/main/ and sessions/ in
   * one burst), so the look is repeated after the watches are set until it no longer changes.
   */
  const arm = () => {
    for (let targets = targetsNow(); ;) {
      opts.afterLook?.()
      armOnce(targets)
      if (closed || poll) return
      const again = targetsNow()
      if (again.size === targets.size && [...again].every((d) => targets.has(d))) return
      targets = again
    }
  }

  const armOnce = (targets: ReadonlySet<string>) => {
    if (closed || poll) return
    for (const [dir, w] of watches) {
      if (!targets.has(dir)) {
        w.close()
        watches.delete(dir)
      }
    }
    for (const dir of targets) {
      if (watches.has(dir)) continue
      let w: fs.FSWatcher
      try {
        w = fs.watch(dir, {persistent: true}, (_event, name) => {
          if (closed) return
          // A directory asked for may have appeared (watched through this one until now): watch it, and check everything.
          if ([...wanted].some((d) => !watches.has(d))) {
            arm()
            if (!wanted.has(dir)) {
              onChange({})
              return
            }
          }
          if (sqlite) {
            if (name === null || dbNames.has(String(name))) onChange({})
            return
          }
          onChange(name === null ? {} : {paths: new Set([path.join(dir, String(name))])})
        })
      } catch (error) {
        fallback(`${dir} cannot be watched (${(error as NodeJS.ErrnoException).code ?? String(error)})`)
        return
      }
      // A watched directory removed or renamed: watch what exists now (its parent, until it is back).
      w.on('error', () => {
        w.close()
        watches.delete(dir)
        arm()
        onChange({})
      })
      watches.set(dir, w)
    }
  }

  arm()
  const addDirs = (dirs: readonly string[]) => {
    if (sqlite) return
    let more = false
    for (const d of dirs) {
      const dir = path.resolve(d)
      if (!wanted.has(dir)) {
        wanted.add(dir)
        more = true
      }
    }
    if (more) arm()
  }
  return {
    add: (refs) => addDirs(refs.map((r) => path.dirname(r.locator))),
    addDirs,
    close() {
      closed = true
      if (poll) clearInterval(poll)
      for (const w of watches.values()) w.close()
      watches.clear()
    },
  }
}
