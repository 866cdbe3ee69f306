// What `clawkit sync` is asked (its options and progress callbacks) and what it answers (the `sync --json` document),
// shared by the sync of a host (sync.ts) and of each of its agents (sync-agent.ts).
export interface SyncTranscriptCounts {
  /** Not on the replica before. */
  new: number
  /** New events appended, or where/ended/key changed (an archive rename). */
  updated: number
  /** No longer what the replica held (rewritten, rotated): its events were replaced. */
  rewritten: number
  unchanged: number
}

export interface SyncAgentResult {
  agentId: string
  era: 'json' | 'sqlite'
  /** The host's own store path (sessions.json or the agent database). */
  storePath: string
  /** Index entries sent because they are new or changed (dry run: that would be). */
  entriesUpserted: number
  entriesUnchanged: number
  transcripts: SyncTranscriptCounts
  /** Events uploaded (dry run: that would be). */
  events: number
  /** Bytes of those events as stored (UTF-8). */
  bytes: number
  durationMs: number
  /** With --prune: what was removed from the replica (dry run: would be). */
  pruned: {entries: string[]; transcripts: string[]}
  /** Without --prune: entries and transcripts the replica still holds that are gone here (kept). */
  stale: {entries: number; transcripts: number}
}

/** An agent this sync left out whole: nothing of it was written, and the replica keeps what an earlier sync put there. */
export interface SyncSkippedAgent {
  agentId: string
  era: 'json' | 'sqlite'
  storePath: string
  /** Set when the running Node cannot read this agent's store: the Node version (or later) that can. */
  needsNode?: string
  /** Set when the store could not be read (a corrupt index, a damaged or locked database): the error's code. */
  code?: string
  reason: string
}

/** The `sync --json` document. */
export interface SyncResult {
  host: string
  /** The database, without its password. */
  database: string
  dryRun: boolean
  prune: boolean
  /** Schema version before and after; a dry run applies nothing (`to` equals `from`, `pending` lists what a sync would). */
  schema: {from: number; to: number; applied: string[]; pending: string[]}
  agents: SyncAgentResult[]
  /** Agents not synced because this Node cannot read their store (a partial sync: exit 6); a sync on Node 22.15+ uploads them. */
  skipped: SyncSkippedAgent[]
  total: {entriesUpserted: number; events: number; bytes: number; transcripts: SyncTranscriptCounts}
  durationMs: number
}

export interface SyncProgress {
  agentId: string
  transcript: number
  transcripts: number
  events: number
  bytes: number
}

export interface SyncOptions {
  url: string
  host?: string
  agent?: string
  allAgents?: boolean
  dryRun?: boolean
  prune?: boolean
  clawkitVersion?: string
  onProgress?: (p: SyncProgress) => void
  /** Told what --prune is about to remove, before it is removed. */
  onPrune?: (agentId: string, what: {entries: string[]; transcripts: string[]}) => void
  /** Rows (events or index entries) per INSERT (default 1000; CLAWKIT_SYNC_BATCH_ROWS overrides, for tests). */
  batchRows?: number
  /** Bytes of event or entry text per INSERT before it is sent anyway. */
  batchBytes?: number
  /** How long to wait for another sync of the same host to finish. */
  lockWaitMs?: number
}
