// `sessions reset`: OpenClaw's reset semantics (new sessionId, archived transcript, metadata kept, counters cleared).
import {resolveWorkspaceDir} from '../config/config.js'
import {ClawkitError, ExitCode, NotFoundError} from '../errors.js'
import {isSafeSessionId} from '../store/session-id.js'
import type {OpenClawState} from '../store/state.js'
import {WHERE_TEXT} from './lineage.js'
import {findArchivedSession, type ResolvedArchive, type ResolvedSession, resolveSession} from './resolve.js'

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

/** A reset asked for an archived session's id: it names the key it served and how to reset that instead (exit 1). */
export class ArchivedSessionError extends ClawkitError {
  constructor(id: string, a: ResolvedArchive) {
    const at = a.archived.endedAt ? ` at ${a.archived.endedAt}` : ''
    const until = {reset: `until its reset${at}`, deleted: `until it was deleted${at}`, compaction: `until a compaction started the next${at}`, orphaned: 'until nothing pointed at it any more', current: ''}[a.archived.ended]
    const where = WHERE_TEXT[a.archived.where] ?? a.archived.where
    const whose = a.key === null ? `(${where}; no key claims it any more)` : `it was ${a.key}'s session ${until} (${where})`
    super(`Session ${id} is archived: ${whose}, and an archived session cannot be reset.`, {
      code: 'E_SESSION_ARCHIVED',
      exitCode: ExitCode.failure,
      suggestions: [`${a.key === null ? '' : `reset the key's current session with "clawkit sessions reset ${a.key}"; `}"clawkit sessions history ${id}" shows the archive`],
    })
  }
}

/**
 * The session a reset acts on: a key, or a key's current sessionId (resolveSession). An archived session's id is never
 * reset, but the error says it is archived and whose it was, where "Session not found" would contradict `history`.
 */
async function resolveForReset(state: OpenClawState, target: string, agent: string | undefined): Promise<ResolvedSession> {
  try {
    return await resolveSession(state, target, {agent})
  } catch (error) {
    const id = target.trim()
    if (!(error instanceof NotFoundError) || id.includes(':') || !isSafeSessionId(id)) throw error
    const archived = await findArchivedSession(state, id, agent)
    if (archived) throw new ArchivedSessionError(id, archived)
    throw error
  }
}

/** `sessions reset --dry-run`: the same resolution as a reset, reading only; no lock is taken and nothing is written. */
export async function planReset(state: OpenClawState, target: string, opts: {agent?: string; now?: Date} = {}): Promise<SessionsResetPlan> {
  const s = await resolveForReset(state, target, opts.agent)
  const plan = await state.storeFor(s.ref).planReset(s.key, opts.now ?? new Date())
  return {dryRun: true, key: s.key, agentId: s.agentId, previousSessionId: plan.previousSessionId, transcript: plan.transcript, archivedTranscript: plan.archivedTranscript, clearedFields: plan.clearedFields}
}

/** The store does the reset, with its lock order and its retries when other writers rotate the session meanwhile. */
export async function resetSession(state: OpenClawState, target: string, opts: {agent?: string; now?: Date} = {}): Promise<SessionsResetResult> {
  const s = await resolveForReset(state, target, opts.agent)
  state.assertWritable(s.agentId)
  const cwd = resolveWorkspaceDir(state.stateDir, state.config, s.agentId, state.env)
  const done = await state.storeFor(s.ref).reset(s.key, {now: opts.now, cwd})
  return {key: s.key, agentId: s.agentId, previousSessionId: done.previousSessionId, sessionId: done.sessionId, archivedTranscript: done.archivedTranscript, sessionFile: done.sessionFile}
}
