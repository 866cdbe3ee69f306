// OpenClaw's session reset, written once for every backend: which fields it clears, and the lock order it needs.
import {ClawkitError, NotFoundError} from '../errors.js'
import {makeHeader} from './entries.js'
import {findEntryIn} from './entry-lookup.js'
import {archiveTimestamp} from './fs-util.js'
import {randomUUID} from './random-id.js'
import {transcriptFileName} from './session-id.js'
import type {JournalEntry} from './journal.js'
import type {TranscriptHeader} from './transcript-types.js'
import type {FoundEntry, ResetOptions, ResetOutcome, ResetPlan, SessionEntry, SessionStoreData, TranscriptRef} from './types.js'

/**
 * Fields a reset clears. The counters follow the gateway's `sessions.reset` (zeros with totalTokensFresh), per-run
 * state and CLI-backend conversation ids rotate with the session, as on `/new`. Everything else on the entry (labels,
 * routing, delivery context, overrides, unknown fields) is kept: clawkit never drops what it does not understand.
 */
export const RESET_CLEARED_FIELDS = [
  'cacheRead',
  'cacheWrite',
  'estimatedCostUsd',
  'memoryFlushAt',
  'memoryFlushCompactionCount',
  'memoryFlushContextHash',
  'lastInteractionAt',
  'cliSessionIds',
  'cliSessionBindings',
  'claudeCliSessionId',
  'abortCutoffMessageSid',
  'abortCutoffTimestamp',
  'compactionCheckpoints',
] as const

/** Counters a reset sets to zero (or false); listed in a plan only when the entry holds another value. */
const ZEROED_FIELDS = ['inputTokens', 'outputTokens', 'totalTokens', 'compactionCount', 'systemSent', 'abortedLastRun'] as const

/** OpenClaw's later rewriteSessionFileForNewSessionId: keep the topic suffix or fork prefix, swap the id. */
export function renameForNewSessionId(oldFileName: string, oldId: string, newId: string): string {
  if (oldFileName === `${oldId}.jsonl`) return `${newId}.jsonl`
  if (oldFileName.startsWith(`${oldId}-topic-`)) return `${newId}${oldFileName.slice(oldId.length)}`
  const fork = /^(.+)_(.+)\.jsonl$/.exec(oldFileName)
  if (fork && fork[2] === oldId) return `${fork[1]}_${newId}.jsonl`
  return transcriptFileName(newId)
}

/** The fields of an entry a reset would remove or set back to zero. */
export function resetClearedFields(entry: SessionEntry): string[] {
  const e = entry as Record<string, unknown>
  return [...RESET_CLEARED_FIELDS.filter((f) => f in e), ...ZEROED_FIELDS.filter((f) => f in e && e[f] !== 0 && e[f] !== false)]
}

/** The entry after a reset: new id and sessionFile, counters cleared, everything else kept. */
export function resetEntry(entry: SessionEntry, newId: string, newFile: string | undefined, now: Date): SessionEntry {
  const next: SessionEntry = {...entry}
  for (const f of RESET_CLEARED_FIELDS) delete next[f]
  next.sessionId = newId
  next.updatedAt = Math.max(now.getTime(), typeof entry.updatedAt === 'number' ? entry.updatedAt : 0)
  // A store without transcript files (SQLite) passes none: the entry then names no file.
  if (newFile === undefined) delete next.sessionFile
  else next.sessionFile = newFile
  next.systemSent = false
  next.abortedLastRun = false
  next.inputTokens = 0
  next.outputTokens = 0
  next.totalTokens = 0
  next.totalTokensFresh = true
  next.compactionCount = 0
  if ('sessionStartedAt' in entry) next.sessionStartedAt = now.getTime()
  return next
}

/** What a backend gives the shared reset: its locks, its resolution and its transcript moves. */
export interface ResetBackend {
  findEntry(key: string): Promise<FoundEntry | undefined>
  transcriptOf(entry: Pick<SessionEntry, 'sessionId' | 'sessionFile'>, key?: string): TranscriptRef
  /** Whether the transcript is there now (a plan archives only what exists). */
  transcriptPresent(t: TranscriptRef): boolean
  /** The locator of the new transcript, named after the old one (topic suffix, fork prefix). */
  renamedFor(old: TranscriptRef, oldId: string, newId: string): string
  /** The index rewrite; with `journal`, recorded in it ahead of the write. */
  update<T>(mutator: (data: SessionStoreData) => T | Promise<T>, journal?: {entry: JournalEntry; label: string}): Promise<T>
  /** Run `fn` holding the transcript lock of this locator. */
  lockTranscript<T>(locator: string, fn: () => Promise<T>): Promise<T>
  /** Write a header-only transcript unless one exists already. */
  createTranscript(locator: string, header: TranscriptHeader): Promise<void>
  /** Move the transcript to `to` if it exists (the caller holds its lock); false when there was none. */
  archiveTranscript(locator: string, to: string): Promise<boolean>
  /** Refuse before any lock is taken (the file backend: a SQLite-era agent). */
  assertWritable?(): void
  /**
   * Record, ahead of them, the new transcript's creation and the old one's archive (a backend whose transcripts are
   * files; the caller holds the old transcript's lock). Without it a journaled reset records the index alone.
   */
  journalMoves?(entry: JournalEntry, label: string, p: {created: string; header: TranscriptHeader; archived: {from: string; to: string}}): Promise<void>
}

function notFound(key: string): NotFoundError {
  return new NotFoundError(`Session not found: ${key}`, 'E_SESSION_NOT_FOUND')
}

export async function planReset(b: ResetBackend, key: string, now: Date): Promise<ResetPlan> {
  const hit = await b.findEntry(key)
  if (!hit) throw notFound(key)
  const t = b.transcriptOf(hit.entry, key)
  const exists = b.transcriptPresent(t)
  return {
    key,
    previousSessionId: hit.entry.sessionId,
    transcript: exists ? t.locator : null,
    archivedTranscript: exists ? `${t.locator}.reset.${archiveTimestamp(now)}` : null,
    clearedFields: resetClearedFields(hit.entry),
  }
}

/** Lock-then-recheck rounds when other writers keep rotating the session before this reset holds its transcript. */
const MAX_RESET_ROUNDS = 50

export async function runReset(b: ResetBackend, key: string, opts: ResetOptions): Promise<ResetOutcome> {
  for (let round = 1; ; round++) {
    const result = await resetOnce(b, key, opts)
    if (result) return result
    if (round >= MAX_RESET_ROUNDS) {
      throw new ClawkitError(`Session ${key} changed ${MAX_RESET_ROUNDS} times while this reset waited for its transcript lock; nothing was reset.`, {
        code: 'E_SESSION_ROTATING',
        suggestions: ['Run the command again once other writers (sessions reset, OpenClaw) are done.'],
      })
    }
  }
}

/** One attempt; undefined when the session was rotated between the guess and the lock (the caller tries again). */
async function resetOnce(b: ResetBackend, key: string, opts: ResetOptions): Promise<ResetOutcome | undefined> {
  b.assertWritable?.()
  const first = await b.findEntry(key)
  if (!first) throw notFound(key)
  // Lock order is transcript first, then store: an agent turn holds its transcript lock and takes the store lock at
  // the end, so the opposite order here could deadlock until a timeout.
  const firstRef = b.transcriptOf(first.entry, key)
  const firstGuess = firstRef.locator
  // The new transcript's lock is held too, from before the index names it until it is written: a second reset of the
  // key starts from the new row and takes that lock first, so it waits for the file instead of rotating the row on,
  // finding no file to archive, and leaving this reset to write a header-only transcript nothing references (doctor
  // then archived it as deleted: test/store/reset-race.test.ts). The name is new, so no other writer holds it.
  const newId = randomUUID()
  const newGuess = b.renamedFor(firstRef, first.entry.sessionId, newId)
  return b.lockTranscript(firstGuess, () => b.lockTranscript(newGuess, async () => {
    const now = opts.now ?? new Date()
    const label = `reset ${key}`
    const done = await b.update(async (data) => {
      // Re-resolve inside the lock: another writer may have reset or removed it meanwhile.
      const hit = findEntryIn(data, key)
      if (!hit) throw notFound(key)
      const entry = hit.entry
      const previousSessionId = entry.sessionId
      const oldTranscript = b.transcriptOf(entry, key)
      // The transcript this reset rotates must be the one whose lock it holds, from before the index write until the
      // archive: a reader that holds that lock (an agent turn, doctor deciding whether a file is an orphan) then sees
      // the row and the file change together. Another writer rotated it meanwhile: start over from the new row.
      if (oldTranscript.locator !== firstGuess) return undefined
      const newFile = b.renamedFor(oldTranscript, previousSessionId, newId)
      // Named otherwise than guessed (the row's id changed under the same file): start over, holding the right lock.
      if (newFile !== newGuess) return undefined
      // Fold mixed-case spellings into the canonical lowercase key, as OpenClaw's writers do.
      for (const k of Object.keys(data)) if (k !== hit.storedKey && k.toLowerCase() === key) delete data[k]
      if (hit.storedKey !== key) delete data[hit.storedKey]
      data[key] = resetEntry(entry, newId, newFile, now)
      return {previousSessionId, newId, newFile, oldTranscript: oldTranscript.locator}
    }, opts.journal && {entry: opts.journal, label: `${label}: its index entry`})
    if (!done) return undefined
    // The old transcript is archived only once the index no longer points at it. Archiving first left a window where
    // a crash kept the old index row but moved its transcript away (the session then read as empty); in this order a
    // crash leaves at worst the old transcript unarchived under its old name, with nothing lost. The transcript lock
    // keeps a running agent turn from appending while the file moves.
    // Like the gateway's sessions.reset, the new id gets a header-only transcript: a row whose transcript is missing
    // is pruned by OpenClaw's `sessions cleanup --fix-missing`. Written after the index, so a crash in between leaves
    // a brand-new row without a file, which every reader already tolerates.
    const header = makeHeader(done.newId, opts.cwd, now)
    const to = `${done.oldTranscript}.reset.${archiveTimestamp(now)}`
    if (opts.journal && b.journalMoves) await b.lockTranscript(done.oldTranscript, () => b.journalMoves!(opts.journal!, `${label}: new transcript, old one archived`, {created: done.newFile, header, archived: {from: done.oldTranscript, to}}))
    await b.createTranscript(done.newFile, header)
    const archived = await b.lockTranscript(done.oldTranscript, () => b.archiveTranscript(done.oldTranscript, to))
    return {key, previousSessionId: done.previousSessionId, sessionId: done.newId, archivedTranscript: archived ? to : null, sessionFile: done.newFile}
  }))
}
