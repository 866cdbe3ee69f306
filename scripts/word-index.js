// A prototype of another design for the catalog's full-text index (issue 28, measured by scripts/bench-word-index.js):
// a word index with a trigram vocabulary. Each searchable part's text, folded as the literal matcher folds under smart
// case, is cut into maximal runs of word units; the part's distinct runs (tokens) are its row in a contentless FTS5
// table without positions (detail=none), given as the ids of the tokens in a vocabulary, and the vocabulary has a
// trigram index of its own. A needle made only of word units is in a part iff it is inside one of the part's tokens:
// the vocabulary terms holding it, ORed, name exactly the parts that match, so a count reads nothing from the store and
// only the newest `limit` parts are read back for their snippets. Rowids are ordered by the part's time, so that the
// newest hits are the first rows of `ORDER BY rowid DESC`.
//   build <sessions dir> <db>                    builds the index; prints a JSON summary (sizes, times)
//   query <db> <needle> [--limit N] [--stat DIR] a whole search: prints {pattern, ignoreCase, exact, terms, count,
//                                                badLines, hits, ms}, or {fallback} when the index cannot answer
//   probe <db> <needle>...                       the vocabulary lookup and the count alone, timed in-process
// Build-time settings, recorded in the index: WORD_RARE=1 keeps id-like tokens as chunked trigrams only (isRare,
// WORD_RARE_CHUNK parts a chunk, 32); WORD_SLOT / WORD_SLOT_MS (64 rowids a second), WORD_VBLOCK (16 tokens a
// vocabulary row), WORD_VACUUM=0.
// A bench prototype, not clawkit's code: it reads a JSON-era sessions dir (every *.jsonl* file in it), and takes the
// searched text and the matcher from dist/ (npm run build) so that what it indexes and how it matches are search's own.
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const {DatabaseSync} = process.getBuiltinModule('node:sqlite')

// ---------------------------------------------------------------------------------------------------------------------
// Folding and tokens.
//
// The literal matcher under ignore-case is a RegExp with the `i` flag and no `u` flag: two UTF-16 units are equal iff
// their ECMA-262 non-unicode Canonicalize is (toUpperCase of the unit, kept only when it is one unit and does not turn
// a non-ASCII unit into an ASCII one: the Kelvin sign and the long s stay themselves). fold() maps each unit to one
// member of that class (ASCII: lower case; other units: the canonical unit), so folded equality is the matcher's
// equality, unit for unit, and a literal matches a text iff the folded literal is a substring of the folded text.
// A word unit is, after folding, an ASCII letter, digit or `_`, or any non-ASCII unit (surrogates included). Folding
// never moves a unit between ASCII and non-ASCII, nor an ASCII unit in or out of [0-9a-z_], so a unit and its fold are
// the same kind: an occurrence of an all-word needle lies inside one maximal word run of the text, one token.
// (Non-ASCII punctuation and whole CJK phrases then make long tokens: the vocabulary's trigram index still finds them.)

const canonCache = new Map()
function canonicalUnit(c) {
  let v = canonCache.get(c)
  if (v === undefined) {
    const u = String.fromCharCode(c).toUpperCase()
    v = u.length !== 1 || u.charCodeAt(0) < 0x80 ? c : u.charCodeAt(0)
    canonCache.set(c, v)
  }
  return v
}

const NON_ASCII = /[^\x00-\x7f]/

/** The text folded as the ignore-case matcher compares it (see above). */
export function fold(text) {
  if (!NON_ASCII.test(text)) return text.toLowerCase()
  let out = ''
  let from = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) continue
    const f = canonicalUnit(c)
    if (f !== c) {
      out += text.slice(from, i) + String.fromCharCode(f)
      from = i + 1
    }
  }
  out += text.slice(from)
  // ASCII lower case, unit by unit: toLowerCase would also lower non-ASCII letters (and the Kelvin sign to k).
  return out.replace(/[A-Z]+/g, (s) => s.toLowerCase())
}

const isWordUnit = (c) => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c >= 0x80 || (c >= 0x41 && c <= 0x5a)
const ASCII_TOKENS = /[0-9a-z_]+/g
const TOKENS = /[0-9a-z_\u0080-\uffff]+/g

/** The distinct tokens of a folded text. */
export function tokensOf(folded) {
  return new Set(folded.match(NON_ASCII.test(folded) ? TOKENS : ASCII_TOKENS) ?? [])
}

/**
 * With WORD_RARE=1 at build time, tokens that look like ids, hashes or base64 (eight units or more with a digit, or 24
 * or more) are not given a vocabulary id: each part's such tokens go, joined by spaces, into a trigram index of their
 * own (rtri, rowid = the part's), which keeps no text. A run inside one is then a superset there, re-checked against the
 * stored bytes. A pure function of the token, so that a refresh classifies a token as the build did.
 */
export const RARE = process.env.WORD_RARE === '1'
export const RARE_CHUNK = Number(process.env.WORD_RARE_CHUNK ?? 32)
export const isRare = (tok) => tok.length >= 24 || (tok.length >= 8 && /[0-9]/.test(tok))

/**
 * What the index can say about a folded needle: its word runs and, for each, how a token must hold it. An all-word
 * needle is `inside` a token (exact); otherwise the first run is a token's `suffix`, the last one a `prefix`, one
 * between non-word units a `whole` token (a superset: the runs' order and what is between them is re-checked).
 */
export function runsOf(folded) {
  const runs = []
  let i = 0
  while (i < folded.length) {
    if (!isWordUnit(folded.charCodeAt(i))) {
      i++
      continue
    }
    let j = i
    while (j < folded.length && isWordUnit(folded.charCodeAt(j))) j++
    const atStart = i === 0
    const atEnd = j === folded.length
    runs.push({run: folded.slice(i, j), how: atStart && atEnd ? 'inside' : atStart ? 'suffix' : atEnd ? 'prefix' : 'whole'})
    i = j
  }
  return runs
}

/** 53-bit hash of a token (cyrb53): the vocabulary's lookup key, so that the token's text is stored once. */
export function hash53(str) {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 2654435761)
    h2 = Math.imul(h2 ^ ch, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

// ---------------------------------------------------------------------------------------------------------------------
// Rowids: ordered by time.
//
// search shows the newest hits: time descending (as ISO strings, which within years 0-9999 order as the milliseconds
// do), then agent, session, line descending, part order. A part's rowid is slot * SLOT + j, slot = its time in whole
// seconds (SLOT_MS), j the next free one in that slot; a full slot spills into the next one up, so a part's slot is never
// below its time's. Reading `ORDER BY rowid DESC` and stopping once 50 are read and the next rowid's slot is below the
// 50th's time's slot gives a superset of the newest 50, sorted then exactly. Whole seconds, not ms, and 64 per slot: the
// doclists store rowid deltas as varints, and a delta of ~1 s * 64 is one or two bytes where ~1 s * 1000 * 256 is three. Parts with no time, or one outside years 0-9999 (their ISO strings sort
// below every 4-digit year), take rowids in a bottom bucket, read whole when the newest 50 reach it.

export const SLOT = Number(process.env.WORD_SLOT ?? 64)
export const VBLOCK = Number(process.env.WORD_VBLOCK ?? 16)
export const SLOT_MS = Number(process.env.WORD_SLOT_MS ?? 1000)
const MIN_MS = -62_167_219_200_000 // 0000-01-01T00:00:00.000Z
const MAX_MS = 253_402_300_799_999 // 9999-12-31T23:59:59.999Z
export const BOTTOM = -(2 ** 52) // below every slot, and a safe integer (node:sqlite hands rowids over as numbers)
const normalTime = (t) => t !== undefined && t >= MIN_MS && t <= MAX_MS
export const slotOf = (rowid, slot = SLOT) => (rowid < BOTTOM / 2 ? -Infinity : Math.floor(rowid / slot))
export const slotOfTime = (t, slotMs = SLOT_MS) => Math.floor(t / slotMs)

/** Allocates rowids in a build (the counts per slot); a refresh would ask the table for the slot's highest rowid. */
export function rowidAllocator() {
  const used = new Map()
  let bottom = 0
  return (t) => {
    if (!normalTime(t)) return BOTTOM + bottom++
    let slot = slotOfTime(t)
    for (;;) {
      const n = used.get(slot) ?? 0
      if (n < SLOT) {
        used.set(slot, n + 1)
        return slot * SLOT + n
      }
      slot++
    }
  }
}

const SCHEMA = `
PRAGMA journal_mode = WAL;
CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER) STRICT;
CREATE TABLE transcripts(id INTEGER PRIMARY KEY, path TEXT NOT NULL) STRICT;
-- Where each part is: its line (1-based), the line's bytes, and which of the line's parts it is.
CREATE TABLE parts(id INTEGER PRIMARY KEY, transcript INTEGER NOT NULL, line INTEGER NOT NULL, "offset" INTEGER NOT NULL, bytes INTEGER NOT NULL, part INTEGER NOT NULL) STRICT;
-- The words: one row per part, its tokens' vocabulary ids (base 36) as the text; no text, no positions kept.
CREATE VIRTUAL TABLE words USING fts5(ids, content='', contentless_delete=1, tokenize='ascii', detail=none);
-- The vocabulary, with its trigrams: one row per block of VBLOCK ids, the block's tokens joined by spaces in id order
-- (a token never holds a space; block 0 starts with an empty one, id 0), so that the text is kept once (FTS5's content
-- table), a block's tokens share their trigrams' postings, and FTS5 pays its per-row cost once per block. A token is found
-- by its trigrams (a refresh would look up a new text's tokens so too), one of fewer than three characters by instr()
-- over the blocks. Tokens are folded already: case_sensitive keeps SQLite from folding them again.
CREATE VIRTUAL TABLE vtri USING fts5(tokens, tokenize='trigram case_sensitive 1', detail=none, columnsize=0);
-- Lines that are not JSON: search counts one in badLines when its raw text matches. Their raw text's tokens.
CREATE TABLE bad(id INTEGER PRIMARY KEY, transcript INTEGER NOT NULL, line INTEGER NOT NULL, "offset" INTEGER NOT NULL, bytes INTEGER NOT NULL) STRICT;
CREATE VIRTUAL TABLE bad_words USING fts5(ids, content='', contentless_delete=1, tokenize='ascii', detail=none);
-- With WORD_RARE=1: the id-like tokens (see isRare) as trigrams only, one row per chunk of RARE_CHUNK parts in rowid
-- order (rowid = the chunk's number: small deltas in the doclists), and the range of part rowids each chunk covers.
CREATE VIRTUAL TABLE rtri USING fts5(tokens, content='', contentless_delete=1, tokenize='trigram case_sensitive 1', detail=none);
CREATE TABLE rchunks(id INTEGER PRIMARY KEY, lo INTEGER NOT NULL, hi INTEGER NOT NULL) STRICT;
`

async function searchText() {
  return import(path.join(root, 'dist', 'sessions', 'search-text.js'))
}

/** Builds the index of every *.jsonl* file in `dir` into `dbFile`. */
export async function build(dir, dbFile) {
  const {partsOf, timeOf} = await searchText()
  for (const s of ['', '-wal', '-shm']) fs.rmSync(`${dbFile}${s}`, {force: true})
  const t0 = process.hrtime.bigint()
  const cpu0 = process.cpuUsage()
  const vocab = new Map()
  const alloc = rowidAllocator()
  const files = fs.readdirSync(dir).filter((n) => n.includes('.jsonl')).sort()
  // Collected first, inserted in rowid order: FTS5 flushes its pending terms whenever a rowid is not above the last one.
  const rowids = []
  const idsText = []
  const where = [] // transcript, line, offset, bytes, part: 5 numbers per part
  const bads = []
  let textBytes = 0
  let lines = 0
  const idOf = (tok) => {
    let id = vocab.get(tok)
    if (id === undefined) {
      id = vocab.size + 1
      vocab.set(tok, id)
    }
    return id
  }
  const idsOf = (tokens) => {
    let s = ''
    for (const tok of tokens) s += `${s ? ' ' : ''}${idOf(tok).toString(36)}`
    return s
  }
  const rareText = []
  let rareChars = 0
  /** A part's tokens: the rare ones aside (WORD_RARE), the others' ids. */
  const splitOf = (tokens) => {
    if (!RARE) return idsOf(tokens)
    const keep = []
    const rare = []
    for (const tok of tokens) (isRare(tok) ? rare : keep).push(tok)
    rareText.push(rare.join(' '))
    for (const r of rare) rareChars += r.length
    return idsOf(keep)
  }
  for (let f = 0; f < files.length; f++) {
    const buf = fs.readFileSync(path.join(dir, files[f]))
    let line = 0
    for (let from = 0; from < buf.length; ) {
      let nl = buf.indexOf(10, from)
      // An unterminated last line is not indexed (the catalog reads it at query time).
      if (nl < 0) break
      line++
      lines++
      const raw = buf.toString('utf8', from, nl)
      let v
      try {
        v = JSON.parse(raw)
      } catch {}
      if (v === null || typeof v !== 'object' || Array.isArray(v)) {
        if (raw.trim() !== '') bads.push({transcript: f + 1, line, offset: from, bytes: nl - from, ids: idsOf(tokensOf(fold(raw)))})
      } else {
        const parts = partsOf(v)
        if (parts.length > 0) {
          const t = timeOf(v)
          for (let p = 0; p < parts.length; p++) {
            const text = parts[p].text
            textBytes += Buffer.byteLength(text)
            rowids.push(alloc(t))
            idsText.push(splitOf(tokensOf(fold(text))))
            where.push(f + 1, line, from, nl - from, p)
          }
        }
      }
      from = nl + 1
    }
  }
  const tRead = process.hrtime.bigint()
  const order = Uint32Array.from(rowids.keys()).sort((a, b) => rowids[a] - rowids[b])
  const db = new DatabaseSync(dbFile)
  db.exec('PRAGMA synchronous = OFF')
  db.exec(SCHEMA)
  db.exec('BEGIN')
  db.prepare('INSERT INTO meta VALUES (?, ?), (?, ?), (?, ?), (?, ?)').run('slot', SLOT, 'slot_ms', SLOT_MS, 'vblock', VBLOCK, 'rare', RARE ? 1 : 0)
  const insR = db.prepare('INSERT INTO rtri(rowid, tokens) VALUES (?, ?)')
  const insC = db.prepare('INSERT INTO rchunks(id, lo, hi) VALUES (?, ?, ?)')
  let chunk = []
  let chunkNo = 0
  let chunkLo
  let chunkParts = 0
  const flushChunk = (hi) => {
    if (chunk.length > 0) {
      insR.run(++chunkNo, chunk.join(' '))
      insC.run(chunkNo, chunkLo, hi)
    }
    chunk = []
    chunkParts = 0
  }
  const insT = db.prepare('INSERT INTO transcripts(id, path) VALUES (?, ?)')
  files.forEach((n, i) => insT.run(i + 1, path.join(dir, n)))
  const insW = db.prepare('INSERT INTO words(rowid, ids) VALUES (?, ?)')
  const insP = db.prepare('INSERT INTO parts(id, transcript, line, "offset", bytes, part) VALUES (?, ?, ?, ?, ?, ?)')
  let n = 0
  for (const i of order) {
    const r = rowids[i]
    insW.run(r, idsText[i])
    if (RARE) {
      if (chunkParts === 0) chunkLo = r
      if (rareText[i]) chunk.push(rareText[i])
      if (++chunkParts === RARE_CHUNK) flushChunk(r)
    }
    insP.run(r, where[5 * i], where[5 * i + 1], where[5 * i + 2], where[5 * i + 3], where[5 * i + 4])
    if (++n % 100_000 === 0) db.exec('COMMIT; BEGIN')
  }
  if (RARE && chunkParts > 0) flushChunk(rowids[order[order.length - 1]])
  const insB = db.prepare('INSERT INTO bad(id, transcript, line, "offset", bytes) VALUES (?, ?, ?, ?, ?)')
  const insBW = db.prepare('INSERT INTO bad_words(rowid, ids) VALUES (?, ?)')
  bads.forEach((b, i) => {
    insB.run(i + 1, b.transcript, b.line, b.offset, b.bytes)
    insBW.run(i + 1, b.ids)
  })
  db.exec('COMMIT')
  const tWords = process.hrtime.bigint()
  db.exec('BEGIN')
  const insVT = db.prepare('INSERT INTO vtri(rowid, tokens) VALUES (?, ?)')
  // Ids are 1, 2, ... in the Map's order: block b holds ids b*VBLOCK .. b*VBLOCK+VBLOCK-1, position id % VBLOCK.
  let block = ['']
  let blockNo = 0
  for (const [tok, id] of vocab) {
    const b = Math.floor(id / VBLOCK)
    if (b !== blockNo) {
      insVT.run(blockNo, block.join(' '))
      block = []
      blockNo = b
    }
    block.push(tok)
  }
  insVT.run(blockNo, block.join(' '))
  db.exec('COMMIT')
  const tVocab = process.hrtime.bigint()
  db.exec("INSERT INTO words(words) VALUES ('optimize'); INSERT INTO vtri(vtri) VALUES ('optimize'); INSERT INTO rtri(rtri) VALUES ('optimize')")
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  const tOptimize = process.hrtime.bigint()
  const unvacuumed = fs.statSync(dbFile).size
  // FTS5's optimize leaves the pages of the segments it merged free in the file: VACUUM gives them back.
  if (process.env.WORD_VACUUM !== '0') db.exec('VACUUM')
  const sizes = Object.fromEntries(db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all().map((r) => [r.name, r.bytes]))
  db.close()
  const group = (re) => Object.entries(sizes).filter(([k]) => re.test(k)).reduce((s, [, v]) => s + v, 0)
  const cpu = process.cpuUsage(cpu0)
  const ms = (a, b) => Math.round(Number(b - a) / 1e6)
  return {
    files: files.length,
    lines,
    parts: rowids.length,
    badLines: bads.length,
    vocab: vocab.size,
    vocabChars: [...vocab.keys()].reduce((s, t) => s + t.length, 0),
    textBytes,
    bytes: fs.statSync(dbFile).size,
    unvacuumedBytes: unvacuumed,
    slot: SLOT,
    slotMs: SLOT_MS,
    vblock: VBLOCK,
    wordsBytes: group(/^words/),
    partsBytes: group(/^parts$/),
    vocabBytes: group(/^vtri_content$/),
    vtriBytes: group(/^vtri(?!_content$)/),
    otherBytes: group(/^(transcripts|bad|bad_words.*|sqlite_.*)$/),
    rare: RARE,
    rareChars,
    rtriBytes: group(/^(rtri|rchunks)/),
    rareChunk: RARE_CHUNK,
    ms: {read: ms(t0, tRead), words: ms(tRead, tWords), vocab: ms(tWords, tVocab), optimize: ms(tVocab, tOptimize), vacuum: ms(tOptimize, process.hrtime.bigint()), total: ms(t0, process.hrtime.bigint())},
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Query.

/** More vocabulary terms than this for one run and the index is not asked (a caller would scan). */
export const MAX_TERMS = 200_000
/**
 * At most this many terms are ORed in one FTS5 query: its OR finds each next rowid by asking every term, so a query of
 * n single-row terms costs n^2 (11 885 unique ids: 4 s). More terms are asked in chunks, their rowids united here.
 */
const CHUNK = 64

/**
 * The vocabulary ids of the tokens that hold `run` as `how` says. Runs of three units or more are looked up in the
 * vocabulary's trigram index (the trigrams covering the run, ANDed) and each token of the blocks found checked; shorter
 * ones by instr() over every block.
 */
export function termsOf(db, run, how) {
  const ok = how === 'inside' ? (t) => t.includes(run) : how === 'suffix' ? (t) => t.endsWith(run) : how === 'prefix' ? (t) => t.startsWith(run) : (t) => t === run
  const vblock = db.prepare("SELECT value FROM meta WHERE key = 'vblock'").get().value
  let blocks
  if (run.length >= 3 && !/[\ud800-\udfff]/.test(run)) {
    const q = gramsQuery(run)
    blocks = db.prepare('SELECT rowid AS b, tokens FROM vtri WHERE vtri MATCH ?').all(q)
  } else blocks = db.prepare('SELECT rowid AS b, tokens FROM vtri WHERE instr(tokens, ?) > 0').all(run)
  const rows = []
  for (const {b, tokens} of blocks) tokens.split(' ').forEach((token, i) => rows.push({id: b * vblock + i, token}))
  return rows.filter((r) => ok(r.token)).map((r) => r.id)
}

/** The FTS5 query of the trigrams that cover a run (of three units or more), ANDed. */
function gramsQuery(run) {
  const grams = new Set()
  const cps = [...run]
  for (let i = 0; i + 3 <= cps.length; i += 3) grams.add(cps.slice(i, i + 3).join(''))
  if (cps.length % 3 !== 0) grams.add(cps.slice(cps.length - 3).join(''))
  return [...grams].map((g) => `"${g.replaceAll('"', '""')}"`).join(' AND ')
}

/**
 * What the index says of a needle's runs in `table` (words, or bad_words): per run the OR of its terms, the runs ANDed.
 * {query} for FTS5 when every run has at most CHUNK terms; else {ids}: the matching rowids, newest first, united from
 * chunked queries and intersected here; {none} when a run has no term; {fallback} past MAX_TERMS.
 */
function matchOf(db, table, runs) {
  const groups = []
  let terms = 0
  for (const {run, how} of runs) {
    const ids = termsOf(db, run, how)
    if (ids.length === 0) return {none: true, terms}
    terms += ids.length
    if (terms > MAX_TERMS) return {fallback: true, terms}
    groups.push(ids)
  }
  if (groups.every((g) => g.length <= CHUNK)) return {query: groups.map((g) => `(${g.map((id) => id.toString(36)).join(' OR ')})`).join(' AND '), terms}
  const stmt = db.prepare(`SELECT rowid AS id FROM ${table} WHERE ${table} MATCH ?`)
  let acc
  for (const g of groups) {
    const set = new Set()
    for (let i = 0; i < g.length; i += CHUNK) {
      for (const {id} of stmt.iterate(g.slice(i, i + CHUNK).map((x) => x.toString(36)).join(' OR '))) if (!acc || acc.has(id)) set.add(id)
    }
    acc = set
  }
  return {ids: Float64Array.from(acc).sort().reverse(), terms}
}

/** Reads one line of a transcript (the bytes the build recorded). */
function readLine(fds, file, offset, bytes) {
  let fd = fds.get(file)
  if (fd === undefined) fds.set(file, (fd = fs.openSync(file, 'r')))
  const buf = Buffer.allocUnsafe(bytes)
  fs.readSync(fd, buf, 0, bytes, offset)
  return buf.toString('utf8')
}

/** A search of `pattern` (a literal, smart case) over the index, as `sessions search --include-archived --json` answers it. */
export async function query(dbFile, pattern, {limit = 50, statDir} = {}) {
  // Where a whole search's time goes (in-process, ms since the module started): loading search's code, the stat pass,
  // opening the db, the vocabulary lookup, the count, the newest hits read back, their snippets.
  const marks = {}
  const t0 = performance.now()
  const mark = (k) => (marks[k] = Math.round((performance.now() - t0) * 10) / 10)
  const [{partsOf, timeOf}, {compileMatcher}] = await Promise.all([searchText(), import(path.join(root, 'dist', 'sessions', 'search-matcher.js'))])
  // What a fresh catalog costs before it answers when nothing changed: one stat per transcript.
  mark('imports')
  if (statDir) for (const n of fs.readdirSync(statDir)) if (n.includes('.jsonl')) fs.statSync(path.join(statDir, n))
  mark('stat')
  const matcher = compileMatcher(pattern, {})
  const db = new DatabaseSync(dbFile, {readOnly: true})
  const meta = Object.fromEntries(db.prepare('SELECT key, value FROM meta').all().map((r) => [r.key, r.value]))
  const runs = runsOf(fold(pattern))
  // Exact: one all-word run under ignore-case. Else the index names a superset, re-checked against the stored bytes.
  const exact = matcher.ignoreCase && runs.length === 1 && runs[0].how === 'inside'
  mark('open')
  const m = runs.length === 0 ? {fallback: true, terms: 0} : matchOf(db, 'words', runs)
  mark('lookup')
  const terms = m.terms
  if (m.fallback) return {pattern, fallback: runs.length === 0 ? 'no word unit in the needle: scan' : `more than ${MAX_TERMS} vocabulary terms: scan`, terms}
  // Id-like tokens kept as trigrams only (WORD_RARE): a run of fewer than three units may be inside one of any part.
  const rare = meta.rare === 1
  if (rare && runs.every((r) => r.run.length < 3)) return {pattern, fallback: 'every word run under three units, and id-like tokens are kept as trigrams: scan', terms}
  // The parts of the chunks whose id-like tokens hold the run's trigrams.
  const rareIds = (run) => {
    const out = []
    const partsIn = db.prepare('SELECT id FROM parts WHERE id BETWEEN ? AND ?')
    for (const {lo, hi} of db.prepare('SELECT c.lo, c.hi FROM rtri JOIN rchunks c ON c.id = rtri.rowid WHERE rtri MATCH ?').iterate(gramsQuery(run))) for (const {id} of partsIn.iterate(lo, hi)) out.push(id)
    return out
  }
  const paths = new Map(db.prepare('SELECT id, path FROM transcripts').all().map((r) => [r.id, r.path]))
  const fds = new Map()
  const partAt = db.prepare('SELECT transcript, line, "offset", bytes, part FROM parts WHERE id = ?')
  const parsed = new Map()
  const lineOf = (w) => {
    const k = `${w.transcript}:${w.line}`
    let v = parsed.get(k)
    if (v === undefined) parsed.set(k, (v = JSON.parse(readLine(fds, paths.get(w.transcript), w.offset, w.bytes))))
    return v
  }
  const holds = (text) => (matcher.test ? matcher.test(text) : matcher.matches(text).length > 0)
  // A superset's candidate line is parsed only when its stored bytes hold the matcher's needle (the scan's raw
  // prefilter: ASCII case folding under ignore-case; this RegExp folds a little more, which only lets more through).
  const esc = (x) => x.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  const raw = matcher.filter ? matcher.filter.needles.map((n) => new RegExp(esc(n), matcher.filter.ignoreCase ? 'i' : '')) : []
  const rawHolds = (line) => raw.length === 0 || raw.some((re) => re.test(line))
  const skipped = new Set()
  /** The hit of a part that matches (null: it does not; a superset's candidate). */
  const hitOf = (id, check = !exact) => {
    const w = partAt.get(id)
    const k = `${w.transcript}:${w.line}`
    if (check) {
      if (skipped.has(k)) return null
      if (!parsed.has(k)) {
        const line = readLine(fds, paths.get(w.transcript), w.offset, w.bytes)
        if (!rawHolds(line)) {
          skipped.add(k)
          return null
        }
        parsed.set(k, JSON.parse(line))
      }
    }
    const e = lineOf(w)
    const p = partsOf(e)[w.part]
    if (check && !holds(p.text)) return null
    const t = timeOf(e)
    return {w, e, p, t, time: t === undefined ? null : new Date(t).toISOString(), sessionId: path.basename(paths.get(w.transcript)).replace(/\.jsonl.*$/, '')}
  }
  let count = 0
  let kept = []
  if (exact) {
    if (!m.none) {
      const desc = m.ids ?? (function* () {
        for (const {id} of db.prepare('SELECT rowid AS id FROM words WHERE words MATCH ? ORDER BY rowid DESC').iterate(m.query)) yield id
      })()
      count = m.ids ? m.ids.length : db.prepare('SELECT count(*) AS n FROM words WHERE words MATCH ?').get(m.query).n
      mark('count')
      // The newest `limit`: rows in rowid order until `limit` are read and the next slot is below the last one's time.
      let floor
      for (const id of desc) {
        if (kept.length >= limit) {
          if (floor === undefined) {
            kept.sort(newestFirst)
            floor = kept[limit - 1].t
          }
          if (floor !== undefined && normalTime(floor) && slotOf(id, meta.slot) < slotOfTime(floor, meta.slot_ms)) break
        }
        kept.push(hitOf(id))
      }
    }
    if (rare) {
      // The parts whose id-like tokens may hold the needle, and which the words did not name: each read and checked.
      // (The CAST: node:sqlite binds a JS number as a REAL, and FTS5 silently drops a rowid bound that is not an INTEGER.)
      const named = m.none ? undefined : m.ids ? new Set(m.ids) : db.prepare('SELECT 1 AS x FROM words WHERE words MATCH ? AND rowid = CAST(? AS INTEGER)')
      const inWords = (id) => (named === undefined ? false : named instanceof Set ? named.has(id) : named.get(m.query, id) !== undefined)
      for (const id of rareIds(runs[0].run)) {
        if (inWords(id)) continue
        const h = hitOf(id, true)
        if (!h) continue
        count++
        kept.push(h)
      }
    }
  } else {
    let desc
    if (!rare) {
      desc = m.none ? [] : m.ids ?? (function* () {
        for (const {id} of db.prepare('SELECT rowid AS id FROM words WHERE words MATCH ? ORDER BY rowid DESC').iterate(m.query)) yield id
      })()
    } else {
      // Per run of three units or more: the parts the words name or whose id-like tokens may hold it; the runs ANDed.
      let acc
      for (const r of runs) {
        if (r.run.length < 3) continue
        const set = new Set(rareIds(r.run))
        const mr = matchOf(db, 'words', [r])
        if (mr.fallback) return {pattern, fallback: `more than ${MAX_TERMS} vocabulary terms: scan`, terms}
        if (mr.ids) for (const id of mr.ids) set.add(id)
        else if (!mr.none) for (const {id} of db.prepare('SELECT rowid AS id FROM words WHERE words MATCH ?').iterate(mr.query)) set.add(id)
        acc = acc === undefined ? set : new Set([...acc].filter((x) => set.has(x)))
      }
      desc = Float64Array.from(acc).sort().reverse()
    }
    // A superset: every candidate is read and checked (the count needs them all).
    for (const id of desc) {
      const h = hitOf(id)
      if (!h) continue
      count++
      kept.push(h)
      if (kept.length > 4 * limit) {
        kept.sort(newestFirst)
        kept.length = limit
      }
    }
  }
  mark('newest')
  // Lines that are not JSON: their raw text, re-checked.
  let badLines = 0
  const bm = runs.length > 0 && !m.none ? matchOf(db, 'bad_words', runs) : {none: true}
  if (!bm.none) {
    const badAt = db.prepare('SELECT transcript, "offset", bytes FROM bad WHERE id = ?')
    const ids = bm.ids ?? [...db.prepare('SELECT rowid AS id FROM bad_words WHERE bad_words MATCH ?').iterate(bm.query)].map((r) => r.id)
    for (const id of ids) {
      const b = badAt.get(id)
      if (holds(readLine(fds, paths.get(b.transcript), b.offset, b.bytes))) badLines++
    }
  }
  for (const fd of fds.values()) fs.closeSync(fd)
  kept.sort(newestFirst)
  kept = kept.slice(0, limit)
  const hits = kept.map(({w, e, p, time, sessionId}) => {
    const found = matcher.matches(p.text)
    const {snippet, matches} = snippetOf(p.text, found)
    return {sessionId, entryId: typeof e.id === 'string' ? e.id : null, time, role: p.role, kind: p.kind, ...(p.toolName === undefined ? {} : {toolName: p.toolName}), snippet, matches, matchCount: found.length, transcript: paths.get(w.transcript), line: w.line}
  })
  mark('snippets')
  return {pattern, ignoreCase: matcher.ignoreCase, exact, terms, count, badLines, hits, ms: marks}
}

/** search.ts's order (one agent here): time descending, then session, line descending, part order. */
function newestFirst(a, b) {
  const ta = a.time ?? ''
  const tb = b.time ?? ''
  if (ta !== tb) return ta < tb ? 1 : -1
  return a.sessionId.localeCompare(b.sessionId) || b.w.line - a.w.line || a.w.part - b.w.part
}

// search.ts's snippetOf (not exported there), the part the --json document shows.
const SNIPPET_BEFORE = 50
const SNIPPET_AFTER = 110
const isLow = (s, i) => {
  const c = s.charCodeAt(i)
  return c >= 0xdc00 && c <= 0xdfff
}
function snippetOf(text, all) {
  let from = Math.max(0, all[0].start - SNIPPET_BEFORE)
  let to = Math.min(text.length, Math.max(all[0].end, all[0].start + SNIPPET_AFTER))
  if (from > 0 && isLow(text, from)) from--
  if (to < text.length && isLow(text, to)) to++
  const snippet = text.slice(from, to).replace(/[\r\n\t\v\f]/g, ' ')
  const matches = all.filter((m) => m.start >= from && m.end <= to).map((m) => ({start: m.start - from, end: m.end - from}))
  return {snippet, matches}
}

/**
 * How the lookup scales with the vocabulary: per needle, the vocabulary lookup (trigrams, then each candidate checked)
 * and the count from the words table, in-process, the median of 5 after one warm-up.
 */
export function probe(dbFile, needles) {
  const db = new DatabaseSync(dbFile, {readOnly: true})
  const medianOf = (f) => {
    f()
    const xs = []
    let v
    for (let i = 0; i < 5; i++) {
      const t = process.hrtime.bigint()
      v = f()
      xs.push(Number(process.hrtime.bigint() - t) / 1e6)
    }
    return {v, ms: xs.sort((a, b) => a - b)[2]}
  }
  return needles.map((needle) => {
    const runs = runsOf(fold(needle))
    // The vocabulary lookup alone, then the whole count (lookup included: chunked terms are counted as they are united).
    const lookup = medianOf(() => runs.map(({run, how}) => termsOf(db, run, how).length).reduce((a, b) => a + b, 0))
    const count = medianOf(() => {
      const m = matchOf(db, 'words', runs)
      return m.fallback ? 'fallback' : m.none ? 0 : m.ids ? m.ids.length : db.prepare('SELECT count(*) AS n FROM words WHERE words MATCH ?').get(m.query).n
    })
    // WORD_RARE: the parts whose id-like tokens may hold it (each would be read and checked).
    const meta = Object.fromEntries(db.prepare('SELECT key, value FROM meta').all().map((r) => [r.key, r.value]))
    const rare = meta.rare === 1 && runs.length === 1 && runs[0].run.length >= 3 ? medianOf(() => db.prepare('SELECT count(*) AS n FROM rtri WHERE rtri MATCH ?').get(gramsQuery(runs[0].run)).n) : undefined
    return {needle, terms: lookup.v, lookupMs: lookup.ms, count: count.v, countMs: count.ms, ...(rare ? {rareCandidates: rare.v, rareMs: rare.ms} : {})}
  })
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [mode, a, b, ...rest] = process.argv.slice(2)
  const opt = (name) => {
    const i = rest.indexOf(name)
    return i >= 0 ? rest[i + 1] : undefined
  }
  if (mode === 'build' && a && b) console.log(JSON.stringify(await build(a, b)))
  else if (mode === 'probe' && a && b) console.log(JSON.stringify(probe(a, [b, ...rest])))
  else if (mode === 'query' && a && b) console.log(JSON.stringify(await query(a, b, {limit: Number(opt('--limit') ?? 50), statDir: opt('--stat')}), null, 2))
  else {
    console.error('usage: node scripts/word-index.js build <sessions dir> <db> | query <db> <needle> [--limit N] [--stat <sessions dir>]')
    process.exit(2)
  }
}
