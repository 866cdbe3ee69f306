// `sessions reset`: OpenClaw's reset semantics (new sessionId, archived transcript, metadata kept, counters cleared).
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {ClawkitError, fileError, NotFoundError} from '../errors.js'
import {resolveWorkspaceDir} from '../config/config.js'
import {WRITE_REFUSAL} from '../store/era.js'
import {findEntryIn} from '../store/file-store.js'
import {archiveTimestamp, FILE_MODE} from '../store/fs-util.js'
import {withLock} from '../store/lock.js'
import {randomUUID} from '../store/random-id.js'
import type {OpenClawState} from '../store/state.js'
import {makeHeader, resolveTranscriptPath, transcriptFileName} from '../store/transcript.js'
import type {SessionEntry} from '../store/types.js'
import {resolveSession} from './resolve.js'

/** The `sessions reset --json` document. */
export interface SessionsResetResult {
  key: string
  agentId: string
  previousSessionId: string
  sessionId: string
  /** Where the old transcript went (`<file>.reset.<ts>`), or null when there was none on disk. */
  archivedTranscript: string | null
  sessionFile: string
}

/** The `sessions reset --dry-run --json` document: what a reset would do, decided from the store as it is now. */
export interface SessionsResetPlan {
  dryRun: true
  key: string
  agentId: string
  previousSessionId: string
  /** The transcript that would be archived, or null when there is none on disk. */
  transcript: string | null
  /** Where it would go (`<file>.reset.<time of this run>`), or null. */
  archivedTranscript: string | null
  /** Fields of this entry the reset would remove or set back to zero. */
  clearedFields: string[]
}

/**
 * Fields a reset clears. The counters follow the gateway's `sessions.reset` (zeros with totalTokensFresh), per-run
 * state and CLI-backend conversation ids rotate with the session, as on `/new`. Everything else on the entry (labels,
 * routing, delivery context, overrides, unknown fields) is kept: clawkit never drops what it does not understand.
 */
const CLEARED_FIELDS = [
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

/** OpenClaw's later rewriteSessionFileForNewSessionId: keep the topic suffix or fork prefix, swap the id. */
export function renameForNewSessionId(oldFileName: string, oldId: string, newId: string, key: string): string {
  if (oldFileName === `${oldId}.jsonl`) return `${newId}.jsonl`
  if (oldFileName.startsWith(`${oldId}-topic-`)) return `${newId}${oldFileName.slice(oldId.length)}`
  const fork = /^(.+)_(.+)\.jsonl$/.exec(oldFileName)
  if (fork && fork[2] === oldId) return `${fork[1]}_${newId}.jsonl`
  void key
  return transcriptFileName(newId)
}

/** Counters a reset sets to zero (or false); listed in a plan only when the entry holds another value. */
const ZEROED_FIELDS = ['inputTokens', 'outputTokens', 'totalTokens', 'compactionCount', 'systemSent', 'abortedLastRun'] as const

/** `sessions reset --dry-run`: the same resolution as a reset, reading only; no lock is taken and nothing is written. */
export async function planReset(state: OpenClawState, target: string, opts: {agent?: string; now?: Date} = {}): Promise<SessionsResetPlan> {
  const s = await resolveSession(state, target, {agent: opts.agent})
  const now = opts.now ?? new Date()
  const file = resolveTranscriptPath(state.sessionsDir(s.ref), s.entry, s.key).path
  let exists = false
  try {
    exists = fs.statSync(file).isFile()
  } catch {
    exists = false
  }
  const entry = s.entry as Record<string, unknown>
  const clearedFields = [...CLEARED_FIELDS.filter((f) => f in entry), ...ZEROED_FIELDS.filter((f) => f in entry && entry[f] !== 0 && entry[f] !== false)]
  return {
    dryRun: true,
    key: s.key,
    agentId: s.agentId,
    previousSessionId: s.entry.sessionId,
    transcript: exists ? file : null,
    archivedTranscript: exists ? `${file}.reset.${archiveTimestamp(now)}` : null,
    clearedFields,
  }
}

/** Lock-then-recheck rounds when other writers keep rotating the session before this reset holds its transcript. */
const MAX_RESET_ROUNDS = 50

export async function resetSession(state: OpenClawState, target: string, opts: {agent?: string; now?: Date} = {}): Promise<SessionsResetResult> {
  for (let round = 1; ; round++) {
    const result = await resetOnce(state, target, opts)
    if (result) return result
    if (round >= MAX_RESET_ROUNDS) {
      throw new ClawkitError(`Session ${target} changed ${MAX_RESET_ROUNDS} times while this reset waited for its transcript lock; nothing was reset.`, {
        code: 'E_SESSION_ROTATING',
        suggestions: ['Run the command again once other writers (sessions reset, OpenClaw) are done.'],
      })
    }
  }
}

/** One attempt; undefined when the session was rotated between the guess and the lock (the caller tries again). */
async function resetOnce(state: OpenClawState, target: string, opts: {agent?: string; now?: Date}): Promise<SessionsResetResult | undefined> {
  const s = await resolveSession(state, target, {agent: opts.agent, sqliteConsequence: WRITE_REFUSAL})
  // resolveSession already refuses a SQLite-only agent; this covers a stray legacy sessions.json beside the database.
  state.assertJsonEra(s.agentId)
  const sessionsDir = state.sessionsDir(s.ref)
  const store = state.store(s.agentId)
  // Lock order is transcript first, then store: an agent turn holds its transcript lock and takes the store lock at
  // the end, so the opposite order here could deadlock until a timeout.
  const firstGuess = resolveTranscriptPath(sessionsDir, s.entry, s.key).path
  return withLock(firstGuess, async () => {
    const now = opts.now ?? new Date()
    const done = await store.update(async (data) => {
      // Re-resolve inside the lock: another writer may have reset or removed it meanwhile.
      const hit = findEntryIn(data, s.key)
      if (!hit) throw new NotFoundError(`Session not found: ${s.key}`, 'E_SESSION_NOT_FOUND')
      const entry = hit.entry
      const previousSessionId = entry.sessionId
      const oldTranscript = resolveTranscriptPath(sessionsDir, entry, s.key)
      // The transcript this reset rotates must be the one whose lock it holds, from before the index write until the
      // archive: a reader that holds that lock (an agent turn, doctor deciding whether a file is an orphan) then sees
      // the row and the file change together. Another writer rotated it meanwhile: start over from the new row.
      if (oldTranscript.path !== firstGuess) return undefined
      const newId = randomUUID()
      const newFile = path.join(sessionsDir, renameForNewSessionId(path.basename(oldTranscript.path), previousSessionId, newId, s.key))
      const next: SessionEntry = {...entry}
      for (const f of CLEARED_FIELDS) delete next[f]
      next.sessionId = newId
      next.updatedAt = Math.max(now.getTime(), typeof entry.updatedAt === 'number' ? entry.updatedAt : 0)
      next.sessionFile = newFile
      next.systemSent = false
      next.abortedLastRun = false
      next.inputTokens = 0
      next.outputTokens = 0
      next.totalTokens = 0
      next.totalTokensFresh = true
      next.compactionCount = 0
      if ('sessionStartedAt' in entry) next.sessionStartedAt = now.getTime()
      // Fold mixed-case spellings into the canonical lowercase key, as OpenClaw's writers do.
      for (const k of Object.keys(data)) if (k !== hit.storedKey && k.toLowerCase() === s.key) delete data[k]
      if (hit.storedKey === s.key) data[s.key] = next
      else {
        delete data[hit.storedKey]
        data[s.key] = next
      }
      return {previousSessionId, newId, newFile, oldTranscriptPath: oldTranscript.path}
    })
    if (!done) return undefined
    // The old transcript is archived only once the index no longer points at it. Archiving first left a window where
    // a crash kept the old index row but moved its transcript away (the session then read as empty); in this order a
    // crash leaves at worst the old transcript unarchived under its old name, with nothing lost. The transcript lock
    // keeps a running agent turn from appending while the file moves.
    // Like the gateway's sessions.reset, the new id gets a header-only transcript (0600): a row whose transcript is
    // missing is pruned by OpenClaw's `sessions cleanup --fix-missing`. Written after the index, so a crash in
    // between leaves a brand-new row without a file, which every reader already tolerates.
    const header = makeHeader(done.newId, resolveWorkspaceDir(state.stateDir, state.config, s.agentId, state.env), now)
    await fsp.writeFile(done.newFile, `${JSON.stringify(header)}\n`, {flag: 'wx', mode: FILE_MODE}).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw fileError(error, done.newFile, 'create the new transcript')
    })
    let archived: string | null = null
    await withLock(done.oldTranscriptPath, async () => {
      if (fs.existsSync(done.oldTranscriptPath)) {
        archived = `${done.oldTranscriptPath}.reset.${archiveTimestamp(now)}`
        await fsp.rename(done.oldTranscriptPath, archived)
      }
    })
    return {key: s.key, agentId: s.agentId, previousSessionId: done.previousSessionId, sessionId: done.newId, archivedTranscript: archived, sessionFile: done.newFile}
  })
}
