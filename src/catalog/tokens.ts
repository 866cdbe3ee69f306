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
import {canonicalNonAscii} from '../util/canonical-unit.js'

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

const NON_ASCII = /[^\x00-\x7f]/

/** The text folded as the ignore-case literal matcher compares it (see above). */
export function fold(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase()
  let out = ''
  let from = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) continue
    const f = canonicalNonAscii(c)
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

/** An ASCII token this long is id-like whatever it holds; a shorter one of 8 or more units is with a digit. */
const ID_LENGTH = 24
const ID_MIN = 8

/**
 * Whether a token is id-like: ASCII, and 24 units or more, or 8 or more with a digit (request ids, hashes, uuids' longer
 * groups, base64, numbers, timestamps). Such tokens are nearly all seen once, so a vocabulary of them would be most of
 * the index (1.18x the text on a store where ids are 16 % of it; BENCHMARKS.md "The word index"): they are kept out of
 * it, as the distinct trigrams of the span they are in (GramSet), and a needle that may sit inside one is read back and
 * judged (spans.ts). Which tokens are id-like changes only the index's size and speed, never an answer: a search asks
 * both the vocabulary and the trigrams.
 */
export function isIdToken(t: string): boolean {
  if (t.length < ID_MIN || NON_ASCII.test(t)) return false
  return t.length >= ID_LENGTH || /[0-9]/.test(t)
}

/**
 * The distinct tokens of a text (folded here): `words`, the vocabulary's (long ones as their pieces), and `ids`, the
 * id-like ones whole (isIdToken; their trigrams are what the index keeps of them).
 */
export function tokensOf(text: string): {words: Set<string>; ids: Set<string>} {
  const words = new Set<string>()
  const ids = new Set<string>()
  const folded = fold(text)
  const found = folded.match(NON_ASCII.test(folded) ? TOKENS : ASCII_TOKENS)
  if (!found) return {words, ids}
  for (const t of found) {
    if (isIdToken(t)) ids.add(t)
    else if (t.length <= LONG_TOKEN) words.add(t)
    else {
      for (let i = 0; i + LONG_TOKEN < t.length; i += LONG_STEP) words.add(t.slice(i, i + LONG_TOKEN))
      words.add(t.slice(t.length - LONG_TOKEN))
    }
  }
  return {words, ids}
}

/** The distinct trigrams of id-like tokens, as the index keeps them (GramSet's, in any order). */
export function gramsOf(ids: Iterable<string>): Set<string> {
  const out = new Set<string>()
  for (const t of ids) for (let i = 0; i + 3 <= t.length; i++) out.add(t.slice(i, i + 3))
  return out
}

/** A folded ASCII word unit as 0-36 ('0'-'9', '_', 'a'-'z'): a trigram of them is a number under 37^3. */
const gramCode = (c: number): number => (c <= 0x39 ? c - 0x30 : c === 0x5f ? 10 : c - 0x61 + 11)
const GRAM_CHARS = '0123456789_abcdefghijklmnopqrstuvwxyz'

/**
 * The distinct trigrams of the id-like tokens of a span's lines (a bitmap of the 37^3 possible ones and the list of
 * those set), written as one row of the id trigram table: a trigram is a term of its own, so that the table's
 * tokenizer only splits on spaces and no term runs across two tokens.
 */
export class GramSet {
  private readonly seen = new Uint8Array(37 * 37 * 37)
  private used: number[] = []

  get size(): number {
    return this.used.length
  }

  /** Adds the trigrams of the folded id-like token at [s, s + len) of `f` (ASCII word units only). */
  add(f: string, s: number, len: number): void {
    if (len < 3) return
    let a = gramCode(f.charCodeAt(s))
    let b = gramCode(f.charCodeAt(s + 1))
    for (let i = s + 2; i < s + len; i++) {
      const c = gramCode(f.charCodeAt(i))
      const code = a * 1369 + b * 37 + c
      if (this.seen[code] === 0) {
        this.seen[code] = 1
        this.used.push(code)
      }
      a = b
      b = c
    }
  }

  /** The trigrams, space-separated ('' for none). */
  text(): string {
    let out = ''
    for (const code of this.used) {
      if (out) out += ' '
      out += GRAM_CHARS[Math.floor(code / 1369)] + GRAM_CHARS[Math.floor(code / 37) % 37] + GRAM_CHARS[code % 37]
    }
    return out
  }

  clear(): void {
    for (const code of this.used) this.seen[code] = 0
    this.used = []
  }
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

const wellFormed = (s: string): string => (s as unknown as {toWellFormed(): string}).toWellFormed()

/**
 * Writes parts' distinct vocabulary tokens (tokensOf's `words`, exactly: test/catalog/tokens.test.ts compares them) into
 * one growing UTF-8 buffer, space-separated, without making a string per token: a first build tokenizes every part of
 * every transcript, and tokensOf's strings and Set cost ~45 ns a character there, this ~10. Tokens are found distinct
 * within a part by a hash table of their places in the folded text, and within a chunk (`vocab`: the distinct tokens
 * written since resetVocab, as strings, a lone surrogate as U+FFFD as SQLite stores it) by a second one. Id-like tokens
 * (tokensOf's `ids`) go to `grams` instead, which the digest empties span by span.
 */
export class TokenWriter {
  buf: Buffer = Buffer.allocUnsafe(1 << 16)
  len = 0
  /** The distinct tokens written since resetVocab. */
  vocab: string[] = []
  /** The trigrams of the id-like tokens added since it was last cleared (digest.ts: per span). */
  readonly grams = new GramSet()
  // The part's tokens: open addressing over slot -> entry + 1; entries' hash, start and length in the folded text.
  private slots = new Int32Array(1 << 10)
  private used: number[] = []
  private hashes = new Int32Array(1 << 9)
  private starts = new Int32Array(1 << 9)
  private lens = new Int32Array(1 << 9)
  private n = 0
  /** Tokens written for the part being added (the separator goes before all but the first). */
  private written = 0
  // The chunk's tokens: slot -> vocab index + 1, and each one's hash.
  private vslots = new Int32Array(1 << 12)
  private vhashes: number[] = []
  private long?: Set<string>

  reset(): void {
    this.len = 0
  }

  resetVocab(): void {
    this.vocab = []
    this.vhashes = []
    this.vslots.fill(0)
  }

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n))
    this.buf.copy(next, 0, 0, this.len)
    this.buf = next
  }

  /** Appends the distinct vocabulary tokens of one part's text (its id-like ones to `grams`); returns how many it wrote. */
  add(text: string): number {
    const f = fold(text)
    const end = f.length
    let s = -1
    let h = 0
    let ascii = true
    let digit = false
    this.written = 0
    for (let i = 0; i <= end; i++) {
      const c = i < end ? f.charCodeAt(i) : 32
      if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c >= 0x80) {
        if (s < 0) {
          s = i
          h = 0x811c9dc5 | 0
          ascii = true
          digit = false
        }
        h = Math.imul(h ^ c, 0x01000193)
        if (c >= 0x80) ascii = false
        else if (c <= 0x39) digit = true
      } else if (s >= 0) {
        const len = i - s
        // isIdToken's rule, on what the loop knows of the token.
        if (ascii && (len >= ID_LENGTH || (len >= ID_MIN && digit))) this.grams.add(f, s, len)
        else if (len > LONG_TOKEN) this.addLong(f.slice(s, i))
        else this.token(f, s, len, h, ascii)
        s = -1
      }
    }
    const found = this.written
    for (const slot of this.used) this.slots[slot] = 0
    this.used.length = 0
    this.n = 0
    this.long?.clear()
    return found
  }

  /** One token of the folded text at [s, s + len): written unless the part has it already. */
  private token(f: string, s: number, len: number, h: number, ascii: boolean): void {
    let mask = this.slots.length - 1
    if (this.n * 2 >= mask) {
      this.grow()
      mask = this.slots.length - 1
    }
    let slot = h & mask
    for (;;) {
      const e = this.slots[slot]
      if (e === 0) break
      const k = e - 1
      if (this.hashes[k] === h && this.lens[k] === len && sameRun(f, this.starts[k], f, s, len)) return
      slot = (slot + 1) & mask
    }
    const k = this.n++
    if (k >= this.hashes.length) {
      const more = (a: Int32Array) => {
        // At least k + 1: addLong's pieces take numbers without entries here, so k may be past twice the length.
        const b = new Int32Array(Math.max(a.length * 2, k + 1))
        b.set(a)
        return b
      }
      this.hashes = more(this.hashes)
      this.starts = more(this.starts)
      this.lens = more(this.lens)
    }
    this.hashes[k] = h
    this.starts[k] = s
    this.lens[k] = len
    this.slots[slot] = k + 1
    this.used.push(slot)
    this.room(len * 3 + 1)
    const {buf} = this
    if (this.written++ > 0) buf[this.len++] = 0x20
    if (ascii) {
      for (let i = 0; i < len; i++) buf[this.len + i] = f.charCodeAt(s + i)
      this.len += len
    } else this.len += buf.write(f.slice(s, s + len), this.len, 'utf8')
    this.vocabOf(f, s, len, h, ascii)
  }

  /** A token of more than LONG_TOKEN units: its pieces (tokensOf's), each written unless the part has it already. */
  private addLong(t: string): void {
    const pieces: string[] = []
    for (let i = 0; i + LONG_TOKEN < t.length; i += LONG_STEP) pieces.push(t.slice(i, i + LONG_TOKEN))
    pieces.push(t.slice(t.length - LONG_TOKEN))
    const long = (this.long ??= new Set())
    for (const p of pieces) {
      if (long.has(p)) continue
      long.add(p)
      let h = 0x811c9dc5 | 0
      let ascii = true
      for (let i = 0; i < p.length; i++) {
        const c = p.charCodeAt(i)
        h = Math.imul(h ^ c, 0x01000193)
        if (c >= 0x80) ascii = false
      }
      // The part's table is not asked: only a token of exactly LONG_TOKEN units can equal a piece, and then the part's row
      // holds it twice, which a table without positions keeps as one.
      this.n++
      this.room(p.length * 3 + 1)
      if (this.written++ > 0) this.buf[this.len++] = 0x20
      this.len += this.buf.write(p, this.len, ascii ? 'latin1' : 'utf8')
      this.vocabOf(p, 0, p.length, h, ascii)
    }
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2)
    const mask = slots.length - 1
    for (const slot of this.used) {
      const e = this.slots[slot]
      let s = this.hashes[e - 1] & mask
      while (slots[s] !== 0) s = (s + 1) & mask
      slots[s] = e
    }
    this.used = []
    for (let s = 0; s < slots.length; s++) if (slots[s] !== 0) this.used.push(s)
    this.slots = slots
  }

  /** Records a token in the chunk's vocabulary unless it is there. */
  private vocabOf(f: string, s: number, len: number, h: number, ascii: boolean): void {
    let mask = this.vslots.length - 1
    if (this.vocab.length * 2 >= mask) {
      const slots = new Int32Array(this.vslots.length * 2)
      mask = slots.length - 1
      for (let k = 0; k < this.vocab.length; k++) {
        let slot = this.vhashes[k] & mask
        while (slots[slot] !== 0) slot = (slot + 1) & mask
        slots[slot] = k + 1
      }
      this.vslots = slots
    }
    let slot = h & mask
    for (;;) {
      const e = this.vslots[slot]
      if (e === 0) break
      const v = this.vocab[e - 1]
      if (this.vhashes[e - 1] === h && v.length === len && sameRun(v, 0, f, s, len)) return
      slot = (slot + 1) & mask
    }
    const t = f.slice(s, s + len)
    this.vocab.push(ascii ? t : wellFormed(t))
    this.vhashes.push(h)
    this.vslots[slot] = this.vocab.length
  }
}

function sameRun(a: string, as: number, b: string, bs: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (a.charCodeAt(as + i) !== b.charCodeAt(bs + i)) return false
  return true
}
