// `sessions search`: finds a literal or a regular expression (RE2 syntax, matched in linear time by re2js) in what was
// said (message text, tool-call arguments, tool results, compaction and branch summaries), never in the JSON around it,
// across agents, keys and archives.
// Transcripts are read only through the store: grepLines skips, before parsing, every line whose stored bytes cannot
// hold a hit (the matcher's needle, search-matcher.ts), and several transcripts are searched at once. What of an entry
// is searched is search-text.ts.

import {normalizeAgentId} from '../config/agent-id.js'
import {UsageError} from '../errors.js'
import {normalizeSessionKey} from '../store/session-key.js'
import type {ReadableState} from '../store/state.js'
import type {AgentSession, LineSpan, SessionReader, SessionWhere, TranscriptLine} from '../store/types.js'
import {type SearchMatch, WORD_CHAR, compileMatcher, indexTokens, isLowSurrogate, loadRegexEngine} from './search-matcher.js'
import {MAX_ISO_MS, SEARCH_ROLES, SEARCH_TEXT_VERSION, type SearchKind, type SearchRole, partsOf, timeOf, timeRank} from './search-text.js'
import {parseWhen} from './usage.js'

export interface SearchHit {
  /** With --store-url: the host of the fleet replica the transcript came from. */
  host?: string
  agentId: string
  /** The key the transcript served; null for one no key claims any more (a deleted key's archive). */
  key: string | null
  sessionId: string
  where: SessionWhere
  /** The transcript entry's id (null when it has none). */
  entryId: string | null
  /** The entry's time (ISO), or null when it records none. */
  time: string | null
  role: SearchRole
  kind: SearchKind
  /** The tool of a toolCall or toolResult hit. */
  toolName?: string
  /** Up to ~160 characters of the searched text around the first match, line breaks and tabs shown as spaces. */
  snippet: string
  /** The matches inside `snippet`. */
  matches: SearchMatch[]
  /** All matches in the searched text (the snippet may show fewer). */
  matchCount: number
  /** The transcript as the store names it (a JSONL path, or `<database>#<sessionId>`) and the hit's line there (SQLite: the event's seq). */
  transcript: string
  line: number
}

/**
 * How a transcript was searched: `catalog` (clawkit's local catalog named the stretches that may hold a hit, which were
 * read and checked), `fts` (OpenClaw's own index, SQLite era), `scan` (every line read).
 */
export type SearchEngine = 'catalog' | 'fts' | 'scan'

/** The `sessions search --json` document. */
export interface SessionsSearchResult {
  pattern: string
  regex: boolean
  /** Smart case: true unless the pattern has an upper-case letter. */
  ignoreCase: boolean
  word: boolean
  role: SearchRole | null
  key: string | null
  since: string | null
  until: string | null
  agents: string[]
  includeArchived: boolean
  /** How the hits were found: the local catalog, OpenClaw's full-text index (SQLite era, where it covers the query), a scan, or several. */
  engine: SearchEngine | 'mixed'
  /** Per agent: the engine and how many transcripts each searched. */
  stores: {agentId: string; engine: SearchEngine | 'mixed'; catalog: number; fts: number; scan: number}[]
  /** Transcripts searched. */
  transcripts: number
  /** Hits found; `hits` holds the newest `limit` of them. */
  count: number
  limit: number | null
  hits: SearchHit[]
  /** Lines that could not be read (torn, invalid JSON) although their raw text matches: a hit may hide there. */
  badLines: number
  /** With --store-url: the hosts of the fleet replica searched. */
  hosts?: string[]
  /**
   * With --store-url: how the replica narrowed the transcripts to read: `pg_trgm` (its trigram index on the searched
   * text named the transcripts that may hold the literal; only they were read), or `none` (every transcript read: a
   * --regex with no literal run of three characters every match holds, a literal shorter than three characters, --scan,
   * or a replica whose role could not create pg_trgm).
   */
  replicaIndex?: 'pg_trgm' | 'none'
}

export interface SearchOptions {
  regex?: boolean
  word?: boolean
  agent?: string
  allAgents?: boolean
  key?: string
  role?: string
  since?: string
  until?: string
  includeArchived?: boolean
  limit?: string
  now?: Date
  /** Never use a full-text index (the local catalog's, OpenClaw's, the replica's): read every line. */
  scan?: boolean
  /** Transcripts searched at once. */
  concurrency?: number
  /** The local catalog, when the command has one: it narrows what is read (never the fleet replica's hosts). */
  index?: SearchIndex
}

/**
 * A local index that answers or narrows a search without changing its answer (clawkit's catalog, src/catalog/): an
 * agent's listing as allSessions() gives it now, and for a query built from the pattern either
 * - a superset: the stretches of each transcript that may hold a hit (LineSpan), read back through the store and judged
 *   here like any other line (a transcript it has no entry for is read whole; one with an entry but no spans has no hit);
 * - or an exact answer: per transcript the number of hits in the lines it describes, the lines it does not describe
 *   (read and judged here), and the spans holding its hits, newest first, of which only as many are read back as the
 *   newest `limit` hits need.
 */
export interface SearchIndex<Q = unknown> {
  query(pattern: string, opts: {regex?: boolean; ignoreCase: boolean; word?: boolean; role?: string; timed?: boolean; limited?: boolean}): Q | undefined
  view(agentId: string, store: SessionReader): Promise<{sessions: AgentSession[]; ids: ReadonlyMap<string, number>} | undefined>
  answer(view: {sessions: AgentSession[]; ids: ReadonlyMap<string, number>}, query: Q): IndexAnswer | undefined
  /**
   * Whether the index is still what its views were made from (nothing written to it since by another process): its
   * views' lines read at query time and its rows must describe one moment, or a line is counted twice. False: the
   * search is done again by a scan.
   */
  unchanged(): boolean
}

/** Thrown by an exact answer's count or newest when the index failed while answering: the search is done again by a scan. */
export class IndexFailed extends Error {}

/** A span an exact index answer names, with the rank of its newest time (ms within years 0-9999; lower for others; null: none). */
export interface RankedSpan {
  locator: string
  span: LineSpan
  rank: number | null
}

export type IndexAnswer =
  | {exact: false; spans: ReadonlyMap<string, LineSpan[]>}
  | {
      exact: true
      /** Its hits in the lines it describes, in the transcripts `include` takes (called once, before newest). */
      count(include: (locator: string) => boolean): number
      always: ReadonlyMap<string, {spans: LineSpan[]; has(line: number): boolean}>
      newest(include: (locator: string) => boolean): Iterator<RankedSpan>
    }

const SNIPPET_BEFORE = 50
const SNIPPET_AFTER = 110
/** How far a cut edge moves to the nearest word boundary; a longer word is cut where it is (and marked as cut). */
const WORD_SLACK = 16

/**
 * How the human output shows a hit's snippet: `snippet.slice(start, end)`, moved to word boundaries where the window
 * cut a word, and whether text was left out before and after it (each marked `…`). Not part of `--json`, whose
 * snippet stays the window of the searched text it always was; kept beside the hit (snippetView) for the renderer.
 */
export interface SnippetView {
  start: number
  end: number
  cutBefore: boolean
  cutAfter: boolean
}

const snippetViews = new WeakMap<SearchHit, SnippetView>()

/** The view of a hit this process found (undefined for a hit read back from elsewhere: show the snippet as it is). */
export function snippetView(hit: SearchHit): SnippetView | undefined {
  return snippetViews.get(hit)
}

const isWordAt = (s: string, i: number) => i >= 0 && i < s.length && WORD_CHAR.test(String.fromCodePoint(s.codePointAt(i)!))

/** The text around the first match, whitespace runs kept at their length (so offsets stay), cut on code point boundaries. */
function snippetOf(text: string, all: SearchMatch[]): {snippet: string; matches: SearchMatch[]; view: SnippetView} {
  let from = Math.max(0, all[0].start - SNIPPET_BEFORE)
  let to = Math.min(text.length, Math.max(all[0].end, all[0].start + SNIPPET_AFTER))
  if (from > 0 && isLowSurrogate(text, from)) from--
  if (to < text.length && isLowSurrogate(text, to)) to++
  const snippet = text.slice(from, to).replace(/[\r\n\t\v\f]/g, ' ')
  const matches = all.filter((m) => m.start >= from && m.end <= to).map((m) => ({start: m.start - from, end: m.end - from}))
  // Where the window cut a word in two, the view starts after that word's end (and ends before its start), unless the
  // word is long or a match is in it; then spaces at the edges go.
  let start = 0
  let end = snippet.length
  if (from > 0 && isWordAt(text, from - 1) && isWordAt(text, from)) {
    let i = 0
    while (i < snippet.length && i <= WORD_SLACK && isWordAt(snippet, i)) i++
    if (i <= WORD_SLACK && i <= (matches[0]?.start ?? 0)) start = i
  }
  if (to < text.length && isWordAt(text, to - 1) && isWordAt(text, to)) {
    let i = snippet.length
    while (i > 0 && snippet.length - i <= WORD_SLACK && isWordAt(snippet, i - 1)) i--
    if (snippet.length - i <= WORD_SLACK && i >= (matches.at(-1)?.end ?? snippet.length)) end = i
  }
  while (start < end && snippet[start] === ' ' && start < (matches[0]?.start ?? end)) start++
  while (end > start && snippet[end - 1] === ' ' && end > (matches.at(-1)?.end ?? start)) end--
  return {snippet, matches, view: {start, end, cutBefore: from > 0, cutAfter: to < text.length}}
}

interface Target {
  host?: string
  agentId: string
  store: SessionReader
  session: AgentSession
  /** Its candidate lines, when the store's content index handed them over (contentCandidates). */
  lines?: TranscriptLine[]
  /** The stretches the local catalog says may hold a hit (none: nothing to read). */
  spans?: LineSpan[]
  /** The catalog's exact answer (its count is taken for all of an agent's such targets at once): the lines it does not describe (read here). */
  exact?: {always?: {spans: LineSpan[]; has(line: number): boolean}}
}

/** The newest hits first; ties by host, agent, session and position, so a run's order never depends on read timing. */
type Ordered = Pick<SearchHit, 'time' | 'host' | 'agentId' | 'sessionId' | 'line'> & {order: number}



function newestFirst(a: Ordered, b: Ordered): number {
  const ta = a.time ?? ''
  const tb = b.time ?? ''
  if (ta !== tb) return ta < tb ? 1 : -1
  return (a.host ?? '').localeCompare(b.host ?? '') || a.agentId.localeCompare(b.agentId) || a.sessionId.localeCompare(b.sessionId) || b.line - a.line || a.order - b.order
}

export async function sessionsSearch(state: ReadableState, pattern: string, opts: SearchOptions = {}): Promise<SessionsSearchResult> {
  if (opts.agent && opts.allAgents) throw new UsageError('--agent and --all-agents cannot be used together', 'E_FLAG_CONFLICT')
  // A named state dir that does not exist is an error, not zero hits or a $0 total (as for list and history).
  state.requireStateDir()
  const agents = opts.allAgents ? state.allAgentIds() : [opts.agent ? state.requireAgent(opts.agent) : state.activeAgentId]
  const {narrowed: _n, ...result} = await searchOver([{state, agents}], pattern, opts)
  return result
}

/**
 * `sessions search --store-url`: the same search over hosts of the fleet replica (every agent of each unless --agent),
 * hits tagged with their host. The replica's own index on the searched text may narrow which transcripts are read
 * (`SessionReader.contentCandidates`); every candidate is still checked by the same matcher, so hits are a scan's.
 */
export async function fleetSearch(hosts: readonly {host: string; state: ReadableState}[], pattern: string, opts: SearchOptions): Promise<SessionsSearchResult> {
  if (opts.agent && opts.allAgents) throw new UsageError('--agent and --all-agents cannot be used together', 'E_FLAG_CONFLICT')
  const sources = hosts.map(({host, state}) => ({host, state, agents: opts.agent ? state.allAgentIds().filter((id) => id === normalizeAgentId(opts.agent!)) : state.allAgentIds()}))
  if (opts.agent && sources.every((s) => s.agents.length === 0)) throw new UsageError(`Unknown agent id "${opts.agent}": no host read in the fleet replica has it.`, 'E_UNKNOWN_AGENT')
  const {narrowed, ...result} = await searchOver(sources, pattern, opts)
  return {...result, hosts: hosts.map((h) => h.host), replicaIndex: narrowed ? 'pg_trgm' : 'none'}
}

async function searchOver(sources: readonly {state: ReadableState; agents: string[]; host?: string}[], pattern: string, opts: SearchOptions): Promise<SessionsSearchResult & {narrowed: boolean}> {
  if (opts.scan || !opts.index) return searchOnce(sources, pattern, opts)
  let out: SessionsSearchResult & {narrowed: boolean}
  try {
    out = await searchOnce(sources, pattern, opts)
  } catch (error) {
    if (error instanceof IndexFailed) return searchOnce(sources, pattern, {...opts, scan: true})
    throw error
  }
  return opts.index.unchanged() ? out : searchOnce(sources, pattern, {...opts, scan: true})
}

async function searchOnce(sources: readonly {state: ReadableState; agents: string[]; host?: string}[], pattern: string, opts: SearchOptions): Promise<SessionsSearchResult & {narrowed: boolean}> {
  const now = opts.now ?? new Date()
  const role = opts.role as SearchRole | undefined
  if (role !== undefined && !SEARCH_ROLES.includes(role)) throw new UsageError(`--role "${opts.role}" is not one of ${SEARCH_ROLES.join(', ')}`, 'E_BAD_FLAG')
  const since = opts.since ? parseWhen('since', opts.since, now) : undefined
  // A bare date as --until means the whole of that day (UTC), as in `sessions usage`.
  const until = opts.until ? parseWhen('until', opts.until, now) + (/^\d{4}-\d{2}-\d{2}$/.test(opts.until.trim()) ? 86_400_000 - 1 : 0) : undefined
  let limit: number | undefined = 50
  if (opts.limit !== undefined) {
    if (opts.limit === 'all') limit = undefined
    else {
      limit = Number(opts.limit)
      if (!/^\d+$/.test(opts.limit.trim()) || !Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit "${opts.limit}" must be a positive whole number or "all"`, 'E_BAD_FLAG')
    }
  }
  if (opts.regex) await loadRegexEngine()
  const matcher = compileMatcher(pattern, {regex: opts.regex, word: opts.word})
  const includeArchived = opts.includeArchived ?? false
  const agents = [...new Set(sources.flatMap((s) => s.agents))]
  const wantKey = opts.key === undefined ? undefined : normalizeSessionKey(opts.key)

  const targets: Target[] = []
  let narrowed = false
  // The local catalog (a local state dir only): its query, when the pattern gives one (a word unit to look up).
  const indexQuery = !opts.scan && opts.index ? opts.index.query(pattern, {regex: opts.regex, ignoreCase: matcher.ignoreCase, word: opts.word, role, timed: since !== undefined || until !== undefined, limited: limit !== undefined}) : undefined
  /** Per agent, the spans of an exact answer newest first, and its targets by locator; and the hits those answers counted. */
  const newestOf: {iter: Iterator<RankedSpan>; targets: Map<string, Target>}[] = []
  let indexCount = 0
  for (const {state, host, agentId} of sources.flatMap((src) => src.agents.map((agentId) => ({...src, agentId})))) {
    const store = state.store(agentId)
    // The store's own index of the searched text (the fleet replica's) may rule transcripts out before any is read.
    const candidates = !opts.scan && matcher.filter && store.capabilities.contentIndex ? await store.contentCandidates(matcher.filter, SEARCH_TEXT_VERSION) : undefined
    if (candidates) narrowed = true
    const view = indexQuery !== undefined && host === undefined ? await opts.index!.view(agentId, store) : undefined
    const answer = view ? opts.index!.answer(view, indexQuery) : undefined
    const exactTargets = new Map<string, Target>()
    for (const session of view && answer ? view.sessions : await store.allSessions()) {
      if (!includeArchived && session.ended !== 'current') continue
      if (!session.transcript.exists) continue
      if (wantKey !== undefined && (session.key === null || normalizeSessionKey(session.key) !== wantKey)) continue
      if (candidates && !candidates.sessions.has(session.sessionId)) continue
      const lines = candidates?.lines?.get(session.sessionId)
      // Covered by the catalog: only its spans are read (none: nothing is), or its exact count taken; a transcript it does
      // not cover is read whole.
      const locator = session.transcript.locator
      const covered = view && answer && view.ids.has(locator) ? answer : undefined
      const own = !covered ? {} : covered.exact ? {exact: covered.always.has(locator) ? {always: covered.always.get(locator)!} : {}} : {spans: covered.spans.get(locator) ?? []}
      const target: Target = {agentId, store, session, ...(host === undefined ? {} : {host}), ...(lines ? {lines} : {}), ...own}
      targets.push(target)
      if (target.exact) exactTargets.set(locator, target)
    }
    if (answer?.exact && exactTargets.size > 0) {
      const include = (locator: string) => exactTargets.has(locator)
      indexCount += answer.count(include)
      newestOf.push({iter: answer.newest(include), targets: exactTargets})
    }
  }

  // A hit's snippet is cut only once it is among the newest `limit` at the end, and with a cheap test (Matcher.test) its
  // matches are found only then too (`all` undefined until then): a common word has hundreds of thousands of hits, and
  // only the shown ones need either.
  let kept: (Omit<SearchHit, 'snippet' | 'matches' | 'matchCount'> & {order: number; t: number | undefined; text: string; all?: SearchMatch[]})[] = []
  let count = indexCount
  let badLines = 0
  let order = 0
  // With a limit, the kept hits are a heap of the newest `limit` (its root the oldest of them): a hit that sorts after the
  // root while the heap is full can never be shown, so it is counted and not kept, and one that sorts before replaces
  // the root. A common word's hundreds of thousands of hits then cost a few comparisons each, not a sort per thousand.
  type Kept = (typeof kept)[number]
  const worse = (i: number, j: number) => newestFirst(kept[i], kept[j]) > 0
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < kept.length && worse(l, m)) m = l
      if (r < kept.length && worse(r, m)) m = r
      if (m === i) return
      ;[kept[i], kept[m]] = [kept[m], kept[i]]
      i = m
    }
  }
  const siftUp = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!worse(i, p)) return
      ;[kept[i], kept[p]] = [kept[p], kept[i]]
      i = p
    }
  }
  const keep = (hit: Kept) => {
    kept.push(hit)
    if (limit === undefined) return
    siftUp(kept.length - 1)
    if (kept.length > limit) {
      kept[0] = kept.pop()!
      siftDown(0)
    }
  }
  /** Whether a hit (its time, ms) sorts after the oldest kept one while `limit` are kept: by time alone where that decides. */
  const belowFloor = (t: number | undefined, probe: () => Ordered): boolean => {
    if (limit === undefined || kept.length < limit) return false
    const floor = kept[0]
    if (t !== undefined && floor.t !== undefined && t >= 0 && t <= MAX_ISO_MS && floor.t >= 0 && floor.t <= MAX_ISO_MS && t !== floor.t) return t < floor.t
    return newestFirst(probe(), floor) > 0
  }
  const inTime = (t: number | undefined) => (since === undefined && until === undefined) || (t !== undefined && (since === undefined || t >= since) && (until === undefined || t <= until))

  // Hits past the newest `limit` are counted and dropped: with a cheap test, where a kept hit matches (its snippet) is
  // found only for the hits that remain at the end.
  const test = limit !== undefined ? matcher.test : undefined
  const holds = (text: string) => (matcher.test ? matcher.test(text) : matcher.matches(text).length > 0)
  // `counted`: false for a line whose hits the index counted already (an exact answer's newest spans are read for their hits only).
  const searchLine = (t: Target, l: TranscriptLine, counted = true) => {
    if (l.bad || !l.value) {
      if (counted && holds(l.raw)) badLines++
      return
    }
    const e = l.value
    const parts = partsOf(e)
    if (parts.length === 0) return
    // The entry's time: needed before matching only for a window, else only once a part matches.
    let time: number | undefined
    let timed = false
    if (since !== undefined || until !== undefined) {
      time = timeOf(e)
      timed = true
      if (!inTime(time)) return
    }
    for (const p of parts) {
      if (role !== undefined && p.role !== role) continue
      let all: SearchMatch[] | undefined
      if (test) {
        if (!test(p.text)) continue
      } else {
        all = matcher.matches(p.text)
        if (all.length === 0) continue
      }
      if (counted) count++
      if (!timed) {
        time = timeOf(e)
        timed = true
      }
      const iso = () => (time === undefined ? null : new Date(time).toISOString())
      if (belowFloor(time, () => ({...(t.host === undefined ? {} : {host: t.host}), agentId: t.agentId, sessionId: t.session.sessionId, time: iso(), line: l.line, order}))) {
        order++
        continue
      }
      keep({
        ...(t.host === undefined ? {} : {host: t.host}),
        agentId: t.agentId,
        key: t.session.key,
        sessionId: t.session.sessionId,
        where: t.session.where,
        entryId: typeof e.id === 'string' ? e.id : null,
        time: iso(),
        t: time,
        role: p.role,
        kind: p.kind,
        ...(p.toolName === undefined ? {} : {toolName: p.toolName}),
        transcript: t.session.transcript.locator,
        line: l.line,
        order: order++,
        text: p.text,
        ...(all ? {all} : {}),
      })
    }
  }

  const tokens = opts.scan ? undefined : indexTokens(pattern, {regex: opts.regex, word: opts.word, role})
  const engines = new Map<string, {catalog: number; fts: number; scan: number}>(agents.map((a) => [a, {catalog: 0, fts: 0, scan: 0}]))
  const scanOne = async (t: Target) => {
    if (t.exact) {
      const always = t.exact.always
      if (always && always.spans.length > 0) for await (const l of t.store.grepSpans!(t.session.transcript, always.spans, matcher.filter)) if (always.has(l.line)) searchLine(t, l)
      engines.get(t.agentId)!.catalog++
      return
    }
    if (t.spans) {
      if (t.spans.length > 0) for await (const l of t.store.grepSpans!(t.session.transcript, t.spans, matcher.filter)) searchLine(t, l)
      engines.get(t.agentId)!.catalog++
      return
    }
    // The store's index already gave every line of this transcript that could hold a hit.
    if (t.lines) {
      for (const l of t.lines) searchLine(t, l)
      engines.get(t.agentId)!.scan++
      return
    }
    const indexed = tokens && t.store.capabilities.fullText ? await t.store.indexedLines(t.session.transcript, tokens) : undefined
    if (indexed) {
      for (const l of indexed) searchLine(t, l)
      engines.get(t.agentId)!.fts++
      return
    }
    const lines = matcher.filter ? t.store.grepLines(t.session.transcript, matcher.filter) : t.store.readLines(t.session.transcript)
    for await (const l of lines) searchLine(t, l)
    engines.get(t.agentId)!.scan++
  }

  // A few transcripts at once: while one waits for its next block from disk, another is searched.
  const width = Math.max(1, opts.concurrency ?? 4)
  let next = 0
  await Promise.all(
    Array.from({length: Math.min(width, targets.length)}, async () => {
      while (next < targets.length) await scanOne(targets[next++])
    }),
  )

  // An exact answer's hits were counted by the index: its spans are read newest first (merged across agents) for the
  // newest `limit` hits, until the next span's newest time sorts below the oldest hit kept.
  if (newestOf.length > 0) {
    const heads = newestOf.map((n) => ({...n, head: n.iter.next()}))
    const rankOf = (r: number | null) => r ?? Number.NEGATIVE_INFINITY
    for (;;) {
      let best: (typeof heads)[number] | undefined
      for (const h of heads) if (!h.head.done && (!best || rankOf(h.head.value.rank) > rankOf(best.head.value.rank))) best = h
      if (!best) break
      const {locator, span, rank} = best.head.value as RankedSpan
      if (limit !== undefined && kept.length >= limit && rankOf(rank) < rankOf(timeRank(kept[0].t))) break
      best.head = best.iter.next()
      const t = best.targets.get(locator)!
      const always = t.exact!.always
      for await (const l of t.store.grepSpans(t.session.transcript, [span], matcher.filter)) if (!always?.has(l.line)) searchLine(t, l, false)
    }
  }

  kept.sort(newestFirst)
  if (limit !== undefined) kept = kept.slice(0, limit)
  const stores = agents.map((agentId) => {
    const n = engines.get(agentId)!
    return {agentId, engine: engineOf(n), catalog: n.catalog, fts: n.fts, scan: n.scan}
  })
  const total = {catalog: stores.reduce((s, x) => s + x.catalog, 0), fts: stores.reduce((s, x) => s + x.fts, 0), scan: stores.reduce((s, x) => s + x.scan, 0)}
  return {
    pattern,
    regex: Boolean(opts.regex),
    ignoreCase: matcher.ignoreCase,
    word: Boolean(opts.word),
    role: role ?? null,
    key: opts.key ?? null,
    since: since === undefined ? null : new Date(since).toISOString(),
    until: until === undefined ? null : new Date(until).toISOString(),
    agents,
    includeArchived,
    engine: engineOf(total),
    stores,
    transcripts: targets.length,
    count,
    limit: limit ?? null,
    hits: kept.map(({order: _o, t: _t, text, all, transcript, line, ...h}) => {
      const found = all ?? matcher.matches(text)
      const {snippet, matches, view} = snippetOf(text, found)
      // The fields in the document's order (snippet, matches and matchCount before transcript and line).
      const hit: SearchHit = {...h, snippet, matches, matchCount: found.length, transcript, line}
      snippetViews.set(hit, view)
      return hit
    }),
    badLines,
    narrowed,
  }
}

function engineOf(n: {catalog: number; fts: number; scan: number}): SearchEngine | 'mixed' {
  const used = (['catalog', 'fts', 'scan'] as const).filter((k) => n[k] > 0)
  return used.length > 1 ? 'mixed' : (used[0] ?? 'scan')
}
