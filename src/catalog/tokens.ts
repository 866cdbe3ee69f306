// The catalog's full-text tokens: each distinct trigram (three code points) of a span's text, found here rather than by
// SQLite's trigram tokenizer, and given to FTS5's `ascii` tokenizer one per line. The index holds the same postings a
// trigram tokenizer would (a span holds a trigram or it does not: detail=none keeps no counts or positions), but FTS5
// hashes each trigram once per span instead of once per position: an eighth of the tokens on the benchmark's text,
// and less than half of FTS5's time in a first build (BENCHMARKS.md). Kept apart from the rest of the catalog: a search's query (query.ts) folds with it.

/**
 * The tokenizer of the catalog's FTS5 table: every printable ASCII character is a token character (and every non-ASCII
 * byte is, always, in `ascii`), so the only separators are control characters: a token is one whole line of the text
 * given, one trigram. `ascii` folds A-Z to a-z, as tokens are folded here already.
 */
export const FTS_TOKENIZE = `ascii tokenchars '${" !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".replaceAll("'", "''")}'`

/**
 * Whether a code point can be in an indexed trigram: the characters a query's runs can hold (query.ts). Control
 * characters, DEL, surrogates (a lone one; a pair is one code point) and U+FFFD end a run there, so a trigram holding
 * one is never asked for and is not indexed; every other character is, as itself.
 */
export const indexable = (cp: number): boolean => !(cp < 0x20 || cp === 0x7f || cp === 0xfffd || (cp >= 0xd800 && cp <= 0xdfff))

/**
 * The one case folding of the index, for the text and the query alike: A-Z to a-z, nothing else. A search's matcher
 * folds only ASCII letters into each other under ignore-case (no `u` flag; RE2's k and s folds split the query's runs),
 * and a cased non-ASCII letter is left out of an ignore-case query's runs, so a match always holds its trigrams folded
 * this way. (SQLite's trigram tokenizer also folded non-ASCII letters; a query of one folded the same way, so neither
 * way is looser.)
 */
export const foldCode = (cp: number): number => (cp >= 0x41 && cp <= 0x5a ? cp + 0x20 : cp)

/** A trigram of the query (three code points, each indexable) as the index holds it. */
export function foldGram(gram: string): string {
  return gram.replace(/[A-Z]+/g, (s) => s.toLowerCase())
}

/**
 * Writes the distinct trigrams of texts, as tokens, into one growing buffer: `add` appends one span's tokens (UTF-8, each
 * followed by a newline) and says how many bytes they took. ASCII trigrams are found distinct by a bitmap of their
 * 21-bit codes, others by a Set.
 */
export class TokenWriter {
  buf: Buffer = Buffer.allocUnsafe(1 << 16)
  len = 0
  private readonly bits = new Uint8Array(1 << 18)
  private seen = new Int32Array(1 << 12)
  private other?: Set<string>

  /** Empties the buffer (what was written before is overwritten). */
  reset(): void {
    this.len = 0
  }

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n))
    this.buf.copy(next, 0, 0, this.len)
    this.buf = next
  }

  /** Appends the tokens of one span's text; returns their length in bytes. */
  add(text: string): number {
    const start = this.len
    // Locals, not fields, in the loop (~8 % of its time).
    const {bits} = this
    let {buf, len, seen} = this
    let seenN = 0
    let run = 0
    let c0 = 0
    let c1 = 0
    const n = text.length
    for (let i = 0; i < n; i++) {
      let cp = text.charCodeAt(i)
      if (cp < 0x80) {
        if (cp < 0x20 || cp === 0x7f) {
          run = 0
          continue
        }
        if (cp >= 0x41 && cp <= 0x5a) cp += 0x20
      } else {
        if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) {
          const lo = text.charCodeAt(i + 1)
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            cp = ((cp - 0xd800) << 10) + (lo - 0xdc00) + 0x10000
            i++
          }
        }
        if (!indexable(cp)) {
          run = 0
          continue
        }
      }
      if (run < 2) run++
      else if ((c0 | c1 | cp) < 0x80) {
        const k = (c0 << 14) | (c1 << 7) | cp
        const m = 1 << (k & 7)
        const byte = bits[k >> 3]
        if ((byte & m) === 0) {
          bits[k >> 3] = byte | m
          if (seenN === seen.length) {
            const more = new Int32Array(seen.length * 2)
            more.set(seen)
            this.seen = seen = more
          }
          seen[seenN++] = k
          if (len + 4 > buf.length) {
            this.len = len
            this.room(4)
            buf = this.buf
          }
          buf[len] = c0
          buf[len + 1] = c1
          buf[len + 2] = cp
          buf[len + 3] = 10
          len += 4
        }
      } else {
        const g = String.fromCodePoint(c0, c1, cp)
        const other = (this.other ??= new Set())
        if (!other.has(g)) {
          other.add(g)
          this.len = len
          this.room(13)
          buf = this.buf
          len += buf.write(g, len, 'utf8')
          buf[len++] = 10
        }
      }
      c0 = c1
      c1 = cp
    }
    for (let j = 0; j < seenN; j++) bits[seen[j] >> 3] = 0
    this.other?.clear()
    this.len = len
    return len - start
  }
}
