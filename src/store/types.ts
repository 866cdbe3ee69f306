// Types of the OpenClaw session store (sessions.json entries) and the backend-neutral store interface.

/** One row of sessions.json. Only the fields clawkit reads are typed; every other field is preserved as-is. */
export interface SessionEntry {
  sessionId: string
  updatedAt: number
  sessionFile?: string
  systemSent?: boolean
  abortedLastRun?: boolean
  chatType?: 'direct' | 'group' | 'channel' | 'dm' | string
  channel?: string
  groupId?: string
  label?: string
  displayName?: string
  thinkingLevel?: string
  verboseLevel?: string
  traceLevel?: string
  reasoningLevel?: string
  elevatedLevel?: string
  responseUsage?: string
  groupActivation?: string
  sendPolicy?: 'allow' | 'deny' | string
  model?: string
  modelProvider?: string
  providerOverride?: string
  modelOverride?: string
  inputTokens?: number
  outputTokens?: number
  cacheRead?: number
  cacheWrite?: number
  totalTokens?: number
  totalTokensFresh?: boolean
  contextTokens?: number
  estimatedCostUsd?: number
  compactionCount?: number
  sessionStartedAt?: number
  lastInteractionAt?: number
  deliveryContext?: {channel?: string; to?: string; accountId?: string; threadId?: string | number}
  lastChannel?: string
  lastTo?: string
  lastAccountId?: string
  lastThreadId?: string | number
  origin?: Record<string, unknown>
  [field: string]: unknown
}

/** sessions.json as a bare record from key to entry; insertion order is file order. */
export type SessionStoreData = Record<string, SessionEntry>

/** An entry with the key it is spelled under in the file (OpenClaw folds mixed-case spellings to the lowercase key). */
export interface FoundEntry {
  storedKey: string
  entry: SessionEntry
}

export interface StoreRef {
  agentId: string
  /** Absolute path of sessions.json (file backend) or a backend-specific locator. */
  path: string
}

export interface UpdateOptions {
  /** How long to wait for the store lock before failing with LockTimeoutError. */
  lockTimeoutMs?: number
}

/**
 * The seam between commands and storage. The file backend is OpenClaw's layout; a shared-database backend for
 * multi-machine teams can implement the same contract.
 */
export interface SessionStore {
  readonly ref: StoreRef
  /** Read the index without taking a lock (atomic renames give a complete old or new file). */
  read(): Promise<SessionStoreData>
  /**
   * The entry for this key as OpenClaw resolves it (the lowercase key or a legacy mixed-case spelling, newest
   * updatedAt first), without a lock. May avoid reading the whole index when the key is stored as given.
   */
  findEntry(key: string): Promise<FoundEntry | undefined>
  /**
   * `project(key, entry)` for every object entry, without a lock, in the order and with the values read() would give,
   * keyed by the stored key. For callers that keep a little of each entry (list rows): a backend may then avoid
   * holding the whole index at once. A missing index is an empty map.
   */
  readRows<T>(project: (key: string, entry: SessionEntry) => T): Promise<Map<string, T>>
  /**
   * Read-modify-write under the store lock. The mutator sees a fresh read taken inside the lock; its return value
   * is passed through. Nothing is written when the mutator leaves the data unchanged.
   */
  update<T>(mutator: (data: SessionStoreData) => T | Promise<T>, opts?: UpdateOptions): Promise<T>
}
