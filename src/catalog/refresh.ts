// Brings the catalog up to date with one agent's store before it answers: the store's listing (allSessions, kept while
// its listingToken holds), one cheap check per transcript (unchangedSince: a stat, or one query for a database), and for
// what changed only the appended lines (readSince from the recorded mark, checked by the ends of what was read before);
// a transcript that was rewritten is read again whole, one that left the listing loses its search rows and keeps its
// calls (the ledger). Every batch commits with its transcript's new mark in one transaction, so a process killed at any
// point leaves a consistent catalog and the next run goes on from the last commit; two processes share it safely (one
// writer at a time, and a batch commits only onto the mark it was read from).
import os from 'node:os'

import {MAX_ISO_MS} from '../sessions/search-text.js'
import type {CallFields, CallsPartial} from '../sessions/usage.js'
import type {AgentSession, SessionReader, TranscriptMark, TranscriptSince} from '../store/types.js'
import {type CatalogDb, writeTx} from './db.js'
import {type CallOut, Digest, type PartsOut, rowidRange, SPAN_BYTES, type SpanOut, TRANSCRIPT_SHIFT} from './digest.js'
import type {BuildPipe} from './build-pipe.js'
import type {RemoteChunk, RemoteRead} from './remote.js'

export {catalogText, SPAN_BYTES} from './digest.js'

/** A refresh that read this much merges the full-text index's segments at its end. */
const OPTIMIZE_AFTER_BYTES = 64 * 1024 * 1024

/**
 * A long read commits every this many bytes of lines (an interrupted first build keeps what it did).
 * CLAWKIT_CATALOG_BATCH_BYTES sets it smaller, for the crash trials (many commits in a small store).
 */
const BATCH_BYTES = Number(process.env.CLAWKIT_CATALOG_BATCH_BYTES) > 0 ? Number(process.env.CLAWKIT_CATALOG_BATCH_BYTES) : 16 * 1024 * 1024

export interface TranscriptRow {
  id: number
  locator: string
  sessionId: string
  mark?: TranscriptMark
  markText: string | null
  lines: number
  textBytes: number
  openSpan: number | null
  /** Its parts (full-text rows) so far: the next one's number. */
  parts: number
  /** Its calls, those a partial cannot stand for (odd), and the partial of the others (CallsPartial). */
  calls: number
  odd: number
  /** JSON, parsed only where it is added to (a search never needs it). */
  partialText: string | null
  /** The row of a transcript that left the listing (its calls are the ledger's memory of removed spend). */
  removed: boolean
}

/** One agent as the catalog holds it after a refresh: its listing now, and which transcripts the catalog covers. */
export interface AgentView {
  agentId: string
  /** allSessions() as the store gives it now. */
  sessions: AgentSession[]
  /** Transcript locator to the catalog's row, for every listed transcript the catalog is up to date with. */
  ids: Map<string, number>
  /** The finished mark of each of those rows. */
  marks: Map<number, TranscriptMark>
  /** What this refresh read: transcripts that changed (or were new) and their bytes; `worker`: how many a build worker read. */
  read: {transcripts: number; bytes: number; worker?: number}
}

export interface RefreshProgress {
  agentId: string
  /** Transcripts read so far, of those that changed. */
  files: number
  filesTotal: number
  /** Bytes of transcript read so far, of about `bytesTotal` (JSONL; SQLite events count as their files do not). */
  bytes: number
  bytesTotal: number
}

export interface RefreshOptions {
  onProgress?: (p: RefreshProgress) => void
  /** Told when an agent's refresh ends (a progress line is cleared). */
  onDone?: () => void
}

const parseMark = (text: string | null): TranscriptMark | undefined => {
  if (!text) return undefined
  try {
    return JSON.parse(text) as TranscriptMark
  } catch {
    return undefined
  }
}

function rowOf(r: Record<string, unknown>): TranscriptRow {
  const markText = typeof r.mark === 'string' ? r.mark : null
  return {id: Number(r.id), locator: String(r.locator), sessionId: String(r.session_id), mark: parseMark(markText), markText, lines: Number(r.lines), textBytes: Number(r.text_bytes), openSpan: r.open_span === null || r.open_span === undefined ? null : Number(r.open_span), parts: Number(r.parts ?? 0), calls: Number(r.calls ?? 0), odd: Number(r.odd ?? 0), partialText: typeof r.partial === 'string' ? r.partial : null, removed: r.removed_at !== null && r.removed_at !== undefined}
}

const ROW_COLUMNS = 'id, locator, session_id, mark, lines, text_bytes, open_span, parts, calls, odd, partial, removed_at'

export function emptyPartial(): CallsPartial {
  return {calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costNano: 0, firstT: null, lastT: null, largest: null}
}

export function partialOf(text: unknown): CallsPartial {
  if (typeof text !== 'string') return emptyPartial()
  try {
    return JSON.parse(text) as CallsPartial
  } catch {
    return emptyPartial()
  }
}

/**
 * Adds a call to a transcript's partial when a partial can stand for it (CallsPartial: a recorded cost on addCost's
 * grid, whole token counts, a plain time); false when it is odd and must be summed call by call.
 */
function addToPartial(p: CallsPartial, f: CallFields): boolean {
  const u = f.usage
  const nano = u.cost === undefined ? undefined : Math.round(u.cost * 1e9)
  const whole = (x: number) => Number.isSafeInteger(x)
  // A figure that was not a plausible number is counted call by call (badValues).
  if (u.badValues > 0 || u.badCost) return false
  if (nano === undefined || !Number.isSafeInteger(nano) || !whole(u.input) || !whole(u.output) || !whole(u.cacheRead) || !whole(u.cacheWrite) || !whole(u.totalTokens)) return false
  const t = f.t ?? null
  // Times before 1970 or past year 9999 (MAX_ISO_MS: ISO strings no longer sort as times) are summed call by call.
  if (t !== null && (t < 0 || t > MAX_ISO_MS)) return false
  p.calls++
  p.input += u.input
  p.output += u.output
  p.cacheRead += u.cacheRead
  p.cacheWrite += u.cacheWrite
  p.totalTokens += u.totalTokens
  p.costNano += nano
  if (t !== null) {
    if (p.firstT === null || t < p.firstT) p.firstT = t
    if (p.lastT === null || t > p.lastT) p.lastT = t
  }
  if (!p.largest || u.totalTokens > p.largest.totalTokens) {
    p.largest = {t, totalTokens: u.totalTokens, costNano: nano, model: f.model ? (f.provider ? `${f.provider}/${f.model}` : f.model) : null}
  }
  return true
}

/** Whether a mark is one of a finished read (readSince went to the end): only such a mark can be unchanged. */
const finished = (m: TranscriptMark | undefined): m is TranscriptMark => m !== undefined && m.size !== undefined

/** Whether an error says the transcript went away between the listing and the read (a reset renamed it meanwhile). */
function vanished(error: unknown): boolean {
  const code = (error as {code?: string}).code
  return code === 'E_ENOENT' || code === 'ENOENT' || code === 'E_TRANSCRIPT_MISSING'
}

/** The agent's listing and every listed transcript brought up to date. */
export async function refreshAgent(c: CatalogDb, store: SessionReader, agentId: string, opts: RefreshOptions = {}): Promise<AgentView> {
  if (!store.capabilities.changeTracking) throw new Error('refreshAgent needs a store that tracks its changes (capabilities.changeTracking)')
  const saved = c.stmt('SELECT token, listing FROM agents WHERE agent = ?').get(agentId)
  // The token is taken before the listing: a change after it makes the next token differ, never a stale listing kept.
  const {token, changed} = await store.listingToken(typeof saved?.token === 'string' ? saved.token : undefined)
  let sessions: AgentSession[] | undefined
  let relisted = false
  if (saved && !changed && typeof saved.listing === 'string') {
    try {
      sessions = JSON.parse(saved.listing) as AgentSession[]
    } catch {}
  }
  if (!sessions) {
    sessions = await store.allSessions()
    relisted = true
  }
  const ids = new Map<string, number>()
  const marks = new Map<number, TranscriptMark>()
  let indexedFresh = false
  const read: AgentView['read'] = {transcripts: 0, bytes: 0}
  for (let round = 0; ; round++) {
    const present = new Map<string, AgentSession>()
    for (const s of sessions) if (s.transcript.exists && !present.has(s.transcript.locator)) present.set(s.transcript.locator, s)
    // Only what the check needs: a search refreshes thousands of rows that did not change (their sums are fetched when
    // one is read, selectRow).
    const rows = new Map<string, {id: number; locator: string; mark?: TranscriptMark; markText: string | null}>()
    for (const r of c.stmt('SELECT id, locator, mark FROM transcripts WHERE agent = ? AND removed_at IS NULL').all(agentId)) {
      const markText = typeof r.mark === 'string' ? r.mark : null
      rows.set(String(r.locator), {id: Number(r.id), locator: String(r.locator), mark: parseMark(markText), markText})
    }
    // One cheap check for every transcript the catalog has read to its end.
    const known = [...present.values()].flatMap((s) => {
      const r = rows.get(s.transcript.locator)
      return r && finished(r.mark) ? [{s, r, mark: r.mark}] : []
    })
    const same = known.length > 0 ? await store.unchangedSince(known.map((k) => ({t: k.s.transcript, mark: k.mark}))) : []
    const toRead: {s: AgentSession; r?: {mark?: TranscriptMark; markText: string | null}}[] = []
    known.forEach((k, i) => {
      if (same[i]) {
        ids.set(k.s.transcript.locator, k.r.id)
        marks.set(k.r.id, k.mark)
      } else toRead.push(k)
    })
    for (const s of present.values()) {
      const r = rows.get(s.transcript.locator)
      // A transcript that left the listing and came back (restored) gets a row of its own: the removed one keeps the
      // calls it had, which the restored file may no longer hold (the ledger drops those it holds again).
      if (!r || !finished(r.mark)) toRead.push({s, r})
    }
    const progress: RefreshProgress = {agentId, files: 0, filesTotal: toRead.length, bytes: 0, bytesTotal: 0}
    if (opts.onProgress) for (const {s, r} of toRead) progress.bytesTotal += Math.max(0, (store.transcriptBytes(s.transcript) ?? 0) - (r?.mark?.bytes ?? 0))
    let rewritten = false
    const w = new Writer(c)
    const remote = await startWorker(store, toRead)
    try {
      for (const {s} of toRead) {
        const out = await indexTranscript(
          c,
          w,
          store,
          agentId,
          s,
          (n) => {
            progress.bytes += n
            read.bytes += n
            opts.onProgress?.(progress)
          },
          remote?.reads.get(s.transcript.locator),
        )
        progress.files++
        read.transcripts++
        if (remote?.reads.get(s.transcript.locator)?.used) read.worker = (read.worker ?? 0) + 1
        opts.onProgress?.(progress)
        w.commit()
        if (out.kind === 'gone') continue
        if (out.kind === 'rewritten') rewritten = true
        if (out.fresh) indexedFresh = true
        ids.set(s.transcript.locator, out.id)
        marks.set(out.id, out.mark)
      }
      w.commit(true)
    } catch (error) {
      w.abort()
      throw error
    } finally {
      await remote?.pipe.close()
    }
    // A transcript rewritten in place may start with another header, which is what the listing dates sessions by.
    if (rewritten && !relisted && round === 0) {
      sessions = await store.allSessions()
      relisted = true
      ids.clear()
      marks.clear()
      continue
    }
    // After a large read (a first build, a long catch-up) the full-text indexes are merged into one segment each: many
    // small segments would make every later delete (a span merged on append, a transcript rewritten) visit each of them
    // (~1.4 ms a delete against ~0.15 ms, measured on the 1 GiB benchmark; the merge takes a few seconds once).
    if (read.bytes >= OPTIMIZE_AFTER_BYTES) writeTx(c, () => c.db.exec("INSERT INTO words(words) VALUES ('optimize'); INSERT INTO vtri(vtri) VALUES ('optimize'); INSERT INTO grams(grams) VALUES ('optimize')"))
    const gone = [...rows.values()].filter((r) => !present.has(r.locator)).map((r) => r.id)
    if (gone.length > 0 || indexedFresh) settleLedger(c, agentId, gone)
    if (relisted) {
      const listing = JSON.stringify(sessions)
      writeTx(c, () => {
        c.stmt('INSERT INTO agents(agent, token, listing, refreshed_at) VALUES (?, ?, ?, ?) ON CONFLICT(agent) DO UPDATE SET token = excluded.token, listing = excluded.listing, refreshed_at = excluded.refreshed_at').run(agentId, token, listing, Date.now())
        const upd = c.stmt('UPDATE transcripts SET session_id = ?, session_key = ?, "where" = ?, ended = ? WHERE agent = ? AND locator = ? AND removed_at IS NULL')
        for (const s of present.values()) upd.run(s.sessionId, s.key, s.where, s.ended, agentId, s.transcript.locator)
      })
    } else if (toRead.length > 0 || token !== saved?.token) {
      // The newest token (its stats make the next check a few stats again), the listing kept.
      c.stmt('UPDATE agents SET token = ?, refreshed_at = ? WHERE agent = ?').run(token, Date.now(), agentId)
    }
    opts.onDone?.()
    return {agentId, sessions, ids, marks, read}
  }
}

/**
 * The least a refresh must read for a worker to be worth its start (~50 ms): CLAWKIT_CATALOG_WORKER_BYTES sets it (0:
 * always, for the tests; -1: never).
 */
export function workerThreshold(env: Record<string, string | undefined> = process.env): number {
  const set = env.CLAWKIT_CATALOG_WORKER_BYTES
  if (set !== undefined && set !== '' && Number.isFinite(Number(set))) return Number(set) < 0 ? Number.POSITIVE_INFINITY : Number(set)
  // One core: the worker would only share it.
  return os.availableParallelism() > 1 ? 32 * 1024 * 1024 : Number.POSITIVE_INFINITY
}

/**
 * A build worker for what this refresh reads, when it is much (workerThreshold): every transcript read from its start or
 * from an unfinished mark (a first build, or one interrupted) of a JSONL store is read by the worker, in the order the
 * refresh writes them; appended tails (a last span to merge) are read here. Undefined: everything is read here.
 */
async function startWorker(store: SessionReader, toRead: {s: AgentSession; r?: {mark?: TranscriptMark; markText: string | null}}[]): Promise<{pipe: BuildPipe; reads: Map<string, RemoteRead>} | undefined> {
  if (!store.transcriptFile) return undefined
  const jobs: {locator: string; file: string; mark?: TranscriptMark; markText: string | null}[] = []
  let bytes = 0
  for (const {s, r} of toRead) {
    if (r && finished(r.mark)) continue
    const file = store.transcriptFile(s.transcript)
    if (file === undefined) continue
    jobs.push({locator: s.transcript.locator, file, ...(r?.mark ? {mark: r.mark} : {}), markText: r?.markText ?? null})
    bytes += Math.max(0, (store.transcriptBytes(s.transcript) ?? 0) - (r?.mark?.bytes ?? 0))
  }
  if (jobs.length === 0 || bytes < workerThreshold()) return undefined
  let pipe: BuildPipe | undefined
  try {
    const {BuildPipe} = await import('./build-pipe.js')
    pipe = await BuildPipe.start(BATCH_BYTES)
  } catch {
    // No worker (its file missing from an install, Workers unavailable): the main thread reads everything, as on one core.
  }
  if (!pipe) return undefined
  const reads = new Map<string, RemoteRead>()
  for (const j of jobs) reads.set(j.locator, pipe.submit(j.file, j.mark, j.markText))
  return {pipe, reads}
}

/**
 * Transcripts that left the listing: their search rows go, their calls stay (marked removed by the transcript row) unless
 * the same call (session and entry id) is still in a listed transcript (an archive renamed, a session moved into the
 * database): spend is never counted twice. A removed transcript with no call left is forgotten.
 */
function settleLedger(c: CatalogDb, agentId: string, gone: number[]): void {
  writeTx(c, () => {
    const now = Date.now()
    for (const id of gone) {
      deleteSearchRows(c, id)
      c.stmt('UPDATE transcripts SET removed_at = ?, mark = NULL, open_span = NULL, open_grams = NULL, parts = 0, text_bytes = 0, lines = 0 WHERE id = ?').run(now, id)
    }
    c.stmt(
      `DELETE FROM calls WHERE transcript IN (SELECT id FROM transcripts WHERE agent = ?1 AND removed_at IS NOT NULL) AND entry_key IS NOT NULL
         AND EXISTS (SELECT 1 FROM calls k JOIN transcripts t ON t.id = k.transcript WHERE k.entry_key = calls.entry_key AND t.agent = ?1 AND t.removed_at IS NULL)`,
    ).run(agentId)
    c.stmt('DELETE FROM transcripts WHERE agent = ? AND removed_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM calls WHERE calls.transcript = transcripts.id)').run(agentId)
  })
}

function deleteSearchRows(c: CatalogDb, id: number): void {
  c.stmt('DELETE FROM words WHERE rowid BETWEEN ? AND ?').run(...rowidRange(id))
  // Row by row: FTS5 finds a row to delete by `rowid = ?`, where an IN over a subquery would walk the whole table.
  const delGrams = c.stmt('DELETE FROM grams WHERE rowid = ?')
  for (const r of c.stmt('SELECT id FROM spans WHERE transcript = ? AND ids = 1').all(id)) delGrams.run(r.id as number)
  c.stmt('DELETE FROM spans WHERE transcript = ?').run(id)
  c.stmt('DELETE FROM bad_lines WHERE transcript = ?').run(id)
}

/** Two spaced lists of trigrams as one, each trigram once. */
function joinGrams(a: string, b: string): string {
  if (!b) return a
  return [...new Set([...a.split(' '), ...b.split(' ')])].join(' ')
}

/** Tokens this connection knows the vocabulary holds (forgotten when a batch is rolled back). */
const knownTokens = new WeakMap<CatalogDb, Set<string>>()

/**
 * Adds tokens to the vocabulary (inside the batch that writes the parts holding them): each new token gets the next
 * number, found again by a 53-bit hash of its text (tokens sharing a hash are told apart by their text); its trigrams
 * go into vtri under the same number.
 */
function addVocab(c: CatalogDb, tokens: readonly string[]): void {
  let known = knownTokens.get(c)
  if (!known) knownTokens.set(c, (known = new Set()))
  for (const t of tokens) {
    if (known.has(t)) continue
    const h = hash53(t)
    if (!c.stmt('SELECT token FROM vocab WHERE h = ?').all(h).some((r) => r.token === t)) {
      const id = Number(c.stmt('INSERT INTO vocab(h, token) VALUES (?, ?)').run(h, t).lastInsertRowid)
      c.stmt('INSERT INTO vtri(rowid, token) VALUES (?, ?)').run(id, t)
    }
    known.add(t)
  }
}

interface SpanRow {
  id: number
  line: number
  lines: number
  offset: number | null
  bytes: number | null
  textBytes: number
  tmax: number | null
  partLo: number
  parts: number
}

type Indexed = {kind: 'gone'} | {kind: 'done' | 'rewritten'; id: number; mark: TranscriptMark; fresh: boolean}

/**
 * The catalog's one write transaction at a time. A batch holds the writer lock (BEGIN IMMEDIATE) from before a
 * transcript's recorded mark is read until its new rows are committed, so no other process can advance that transcript
 * in between; several small transcripts share a batch (one commit and one full-text flush for all), a long one is cut
 * into batches. Readers are never blocked (WAL), and other writers wait at most one batch.
 */
export class Writer {
  private open = false
  bytes = 0

  constructor(private readonly c: CatalogDb) {}

  begin(): void {
    if (this.open) return
    this.c.db.exec('BEGIN IMMEDIATE')
    this.open = true
  }

  /** Commits when the batch is full (or `force`); returns whether it did (the lock was let go). */
  commit(force = false): boolean {
    if (!this.open || (!force && this.bytes < BATCH_BYTES)) return false
    this.c.db.exec('COMMIT')
    this.open = false
    this.bytes = 0
    return true
  }

  abort(): void {
    knownTokens.delete(this.c)
    if (this.open && this.c.db.isTransaction) this.c.db.exec('ROLLBACK')
    this.open = false
    this.bytes = 0
  }
}

const selectRow = (c: CatalogDb, agentId: string, locator: string): TranscriptRow | undefined => {
  const r = c.stmt(`SELECT ${ROW_COLUMNS} FROM transcripts WHERE agent = ? AND locator = ? AND removed_at IS NULL`).get(agentId, locator)
  return r ? rowOf(r) : undefined
}

/**
 * Reads what changed of one transcript and records it (inside the writer's batch): its text in spans of whole lines (one
 * full-text row each), its calls, its unreadable lines. The last span, while under SPAN_BYTES, is read again and merged
 * with the next append's lines, so that appending one turn at a time does not leave a row per turn. The row is read
 * again under the lock, so a transcript another process advanced meanwhile is read from its newer mark. `remote`: the
 * transcript as a build worker read it (build-pipe.ts), used when the row under the lock is still the one it read from;
 * otherwise, or when the worker could not read it, the transcript is read here.
 */
async function indexTranscript(c: CatalogDb, w: Writer, store: SessionReader, agentId: string, s: AgentSession, read: (bytes: number) => void, remote?: RemoteRead): Promise<Indexed> {
  for (let attempt = 0; ; attempt++) {
    w.begin()
    const out = await indexOnce(c, w, store, agentId, s, selectRow(c, agentId, s.transcript.locator), read, attempt === 0 ? remote : undefined)
    if (out === 'local') continue
    if (out !== 'moved' || attempt >= 5) return out === 'moved' ? {kind: 'gone'} : out
  }
}

async function indexOnce(c: CatalogDb, w: Writer, store: SessionReader, agentId: string, s: AgentSession, row: TranscriptRow | undefined, read: (bytes: number) => void, remote?: RemoteRead): Promise<Indexed | 'moved' | 'local'> {
  let since: TranscriptSince | undefined
  let chunk: RemoteChunk | undefined
  if (remote) {
    chunk = await remote.next()
    if (chunk.error) {
      await remote.drain()
      return 'local'
    }
    // Read from another mark than the row has now (another process wrote it meanwhile): read it here, from that mark.
    if ((row?.markText ?? null) !== remote.markText) {
      remote.done(chunk)
      await remote.drain()
      return 'local'
    }
  } else {
    try {
      since = await store.readSince(s.transcript, row?.mark, {verify: 'ends'})
    } catch (error) {
      if (vanished(error)) return {kind: 'gone'}
      throw error
    }
  }
  const head = since ?? chunk!
  if (head.unchanged && row) {
    const mark = since ? since.mark() : chunk!.mark
    if (chunk) remote!.done(chunk)
    const text = JSON.stringify(mark)
    if (text !== row.markText) c.stmt('UPDATE transcripts SET mark = ? WHERE id = ?').run(text, row.id)
    return {kind: 'done', id: row.id, mark, fresh: false}
  }
  const fresh = head.rewritten || !row?.mark
  let carry: {span: SpanRow} | undefined
  if (!fresh && row!.openSpan !== null) {
    // The last span is merged with the new lines here (its parts' rows stay: only where the span ends changes); a
    // worker read only the new ones.
    if (remote) {
      remote.done(chunk!)
      await remote.drain()
      return 'local'
    }
    const r = c.stmt('SELECT id, line, lines, "offset", bytes, text_bytes, tmax, part_lo, parts FROM spans WHERE id = ?').get(row!.openSpan)
    if (r) {
      const span: SpanRow = {id: Number(r.id), line: Number(r.line), lines: Number(r.lines), offset: r.offset === null ? null : Number(r.offset), bytes: r.bytes === null ? null : Number(r.bytes), textBytes: Number(r.text_bytes), tmax: r.tmax === null ? null : Number(r.tmax), partLo: Number(r.part_lo), parts: Number(r.parts)}
      carry = {span}
    }
  }
  let id: number | undefined = row?.id
  let lines = fresh ? 0 : row!.lines
  let nCalls = fresh ? 0 : row!.calls
  let odd = fresh ? 0 : row!.odd
  const partial = fresh ? emptyPartial() : partialOf(row!.partialText)
  let textBytes = fresh ? 0 : row!.textBytes - (carry?.span.textBytes ?? 0)
  // The next part's number; the spans' first parts are numbered on from where the carried span's began.
  let nParts = fresh ? 0 : row!.parts
  let spanLo = carry ? carry.span.partLo : nParts
  let first = true
  // A SQLite span records no bytes (its lines are seqs): what it had read is counted by its text, or one-turn appends
  // would start it from 0 each time and it would never close.
  const digest = new Digest(carry ? {line: carry.span.line, lastLine: carry.span.line + carry.span.lines - 1, ...(carry.span.offset === null ? {} : {offset: carry.span.offset}), raw: carry.span.bytes ?? carry.span.textBytes, textBytes: carry.span.textBytes, found: true, tmax: carry.span.tmax, parts: carry.span.parts} : undefined)
  let committed: string | undefined

  /** Writes what was digested so far (here or by a worker) with its mark (inside the open batch). */
  const write = (out: PartsOut & {spans: SpanOut[]; calls: CallOut[]; bad: number[]; lastLine: number}, mark: TranscriptMark, openLast: boolean) => {
    const markText = JSON.stringify(mark)
    if (first && fresh && id !== undefined) {
      deleteSearchRows(c, id)
      c.stmt('DELETE FROM calls WHERE transcript = ?').run(id)
    }
    // The carried span's trigrams so far, which its row of grams is written again with (under the span's new id).
    let carried = ''
    if (first && carry) {
      carried = String(c.stmt('SELECT open_grams FROM transcripts WHERE id = ?').get(id!)?.open_grams ?? '')
      c.stmt('DELETE FROM spans WHERE id = ?').run(carry.span.id)
      if (carried) c.stmt('DELETE FROM grams WHERE rowid = ?').run(carry.span.id)
    }
    if (id === undefined) {
      id = Number(c.stmt('INSERT INTO transcripts(agent, locator, session_id, session_key, "where", ended) VALUES (?, ?, ?, ?, ?, ?)').run(agentId, s.transcript.locator, s.sessionId, s.key, s.where, s.ended).lastInsertRowid)
    }
    let openSpan: number | null = null
    let openGrams: string | null = null
    addVocab(c, out.vocab)
    const insWords = c.stmt('INSERT INTO words(rowid, tokens) VALUES (?, ?)')
    const base = BigInt(id) << TRANSCRIPT_SHIFT
    const {parts, tokens} = out
    for (let i = 0, from = 0; i < parts.length; i++) {
      // The tokens as bytes (a blob FTS5 reads as its text): no string made or converted on the way in.
      insWords.run(base + BigInt(nParts++), tokens.subarray(from, parts[i]))
      from = parts[i]
    }
    const insSpan = c.stmt('INSERT INTO spans(transcript, line, lines, "offset", bytes, text_bytes, tmax, part_lo, parts, ids) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    const insGrams = c.stmt('INSERT INTO grams(rowid, g) VALUES (?, ?)')
    for (const [i, sp] of out.spans.entries()) {
      const lo = spanLo
      spanLo += sp.parts
      if (sp.empty) continue
      // The first span of a write that carries one is that span, grown.
      const grams = i === 0 && carried ? joinGrams(carried, sp.grams) : sp.grams
      const spanId = Number(insSpan.run(id, sp.line, sp.lines, sp.offset, sp.bytes, sp.textBytes, sp.tmax, lo, sp.parts, grams ? 1 : 0).lastInsertRowid)
      if (grams) insGrams.run(spanId, grams)
      textBytes += sp.textBytes
      if (openLast && i === out.spans.length - 1 && (sp.bytes ?? sp.raw) < SPAN_BYTES) {
        openSpan = spanId
        openGrams = grams || null
      }
    }
    const insCall = c.stmt('INSERT OR REPLACE INTO calls(transcript, line, entry_key, at, model, input, output, cache_read, cache_write, total_tokens, cost_nano, cost, bad_values, bad_cost) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    for (const {line, f} of out.calls) {
      insCall.run(id, ...callRow(c, line, s.sessionId, f))
      nCalls++
      if (!addToPartial(partial, f)) odd++
    }
    const insBad = c.stmt('INSERT OR REPLACE INTO bad_lines(transcript, line) VALUES (?, ?)')
    for (const line of out.bad) insBad.run(id, line)
    if (out.lastLine > 0) lines = out.lastLine
    c.stmt('UPDATE transcripts SET mark = ?, lines = ?, text_bytes = ?, open_span = ?, open_grams = ?, parts = ?, calls = ?, odd = ?, partial = ?, session_id = ?, session_key = ?, "where" = ?, ended = ?, removed_at = NULL WHERE id = ?').run(
      markText,
      lines,
      textBytes,
      openSpan,
      openGrams,
      nParts,
      nCalls,
      odd,
      JSON.stringify(partial),
      s.sessionId,
      s.key,
      s.where,
      s.ended,
      id,
    )
    committed = markText
    first = false
  }
  const writeDigest = (mark: TranscriptMark, openLast: boolean) => {
    write(digest.out(), mark, openLast)
    digest.clear()
  }
  /** After a full batch was committed and the lock taken again: the row must still carry the mark committed with it. */
  const stillOurs = () => selectRow(c, agentId, s.transcript.locator)?.markText === committed

  if (chunk) {
    // A worker's chunks: each but the last ends a batch of this transcript's lines, committed with the mark after it.
    for (;;) {
      w.bytes += chunk.bytes
      read(chunk.bytes)
      if (chunk.last) {
        write(chunk, chunk.mark, true)
        remote!.done(chunk)
        remote!.used = true
        return {kind: chunk.rewritten ? 'rewritten' : 'done', id: id!, mark: chunk.mark, fresh}
      }
      write(chunk, chunk.mark, false)
      remote!.done(chunk)
      w.commit(true)
      w.begin()
      if (!stillOurs()) {
        await remote!.drain()
        return 'moved'
      }
      chunk = await remote!.next()
      // The worker failed half way: what it read is committed, the rest is read here from there.
      if (chunk.error) {
        await remote!.drain()
        return 'local'
      }
    }
  }
  for await (const l of since!.lines) {
    const size = digest.line(l)
    w.bytes += size
    read(size)
    if (w.bytes >= BATCH_BYTES) {
      // A full batch: this transcript's lines so far are committed with the mark after them, and the lock let go for a
      // moment. Taken again, the row must still carry that mark (another writer may have read this transcript meanwhile).
      const mark = since!.mark()
      digest.close(mark.bytes)
      writeDigest(mark, false)
      w.commit(true)
      w.begin()
      if (!stillOurs()) {
        await since!.lines[Symbol.asyncIterator]().return?.()
        return 'moved'
      }
    }
  }
  const mark = since!.mark()
  digest.close(mark.bytes)
  writeDigest(mark, true)
  return {kind: since!.rewritten ? 'rewritten' : 'done', id: id!, mark, fresh}
}

/** A model's provider and name, once per catalog (a call row names it by number). */
const modelIds = new WeakMap<CatalogDb, Map<string, number>>()

function modelId(c: CatalogDb, provider: string | undefined, model: string | undefined): number | null {
  if (provider === undefined && model === undefined) return null
  const key = JSON.stringify([provider ?? null, model ?? null])
  let cache = modelIds.get(c)
  if (!cache) modelIds.set(c, (cache = new Map()))
  let id = cache.get(key)
  if (id === undefined) {
    c.stmt('INSERT OR IGNORE INTO models(key, provider, model) VALUES (?, ?, ?)').run(key, provider ?? null, model ?? null)
    id = Number(c.stmt('SELECT id FROM models WHERE key = ?').get(key)!.id)
    cache.set(key, id)
  }
  return id
}

/** The same call (session and entry id) under another transcript name: a 53-bit number kept per call, compared when a transcript is removed. */
export function entryKey(sessionId: string, entryId: string | undefined): number | null {
  if (entryId === undefined) return null
  return hash53(`${sessionId}\n${entryId}`)
}

/** A 53-bit hash of a string (cyrb53). */
function hash53(s: string): number {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 2654435761)
    h2 = Math.imul(h2 ^ ch, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

/**
 * One ledger row: what the call's line says (CallFields), its recorded cost as whole nanodollars (addCost's grid, all
 * that usage sums of it), so that SQL adds costs exactly; `cost` keeps a recorded cost too large for that as it is.
 */
function callRow(c: CatalogDb, line: number, sessionId: string, f: CallFields): (string | number | null)[] {
  const u = f.usage
  const nano = u.cost === undefined ? null : Math.round(u.cost * 1e9)
  const safe = nano !== null && Number.isSafeInteger(nano)
  return [line, entryKey(sessionId, f.entryId), f.t ?? null, modelId(c, f.provider, f.model), u.input, u.output, u.cacheRead, u.cacheWrite, u.totalTokens, safe ? nano : null, safe ? null : (u.cost ?? null), u.badValues, u.badCost ? 1 : 0]
}

