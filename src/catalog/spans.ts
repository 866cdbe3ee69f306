// What the catalog's word index answers for a search on one agent: the vocabulary tokens holding each of the needle's
// runs, and then either the exact count per transcript with the spans that hold hits newest first (only as many are read
// back as the newest hits need), or the spans that may hold a hit (a superset, read back and judged like a scan). Lines
// the index does not describe (unreadable ones, a JSONL file's unterminated end) are always read, and so are the spans
// whose id-like tokens' trigrams hold a run (the index keeps no text of those tokens, so only reading tells).
import type {LineSpan, TranscriptMark} from '../store/types.js'
import type {CatalogDb} from './db.js'
import {TRANSCRIPT_SHIFT} from './digest.js'
import type {WordQuery} from './query.js'
import {type NeedleRun, tokenHolds} from './tokens.js'

/** What an answer needs of an agent's view (refresh.ts AgentView). */
interface Covered {
  ids: ReadonlyMap<string, number>
  marks: ReadonlyMap<number, TranscriptMark>
}

/** A span to read back, with the rank of its newest time (digest.ts timeRank; null: no line of it has a time). */
export interface RankedSpan {
  locator: string
  span: LineSpan
  rank: number | null
}

/** Lines of a transcript that every indexed search reads and judges itself, and the spans that hold them. */
export interface AlwaysRead {
  spans: LineSpan[]
  /** Whether a line is one of them (such a line is counted by reading it, never by the index). */
  has(line: number): boolean
}

export type WordAnswer =
  | {exact: false; spans: Map<string, LineSpan[]>}
  | {
      exact: true
      /** The parts the index counts as hits (lines it describes only) in the transcripts `include` takes. */
      count(include: (locator: string) => boolean): number
      always: Map<string, AlwaysRead>
      /** The spans holding counted hits, newest first, of the transcripts `include` takes. */
      newest(include: (locator: string) => boolean): Iterator<RankedSpan>
    }

/** A run held by more vocabulary tokens than this is not looked up (FTS5's OR of many terms costs more than a read). */
const MAX_RUN_TOKENS = 2048
/** A run of one or two characters is looked up by reading the whole vocabulary, up to this many tokens. */
const MAX_VOCAB_SCAN = 200_000
/** Past this many spans to read back for a run's id-like tokens, and over half of all spans, the run is not looked up. */
const READ_BACK_MIN = 256
/** An exact answer of at most this many hits lists their spans at once; more are walked newest first, span by span. */
const LISTED_HITS = 4096

/** A span row as grepSpans takes it. */
export function spanOf(r: {line: number; lines: number; offset: number | null; bytes: number | null}): LineSpan {
  return r.offset === null ? {line: r.line, lines: r.lines} : {line: r.line, offset: r.offset, ...(r.bytes === null ? {} : {bytes: r.bytes})}
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
const spanRow = (r: Record<string, unknown>): LineSpan => spanOf({line: Number(r.line), lines: Number(r.lines), offset: num(r.offset), bytes: num(r.bytes)})

/** A string as one FTS5 phrase (runs and tokens are word units and never hold a quote; doubled all the same). */
const phrase = (s: string): string => `"${s.replaceAll('"', '""')}"`

/** The tokens holding a run as it says, or undefined when there are too many to ask for (or to find). */
function tokensHolding(c: CatalogDb, r: NeedleRun): string[] | undefined {
  const cps = [...r.run]
  let found: string[]
  if (cps.length >= 3) {
    // Trigrams covering the run (not every one: as selective, and fewer doclists), ANDed; each token then checked.
    const grams = new Set<string>()
    for (let i = 0; i + 3 <= cps.length; i += 3) grams.add(cps.slice(i, i + 3).join(''))
    if (cps.length % 3 !== 0) grams.add(cps.slice(cps.length - 3).join(''))
    const expr = [...grams].map(phrase).join(' AND ')
    found = c.stmt('SELECT v.token FROM vtri JOIN vocab v ON v.id = vtri.rowid WHERE vtri MATCH ?').all(expr).map((x) => String(x.token))
  } else {
    const all = c.stmt(`SELECT token FROM vocab LIMIT ${MAX_VOCAB_SCAN + 1}`).all()
    if (all.length > MAX_VOCAB_SCAN) return undefined
    found = all.map((x) => String(x.token))
  }
  const held = found.filter((t) => tokenHolds(t, r))
  return held.length > MAX_RUN_TOKENS ? undefined : held
}

/**
 * The words table's MATCH for the runs' tokens (null: no part holds them all through its vocabulary tokens), whether
 * the index's answer is exact, and the runs the id-like tokens' trigrams must be asked for as well (a part holds a run
 * through a vocabulary token or an id-like one); undefined: the index cannot say.
 */
function matchOf(c: CatalogDb, q: WordQuery): {expr: string | null; exact: boolean; gramRuns: NeedleRun[]} | undefined {
  const groups: string[][] = []
  const gramRuns: NeedleRun[] = []
  let dropped = false
  const costly = readBackCost(c)
  for (const r of q.runs) {
    // Only a run of ASCII word units can be inside an id-like token (tokens.ts isIdToken).
    const inIds = /^[0-9a-z_]+$/.test(r.run)
    // A run whose id-like candidates are most of the store (one or two units, or a piece every id has) is left out of
    // the lookup (the other runs narrow it), before its vocabulary is read: reading most spans back one by one costs
    // more than a scan reading each transcript through (2.0 s against 1.0 for `ab` on 94 MiB of text full of ids).
    const held = inIds && costly(r) ? undefined : tokensHolding(c, r)
    if (held === undefined) {
      dropped = true
      continue
    }
    groups.push(held)
    if (inIds) gramRuns.push(r)
  }
  if (groups.length === 0) return undefined
  const exact = q.exact && !dropped
  if (groups.some((g) => g.length === 0)) return {expr: null, exact, gramRuns}
  return {expr: groups.map((g) => `(${g.map(phrase).join(' OR ')})`).join(' AND '), exact, gramRuns}
}

/**
 * Whether a run's id-like candidates would be past READ_BACK_MIN spans and over half of all spans (counted by their rows
 * of grams, one a span). Small stores are answered whatever the share: it costs nothing there, and the tests take the
 * id-like path on them.
 */
function readBackCost(c: CatalogDb): (r: NeedleRun) => boolean {
  let all: number | undefined
  let anyIds: number | undefined
  return (r) => {
    const n = r.run.length < 3 ? (anyIds ??= Number(c.stmt('SELECT count(*) AS n FROM spans WHERE ids = 1').get()!.n)) : Number(c.stmt('SELECT count(*) AS n FROM grams WHERE grams MATCH ?').get(gramsMatch(r))!.n)
    return n > READ_BACK_MIN && n * 2 > (all ??= Number(c.stmt('SELECT count(*) AS n FROM spans').get()!.n))
  }
}

/** The grams table's MATCH for a run of three units or more: the trigrams covering it (as tokensHolding asks vtri), ANDed. */
function gramsMatch(r: NeedleRun): string {
  const grams = new Set<string>()
  for (let i = 0; i + 3 <= r.run.length; i += 3) grams.add(r.run.slice(i, i + 3))
  if (r.run.length % 3 !== 0) grams.add(r.run.slice(r.run.length - 3))
  return [...grams].map(phrase).join(' AND ')
}

/** A span row with its id and parts (for an exact answer's bookkeeping). */
interface FullSpan {
  id: number
  transcript: number
  span: LineSpan
  /** Its lines: line to line + lines - 1 (a JSONL span says where by bytes only). */
  line: number
  lines: number
  tmax: number | null
  partLo: number
  parts: number
}

const SPAN_COLUMNS = 's.id, s.transcript, s.line, s.lines, s."offset", s.bytes, s.tmax, s.part_lo, s.parts'

/**
 * The spans whose id-like tokens' trigrams hold every trigram of the run (those covering it, as tokensHolding asks the
 * vocabulary's): a superset of the spans where an id-like token holds it, read back and judged. A run of one or two
 * units has no trigram to ask for: every span with an id-like token.
 */
function gramSpans(c: CatalogDb, r: NeedleRun): FullSpan[] {
  let rows: Record<string, unknown>[]
  if (r.run.length < 3) {
    rows = c.stmt(`SELECT ${SPAN_COLUMNS} FROM spans s WHERE s.ids = 1`).all()
  } else {
    rows = c.stmt(`SELECT ${SPAN_COLUMNS} FROM grams JOIN spans s ON s.id = grams.rowid WHERE grams MATCH ?`).all(gramsMatch(r))
  }
  return rows.map((x) => ({id: Number(x.id), transcript: Number(x.transcript), span: spanRow(x), line: Number(x.line), lines: Number(x.lines), tmax: num(x.tmax), partLo: Number(x.part_lo), parts: Number(x.parts)}))
}

/** The span of a transcript holding a line (the last span starting at or before it; rare: unreadable lines only). */
const SPAN_OF_LINE = 'SELECT id, line, lines, "offset", bytes, tmax FROM spans WHERE transcript = ? AND line <= ? ORDER BY line DESC LIMIT 1'

/**
 * The lines of the view's transcripts that are always read (unreadable, the unterminated end, and the lines of `extra`:
 * spans an exact answer reads for its id-like tokens) and their spans.
 */
function alwaysRead(c: CatalogDb, view: Covered, byId: ReadonlyMap<number, string>, extra: readonly FullSpan[] = []): Map<string, AlwaysRead> {
  const lines = new Map<number, Set<number>>()
  for (const r of c.stmt('SELECT transcript, line FROM bad_lines').all()) {
    const t = Number(r.transcript)
    if (!byId.has(t)) continue
    let set = lines.get(t)
    if (!set) lines.set(t, (set = new Set()))
    set.add(Number(r.line))
  }
  const extraOf = new Map<number, FullSpan[]>()
  for (const x of extra) {
    const list = extraOf.get(x.transcript)
    if (list) list.push(x)
    else extraOf.set(x.transcript, [x])
  }
  const out = new Map<string, AlwaysRead>()
  for (const [locator, id] of view.ids) {
    const set = lines.get(id)
    const tail = tailSpan(view.marks.get(id))
    const whole = extraOf.get(id)
    if (!set && !tail && !whole) continue
    const spans: LineSpan[] = []
    const seen = new Set<number>()
    // Line ranges read whole [from, to): the extra spans'.
    const ranges: [number, number][] = []
    for (const x of whole ?? []) {
      seen.add(x.id)
      spans.push(x.span)
      ranges.push([x.line, x.line + x.lines])
    }
    for (const line of set ?? []) {
      const r = c.stmt(SPAN_OF_LINE).get(id, line)
      if (r && !seen.has(Number(r.id))) {
        seen.add(Number(r.id))
        spans.push(spanRow(r))
      }
    }
    if (tail) spans.push(tail)
    const from = tail?.line ?? Number.POSITIVE_INFINITY
    ranges.sort((a, b) => a[0] - b[0])
    out.set(locator, {spans: joinSpans(spans), has: (line) => line >= from || (set?.has(line) ?? false) || inRanges(ranges, line)})
  }
  return out
}

/** Whether x is in one of the sorted, disjoint ranges [lo, end) (lines, or part rowids). */
function inRanges<T extends number | bigint>(ranges: readonly (readonly [T, T])[], x: T): boolean {
  let lo = 0
  let hi = ranges.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (ranges[mid][0] <= x) lo = mid + 1
    else hi = mid - 1
  }
  return hi >= 0 && x < ranges[hi][1]
}

/**
 * The index's answer for one agent's view, or undefined when it cannot narrow this search (the caller scans): exact
 * counts and the newest spans, or the candidate spans.
 */
export function wordAnswer(c: CatalogDb, view: Covered, q: WordQuery): WordAnswer | undefined {
  const m = matchOf(c, q)
  if (!m) return undefined
  const byId = new Map<number, string>()
  for (const [locator, id] of view.ids) byId.set(id, locator)
  // The spans where an id-like token may hold a run (of the view's transcripts).
  const byGrams = m.gramRuns.flatMap((r) => gramSpans(c, r)).filter((x) => byId.has(x.transcript))
  if (!m.exact) {
    const always = alwaysRead(c, view, byId)
    const spans = new Map<string, LineSpan[]>()
    const add = (locator: string, span: LineSpan) => {
      const list = spans.get(locator)
      if (list) list.push(span)
      else spans.set(locator, [span])
    }
    if (m.expr !== null) {
      for (const r of candidateSpans(c, m.expr)) {
        const locator = byId.get(Number(r.transcript))
        if (locator !== undefined) add(locator, spanRow(r))
      }
    }
    // A part holding every run holds each through its vocabulary tokens (the MATCH above) or one of them through an
    // id-like token (these spans): together, a superset.
    for (const x of byGrams) add(byId.get(x.transcript)!, x.span)
    for (const [locator, a] of always) for (const span of a.spans) add(locator, span)
    for (const [locator, list] of spans) spans.set(locator, joinSpans(list))
    return {exact: false, spans}
  }
  // Exact: the spans with id-like candidates are read and judged whole (always), so the index counts none of their
  // parts and never names them among the newest.
  const whole = new Map<number, FullSpan>()
  for (const x of byGrams) whole.set(x.id, x)
  const always = alwaysRead(c, view, byId, [...whole.values()])
  const expr = m.expr
  let total = 0
  return {
    exact: true,
    count(include) {
      if (expr === null) return (total = 0)
      total = countIn(c, expr, byId, include) - countInSpans(c, expr, [...whole.values()].filter((x) => x.parts > 0 && include(byId.get(x.transcript)!)))
      return total
    },
    always,
    newest(include) {
      if (expr === null || total === 0) return [][Symbol.iterator]()
      const counted = (locator: string | undefined, spanId: number): locator is string => locator !== undefined && include(locator) && !whole.has(spanId)
      if (total <= LISTED_HITS) {
        const list: RankedSpan[] = []
        for (const r of candidateSpans(c, expr)) {
          const locator = byId.get(Number(r.transcript))
          if (counted(locator, Number(r.id))) list.push({locator, span: spanRow(r), rank: num(r.tmax)})
        }
        list.sort((a, b) => (b.rank ?? Number.NEGATIVE_INFINITY) - (a.rank ?? Number.NEGATIVE_INFINITY))
        return list[Symbol.iterator]()
      }
      return walkNewest(c, expr, byId, counted)
    },
  }
}

/**
 * How many parts the expression matches in the transcripts `include` takes: one count(*) per run of consecutive
 * transcript ids that holds no other listed transcript (a GROUP BY by transcript would sort every matching rowid; a
 * range is a seek in each doclist). One range when every transcript of the catalog is asked for.
 */
function countIn(c: CatalogDb, expr: string, byId: ReadonlyMap<number, string>, include: (locator: string) => boolean): number {
  const ranges: [number, number][] = []
  let open: [number, number] | undefined
  for (const r of c.stmt('SELECT id FROM transcripts WHERE removed_at IS NULL ORDER BY id').all()) {
    const id = Number(r.id)
    const locator = byId.get(id)
    if (locator !== undefined && include(locator)) {
      if (open) open[1] = id
      else ranges.push((open = [id, id]))
    } else open = undefined
  }
  const count = c.stmt('SELECT count(*) AS n FROM words WHERE words MATCH ? AND rowid BETWEEN ? AND ?')
  let n = 0
  for (const [lo, hi] of ranges) n += Number(count.get(expr, BigInt(lo) << TRANSCRIPT_SHIFT, ((BigInt(hi) + 1n) << TRANSCRIPT_SHIFT) - 1n)!.n)
  return n
}

/**
 * Spans asked one by one up to this many; more, and the expression's parts are walked once (CLAWKIT_CATALOG_SPAN_COUNTS
 * sets another bound: the tests take both ways).
 */
const SPAN_COUNTS = 64

/** How many parts the expression matches inside the spans (disjoint). */
function countInSpans(c: CatalogDb, expr: string, spans: readonly FullSpan[]): number {
  // The span's part rowids, [first, past the last).
  const range = (x: FullSpan): [bigint, bigint] => {
    const lo = (BigInt(x.transcript) << TRANSCRIPT_SHIFT) + BigInt(x.partLo)
    return [lo, lo + BigInt(x.parts)]
  }
  let n = 0
  if (spans.length <= Number(process.env.CLAWKIT_CATALOG_SPAN_COUNTS || SPAN_COUNTS)) {
    const inSpan = c.stmt('SELECT count(*) AS n FROM words WHERE words MATCH ? AND rowid BETWEEN ? AND ?')
    for (const x of spans) {
      const [lo, end] = range(x)
      n += Number(inSpan.get(expr, lo, end - 1n)!.n)
    }
    return n
  }
  const ranges = spans.map(range).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  for (const r of c.stmt('SELECT rowid AS id FROM words WHERE words MATCH ?').iterate(expr)) if (inRanges(ranges, BigInt(r.id as number | bigint))) n++
  return n
}

/**
 * Every span holding a part the expression matches (one row per span): the last span starting at or before the part
 * that holds any (a span of no parts, only unreadable lines or punctuation, starts at the same number as the next).
 */
function candidateSpans(c: CatalogDb, expr: string): Record<string, unknown>[] {
  return c
    .stmt(
      `SELECT DISTINCT s.id, s.transcript, s.line, s.lines, s."offset", s.bytes, s.tmax
         FROM (SELECT rowid >> ${TRANSCRIPT_SHIFT} AS t, rowid & ${(1n << TRANSCRIPT_SHIFT) - 1n} AS n FROM words WHERE words MATCH ?) w
         JOIN spans s ON s.id = (SELECT x.id FROM spans x WHERE x.transcript = w.t AND x.part_lo <= w.n AND x.parts > 0 ORDER BY x.part_lo DESC LIMIT 1)
         ORDER BY s.transcript, s.line`,
    )
    .all(expr)
}

/**
 * The spans of the view newest first (those `counted` takes: the transcripts searched, not read whole), each asked whether
 * it holds a counted hit (a common needle's newest are near the top).
 */
function* walkNewest(c: CatalogDb, expr: string, byId: ReadonlyMap<number, string>, counted: (locator: string | undefined, spanId: number) => locator is string): Generator<RankedSpan> {
  const probe = c.stmt('SELECT 1 AS x FROM words WHERE words MATCH ? AND rowid BETWEEN ? AND ? LIMIT 1')
  // Its own statement: the walk is read lazily while the probe runs.
  const walk = c.db.prepare('SELECT id, transcript, line, lines, "offset", bytes, tmax, part_lo, parts FROM spans WHERE parts > 0 ORDER BY tmax DESC')
  for (const r of walk.iterate()) {
    const t = Number(r.transcript)
    const locator = byId.get(t)
    if (!counted(locator, Number(r.id))) continue
    const lo = (BigInt(t) << TRANSCRIPT_SHIFT) + BigInt(Number(r.part_lo))
    if (probe.get(expr, lo, lo + BigInt(Number(r.parts)) - 1n)) yield {locator, span: spanRow(r), rank: num(r.tmax)}
  }
}

/** Spans of one transcript in order, overlapping or adjacent ones joined into one read. */
function joinSpans(list: LineSpan[]): LineSpan[] {
  const sorted = [...list].sort((a, b) => a.line - b.line)
  const out: LineSpan[] = []
  for (const span of sorted) {
    const last = out.at(-1)
    if (last && last.offset !== undefined && span.offset !== undefined) {
      if (last.bytes === undefined) continue
      if (span.offset <= last.offset + last.bytes) {
        last.bytes = span.bytes === undefined ? undefined : Math.max(last.bytes, span.offset + span.bytes - last.offset)
        if (last.bytes === undefined) delete last.bytes
        continue
      }
    } else if (last && last.offset === undefined && span.offset === undefined && last.lines !== undefined) {
      if (span.line <= last.line + last.lines) {
        last.lines = span.lines === undefined ? undefined : Math.max(last.lines, span.line + span.lines - last.line)
        if (last.lines === undefined) delete last.lines
        continue
      }
    }
    out.push({...span})
  }
  return out
}

/** The unterminated last line of a JSONL transcript, as its mark says (read up to `bytes` of `size`), or none. */
export function tailSpan(mark: TranscriptMark | undefined): LineSpan | undefined {
  if (!mark || mark.bytes === undefined || mark.size === undefined || mark.size <= mark.bytes) return undefined
  return {line: mark.seq + 1, offset: mark.bytes}
}
