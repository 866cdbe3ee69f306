// Types of the findings every store backend's diagnostics produce and doctor reports: part of the stable `--json`
// contract of `clawkit doctor` (docs/doctor.md).
import type {JournalEntry} from '../journal.js'
import type {SqlDatabase} from '../sqlite/driver.js'
import type {SessionEntry, SessionStoreData} from '../types.js'

export type Severity = 'error' | 'warn' | 'info'

/** Every finding id doctor can emit. Ids are stable: scripts match on them. */
export const FINDING_IDS = [
  // state dir as a whole
  'state-dir-missing',
  'state-dir-unrecognized',
  'state-dir-not-writable',
  'state-dir-permissions',
  'config-invalid',
  'config-permissions',
  'wrong-owner',
  'split-state',
  'legacy-sessions-dir',
  // per agent: directories and files
  'agent-dir-permissions',
  'sessions-dir-permissions',
  'sessions-dir-not-writable',
  'store-permissions',
  'transcript-permissions',
  'sqlite-store',
  // per agent: the index
  'store-corrupt',
  'store-bom',
  'store-unreadable',
  'store-tmp-leftover',
  'entry-malformed',
  'entry-missing-session-id',
  'entry-missing-updated-at',
  'duplicate-session-id',
  // per agent: entries and their transcripts
  'transcript-missing',
  'transcript-not-started',
  'main-transcript-missing',
  'main-transcript-header-only',
  'session-file-relocated',
  'session-file-foreign',
  'orphan-transcript',
  'orphan-transcript-empty',
  // per agent: transcript contents
  'transcript-torn-line',
  'transcript-no-final-newline',
  'transcript-bad-lines',
  'transcript-bad-header',
  'transcript-header-mismatch',
  'transcript-not-a-file',
  // locks
  'stale-lock',
  'lock-scratch-leftover',
  'live-lock',
  'lock-not-a-file',
  // per agent: the SQLite store (OpenClaw 2026.7 and later; src/store/diagnostics/sqlite/checks.ts)
  'sqlite-unchecked',
  'sqlite-unreadable',
  'sqlite-not-a-database',
  'sqlite-empty-file',
  'sqlite-truncated',
  'sqlite-integrity',
  'sqlite-read-only',
  'sqlite-locked',
  'sqlite-schema-newer',
  'sqlite-schema-older',
  'sqlite-schema-meta',
  'sqlite-wal-orphan',
  'sqlite-wal-oversized',
  'sqlite-wal-stale',
  'sqlite-entry-invalid',
  'sqlite-entry-mismatch',
  'sqlite-entry-unvalidated',
  'sqlite-window-missing',
  'sqlite-window-empty',
  'sqlite-event-invalid-json',
  'sqlite-event-undecodable',
  'sqlite-legacy-not-imported',
  // the import from the JSON era (OpenClaw's doctor --fix): its run manifests and archives (src/store/diagnostics/sqlite/import-checks.ts)
  'sqlite-migration-failed',
  'sqlite-migration-manifest-invalid',
  'sqlite-import-protected',
  'sqlite-import-archive-missing',
] as const

export type FindingId = (typeof FINDING_IDS)[number]

/** One finding of the `--json` document. */
export interface Finding {
  id: FindingId
  severity: Severity
  /** The agent concerned, or null for the state dir as a whole. */
  agentId: string | null
  /** The file or directory concerned. */
  path: string
  /** What is wrong and what to do. */
  message: string
  /** Whether `--fix` can repair it. */
  fixable: boolean
  /** Whether this run repaired it. */
  fixed: boolean
  /** Session key, for findings about one index entry. */
  key?: string
  /** What `--fix` does (or did) for this finding. */
  action?: string
  /** Where the backup of the previous state went, when a repair wrote one. */
  backup?: string
  /** Why a repair of this finding failed (the finding stays open). */
  repairError?: string
  /** Extra machine-readable details (lock holder, file lists, other state dirs, ...). */
  details?: Record<string, unknown>
}

export interface DoctorAgentSummary {
  agentId: string
  /** Other agents that share this store (`session.store` without {agentId}). */
  sharedWith?: string[]
  configured: boolean
  storePath: string
  sessionsDir: string
  /** Index entries (null when the index could not be read). */
  sessions: number | null
  /** Live transcript files in the sessions dir. */
  transcripts: number
  /** Where the agent's sessions live: `sqlite` when `agents/<id>/agent/openclaw-agent.sqlite` exists. */
  era: 'json' | 'sqlite'
  /** The SQLite store, when there is one (figures absent when it could not be read). */
  sqlite?: SqliteAgentSummary
}

export interface SqliteAgentSummary {
  path: string
  schemaVersion?: number
  /** session_nodes rows (placeholders not counted). */
  sessions?: number
  events?: number
  dbBytes: number
  walBytes: number
  /** Live processes that have the database open (Linux; absent where that cannot be told). */
  holders?: number[]
}

/** Internal: a finding plus how to repair it. */
export interface PlannedFinding extends Finding {
  repair?: Repair
}

export type Repair =
  | {kind: 'lock'; run: () => Promise<string | void>}
  | {kind: 'perm'; run: () => Promise<string | void>}
  | {kind: 'store-recover'; run: () => Promise<string | void>}
  | {kind: 'transcript'; run: () => Promise<string | void>}
  | {kind: 'archive'; run: () => Promise<string | void>}
  /**
   * A change inside an agent's SQLite database (src/store/diagnostics/sqlite/repairs.ts): batched per database, refused while
   * another process has it open, and run on one write connection after an online backup of the database. `run`
   * returns what it did, or throws why it left the database alone; given doctor's journal entry, it records the rows
   * it changes before it commits (clawkit undo).
   */
  | {kind: 'sqlite'; db: string; agentId: string; run: (db: SqlDatabase, journal?: JournalEntry) => string | Promise<string>}
  /**
   * Index edits are batched per store: one lock, one backup, one write. `lockFiles` are transcripts whose locks are
   * taken first (OpenClaw's order: transcript, then store) and held while the edit decides; an edit that only needs
   * to know nobody is rotating a file checks `live.heldBy` instead (thousands of orphans, no lock files). The edit
   * returns true when it changed data, false when the finding no longer applies, or why it left things alone.
   */
  | {kind: 'index'; storePath: string; agentId: string; lockFiles?: string[]; edit: (data: SessionStoreData, live: LiveStore) => boolean | string}
  /** A file move decided under its transcript lock and the store lock (not written): an empty orphan's archive. */
  | {kind: 'orphan-archive'; storePath: string; agentId: string; lockFiles: string[]; run: (live: LiveStore) => Promise<string>}

/** What a repair sees under its locks: the index as it is now, and the files that exist now (src/store/diagnostics/file/live.ts). */
export interface LiveStore {
  /** A regular transcript file at this path in the sessions dir now (not renamed to .reset./.deleted., not a link). */
  isLiveTranscript(file: string): boolean
  /** Whether a row of the index points at this file (by name) or, with `sessionId`, carries that session id. */
  references(file: string, sessionId?: string): boolean
  /**
   * Who holds this transcript's lock, when a live process does (undefined: free, or left by a dead process). Under the
   * store lock that is enough for an index edit: a reset holds the lock of the transcript it rotates from before its
   * index write until the archive rename, so a free lock on an unreferenced file means no rotation is in flight.
   */
  heldBy(file: string): string | undefined
  /** A row an edit just added, so the edits after it in the same batch see it. */
  added(key: string, entry: SessionEntry): void
}
