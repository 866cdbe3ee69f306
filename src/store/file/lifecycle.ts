// Archive, delete and restore in the JSON layout (../lifecycle.ts), as OpenClaw leaves sessions.json and the sessions
// dir: delete is 2026.4.27's sessions.delete (the index row removed under the index lock, then the transcript renamed
// to `<file>.deleted.<ISO time with : as ->`, archiveFileOnDisk); archive is 2026.9.6's manual archive on the entry
// (archivedAt, archiveReason "manual", updatedAt), which 2026.4.27 keeps as unknown fields and 2026.9.6's import
// carries into archived_at. Restore renames an archive back to its live name and gives it an index row again.
// Lock order as everywhere: the transcript's lock, then the index's (inside update).
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {ClawkitError, ExitCode, NotFoundError, UsageError} from '../../errors.js'
import {EntryLookup, findEntryIn} from '../entry-lookup.js'
import {archiveTimestamp, fsyncDir} from '../fs-util.js'
import {ABSENT, type FileImage, type JournalEntry, killPoint} from '../journal.js'
import {activeSince, type ArchiveMark, type ArchiveOutcome, type DeleteOutcome, type LifecycleOptions, type PlannedRemoval, type RestoreOutcome, type RestoreSource, type SessionLifecycle} from '../lifecycle.js'
import {withLock} from '../lock.js'
import type {AgentSession, FoundEntry, KeySession, SessionEntry, SessionStoreData, TranscriptRef} from '../types.js'
import {parseArchiveName} from './lineage.js'

/** What the JSON layout's store gives these acts. */
export interface FileLifecycleBackend {
  sessionsDir: string
  findEntry(key: string): Promise<FoundEntry | undefined>
  /** The whole index, parsed (as update's mutator gets it). */
  read(): Promise<SessionStoreData>
  transcriptOf(entry: Pick<SessionEntry, 'sessionId' | 'sessionFile'>, key?: string): TranscriptRef
  /** The index rewrite under its lock; with a journal, recorded ahead of the write. */
  update<T>(mutator: (data: SessionStoreData) => T | Promise<T>, journal?: {entry: JournalEntry; label: string}): Promise<T>
  recordFiles(entry: JournalEntry, label: string, files: {path: string; after: FileImage | 'same-as'; sameAs?: string}[], locks: string[]): Promise<unknown>
  sessionsOf(key: string): Promise<KeySession[]>
  allSessions(): Promise<AgentSession[]>
}

function notFound(key: string): NotFoundError {
  return new NotFoundError(`Session not found: ${key}`, 'E_SESSION_NOT_FOUND', ['List sessions with "clawkit sessions list".'])
}

function changed(key: string): ClawkitError {
  return new ClawkitError(`Session ${key} changed while this command waited for its lock; nothing was changed.`, {code: 'E_SESSION_CHANGED', exitCode: ExitCode.failure, suggestions: ['Run the command again.']})
}

function journalOf(opts: LifecycleOptions, label: string): {entry: JournalEntry; label: string} | undefined {
  return opts.journal ? {entry: opts.journal, label} : undefined
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile()
  } catch {
    return false
  }
}

/** Rename `from` to `to` (recorded first when journaled), refusing to replace anything at `to`. */
function moveFile(b: FileLifecycleBackend, opts: LifecycleOptions, label: string, from: string, to: string): Promise<void> {
  return moveFiles(b, opts, label, [{from, to}])
}

/**
 * Rename each `from` to its `to`, recorded first in one journal step when journaled, refusing (before anything moves)
 * to replace anything at a `to`. One step and one sync per directory for the lot: a cleanup archiving 2 700 transcripts
 * one by one wrote a step and synced directories three times per file (~6 s of waiting on the disk). A crash midway
 * leaves each file in its before or its after image; undo takes either.
 */
async function moveFiles(b: FileLifecycleBackend, opts: LifecycleOptions, label: string, moves: readonly {from: string; to: string}[]): Promise<void> {
  if (moves.length === 0) return
  for (const {to} of moves) if (isFile(to) || fs.existsSync(to)) throw new ClawkitError(`${to} exists already; nothing was moved.`, {code: 'E_TRANSCRIPT_EXISTS', exitCode: ExitCode.failure})
  if (opts.journal) {
    const files = moves.flatMap(({from, to}) => [{path: from, after: ABSENT}, {path: to, after: 'same-as' as const, sameAs: from}])
    await b.recordFiles(opts.journal, label, files, moves.map((m) => m.from))
  }
  for (const [i, {from, to}] of moves.entries()) {
    await fsp.rename(from, to)
    killPoint(`moved:${i + 1}`)
  }
  for (const dir of new Set(moves.map((m) => path.dirname(m.to)))) await fsyncDir(dir)
}

/**
 * The entries of `keys` as the index holds them now, from one read of it: looked up one by one, a large index (which
 * findEntry scans for each key) was read once per key, 2 700 times in a cleanup of a 10k-key store.
 */
async function findEach(b: FileLifecycleBackend, keys: readonly string[]): Promise<(FoundEntry | undefined)[]> {
  if (keys.length <= 1) return Promise.all(keys.map((k) => b.findEntry(k)))
  const lookup = new EntryLookup(await b.read())
  return keys.map((k) => lookup.find(k))
}

/** Keys per index rewrite in deleteMany: enough to make a 10k-key cleanup a few rewrites, few enough locks at once. */
const DELETE_CHUNK = 256

export function fileLifecycle(b: FileLifecycleBackend): SessionLifecycle {
  return {
    async archive(key: string, opts: LifecycleOptions): Promise<ArchiveOutcome> {
      const now = (opts.now ?? new Date()).getTime()
      const out = await b.update((data) => {
        const hit = findEntryIn(data, key)
        if (!hit) throw notFound(key)
        const e = hit.entry as SessionEntry & {archivedAt?: unknown}
        if (typeof e.archivedAt === 'number') return {key, sessionId: e.sessionId, archivedAt: e.archivedAt, changed: false}
        data[hit.storedKey] = {...e, updatedAt: now, archivedAt: now, archiveReason: 'manual'} as SessionEntry
        return {key, sessionId: e.sessionId, archivedAt: now, changed: true}
      }, journalOf(opts, `archive ${key}`))
      return out
    },

    async mark(marks: readonly ArchiveMark[], opts: LifecycleOptions): Promise<string[]> {
      if (marks.length === 0) return []
      const now = (opts.now ?? new Date()).getTime()
      const done: string[] = []
      // Chunks as deleteMany's, each under its transcripts' locks (sorted, then the index's): a turn in its model call
      // holds its transcript's lock, so the mark waits for it and then sees the activity it wrote (and leaves the key).
      for (let i = 0; i < marks.length; i += DELETE_CHUNK) {
        const chunk = marks.slice(i, i + DELETE_CHUNK)
        const files: string[] = []
        const hits = await findEach(b, chunk.map((m) => m.key))
        chunk.forEach((m, j) => {
          const hit = hits[j]
          if (hit) files.push(b.transcriptOf(hit.entry, m.key).locator)
        })
        const locks = [...new Set(files)].sort()
        const run = () =>
          b.update((data) => {
            const lookup = new EntryLookup(data)
            for (const m of chunk) {
              const hit = lookup.find(m.key)
              const e = hit?.entry as (SessionEntry & {archivedAt?: unknown; archivedBy?: unknown}) | undefined
              if (!hit || !e || e.sessionId !== m.sessionId || e.archivedAt !== undefined || activeSince(e, m.activityAt)) continue
              const {archivedBy: _b, ...rest} = e
              data[hit.storedKey] = {...rest, archivedAt: now, archiveReason: m.archiveReason} as SessionEntry
              done.push(m.key)
            }
          }, journalOf(opts, `cleanup: ${chunk.length} entr${chunk.length === 1 ? 'y' : 'ies'} archived`))
        const next = (j: number): Promise<void> => (j >= locks.length ? run() : withLock(locks[j], () => next(j + 1)))
        await next(0)
      }
      return done
    },

    async previewDelete(key: string, opts: {now?: Date}): Promise<DeleteOutcome> {
      const found = await b.findEntry(key)
      if (!found) throw notFound(key)
      const t = b.transcriptOf(found.entry, key)
      return {key, sessionId: found.entry.sessionId, archived: isFile(t.locator) ? [`${t.locator}.deleted.${archiveTimestamp(opts.now ?? new Date())}`] : []}
    },

    async delete(key: string, opts: LifecycleOptions): Promise<DeleteOutcome> {
      const first = await b.findEntry(key)
      if (!first) throw notFound(key)
      const t = b.transcriptOf(first.entry, key)
      return withLock(t.locator, async () => {
        const now = opts.now ?? new Date()
        const removed = await b.update((data) => {
          const lookup = new EntryLookup(data)
          const hit = lookup.find(key)
          if (!hit) return undefined
          if (hit.entry.sessionId !== first.entry.sessionId) throw changed(key)
          lookup.removeAll(key)
          return hit.entry
        }, journalOf(opts, `delete ${key}: its index entry`))
        if (!removed) throw notFound(key)
        const archived: string[] = []
        if (isFile(t.locator)) {
          const to = `${t.locator}.deleted.${archiveTimestamp(now)}`
          await moveFile(b, opts, `delete ${key}: transcript archived`, t.locator, to)
          archived.push(to)
        }
        return {key, sessionId: removed.sessionId, archived}
      })
    },

    async deleteMany(items: readonly PlannedRemoval[], opts: LifecycleOptions): Promise<DeleteOutcome[]> {
      const out: DeleteOutcome[] = []
      const now = opts.now ?? new Date()
      // Chunks of keys: their transcripts' locks held (sorted, as every writer takes them, then the index's), one index
      // rewrite per chunk, then the transcripts renamed to their .deleted. names; a turn cannot land in between.
      for (let i = 0; i < items.length; i += DELETE_CHUNK) {
        const chunk = items.slice(i, i + DELETE_CHUNK)
        const found: (PlannedRemoval & {file: string})[] = []
        const hits = await findEach(b, chunk.map((it) => it.key))
        for (const [j, it] of chunk.entries()) {
          const hit = hits[j]
          if (hit && hit.entry.sessionId === it.sessionId && !activeSince(hit.entry, it.activityAt)) found.push({...it, file: b.transcriptOf(hit.entry, it.key).locator})
          else if (hit && hit.entry.sessionId === it.sessionId) out.push({key: it.key, sessionId: it.sessionId, archived: [], skipped: true})
        }
        const locks = [...new Set(found.map((f) => f.file))].sort()
        const run = async () => {
          const removed = await b.update((data) => {
            const gone: typeof found = []
            const lookup = new EntryLookup(data)
            for (const f of found) {
              const hit = lookup.find(f.key)
              if (!hit || hit.entry.sessionId !== f.sessionId) continue
              // A turn that landed while this waited for the locks made the session live again: it stays.
              if (activeSince(hit.entry, f.activityAt)) {
                out.push({key: f.key, sessionId: f.sessionId, archived: [], skipped: true})
                continue
              }
              lookup.removeAll(f.key)
              gone.push(f)
            }
            return gone
          }, journalOf(opts, `cleanup: ${found.length} index entr${found.length === 1 ? 'y' : 'ies'} removed`))
          // Two keys naming one transcript archive it once, as one by one the second found it gone.
          const moves = new Map<string, string>()
          for (const f of removed) if (!moves.has(f.file) && isFile(f.file)) moves.set(f.file, `${f.file}.deleted.${archiveTimestamp(now)}`)
          const to = [...moves].map(([from, to]) => ({from, to}))
          await moveFiles(b, opts, `cleanup: ${to.length} transcript${to.length === 1 ? '' : 's'} archived`, to)
          const first = new Set<string>()
          for (const f of removed) {
            const archived = moves.has(f.file) && !first.has(f.file) ? [moves.get(f.file)!] : []
            first.add(f.file)
            out.push({key: f.key, sessionId: f.sessionId, archived})
          }
        }
        const next = (j: number): Promise<void> => (j >= locks.length ? run() : withLock(locks[j], () => next(j + 1)))
        await next(0)
      }
      return out
    },

    async restore(src: RestoreSource, opts: LifecycleOptions): Promise<RestoreOutcome> {
      const now = (opts.now ?? new Date()).getTime()
      // A key that has an entry: un-archive it (a live, un-archived session has nothing to restore).
      if (src.key && !src.sessionId) {
        const live = await b.findEntry(src.key)
        if (live) {
          const key = src.key
          return b.update((data) => {
            const hit = findEntryIn(data, key)
            if (!hit) throw changed(key)
            const e = hit.entry as SessionEntry & {archivedAt?: unknown; archiveReason?: unknown}
            if (e.archivedAt === undefined) throw new UsageError(`Session ${key} is live and not archived; there is nothing to restore.`, 'E_NOT_ARCHIVED')
            const {archivedAt: _a, archiveReason: _r, ...rest} = e
            data[hit.storedKey] = {...rest, updatedAt: now} as SessionEntry
            return {key, sessionId: e.sessionId, how: 'unarchived' as const, from: null, sessionFile: b.transcriptOf(e, key).locator}
          }, journalOf(opts, `restore ${key}: archivedAt cleared`))
        }
      }
      const arch = await findArchive(b, src)
      const key = src.asKey ?? arch.key
      if (!key) throw new UsageError(`Archived session ${arch.session.sessionId} names no key any more; give one with --as <key>.`, 'E_RESTORE_NEEDS_KEY')
      if (await b.findEntry(key)) {
        throw new ClawkitError(`Session ${key} exists (a live session holds the key); nothing was restored.`, {code: 'E_SESSION_EXISTS', exitCode: ExitCode.failure, suggestions: [`restore it under another key with --as <key>, or "clawkit sessions delete ${key}" first`]})
      }
      const from = arch.session.transcript.locator
      const parsed = parseArchiveName(path.basename(from))
      if (!parsed) throw new ClawkitError(`${from} is not an archive clawkit can restore.`, {code: 'E_INTERNAL'})
      const live = path.join(path.dirname(from), parsed.base)
      const sessionId = arch.session.sessionId
      return withLock(live, async () => {
        await moveFile(b, opts, `restore ${key}: transcript back from its archive`, from, live)
        await b.update((data) => {
          if (findEntryIn(data, key)) throw new ClawkitError(`Session ${key} was created while this restore ran; its transcript is back at ${live}, the index was left as it is.`, {code: 'E_SESSION_EXISTS', exitCode: ExitCode.failure})
          data[key] = {sessionId, updatedAt: now, sessionFile: live} as SessionEntry
        }, journalOf(opts, `restore ${key}: its index entry`))
        return {key, sessionId, how: arch.session.where === 'reset-archive' ? 'reset-archive' : 'deleted-archive', from, sessionFile: live}
      })
    },
  }
}

/** The archive a restore means: by id (the newest archive of it), or a key's newest deleted (else reset) archive. */
async function findArchive(b: FileLifecycleBackend, src: RestoreSource): Promise<{key: string | null; session: Pick<KeySession, 'sessionId' | 'where' | 'transcript' | 'endedAt'>}> {
  type S = Pick<KeySession, 'where' | 'endedAt'>
  const archived = (s: S) => s.where === 'deleted-archive' || s.where === 'reset-archive'
  const newest = <T extends S>(list: T[]): T | undefined => list.sort((x, y) => (Date.parse(y.endedAt ?? '') || 0) - (Date.parse(x.endedAt ?? '') || 0) || (x.where === 'deleted-archive' ? -1 : 1))[0]
  if (src.sessionId) {
    const hit = newest((await b.allSessions()).filter((s) => s.sessionId === src.sessionId && archived(s)))
    if (!hit) throw new NotFoundError(`No archived session ${src.sessionId} in this store.`, 'E_SESSION_NOT_FOUND', ['"clawkit sessions lineage <key>" lists a key\'s archives.'])
    return {key: hit.key, session: hit}
  }
  const key = src.key!
  const list = (await b.sessionsOf(key)).filter(archived)
  const hit = newest(list.filter((s) => s.where === 'deleted-archive')) ?? newest(list)
  if (!hit) throw new NotFoundError(`Session not found: ${key} (no live entry and no archive of it).`, 'E_SESSION_NOT_FOUND', ['"clawkit sessions lineage <key>" lists a key\'s archives.'])
  return {key, session: hit}
}
