// Archive, delete and restore of one session, as OpenClaw's own gateway methods leave the store, in terms every
// backend implements (file/lifecycle.ts for the JSON layout, sqlite/lifecycle.ts for the agent database); each write
// is recorded in a journal entry ahead of itself when one is given (journal.ts), so `clawkit undo` can reverse it.
import {UsageError} from '../errors.js'
import type {JournalEntry} from './journal.js'
import {buildMainSessionKey, normalizeSessionKey} from './session-key.js'

export interface LifecycleOptions {
  now?: Date
  /** Record every write in this journal entry before it is made. */
  journal?: JournalEntry
  /**
   * delete: the activity (`activityOf`) a cleanup planned the removal from. A key active since (a turn landed while the
   * cleanup waited for its lock) is left alone: the outcome says `skipped`.
   */
  plannedActivityAt?: number
}

/** When a session was last active, as OpenClaw's maintenance ages it (ms; 0 when the entry has none of the fields). */
export function activityOf(e: object | undefined): number {
  const x = (e ?? {}) as {lastInteractionAt?: unknown; lastActivityAt?: unknown; sessionStartedAt?: unknown; updatedAt?: unknown}
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
  return Math.max(n(x.lastInteractionAt), n(x.lastActivityAt), n(x.sessionStartedAt), n(x.updatedAt))
}

/** Whether an entry moved on past the activity a plan saw (no plan: never). */
export function activeSince(e: object | undefined, plannedActivityAt: number | undefined): boolean {
  return plannedActivityAt !== undefined && activityOf(e) > plannedActivityAt
}

/** `sessions archive`: OpenClaw 2026.9.6's manual archive (archivedAt, archiveReason "manual"); the session stays. */
export interface ArchiveOutcome {
  key: string
  sessionId: string
  /** When it was archived (ms), now or earlier. */
  archivedAt: number
  /** False when the entry was archived already (nothing was written). */
  changed: boolean
}

/** `sessions delete`: the entry and its live rows gone, the transcript kept as a `.deleted.` archive. */
export interface DeleteOutcome {
  key: string
  sessionId: string
  /**
   * Where the transcript went: `<file>.deleted.<time>` (JSON era), or the SQLite era's archive rows by their
   * `<db>#archive/<name>` locator (each also published as `sessions/<name>`). Empty when there was no transcript.
   */
  archived: string[]
  /** True when the key was active since the plan (`plannedActivityAt`) and was left as it is. */
  skipped?: boolean
}

/** What `restore` brings back. */
export interface RestoreSource {
  /** The archived session's id (an archive file's header, an archive row). */
  sessionId?: string
  /** The key: un-archive its entry, or bring back the newest deleted session of a key that has none. */
  key?: string
  /** The key to restore under (default: the key the archive served). */
  asKey?: string
  /** The workspace dir, the header's cwd where one must be made. */
  cwd: string
}

export interface RestoreOutcome {
  key: string
  sessionId: string
  /** `unarchived`: the entry's archivedAt cleared; `deleted-archive`/`reset-archive`: a transcript brought back. */
  how: 'unarchived' | 'deleted-archive' | 'reset-archive'
  /** The archive it came from (a file, or a `<db>#archive/<name>` locator); null when un-archived. */
  from: string | null
  /** The live transcript now (a file, or `<db>#<sessionId>`). */
  sessionFile: string
}

/** What a backend of the session store does for these commands (the file and SQLite stores have it). */
/** One entry a cleanup archives: OpenClaw's maintenance sets archivedAt and a reason, and leaves updatedAt. */
export interface ArchiveMark {
  key: string
  /** The sessionId the plan saw (another one now: the key moved on, and it is left alone). */
  sessionId: string
  archiveReason: string
  /** The activity the plan saw (`activityOf`): a key active since is left alone too. */
  activityAt?: number
}

/** One key a cleanup removes: the session and the activity the plan saw (a key that moved past either is left alone). */
export interface PlannedRemoval {
  key: string
  sessionId: string
  activityAt?: number
}

export interface SessionLifecycle {
  archive(key: string, opts: LifecycleOptions): Promise<ArchiveOutcome>
  /**
   * Archive many entries at once as maintenance does (an index rewrite per 256 keys under their transcripts' locks, or
   * one transaction), skipping a key whose session or activity moved past the mark's; returns the keys marked.
   */
  mark(marks: readonly ArchiveMark[], opts: LifecycleOptions): Promise<string[]>
  delete(key: string, opts: LifecycleOptions): Promise<DeleteOutcome>
  /** What `delete` would do now, nothing written (`sessions delete --dry-run`): `archived` names where each transcript would go. */
  previewDelete(key: string, opts: {now?: Date}): Promise<DeleteOutcome>
  /**
   * SQLite era: the archive rows (deleted and reset transcripts kept in the database), oldest first; `windowed`: the
   * row's session has a window again (restored), `keyLive`: a node holds the row's key.
   */
  archiveRows?(): Promise<{name: string; key: string; sessionId: string; createdAt: number; bytes: number; windowed?: boolean; keyLive?: boolean}[]>
  /**
   * SQLite era: remove these archive rows (a disk budget's eviction, --keep, the orphan sweep), journaled, each only
   * while its guard holds (`archivedOnly`: its session has no window; `unclaimedOnly`: no node holds its key); returns
   * the names removed.
   */
  dropArchives?(names: readonly string[], opts: LifecycleOptions, guard?: {label?: string; archivedOnly?: readonly string[]; unclaimedOnly?: readonly string[]}): Promise<string[]>
  /** SQLite era: what the disk budget may evict (sqlite/lifecycle.ts budgetInventory), `keys`' sizes included. */
  budgetInventory?(keys: readonly string[]): Promise<{freeBytes: number; published: {name: string; key: string; sessionId: string; bytes: number}[]; unpublished: string[]; keyBytes: Record<string, number>}>
  /** Return the space deleted rows left to the file system where the store can (SQLite: incremental vacuum). */
  reclaim?(): Promise<{freedBytes: number}>
  /**
   * Delete many keys as `delete` does each (a cleanup's removals), skipping a key whose session is no longer the one
   * planned. A backend may batch them (the JSON layout rewrites its index once per chunk, not once per key).
   */
  deleteMany?(items: readonly PlannedRemoval[], opts: LifecycleOptions): Promise<DeleteOutcome[]>
  restore(src: RestoreSource, opts: LifecycleOptions): Promise<RestoreOutcome>
}

/**
 * OpenClaw's gateway refuses to delete the main session ("Cannot delete the main session") and `global`; so does
 * clawkit, before anything is locked.
 */
export function assertDeletable(agentId: string, key: string, mainKey?: string): void {
  const k = normalizeSessionKey(key)
  const main = mainKey ? `agent:${agentId}:${mainKey.toLowerCase()}` : buildMainSessionKey(agentId)
  if (k === 'global' || k === main) {
    throw new UsageError(`Cannot delete the main session (${k}); OpenClaw refuses it too. "clawkit sessions reset ${k}" starts it afresh instead.`, 'E_MAIN_SESSION')
  }
}
