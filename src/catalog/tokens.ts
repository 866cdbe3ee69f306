// The catalog's words: how a searchable part's text is folded and cut into the tokens of its full-text row, and how a
// search's needle is cut the same way into the runs the vocabulary is asked for. Kept apart from the rest of the catalog:
// a search builds its query (query.ts) without loading the catalog's writing code.
//
// The literal matcher under ignore-case is a RegExp with the `i` flag and no `u` flag (search-matcher.ts): two UTF-16
// units are equal iff their ECMA-262 non-unicode Canonicalize is (toUpperCase of the unit, kept only when it is one unit
// and does not turn a non-ASCII unit into an ASCII one: the Kelvin sign and the long s stay themselves). fold() maps
// each unit to one member of that class (ASCII: lower case; other units: the canonical unit), so folded equality is the
// matcher's equality, unit for unit, and a literal matches a text iff the folded literal is a substring of the folded
// text. A word unit is, after folding, an ASCII letter, digit or `_`, or any non-ASCII unit. Folding never moves a unit
// between ASCII and non-ASCII, nor an ASCII unit in or out of [0-9a-z_], so an occurrence of an all-word needle lies
// inside one maximal word run of the text: one token. (Measured as a prototype first: BENCHMARKS.md, "a word index".)

/**
 * The tokenizer of the words table: tokens are given already folded and joined by spaces; `_` is a token character
 * (every non-ASCII byte always is in `ascii`), so a token reaches FTS5 whole.
 */
export const WORDS_TOKENIZE = "ascii tokenchars '_'"

/**
 * A token longer than this many UTF-16 units is kept as overlapping pieces of this length, LONG_STEP apart (the last one
 * ends where the token does): any run of up to LONG_STEP units inside the token is inside one piece, and a piece is a
 * bounded term for FTS5 and the vocabulary (base64 blobs and minified code make tokens of many kilobytes).
 */
export const LONG_TOKEN = 256
export const LONG_STEP = 128

const canonCache = new Map<number, number>()
function canonicalUnit(c: number): number {
  let v = canonCache.get(c)
  if (v === undefined) {
    const u = String.fromCharCode(c).toUpperCase()
    v = u.length !== 1 || u.charCodeAt(0) < 0x80 ? c : u.charCodeAt(0)
    canonCache.set(c, v)
  }
  return v
}

const NON_ASCII = /[^\x00-\x7f]/

/** The text folded as the ignore-case literal matcher compares it (see above). */
export function fold(text: string): string {
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

export const isWordUnit = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c >= 0x80 || (c >= 0x41 && c <= 0x5a)
const ASCII_TOKENS = /[0-9a-z_]+/g
const TOKENS = /[0-9a-z_\u0080-\uffff]+/g

/** The distinct tokens of a text (folded here), long ones as their pieces. */
export function tokensOf(text: string, into: Set<string> = new Set()): Set<string> {
  const folded = fold(text)
  const found = folded.match(NON_ASCII.test(folded) ? TOKENS : ASCII_TOKENS)
  if (!found) return into
  for (const t of found) {
    if (t.length <= LONG_TOKEN) into.add(t)
    else {
      for (let i = 0; i + LONG_TOKEN < t.length; i += LONG_STEP) into.add(t.slice(i, i + LONG_TOKEN))
      into.add(t.slice(t.length - LONG_TOKEN))
    }
  }
  return into
}

/**
 * How a vocabulary token must hold a run of the needle for the needle to be in a part holding that token: `inside`
 * (the run may continue into the text on both sides), `suffix` (the token ends where the run does: a non-word unit
 * follows it in the needle), `prefix`, or `whole`.
 */
export type RunHow = 'inside' | 'suffix' | 'prefix' | 'whole'

export interface NeedleRun {
  run: string
  how: RunHow
}

/** Whether a vocabulary token holds a run as `how` says. */
export function tokenHolds(token: string, r: NeedleRun): boolean {
  switch (r.how) {
    case 'inside':
      return token.includes(r.run)
    case 'prefix':
      return token.startsWith(r.run)
    case 'suffix':
      return token.endsWith(r.run)
    default:
      return token === r.run
  }
}

const isSurrogate = (c: number) => c >= 0xd800 && c <= 0xdfff

/**
 * The word runs of a folded piece of a needle, each with how a token must hold it. `openStart`/`openEnd`: whether the
 * text may go on with word units before/after the piece (a literal's own ends are open: the match may sit inside a
 * word). A surrogate ends a run without closing it (a lone one is stored as U+FFFD, so the run is looked up in two
 * halves that a token holds anyway); a run longer than LONG_STEP is looked up by its first LONG_STEP units, inside.
 */
export function runsOfFolded(folded: string, openStart = true, openEnd = true): NeedleRun[] {
  const runs: NeedleRun[] = []
  let i = 0
  let closedBefore = !openStart
  while (i < folded.length) {
    const c = folded.charCodeAt(i)
    if (!isWordUnit(c) || isSurrogate(c)) {
      closedBefore = !isSurrogate(c)
      i++
      continue
    }
    let j = i
    while (j < folded.length && isWordUnit(folded.charCodeAt(j)) && !isSurrogate(folded.charCodeAt(j))) j++
    const closedAfter = j < folded.length ? !isSurrogate(folded.charCodeAt(j)) : !openEnd
    let run = folded.slice(i, j)
    let how: RunHow = closedBefore && closedAfter ? 'whole' : closedAfter ? 'suffix' : closedBefore ? 'prefix' : 'inside'
    if (run.length > LONG_STEP) {
      run = run.slice(0, LONG_STEP)
      how = 'inside'
    }
    runs.push({run, how})
    i = j
  }
  return runs
}
