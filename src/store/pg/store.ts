// The fleet replica's backend: one host's agent in the `clawkit_*` tables of a shared PostgreSQL (docs/fleet.md), behind
// the same read side as the JSON files and the SQLite database (SessionReader). `clawkit sync` writes the rows on each
// host; this store has no write at all, because the host's own store is the truth and a write to its copy would be
// lost on the next sync (or worse, believed): handing it to a writer is a type error.
import {ClawkitError} from '../../errors.js'
import {sha256} from '../../util/hash.js'
import {idempotencyHitOf, isEntry} from '../entries.js'
import {findEntryIn} from '../entry-lookup.js'
import {sqlNeedle} from '../grep.js'
import {emptyStoreData} from '../index-data.js'
import {isBlankLine, parseLine} from '../lines.js'
import {badEntrySessionId, isSafeSessionId} from '../session-id.js'
import {normalizeSessionKey} from '../session-key.js'
import type {BadLine, TranscriptEntry, TranscriptHeader} from '../transcript-types.js'
import type {AgentSession, ContentCandidates, FoundEntry, IdempotencyHit, KeySession, RawLineFilter, SessionEntry, SessionReader, SessionStoreData, StatsOptions, StoreCapabilities, StoreRef, StoreStats, TailOptions, TranscriptLine, TranscriptLocation, TranscriptMark, TranscriptReadResult, TranscriptRef, TranscriptSince} from '../types.js'

/** A query on the fleet database; errors come back as one line without the password (FleetState.query). */
export type PgQuery = <R extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: readonly unknown[]) => Promise<R[]>

/** `pg:<host>/<agent>#<sessionId>`: a replica transcript's name, printed where a local read prints a path. */
export function pgLocator(host: string, agentId: string, sessionId: string): string {
  return `pg:${host}/${agentId}#${sessionId}`
}

interface TranscriptRow {
  session_id: string
  session_key: string | null
  locator: string
  where: KeySession['where']
  ended: KeySession['ended']
  ended_at: Date | null
  found_by: AgentSession['foundBy']
  /** The entry's sessionFile of the key this transcript is current for (null otherwise). */
  session_file?: string | null
  claimed?: boolean
}

const TRANSCRIPT_COLUMNS = 't.session_id, t.session_key, t.locator, t."where", t.ended, t.ended_at, t.found_by'

/**
 * Order of a key's sessions, as the host's sessionsOf gives them: the current one last, the others by when they started
 * (the header event's time), else when they ended (the archive's time). docs/fleet.md "Reading order".
 */
const SORT_AT = `coalesce((SELECT h.at FROM clawkit_events h WHERE h.host = t.host AND h.agent_id = t.agent_id AND h.session_id = t.session_id AND h.entry_type = 'session' ORDER BY h.seq LIMIT 1), t.ended_at)`

const PAGE = 500

/** The most candidate lines contentCandidates hands over at once (a common word: the transcripts are read instead). */
const CONTENT_LINES_CAP = 20_000

/** `%needle%` for LIKE/ILIKE, the needle's own `%`, `_` and `\` taken literally (backslash is LIKE's escape). */
const containsPattern = (n: string) => `%${n.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export interface PgStoreOptions {
  host: string
  agentId: string
  /** The host's own store path (clawkit_agents.store_path): what `sessions list --json` prints as `path`. */
  storePath: string
  era: 'json' | 'sqlite'
  /** The index on clawkit_events.search_text (fleet/schema.ts searchIndexKind); only pg_trgm answers substrings. */
  searchIndex?: 'pg_trgm' | 'fts' | 'none'
  /** The most candidate lines contentCandidates hands over at once (default CONTENT_LINES_CAP). */
  contentLinesCap?: number
  /** Whether transcripts record their search-text version (schema v5 and later; the default); without, nothing is narrowed. */
  searchTextVersions?: boolean
}

export class PgSessionStore implements SessionReader {
  readonly ref: StoreRef
  /** The trigram index on clawkit_events.search_text answers contentCandidates (where pg_trgm is there: searchIndex). */
  readonly capabilities: StoreCapabilities
  readonly host: string
  readonly era: 'json' | 'sqlite'
  /** Transcript rows by session id, as far as loaded; null: looked up and not there. */
  private readonly transcripts = new Map<string, TranscriptRow | null>()
  private loadedAll = false

  constructor(
    private readonly q: PgQuery,
    opts: PgStoreOptions,
  ) {
    this.ref = {agentId: opts.agentId, path: opts.storePath}
    this.host = opts.host
    this.era = opts.era
    this.searchIndex = opts.searchIndex ?? 'none'
    this.capabilities = {fullText: false, contentIndex: this.searchIndex === 'pg_trgm', changeTracking: false}
    this.contentLinesCap = opts.contentLinesCap ?? CONTENT_LINES_CAP
    this.searchTextVersions = opts.searchTextVersions ?? true
  }

  private readonly contentLinesCap: number
  private readonly searchTextVersions: boolean
  private asciiFolding: Promise<boolean> | undefined

  /** Whether the database's lower() folds the ASCII letters as the search matcher does, and nothing more of them. */
  private foldsAscii(): Promise<boolean> {
    this.asciiFolding ??= this.q<{ok: boolean}>("SELECT lower('ABCDEFGHIJKLMNOPQRSTUVWXYZ') = 'abcdefghijklmnopqrstuvwxyz' AND upper('abcdefghijklmnopqrstuvwxyz') = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' AS ok").then((r) => r[0]?.ok === true)
    return this.asciiFolding
  }

  private readonly searchIndex: 'pg_trgm' | 'fts' | 'none'

  /**
   * The lines whose searched text may hold a needle, by the trigram index (`search_text ILIKE '%needle%'`, which pg_trgm
   * serves for needles of three characters or more), in one query for the agent rather than one per transcript. A
   * literal on more lines than CONTENT_LINES_CAP gives only the sessions (the caller then reads each of them). A word
   * index cannot answer a substring, so without pg_trgm there is no answer and every transcript is read.
   */
  async contentCandidates(filter: RawLineFilter, searchTextVersion: number): Promise<ContentCandidates | undefined> {
    if (this.searchIndex !== 'pg_trgm' || filter.needles.length === 0 || filter.needles.some((n) => n.length < 3)) return undefined
    // Before migration v5 no row says which searchTextOf wrote its search_text: nothing may be ruled out by it.
    if (!this.searchTextVersions) return undefined
    // The index folds case by the database's locale: where that is not ASCII's (a Turkish locale lowers I to a dotless
    // i), a line the matcher would find could be missing from the candidates, so no narrowing there.
    if (filter.ignoreCase && !(await this.foldsAscii())) return undefined
    // Transcripts whose search_text another version wrote (an older clawkit's, not yet synced again) may hold a hit
    // their text lacks: candidates without lines, read in full.
    const stale = (
      await this.q<{session_id: string}>('SELECT session_id FROM clawkit_transcripts WHERE host = $1 AND agent_id = $2 AND search_text_version IS DISTINCT FROM $3', [...this.keyArgs, searchTextVersion])
    ).map((r) => r.session_id)
    const like = filter.needles.map((n) => containsPattern(sqlNeedle(n)))
    const current = 'host = $1 AND agent_id = $2 AND search_text ILIKE ANY($3::text[]) AND session_id <> ALL($4::text[])'
    const rows = await this.q<{session_id: string; seq: number; raw: string}>(`SELECT session_id, seq, raw FROM clawkit_events WHERE ${current} ORDER BY session_id, seq LIMIT $5`, [
      ...this.keyArgs,
      like,
      stale,
      this.contentLinesCap + 1,
    ])
    if (rows.length > this.contentLinesCap) {
      const ids = await this.q<{session_id: string}>(`SELECT DISTINCT session_id FROM clawkit_events WHERE ${current}`, [...this.keyArgs, like, stale])
      return {sessions: new Set([...ids.map((r) => r.session_id), ...stale])}
    }
    const lines = new Map<string, TranscriptLine[]>()
    for (const r of rows) {
      let list = lines.get(r.session_id)
      if (!list) lines.set(r.session_id, (list = []))
      list.push(PgSessionStore.lineOf(r.seq, r.raw))
    }
    return {sessions: new Set([...lines.keys(), ...stale]), lines}
  }

  private get keyArgs(): [string, string] {
    return [this.host, this.ref.agentId]
  }

  /** Every transcript row of the agent, once: transcriptOf() is synchronous and answers from here. */
  private async loadTranscripts(): Promise<void> {
    if (this.loadedAll) return
    const rows = await this.q<TranscriptRow & Record<string, unknown>>(`SELECT ${TRANSCRIPT_COLUMNS} FROM clawkit_transcripts t WHERE t.host = $1 AND t.agent_id = $2`, this.keyArgs)
    for (const r of rows) this.transcripts.set(r.session_id, r)
    this.loadedAll = true
  }

  /** The transcript rows of these session ids (a lookup's hits), so that transcriptOf() can answer for them. */
  private async prefetch(sessionIds: readonly unknown[]): Promise<void> {
    const want = [...new Set(sessionIds.filter((s): s is string => typeof s === 'string' && !this.transcripts.has(s)))]
    if (want.length === 0 || this.loadedAll) return
    const rows = await this.q<TranscriptRow & Record<string, unknown>>(`SELECT ${TRANSCRIPT_COLUMNS} FROM clawkit_transcripts t WHERE t.host = $1 AND t.agent_id = $2 AND t.session_id = ANY($3::text[])`, [...this.keyArgs, want])
    for (const id of want) this.transcripts.set(id, null)
    for (const r of rows) this.transcripts.set(r.session_id, r)
  }

  async read(): Promise<SessionStoreData> {
    const rows = await this.q<{session_key: string; entry: SessionEntry}>(`SELECT session_key, entry FROM clawkit_entries WHERE host = $1 AND agent_id = $2 ORDER BY session_key COLLATE "C"`, this.keyArgs)
    await this.loadTranscripts()
    const out = emptyStoreData()
    for (const r of rows) out[r.session_key] = r.entry
    return out
  }

  /**
   * The host's figures by SQL, never the whole index: the host's counting rules (statsOfIndex) on the rows the database
   * picks. Sessions exclude `global` and `unknown`, as on the host; events are the replica's rows for the agent.
   */
  async stats(opts: StatsOptions = {}): Promise<StoreStats> {
    const [head] = await this.q<{n: number; last: number | null; events: number}>(
      `SELECT count(*)::int AS n, max(updated_at) AS last,
        (SELECT count(*) FROM clawkit_events e WHERE e.host = $1 AND e.agent_id = $2)::bigint AS events
       FROM clawkit_entries WHERE host = $1 AND agent_id = $2 AND session_key NOT IN ('global', 'unknown') AND jsonb_typeof(entry) = 'object'`,
      this.keyArgs,
    )
    const n = opts.newest ?? 0
    const newest =
      n > 0
        ? (
            await this.q<{session_key: string; entry: SessionEntry}>(
              `SELECT session_key, entry FROM clawkit_entries WHERE host = $1 AND agent_id = $2 AND session_key NOT IN ('global', 'unknown') AND jsonb_typeof(entry) = 'object'
               ORDER BY updated_at DESC NULLS LAST, session_key COLLATE "C" LIMIT $3`,
              [...this.keyArgs, n],
            )
          ).map((r) => ({storedKey: r.session_key, entry: r.entry}))
        : []
    const keys = opts.keys ? (await this.q<{session_key: string}>('SELECT session_key FROM clawkit_entries WHERE host = $1 AND agent_id = $2', this.keyArgs)).map((r) => r.session_key) : undefined
    return {sessions: head?.n ?? 0, lastUpdatedAt: head?.last ?? null, newest, events: Number(head?.events ?? 0), ...(keys ? {keys} : {})}
  }

  /** OpenClaw's lookup (the lowercase key, else a legacy mixed-case spelling, newest first) over the matching rows only. */
  async findEntry(key: string): Promise<FoundEntry | undefined> {
    const rows = await this.q<{session_key: string; entry: SessionEntry}>(
      `SELECT session_key, entry FROM clawkit_entries WHERE host = $1 AND agent_id = $2 AND (session_key = $3 OR lower(session_key) = $4) ORDER BY session_key COLLATE "C"`,
      [...this.keyArgs, key, normalizeSessionKey(key)],
    )
    const data = emptyStoreData()
    for (const r of rows) data[r.session_key] = r.entry
    const hit = findEntryIn(data, key)
    if (hit) await this.prefetch([hit.entry.sessionId])
    return hit
  }

  /** The sessions whose current id is this one, newest first (resolveSession by id), without reading the index. */
  async findBySessionId(sessionId: string): Promise<FoundEntry[]> {
    const rows = await this.q<{session_key: string; entry: SessionEntry}>(
      `SELECT session_key, entry FROM clawkit_entries WHERE host = $1 AND agent_id = $2 AND session_id = $3 ORDER BY updated_at DESC NULLS LAST, session_key COLLATE "C"`,
      [...this.keyArgs, sessionId],
    )
    await this.prefetch([sessionId])
    return rows.map((r) => ({storedKey: r.session_key, entry: r.entry}))
  }

  async readRows<T>(project: (key: string, entry: SessionEntry) => T, opts: {omit?: readonly string[]} = {}): Promise<Map<string, T>> {
    const rows = await this.q<{session_key: string; entry: SessionEntry}>(
      `SELECT session_key, entry - $3::text[] AS entry FROM clawkit_entries WHERE host = $1 AND agent_id = $2 ORDER BY session_key COLLATE "C"`,
      [...this.keyArgs, [...(opts.omit ?? [])]],
    )
    const out = new Map<string, T>()
    for (const r of rows) out.set(r.session_key, project(r.session_key, r.entry))
    return out
  }

  /** The replica's rows as readRows gives them (a reader of the replica, where the host's memory is not at stake). */
  async eachEntry(visit: (key: string, entry: SessionEntry) => void | Promise<void>): Promise<void> {
    for (const [k, e] of await this.readRows((_k, entry) => entry)) await visit(k, e)
  }

  /**
   * How the host resolved the entry's transcript, as far as the replica tells: its own database (SQLite era), the
   * entry's sessionFile as stored, the same file name elsewhere (relocated), or named after the session id.
   */
  private locationOf(sessionFile: unknown, row: TranscriptRow | null | undefined): TranscriptLocation {
    if (this.era === 'sqlite') return 'sqlite'
    const stored = typeof sessionFile === 'string' ? sessionFile.trim() : ''
    if (!stored) return 'derived'
    if (!row || row.locator === stored) return 'session-file'
    const base = (p: string) => p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1)
    return base(row.locator) === base(stored) ? 'relocated' : 'derived'
  }

  transcriptOf(entry: Pick<SessionEntry, 'sessionId' | 'sessionFile'>, key?: string): TranscriptRef {
    const sessionId = typeof entry.sessionId === 'string' ? entry.sessionId : ''
    if (!isSafeSessionId(sessionId)) throw badEntrySessionId(sessionId, key)
    const row = this.transcripts.get(sessionId)
    // Every read that hands out entries loads their transcript rows first; an id no read has seen is a caller's bug,
    // and answering "missing" for it would be a silent lie.
    if (row === undefined && !this.loadedAll) throw new ClawkitError(`transcriptOf(${sessionId}) before the replica store read its entry`, {code: 'E_INTERNAL'})
    return {locator: pgLocator(this.host, this.ref.agentId, sessionId), location: this.locationOf(entry.sessionFile, row), exists: Boolean(row)}
  }

  /** The session id a locator of this store names; anything else is a caller's bug. */
  private sessionIdOf(t: TranscriptRef): string {
    const prefix = pgLocator(this.host, this.ref.agentId, '')
    if (!t.locator.startsWith(prefix)) throw new ClawkitError(`Transcript ${t.locator} is not in ${prefix.slice(0, -1)}`, {code: 'E_INTERNAL'})
    return t.locator.slice(prefix.length)
  }

  private async hasTranscript(sessionId: string): Promise<boolean> {
    await this.prefetch([sessionId])
    return Boolean(this.transcripts.get(sessionId))
  }

  /** One stored event as a transcript line: the text as stored and its value, or why it cannot be read. */
  private static lineOf(seq: number, raw: string): TranscriptLine {
    const p = parseLine(raw, 0, seq, false)
    return p.bad ? {line: seq, raw, bad: p.bad} : {line: seq, raw, value: p.value as Record<string, unknown>}
  }

  /**
   * The last `limit` counted entries and the others after the first of them, read by `seq DESC` in pages with LIMIT
   * (never the whole transcript), as the SQLite backend does. Undefined when the replica has no such transcript.
   */
  async tail(t: TranscriptRef, opts: TailOptions): Promise<TranscriptReadResult | undefined> {
    const sessionId = this.sessionIdOf(t)
    if (!(await this.hasTranscript(sessionId))) return undefined
    const args = [...this.keyArgs, sessionId]
    const count = opts.count ?? (() => true)
    const firstRows = await this.q<{seq: number; raw: string}>('SELECT seq, raw FROM clawkit_events WHERE host = $1 AND agent_id = $2 AND session_id = $3 ORDER BY seq LIMIT 1', args)
    const empty: TranscriptReadResult = {file: t.locator, version: 1, entries: [], rawLines: [], badLines: [], duplicateHeaders: 0, badHeader: false, missingFinalNewline: false, size: 0, partial: false}
    if (firstRows.length === 0) return empty
    const first = PgSessionStore.lineOf(firstRows[0].seq, firstRows[0].raw)
    const header = first.value?.type === 'session' && typeof first.value.id === 'string' ? (first.value as unknown as TranscriptHeader) : undefined
    // Without a header (a damaged transcript) the first row is an entry like the others.
    const after = header ? first.line : first.line - 1
    const badLines: BadLine[] = []
    const kept: {entry: TranscriptEntry; raw: string}[] = []
    let counted = 0
    let partial = false
    let cursor = Number.MAX_SAFE_INTEGER
    let pageSize = Math.min(Math.max(opts.limit * 2, 32), 1000)
    for (let done = false; !done; ) {
      const rows = await this.q<{seq: number; raw: string}>(
        'SELECT seq, raw FROM clawkit_events WHERE host = $1 AND agent_id = $2 AND session_id = $3 AND seq < $4 AND seq > $5 ORDER BY seq DESC LIMIT $6',
        [...args, cursor, after, pageSize],
      )
      if (rows.length === 0) break
      for (const row of rows) {
        cursor = row.seq
        if (isBlankLine(row.raw)) continue
        const l = PgSessionStore.lineOf(row.seq, row.raw)
        if (counted >= opts.limit) {
          // Past the window: does a counted entry exist before it?
          if (!opts.exactPartial || (l.value && isEntry(l.value) && count(l.value as unknown as TranscriptEntry))) {
            partial = true
            done = true
            break
          }
          continue
        }
        if (l.bad) {
          badLines.push(l.bad)
          continue
        }
        if (l.value!.type === 'session') continue // a duplicate header, ignored as pi does
        if (!isEntry(l.value)) {
          badLines.push({line: l.line, offset: 0, reason: 'missing-id', preview: l.raw.slice(0, 80)})
          continue
        }
        const entry = l.value as unknown as TranscriptEntry
        kept.push({entry, raw: l.raw})
        if (count(entry)) counted++
      }
      pageSize = Math.min(pageSize * 2, 1000)
    }
    kept.reverse()
    badLines.sort((a, b) => a.line - b.line)
    return {
      ...empty,
      header,
      version: typeof header?.version === 'number' ? header.version : 1,
      entries: kept.map((k) => k.entry),
      rawLines: kept.map((k) => k.raw),
      badLines,
      badHeader: !header,
      partial,
    }
  }

  /** Events in seq order, a page per query: never the whole transcript in memory. */
  async *readLines(t: TranscriptRef): AsyncIterable<TranscriptLine> {
    const sessionId = this.sessionIdOf(t)
    if (!(await this.hasTranscript(sessionId))) throw new ClawkitError(`Transcript ${t.locator} is not in the fleet replica (not synced, or removed on its host).`, {code: 'E_ENOENT'})
    let after = Number.MIN_SAFE_INTEGER
    for (;;) {
      const rows = await this.q<{seq: number; raw: string}>('SELECT seq, raw FROM clawkit_events WHERE host = $1 AND agent_id = $2 AND session_id = $3 AND seq > $4 ORDER BY seq LIMIT $5', [
        ...this.keyArgs,
        sessionId,
        after,
        PAGE,
      ])
      for (const r of rows) if (!isBlankLine(r.raw)) yield PgSessionStore.lineOf(r.seq, r.raw)
      if (rows.length < PAGE) return
      after = rows.at(-1)!.seq
    }
  }

  /**
   * readLines with the filter applied by the server to each event's raw JSON (strpos, or ILIKE with ignoreCase: a
   * superset of the ASCII-only folding the filter asks for), plus every event sync stored as unreadable
   * (entry_type null), as the interface asks. A page per query.
   */
  async *grepLines(t: TranscriptRef, filter: RawLineFilter): AsyncIterable<TranscriptLine> {
    const sessionId = this.sessionIdOf(t)
    if (!(await this.hasTranscript(sessionId))) throw new ClawkitError(`Transcript ${t.locator} is not in the fleet replica (not synced, or removed on its host).`, {code: 'E_ENOENT'})
    const needles = filter.needles.filter((n) => n.length > 0)
    if (needles.length < filter.needles.length) {
      yield* this.readLines(t)
      return
    }
    const match = filter.ignoreCase ? 'raw COLLATE "C" ILIKE ANY($5::text[])' : 'EXISTS (SELECT 1 FROM unnest($5::text[]) AS n(x) WHERE strpos(raw, n.x) > 0)'
    const args = filter.ignoreCase ? needles.map((n) => containsPattern(sqlNeedle(n))) : needles.map(sqlNeedle)
    let after = Number.MIN_SAFE_INTEGER
    for (;;) {
      const rows = await this.q<{seq: number; raw: string}>(
        `SELECT seq, raw FROM clawkit_events WHERE host = $1 AND agent_id = $2 AND session_id = $3 AND seq > $4 AND (entry_type IS NULL OR ${match}) ORDER BY seq LIMIT $6`,
        [...this.keyArgs, sessionId, after, args, PAGE],
      )
      // Blank lines are stored (seq stays the line number) but read past, as the host's readers do.
      for (const r of rows) if (!isBlankLine(r.raw)) yield PgSessionStore.lineOf(r.seq, r.raw)
      if (rows.length < PAGE) return
      after = rows.at(-1)!.seq
    }
  }

  /**
   * Events from `mark.seq` on, by seq, the mark's hash being the first event's (as the SQLite store marks). Nothing reads
   * a replica incrementally today; it is here so the replica is a whole SessionStore.
   */
  async readSince(t: TranscriptRef, mark?: TranscriptMark): Promise<TranscriptSince> {
    const sessionId = this.sessionIdOf(t)
    if (!(await this.hasTranscript(sessionId))) throw new ClawkitError(`Transcript ${t.locator} is not in the fleet replica (not synced, or removed on its host).`, {code: 'E_ENOENT'})
    const first = await this.q<{raw: string; seq: number}>('SELECT raw, seq FROM clawkit_events WHERE host = $1 AND agent_id = $2 AND session_id = $3 ORDER BY seq LIMIT 1', [...this.keyArgs, sessionId])
    const hash = sha256().update(first[0]?.raw ?? '').digest('hex')
    const rewritten = Boolean(mark && mark.seq > 0 && mark.sha256 !== hash)
    let next = mark && !rewritten ? mark.seq : Number.MIN_SAFE_INTEGER
    const self = this
    return {
      rewritten,
      unchanged: false,
      lines: (async function* () {
        for await (const l of self.readLines(t)) {
          if (l.line < next) continue
          next = l.line + 1
          yield l
        }
      })(),
      mark: () => ({seq: Math.max(next, 0), sha256: hash}),
    }
  }

  /** The first message carrying the key, as the host's lookup finds it; only rows whose text holds the key are parsed. */
  async findIdempotencyKey(t: TranscriptRef, key: string): Promise<IdempotencyHit | undefined> {
    const sessionId = this.sessionIdOf(t)
    let after = Number.MIN_SAFE_INTEGER
    for (;;) {
      const rows = await this.q<{seq: number; raw: string}>(
        'SELECT seq, raw FROM clawkit_events WHERE host = $1 AND agent_id = $2 AND session_id = $3 AND seq > $4 AND strpos(raw, $5) > 0 ORDER BY seq LIMIT $6',
        [...this.keyArgs, sessionId, after, key, PAGE],
      )
      for (const r of rows) {
        const l = PgSessionStore.lineOf(r.seq, r.raw)
        const hit = l.value ? idempotencyHitOf(l.value, key) : undefined
        if (hit) return hit
      }
      if (rows.length < PAGE) return undefined
      after = rows.at(-1)!.seq
    }
  }

  private refOf(r: TranscriptRow): TranscriptRef {
    return {locator: pgLocator(this.host, this.ref.agentId, r.session_id), location: r.ended === 'current' ? this.locationOf(r.session_file, r) : this.era === 'sqlite' ? 'sqlite' : 'derived', exists: true}
  }

  private sessionOf(r: TranscriptRow): KeySession {
    return {
      sessionId: r.session_id,
      where: r.where,
      transcript: this.refOf(r),
      ended: r.ended,
      ...(r.ended_at ? {endedAt: new Date(r.ended_at).toISOString()} : {}),
      foundBy: r.found_by === 'none' ? 'index' : r.found_by,
    }
  }

  /** The key's sessions oldest first, the current one last (docs/fleet.md "Reading order"). */
  async sessionsOf(key: string): Promise<KeySession[]> {
    const rows = await this.q<TranscriptRow & Record<string, unknown>>(
      `SELECT ${TRANSCRIPT_COLUMNS}, e.entry ->> 'sessionFile' AS session_file FROM clawkit_transcripts t
         LEFT JOIN clawkit_entries e ON e.host = t.host AND e.agent_id = t.agent_id AND e.session_key = t.session_key AND t.ended = 'current'
        WHERE t.host = $1 AND t.agent_id = $2 AND lower(t.session_key) = $3
        ORDER BY (t.ended = 'current'), ${SORT_AT} NULLS FIRST, t.session_id COLLATE "C"`,
      [...this.keyArgs, normalizeSessionKey(key)],
    )
    for (const r of rows) if (!this.transcripts.has(r.session_id)) this.transcripts.set(r.session_id, r)
    return rows.map((r) => this.sessionOf(r))
  }

  /**
   * Every transcript once: the keys that have an entry (index order), each key's sessions in lineage order, then the
   * transcripts no entry claims (a deleted key's), by when they started (SQLite: by key, then start).
   */
  async allSessions(): Promise<AgentSession[]> {
    const rows = await this.q<TranscriptRow & Record<string, unknown>>(
      `SELECT ${TRANSCRIPT_COLUMNS}, e.entry ->> 'sessionFile' AS session_file, (e.session_key IS NOT NULL) AS claimed FROM clawkit_transcripts t
         LEFT JOIN clawkit_entries e ON e.host = t.host AND e.agent_id = t.agent_id AND e.session_key = t.session_key
        WHERE t.host = $1 AND t.agent_id = $2
        ORDER BY (e.session_key IS NULL), CASE WHEN e.session_key IS NOT NULL OR $3 THEN t.session_key END COLLATE "C", (t.ended = 'current'), ${SORT_AT} NULLS FIRST, t.session_id COLLATE "C"`,
      [...this.keyArgs, this.era === 'sqlite'],
    )
    for (const r of rows) if (!this.transcripts.has(r.session_id)) this.transcripts.set(r.session_id, r)
    return rows.map((r) => ({...this.sessionOf(r), key: r.session_key, foundBy: r.found_by}))
  }

  async indexedLines(): Promise<undefined> {
    return undefined
  }

  // No change tracking (capabilities): a replica is read through its own queries, never kept in a local catalog.
  async listingToken(): Promise<{token: string; changed: boolean}> {
    return {token: '', changed: true}
  }

  async unchangedSince(items: readonly unknown[]): Promise<boolean[]> {
    return items.map(() => false)
  }

  // eslint-disable-next-line require-yield
  async *grepSpans(): AsyncIterable<TranscriptLine> {
    throw new Error('grepSpans needs a store with capabilities.changeTracking')
  }

  transcriptBytes(): number | undefined {
    return undefined
  }
}
