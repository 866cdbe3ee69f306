// `sessions reset`: OpenClaw's reset semantics (new sessionId, archived transcript, metadata kept, counters cleared).
import {resolveWorkspaceDir} from '../config/config.js'
import type {OpenClawState} from '../store/state.js'
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

/** `sessions reset --dry-run`: the same resolution as a reset, reading only; no lock is taken and nothing is written. */
export async function planReset(state: OpenClawState, target: string, opts: {agent?: string; now?: Date} = {}): Promise<SessionsResetPlan> {
  const s = await resolveSession(state, target, {agent: opts.agent})
  const plan = await state.storeFor(s.ref).planReset(s.key, opts.now ?? new Date())
  return {dryRun: true, key: s.key, agentId: s.agentId, previousSessionId: plan.previousSessionId, transcript: plan.transcript, archivedTranscript: plan.archivedTranscript, clearedFields: plan.clearedFields}
}

/** The store does the reset, with its lock order and its retries when other writers rotate the session meanwhile. */
export async function resetSession(state: OpenClawState, target: string, opts: {agent?: string; now?: Date} = {}): Promise<SessionsResetResult> {
  const s = await resolveSession(state, target, {agent: opts.agent})
  state.assertWritable(s.agentId)
  const cwd = resolveWorkspaceDir(state.stateDir, state.config, s.agentId, state.env)
  const done = await state.storeFor(s.ref).reset(s.key, {now: opts.now, cwd})
  return {key: s.key, agentId: s.agentId, previousSessionId: done.previousSessionId, sessionId: done.sessionId, archivedTranscript: done.archivedTranscript, sessionFile: done.sessionFile}
}
