// `sessions archive`, `sessions delete` and `sessions restore` without a gateway: every key resolved first (nothing
// changes when one is unknown), then one journal entry for the whole command, and each store's lifecycle
// (store/lifecycle.ts) does the writes under OpenClaw's locks (JSON era) or BEGIN IMMEDIATE (SQLite era).
import {ClawkitError, ExitCode, NotFoundError, UsageError} from '../errors.js'
import {Journal, journaledRemoval, runJournaled} from '../store/journal.js'
import {assertDeletable, type RestoreOutcome} from '../store/lifecycle.js'
import {isSqliteRef} from '../store/maintenance.js'
import {isSafeSessionId} from '../store/session-id.js'
import type {OpenClawState} from '../store/state.js'
import type {SessionStore} from '../store/types.js'
import {resolveWorkspaceDir} from '../config/config.js'
import {findArchivedSession, looksLikeKey, type ResolvedSession, resolveSession} from './resolve.js'
import {toAgentStoreSessionKey, parseAgentSessionKey} from '../store/session-key.js'
import {normalizeAgentId} from '../config/agent-id.js'

/** One session `sessions archive` marked. */
export interface ArchivedSessionItem {
  key: string
  agentId: string
  sessionId: string
  /** When it was archived (ISO), now or earlier. */
  archivedAt: string
  /** False when it was archived already (nothing was written for it). */
  changed: boolean
}

/** The `sessions archive --json` document. */
export interface SessionsArchiveResult {
  /** --dry-run: what would be archived (archivedAt: now for a session it would archive); nothing was changed. */
  dryRun: boolean
  sessions: ArchivedSessionItem[]
  /** The journal entry (`clawkit undo <id>` reverses the command); null with --no-journal, --dry-run or when nothing changed. */
  journal: string | null
}

/** One session `sessions delete` removed. */
export interface DeletedSessionItem {
  key: string
  agentId: string
  sessionId: string
  /** Where its transcript went: `<file>.deleted.<time>` (JSON era) or `<db>#archive/<name>` rows (SQLite era). */
  archived: string[]
}

/** The `sessions delete --json` document. */
export interface SessionsDeleteResult {
  /**
   * --dry-run: what would be deleted, nothing changed; `archived` says where each transcript would go (the time of
   * this run; a SQLite row's generation, drawn when it is written, as `<generation>`).
   */
  dryRun: boolean
  sessions: DeletedSessionItem[]
  journal: string | null
  /** SQLite era: bytes the database file gave back (incremental vacuum, as OpenClaw's maintenance does); else 0. */
  reclaimedBytes: number
}

/** The `sessions restore --json` document. */
export interface SessionsRestoreResult extends RestoreOutcome {
  agentId: string
  journal: string | null
}

function lifecycleOf(store: SessionStore): NonNullable<SessionStore['lifecycle']> {
  const l = store.lifecycle
  if (!l) throw new ClawkitError('This store cannot archive, delete or restore sessions.', {code: 'E_UNSUPPORTED', exitCode: ExitCode.failure})
  return l
}

async function resolveAll(state: OpenClawState, targets: readonly string[], agent: string | undefined): Promise<ResolvedSession[]> {
  if (targets.length === 0) throw new UsageError('Name at least one session key (for example "agent:main:scratch").', 'E_MISSING_SESSION')
  const out: ResolvedSession[] = []
  const seen = new Set<string>()
  for (const t of targets) {
    const s = await resolveSession(state, t, {agent})
    const id = `${s.ref.path}\0${s.key}`
    if (seen.has(id)) continue
    seen.add(id)
    out.push(s)
  }
  return out
}

function commandLine(verb: string, keys: readonly string[], agent?: string): string {
  return `sessions ${verb} ${keys.join(' ')}${agent ? ` --agent ${agent}` : ''}`
}

export async function archiveSessions(state: OpenClawState, targets: readonly string[], opts: {agent?: string; noJournal?: boolean; dryRun?: boolean; now?: Date} = {}): Promise<SessionsArchiveResult> {
  const list = await resolveAll(state, targets, opts.agent)
  if (opts.dryRun) {
    // As archive() decides it: a session with an archivedAt is left as it is; any other is archived now.
    const now = (opts.now ?? new Date()).getTime()
    const sessions = list.map((s) => {
      const at = (s.entry as {archivedAt?: unknown}).archivedAt
      const archived = typeof at === 'number'
      return {key: s.key, agentId: s.agentId, sessionId: s.entry.sessionId, archivedAt: new Date(archived ? at : now).toISOString(), changed: !archived}
    })
    return {dryRun: true, sessions, journal: null}
  }
  for (const s of list) state.assertWritable(s.agentId)
  const keys = list.map((s) => s.key)
  const {result, journal} = await runJournaled({env: state.env, stateDir: state.stateDir, action: 'archive', command: commandLine('archive', keys, opts.agent), summary: `archive ${keys.join(', ')}`, noJournal: opts.noJournal}, async (entry) => {
    const out: ArchivedSessionItem[] = []
    for (const s of list) {
      const r = await lifecycleOf(state.storeFor(s.ref)).archive(s.key, {now: opts.now, journal: entry})
      out.push({key: r.key, agentId: s.agentId, sessionId: r.sessionId, archivedAt: new Date(r.archivedAt).toISOString(), changed: r.changed})
    }
    return out
  })
  return {dryRun: false, sessions: result, journal: journal?.id ?? null}
}

export async function deleteSessions(state: OpenClawState, targets: readonly string[], opts: {agent?: string; noJournal?: boolean; dryRun?: boolean; now?: Date} = {}): Promise<SessionsDeleteResult> {
  const list = await resolveAll(state, targets, opts.agent)
  for (const s of list) assertDeletable(s.agentId, s.key, typeof state.config.session?.mainKey === 'string' ? state.config.session.mainKey : undefined)
  if (opts.dryRun) {
    const now = opts.now ?? new Date()
    const sessions: DeletedSessionItem[] = []
    for (const s of list) {
      const r = await lifecycleOf(state.storeFor(s.ref)).previewDelete(s.key, {now})
      sessions.push({key: r.key, agentId: s.agentId, sessionId: r.sessionId, archived: r.archived})
    }
    return {dryRun: true, sessions, journal: null, reclaimedBytes: 0}
  }
  for (const s of list) state.assertWritable(s.agentId)
  const keys = list.map((s) => s.key)
  const {result, journal} = await runJournaled({env: state.env, stateDir: state.stateDir, action: 'delete', command: commandLine('delete', keys, opts.agent), summary: `delete ${keys.join(', ')}`, noJournal: opts.noJournal}, async (entry) => {
    const out: DeletedSessionItem[] = []
    for (const s of list) {
      const r = await lifecycleOf(state.storeFor(s.ref)).delete(s.key, {now: opts.now, journal: entry})
      out.push({key: r.key, agentId: s.agentId, sessionId: r.sessionId, archived: r.archived})
    }
    return out
  })
  let reclaimedBytes = 0
  for (const ref of new Map(list.map((s) => [s.ref.path, s.ref])).values()) reclaimedBytes += (await state.storeFor(ref).lifecycle?.reclaim?.())?.freedBytes ?? 0
  return {dryRun: false, sessions: result, journal: journal?.id ?? null, reclaimedBytes}
}

/**
 * `sessions restore <id|key>`: a key that has an entry is un-archived; a key without one gets its newest deleted
 * session back; a sessionId names the archive itself (its key, or --as).
 */
export async function restoreSession(state: OpenClawState, target: string, opts: {agent?: string; as?: string; noJournal?: boolean; now?: Date} = {}): Promise<SessionsRestoreResult> {
  const raw = target.trim()
  if (!raw) throw new UsageError('Name the session to restore: a key, or an archived session\'s id.', 'E_MISSING_SESSION')
  state.requireStateDir()
  let agentId: string
  let src: {sessionId?: string; key?: string}
  if (looksLikeKey(raw)) {
    const agentOpt = opts.agent ? state.requireAgent(opts.agent) : undefined
    const key = toAgentStoreSessionKey(agentOpt ?? state.activeAgentId, raw)
    const parsed = parseAgentSessionKey(key)
    agentId = parsed ? normalizeAgentId(parsed.agentId) : (agentOpt ?? state.activeAgentId)
    src = {key}
  } else if (isSafeSessionId(raw)) {
    const hit = await findArchivedSession(state, raw, opts.agent)
    if (!hit) {
      const live = await resolveSession(state, raw, {agent: opts.agent}).catch(() => undefined)
      if (live) throw new UsageError(`Session ${raw} is live (${live.key}); there is nothing to restore.`, 'E_NOT_ARCHIVED')
      throw new NotFoundError(`No archived session ${raw}.`, 'E_SESSION_NOT_FOUND', ['"clawkit sessions lineage <key>" lists a key\'s archives.'])
    }
    agentId = hit.agentId
    src = {sessionId: raw}
  } else {
    throw new UsageError(`Invalid session key or id: ${JSON.stringify(raw).slice(0, 140)}`, 'E_BAD_SESSION')
  }
  const asKey = opts.as ? toAgentStoreSessionKey(agentId, opts.as) : undefined
  if (asKey && parseAgentSessionKey(asKey) && normalizeAgentId(parseAgentSessionKey(asKey)!.agentId) !== agentId) {
    throw new UsageError(`--as ${opts.as} names another agent; a session is restored into its own agent's store (${agentId}).`, 'E_BAD_SESSION')
  }
  state.assertWritable(agentId)
  const ref = state.sessionStoreRef(agentId)
  const cwd = resolveWorkspaceDir(state.stateDir, state.config, agentId, state.env)
  const run = (from: {sessionId?: string; key?: string}, as: string | undefined) =>
    runJournaled({env: state.env, stateDir: state.stateDir, action: 'restore', command: `sessions restore ${raw}${opts.as ? ` --as ${opts.as}` : ''}`, summary: `restore ${raw}`, noJournal: opts.noJournal}, (entry) =>
      lifecycleOf(state.storeFor(ref)).restore({...from, asKey: as, cwd}, {now: opts.now, journal: entry}),
    )
  try {
    const {result, journal} = await run(src, asKey)
    return {...result, agentId, journal: journal?.id ?? null}
  } catch (error) {
    // A key whose archive the store cannot tie to it (a JSON-era `.deleted.` file names only its sessionId): the
    // journal of clawkit's own delete or cleanup still knows which session the key held. A failed attempt wrote nothing.
    if (!(error instanceof NotFoundError) || error.code !== 'E_SESSION_NOT_FOUND' || !src.key) throw error
    const sessionId = await journaledRemoval(Journal.open(state.env), {stateDir: state.stateDir, store: ref.path, key: src.key})
    // (A SQLite-era archive row names its key itself: the hint is the JSON era's.)
    if (!sessionId) throw new NotFoundError(`${error.message}`, 'E_SESSION_NOT_FOUND', [...(error.suggestions ?? []), ...(isSqliteRef(ref) ? [] : ['a session OpenClaw deleted is named only by its id: "clawkit sessions restore <sessionId> --as <key>"'])])
    const {result, journal} = await run({sessionId}, asKey ?? src.key)
    return {...result, agentId, journal: journal?.id ?? null}
  }
}
