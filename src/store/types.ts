// Types of the OpenClaw session store (sessions.json entries) and the backend-neutral store interface.
import type {ContextRead} from './context-path.js'
import type {JournalEntry, JournalStep} from './journal.js'
import type {SessionLifecycle} from './lifecycle.js'
import type {BadLine, TranscriptEntry, TranscriptHeader} from './transcript-types.js'

export type TranscriptLocation =
  /** sessionFile resolved inside the sessions dir. */
  | 'session-file'
  /** sessionFile pointed elsewhere (a moved or copied state dir); the same file name exists locally and is used. */
  | 'relocated'
  /** No usable sessionFile: derived from sessionId (and topic). */
  | 'derived'
  /** A SQLite-era session: its events in the agent database (locator `<db path>#<sessionId>`). */
  | 'sqlite'
  /** A deleted or reset SQLite-era session kept whole in session_transcript_archives (`<db path>#archive/<name>`). */
  | 'sqlite-archive'

export interface TranscriptReadResult {
  file: string
  header?: TranscriptHeader
  /** Header version as stored (1 when absent). */
  version: number
  entries: TranscriptEntry[]
  /** Raw JSONL text of each entry, parallel to `entries` (migrated v1 entries have none). */
  rawLines: (string | undefined)[]
  badLines: BadLine[]
  /** Extra `type:"session"` lines after the first (pi's duplicate-header quirk); ignored. */
  duplicateHeaders: number
  /** The first parsed line was not a session header: pi treats the file as empty. */
  badHeader: boolean
  /** The file does not end with "\n" (a torn or hand-edited tail). */
  missingFinalNewline: boolean
  size: number
  /** Tail reads: true when lines exist before the ones returned (with `exactPartial`: counted entries). */
  partial: boolean
}

/** What a read cost, for tests: every byte must be read once and copied at most once, whatever the line lengths. */
export interface ReadStats {
  reads: number
  bytesRead: number
  /** Bytes copied to join the pieces of a line that spans reads. */
  bytesCopied: number
}

export interface TailOptions {
  /** Stop once this many entries accepted by `count` have been collected. */
  limit: number
  /** Which entries count toward the limit (default: every entry). */
  count?: (e: TranscriptEntry) => boolean
  /**
   * Make `partial` exact: past the limit, read back over entries that do not count until one that does (partial) or
   * the start of the file. Without it, any line before the window makes `partial` true. Lines before the window
   * are judged by their leading `"type"` where they have one, so `count` may then see only an entry's type.
   */
  exactPartial?: boolean
  /** Filled in with what the read cost (tests). */
  stats?: ReadStats
}

/** An entry without the base fields; appendEntries fills id, parentId and timestamp. */
export type NewEntry = {type: string; [k: string]: unknown}

export interface AppendResult {
  entries: TranscriptEntry[]
  created: boolean
}

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
  /** Told once when the update has to wait for another writer (the index lock, or a locked database). */
  onWait?: TranscriptLockOptions['onWait']
}

/**
 * A session's transcript as the store resolved it. Features show `locator` (the file backend: the absolute path of the
 * JSONL file, which is what `sessionFile` and every output print) and hand the ref back to the store; they never
 * build, open or lock it themselves.
 */
export interface TranscriptRef {
  readonly locator: string
  /** How the entry led to it: its sessionFile, a relocated sessionFile, or derived from sessionId (and topic). */
  readonly location: TranscriptLocation
  /** Whether it existed when resolved (a read may still find it gone). */
  readonly exists: boolean
  /** The entry's sessionFile when it could not be used as-is. */
  readonly storedSessionFile?: string
}

/** A message found by its idempotency key (OpenClaw's transcriptFindIdempotencyKey). */
export interface IdempotencyHit {
  entryId: string
  meta?: Record<string, unknown>
}

export interface TranscriptLockOptions {
  timeoutMs?: number
  /** Abort the wait for the lock (Ctrl-C, --timeout): fails with E_LOCK_WAIT_ABORTED. */
  signal?: AbortSignal
  /**
   * Told once the lock turns out to be held by someone else. `database` is set when the wait is for a SQLite
   * database's write lock (`lockPath` is then the database): OpenClaw maintenance or another tool in a transaction.
   */
  onWait?: (info: {lockPath: string; holderPid?: number; timeoutMs: number; database?: boolean}) => void
}

export interface TranscriptAppendOptions {
  /** Header written first when the transcript is missing or empty; without one such an append fails. */
  header?: TranscriptHeader
  now?: () => Date
}

/** A transcript whose write lock the caller holds (inside `SessionStore.withTranscript`). */
export interface LockedTranscript {
  readonly ref: TranscriptRef
  /** Everything the model context is built from (entries, root-to-leaf path); undefined when missing or empty. */
  readContext(): Promise<ContextRead | undefined>
  /** New entries with OpenClaw's ids, chained onto the transcript's current leaf. */
  append(items: NewEntry[], opts?: TranscriptAppendOptions): Promise<AppendResult>
  /**
   * Lines the caller has already chained (a turn keeps its own leaf and ids, like pi's SessionManager), written after
   * the last one. `fenceTornLine` first ends a torn last line so the new lines stay parseable.
   */
  write(lines: readonly object[], opts?: {fenceTornLine?: boolean}): Promise<void>
  findIdempotencyKey(key: string): Promise<IdempotencyHit | undefined>
}

/** What `sessions reset --dry-run` reports: decided from the index as it is now, nothing locked or written. */
export interface ResetPlan {
  key: string
  previousSessionId: string
  /** The transcript that would be archived, or null when there is none. */
  transcript: string | null
  /** Where it would go (`<locator>.reset.<time>`), or null. */
  archivedTranscript: string | null
  /** Fields of the entry the reset would remove or set back to zero. */
  clearedFields: string[]
}

export interface ResetOutcome {
  key: string
  previousSessionId: string
  sessionId: string
  /** Locator of the archived old transcript, or null when there was none. */
  archivedTranscript: string | null
  /** The new sessionFile (a header-only transcript is created there). */
  sessionFile: string
}

export interface ResetOptions {
  /** The reset's time; by default the moment the transcript lock is held (updatedAt, header, archive name). */
  now?: Date
  /** The header's cwd for the new transcript (the agent's workspace). */
  cwd: string
  /** Record the reset in this journal entry, ahead of each of its writes (journal.ts). */
  journal?: JournalEntry
}

/** Where a session of a key keeps its transcript. */
export type SessionWhere = 'live' | 'reset-archive' | 'deleted-archive' | 'window' | 'orphan'

/** One session a key has had (SessionStore.sessionsOf). */
export interface KeySession {
  sessionId: string
  where: SessionWhere
  transcript: TranscriptRef
  /**
   * How it ended as the store records it: still current, replaced by a reset, deleted, rolled over by compaction, or
   * orphaned (a live-named transcript no entry points at any more: a reset interrupted before it archived it).
   */
  ended: 'current' | 'reset' | 'deleted' | 'compaction' | 'orphaned'
  /** When it was archived (the archive name's time), when the store records one. */
  endedAt?: string
  /**
   * What tied it to the key: the index (current), OpenClaw's trajectory sidecar, the key's topic in the file name, the
   * entry's previousSessionId, the reset chain (archive time = the next session's start), a SQLite window row, the
   * session_key of a SQLite archive row (`archive`: a deleted session of the SQLite era), or (`header`) the current
   * session's transcript found under another name by its header id, which doctor re-attaches (then `where` is `orphan`
   * and `ended` is `current`).
   */
  foundBy: 'index' | 'trajectory' | 'topic' | 'previous-session-id' | 'reset-time' | 'window' | 'archive' | 'header'
}

/**
 * One transcript of an agent's store (SessionStore.allSessions): a session as sessionsOf gives it, and the key it served.
 * `key` is null, and `foundBy` 'none', when nothing ties it to a key any more: the archive of a deleted key that left no
 * trajectory sidecar, or an orphan without one.
 */
export interface AgentSession extends Omit<KeySession, 'foundBy'> {
  key: string | null
  foundBy: KeySession['foundBy'] | 'none'
}

/** One stored line of a transcript, in order: the text as stored and its parsed value, or why it cannot be read. */
export interface TranscriptLine {
  /** 1-based line number (SQLite: the event's seq). */
  line: number
  raw: string
  value?: Record<string, unknown>
  bad?: BadLine
  /**
   * readSince of a JSONL file only: the byte offset in the file where the line starts, so that a reader that keeps it (the
   * local catalog) can later ask for that stretch again (SessionStore.grepSpans) without reading what comes before.
   */
  offset?: number
}

/**
 * A run of whole lines of a transcript, as readSince gave them (SessionStore.grepSpans): `line` the number of its first line
 * (SQLite: the first event's seq); JSONL: `offset` that line's byte offset and `bytes` the run's length (newlines
 * included; left out: up to the end of the file as it is now, an unterminated last line read as readLines reads it);
 * SQLite: `lines` events from `line` on (left out: to the last event).
 */
export interface LineSpan {
  line: number
  offset?: number
  bytes?: number
  lines?: number
}

/**
 * What SessionStore.grepLines looks for in a line's stored text (the JSON line as written; SQLite: the event's JSON).
 * Needles are compared as UTF-8 bytes; with `ignoreCase`, ASCII letters match either case (and nothing else is folded).
 */
export interface RawLineFilter {
  needles: readonly string[]
  ignoreCase: boolean
  /**
   * Also yield every line the store cannot read (not JSON, not an object, undecodable), whatever it holds: for a reader
   * that counts them (usage's badLines), so that every backend counts the same lines. Costs a parse of every line in
   * the JSON layout (a validity check in SQL for the SQLite store); the replica yields them always.
   */
  unreadable?: boolean
}

/** SessionStore.contentCandidates: the sessions that may hold a hit and, when the store could give them at once, their lines. */
export interface ContentCandidates {
  sessions: ReadonlySet<string>
  lines?: ReadonlyMap<string, TranscriptLine[]>
}

/** What `stats()` says of one agent's store: small, so that every backend (a PostgreSQL replica too) can answer it. */
export interface StoreStats {
  /** Sessions in the index (`global`, `unknown` and rows that are not objects do not count). */
  sessions: number
  /** The newest updatedAt (ms) among them, null when none has one. */
  lastUpdatedAt: number | null
  /** The `newest` most recently updated sessions, newest first (status's recent list). */
  newest: FoundEntry[]
  /** Transcript events (rows) when the backend counts them cheaply; null when it would have to read every transcript. */
  events: number | null
  /** With `keys`: every key the store holds, as `sessions history` may match them (status cuts keys to be unique among these). */
  keys?: string[]
}

export interface StatsOptions {
  /** How many of the most recently updated sessions to return (default none). */
  newest?: number
  /** A store several agents share: count only the keys of this agent (unscoped keys belong to the store's own agent). */
  ofAgent?: string
  /** Also return every stored key (`keys`), whatever it counts as. */
  keys?: boolean
  /**
   * The index as the caller already read it (doctor's scan of a JSON-era store, which status reuses): counted instead
   * of read a second time. A backend whose index is not one file ignores it.
   */
  index?: SessionStoreData
}

/**
 * Where an incremental reader of a transcript stopped (SessionStore.readSince). A caller keeps it (sync stores it as the
 * replica's high-water mark) and hands it back; only the store that made it interprets it.
 */
export interface TranscriptMark {
  /** Lines consumed: JSONL the number of the last line read (blank lines count); SQLite the last seq read + 1. */
  seq: number
  /** JSONL: bytes read, always ending at a line end (a torn last line is not read until it is complete). */
  bytes?: number
  /** sha256 (hex) of those bytes (JSONL), or of the header event (SQLite). */
  sha256?: string
  /**
   * The source as seen when the read began (JSONL: file size and mtime), set only once a read went to the end: a mark
   * whose size and mtime still match means nothing to read. A mark taken mid-read never carries them.
   */
  size?: number
  mtimeMs?: number
  /**
   * JSONL: the file's inode and ctime at that read. Size and mtime alone miss a rewrite at the same size whose mtime was
   * put back (`cp -p`, `rsync -t`): ctime cannot be set back, and a file renamed into place is another inode. A mark
   * without them (written before they were kept) is never taken for "nothing to read": its prefix is hashed again.
   */
  ino?: number
  ctimeMs?: number
  /**
   * SQLite: the transcript's rewrite watermark (`transcript_rewrite_watermarks.generation`), which OpenClaw rotates on
   * every destructive rewrite: a different one means the events were rewritten, whatever the header and last seq say.
   */
  generation?: string
  /**
   * JSONL, marks of readSince with `verify: 'ends'`: sha256 (hex) of the first and of the last (up to) 4 KiB of the `bytes`
   * read, in place of `sha256` (the whole prefix's hash, which that mode does not keep).
   */
  endsSha256?: string
}

/**
 * How readSince decides that a mark still describes a prefix of the transcript, when the transcript changed since:
 * `prefix` (the default) hashes the whole prefix again (clawkit sync's replica); `ends` compares only its first and last
 * 4 KiB (the local catalog, which reads on every query): an append-only file passes, a file replaced (another inode),
 * cut shorter, or rewritten where either end lies fails and is read again whole. A rewrite in place that keeps the size
 * and both ends goes unnoticed by `ends`.
 */
export type MarkCheck = 'prefix' | 'ends'

/** The lines of a transcript after a mark (SessionStore.readSince). */
export interface TranscriptSince {
  /**
   * The mark given no longer describes a prefix of this transcript (rewritten, rotated, truncated, a window recreated
   * under the same id): `lines` start again from the beginning.
   */
  rewritten: boolean
  /** The store could tell without reading that nothing changed since the mark: `lines` yields nothing. */
  unchanged: boolean
  /**
   * The lines after the mark, in order, streamed. Unlike readLines, blank JSONL lines are yielded too (raw as stored,
   * neither value nor bad), so that line numbers stay contiguous from 1.
   */
  lines: AsyncIterable<TranscriptLine>
  /** The mark after the last line yielded so far; with `size`/`mtimeMs` once `lines` has been read to its end. */
  mark(): TranscriptMark
}

/**
 * What a store offers beyond the reads every store answers, declared so that a caller asks the store rather than
 * testing for a method or a class. Each flag names the method that answers from it; without the flag that method
 * answers undefined (the caller then reads the transcripts itself).
 */
export interface StoreCapabilities {
  /** `indexedLines`: the store keeps a full-text index of its transcripts (OpenClaw's FTS5 table, SQLite era). */
  readonly fullText: boolean
  /** `contentCandidates`: the store keeps a content index over every transcript of the agent (the fleet replica's). */
  readonly contentIndex: boolean
  /**
   * `listingToken`, `unchangedSince`, `grepSpans`: the store tells cheaply what changed since a reader last looked and
   * reads stretches of a transcript back, so that a reader's own index of it (clawkit's local catalog) stays fresh
   * without reading everything again. Without it those answer "changed" and read through readLines, and no such index
   * is kept (the commands scan).
   */
  readonly changeTracking: boolean
}

/**
 * The read side of one agent's session store, which every backend has: the index, a session's transcripts, a key's
 * history, the agent-wide walks and the incremental reader. The fleet replica (`PgSessionStore`) is a SessionReader
 * and nothing more, so a write to it is a type error; the reading cores (list, history, lineage, export, usage, search,
 * status) take a SessionReader. `SessionStore` adds the writes.
 *
 * The index is read three ways, each for a reader's memory: `read` (the whole index as a value: lookups, writers'
 * decisions), `readRows` (a projection of every entry: listings, which then need not hold 10 000 entries) and
 * `eachEntry` (one awaited entry at a time: a caller that ships entries elsewhere holds its own batch only).
 */
export interface SessionReader {
  readonly ref: StoreRef
  readonly capabilities: StoreCapabilities
  /** Read the index without taking a lock (atomic renames give a complete old or new file). */
  read(): Promise<SessionStoreData>
  /**
   * The entry for this key as OpenClaw resolves it (the lowercase key or a legacy mixed-case spelling, newest
   * updatedAt first), without a lock. May avoid reading the whole index when the key is stored as given.
   */
  findEntry(key: string): Promise<FoundEntry | undefined>
  /**
   * The entries whose current session is this id, newest updatedAt first (several keys can share one: a cron job's row
   * and its run's), without a lock. A backend with an index of current ids answers from it; the others read the index.
   */
  findBySessionId(sessionId: string): Promise<FoundEntry[]>
  /**
   * `project(key, entry)` for every object entry, without a lock, in the order and with the values read() would give,
   * keyed by the stored key. For callers that keep a little of each entry (list rows): a backend may then avoid
   * holding the whole index at once. A missing index is an empty map. `omit`: top-level fields the caller never reads,
   * which a backend may leave out of the entries it passes (the SQLite store does; the file store passes them all).
   */
  readRows<T>(project: (key: string, entry: SessionEntry) => T, opts?: {omit?: readonly string[]}): Promise<Map<string, T>>
  /**
   * `visit(key, entry)` for every object entry (readRows' values), awaiting each visit before reading on: a caller that
   * ships entries elsewhere (sync) then holds its own batch, not the index. A key may be visited more than once (a
   * backend may start over, or read in pages); its last visit holds the value read() would give.
   */
  eachEntry(visit: (key: string, entry: SessionEntry) => void | Promise<void>): Promise<void>
  /** How many sessions, the newest update, the newest rows and (where cheap) the events: status's per-agent figures. */
  stats(opts?: StatsOptions): Promise<StoreStats>

  /** The transcript an entry points at, by OpenClaw's rules (sessionFile, else sessionId and the key's topic). */
  transcriptOf(entry: Pick<SessionEntry, 'sessionId' | 'sessionFile'>, key?: string): TranscriptRef
  /**
   * The last `limit` entries that `count` accepts (and the others after the first of them), read from the end; with
   * `exactPartial`, `partial` says whether counted entries exist before the window. Undefined when it does not exist.
   */
  tail(t: TranscriptRef, opts: TailOptions): Promise<TranscriptReadResult | undefined>
  /** A message carrying this idempotency key, without a lock; undefined when none (or no transcript). */
  findIdempotencyKey(t: TranscriptRef, key: string): Promise<IdempotencyHit | undefined>
  /**
   * Every session this key has had, oldest first, the current one last: archives and earlier windows included, each
   * with a ref that tail() and readLines() read. Empty when the key has neither an entry nor anything archived.
   */
  sessionsOf(key: string): Promise<KeySession[]>
  /**
   * Every transcript the agent's store holds, each once: every key's sessions as sessionsOf gives them (keys in index
   * order), then archives and orphans no key claims (a deleted key's sessions). For agent-wide readers (usage, search,
   * sync), which would otherwise call sessionsOf per key and read every archive's header once per key.
   */
  allSessions(): Promise<AgentSession[]>
  /** A whole transcript line by line, the header included, streamed: never held in memory at once. */
  readLines(t: TranscriptRef): AsyncIterable<TranscriptLine>
  /**
   * The lines of readLines (same numbers, values and bad lines) whose stored text contains one of the filter's needles,
   * in order; the others are skipped before they are decoded or parsed. A backend may yield more lines (it must never
   * skip one that holds a needle), and it yields every line it finds unreadable without parsing it (a torn last line,
   * an archive that does not decode), so a reader counting unreadable lines misses none. For scans such as `sessions
   * search` and `sessions usage`, where most lines cannot match.
   */
  grepLines(t: TranscriptRef, filter: RawLineFilter): AsyncIterable<TranscriptLine>
  /**
   * The lines whose user or assistant text the store's own full-text index matches as a phrase of these tokens (ASCII
   * letters and digits; the index folds case and diacritics, so this is a superset of the exact matches), decoded as
   * readLines gives them. Undefined when the index does not cover every event of the transcript (stale, being rebuilt,
   * events off the active branch) or the store keeps none (`capabilities.fullText` false): only the SQLite store has
   * one (OpenClaw's FTS5 table).
   */
  indexedLines(t: TranscriptRef, tokens: readonly string[]): Promise<TranscriptLine[] | undefined>
  /**
   * The sessionIds of this agent whose searched content (message text, tool arguments and results, summaries, as
   * `sessions search` reads them) may hold one of the needles, from the store's own index; undefined when it has none
   * that answers this filter (always, where `capabilities.contentIndex` is false). A superset: the caller still checks
   * every candidate. With `lines`, the store also gave every line of those sessions whose searched content may hold a
   * needle (a line without searched content cannot hold a hit; unreadable lines are not among them), so the caller
   * need not read the transcripts. Only the fleet replica keeps such an index (a trigram index on
   * `clawkit_events.search_text`). `searchTextVersion`: the version of the text the caller matches
   * (SEARCH_TEXT_VERSION); only content indexed from that same text may rule anything out, so a session indexed by
   * another version is a candidate without `lines` (read in full).
   */
  contentCandidates(filter: RawLineFilter, searchTextVersion: number): Promise<ContentCandidates | undefined>
  /**
   * The lines after `mark` (from the start without one), and the mark to resume from: the incremental reader of a
   * replica (clawkit sync). A transcript that no longer starts with what the mark covers is read again whole and says
   * so (`rewritten`). A missing transcript is an error, as for readLines.
   */
  readSince(t: TranscriptRef, mark?: TranscriptMark, opts?: {verify?: MarkCheck}): Promise<TranscriptSince>
  /**
   * grepLines over some stretches of a transcript only (as readSince gave their lines: see LineSpan), in order, numbered
   * and parsed as readLines numbers and parses them; without a filter every line of them. For a reader that keeps its
   * own index of where text is (the local catalog): it reads those stretches, through the same line reader, instead of
   * the whole transcript. Spans must lie inside what readSince read (or run to the end); the reader vouches that the
   * transcript did not change there.
   */
  grepSpans(t: TranscriptRef, spans: readonly LineSpan[], filter?: RawLineFilter): AsyncIterable<TranscriptLine>
  /**
   * For each transcript and the mark a finished readSince left (`verify: 'ends'`), whether the store can tell without
   * reading it that nothing changed since (readSince would say `unchanged`): JSONL one stat each, SQLite one query for
   * all. False means "may have changed": read it with readSince (always false without `capabilities.changeTracking`).
   */
  unchangedSince(items: readonly {t: TranscriptRef; mark: TranscriptMark}[]): Promise<boolean[]>
  /**
   * A token of what allSessions() is made of, but the transcripts' own contents (JSON layout: the index's fields that
   * lineage reads, and the directories the transcripts are listed from; SQLite: the listing's own tables), and whether
   * that changed since `prev` (the token of an earlier call): `changed: false` means allSessions() gives the same answer
   * as when `prev` was taken, unless a transcript it listed was rewritten (which a reader of the transcripts sees itself,
   * and must then list again). The token also carries what makes the next call cheap (the index file's stat, the
   * database files' stats), so keep the newest one. A few stats when nothing changed. Without
   * `capabilities.changeTracking`: always changed.
   */
  listingToken(prev?: string): Promise<{token: string; changed: boolean}>
  /** How many bytes a transcript holds as stored (a JSONL file's size), for a reader's progress estimate; undefined where not known cheaply. */
  transcriptBytes(t: TranscriptRef): number | undefined
  /**
   * The JSONL file whose lines readSince gives, where readSince is readTranscriptSince of that file and nothing else (the
   * file layout), so that a reader in another thread can read it the same way (the catalog's build worker); absent
   * otherwise.
   */
  transcriptFile?(t: TranscriptRef): string | undefined
}

/**
 * The seam between the features and storage: everything the sessions, agent and channel code does with one agent's
 * sessions goes through it, so that a second backend (OpenClaw's SQLite era, a shared database) is a second
 * implementation, not an edit of every feature. It is a SessionReader plus the writes, each under the backend's own
 * locks: lock order (a transcript before the index) is encoded inside the implementations, never in a feature. What
 * every backend composes the same way is written once over this interface: an append under its own lock
 * (`appendTo`, append.ts), reset's order (reset.ts, for the stores whose reset moves a transcript), the lineage of a
 * key by archive contents (file/lineage.ts).
 *
 * `FileSessionStore` (file/store.ts) is OpenClaw's JSON-file layout (the embedded default) and `MemorySessionStore`
 * its in-memory twin; `SqliteSessionStore` (sqlite/store.ts) is OpenClaw's database (2026.8+). test/store/contract.test.ts
 * runs the same cases on all three (and the read cases on the fleet replica's `PgSessionStore`, pg/store.ts). What
 * doctor checks of each layout (orphans, modes, torn lines, lock leftovers; the database's integrity) is that
 * backend's diagnostics, beside it in src/store/diagnostics/.
 */
export interface SessionStore extends SessionReader {
  /**
   * Read-modify-write under the store lock. The mutator sees a fresh read taken inside the lock; its return value
   * is passed through. Nothing is written when the mutator leaves the data unchanged.
   */
  update<T>(mutator: (data: SessionStoreData) => T | Promise<T>, opts?: UpdateOptions): Promise<T>
  /** The sessionFile a new session id gets under this key. */
  newSessionFile(sessionId: string, key: string): string
  /** Run `fn` holding the transcript's write lock (OpenClaw's `<file>.lock` in the file layout). */
  withTranscript<T>(t: TranscriptRef, fn: (tx: LockedTranscript) => Promise<T>, opts?: TranscriptLockOptions): Promise<T>
  /** What reset(key) would do now. NotFoundError when there is no such session. */
  planReset(key: string, now: Date): Promise<ResetPlan>
  /**
   * OpenClaw's reset: a new sessionId and header-only transcript, counters cleared, the rest of the entry kept, the
   * old transcript archived as `<locator>.reset.<time>`. NotFoundError when there is no such session.
   */
  reset(key: string, opts: ResetOptions): Promise<ResetOutcome>
  /**
   * What a backend does for the journal (journal.ts) beyond writing it: replaying one of its steps toward either image.
   * The file and SQLite stores have it; the in-memory twin (tests of the cores) has none.
   */
  readonly maintenance?: StoreMaintenance
  /** Archive, delete and restore of a session as OpenClaw's own would leave the store (lifecycle.ts); file and SQLite stores. */
  readonly lifecycle?: SessionLifecycle
}

/**
 * A store's side of the journal and its undo (undo.ts composes it): each step kind is replayed by the backend that
 * wrote it (`files` by the shared journal-files.ts, `index` by the JSON layout, `rows` by the SQLite store).
 */
export interface StoreMaintenance {
  /** Why replaying `step` toward its `to` image would be refused now, one line each (empty: it would not). */
  conflicts(step: JournalStep, to: 'before' | 'after', source: JournalEntry): Promise<string[]>
  /**
   * Move the store's part of `step` to its `to` image, under the backend's locks: nothing when it is there already,
   * E_UNDO_CONFLICT (nothing changed) when it is in neither image. Bytes come from `source`'s blobs (or the entries it
   * undoes); bytes leaving the store go to `keep`'s (removed when there is no keep: `--no-journal`).
   */
  replay(step: JournalStep, to: 'before' | 'after', source: JournalEntry, keep: JournalEntry | undefined): Promise<void>
}
