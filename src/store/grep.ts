// The raw-line prefilter behind SessionStore.grepLines: finds the stored lines whose bytes contain one of a few needles
// without decoding or parsing the others. It knows nothing of JSON: the caller (sessions search) picks needles that a
// line must contain to hold a hit, and the store only promises never to skip a line that contains one.
import type {SimdBlock} from './grep-simd.js'
import type {RawLineFilter} from './types.js'

/**
 * How rare each ASCII byte is in transcripts (higher = rarer), roughly: English text and JSON keys. The search runs
 * Buffer.indexOf from the needle's rarest byte, because Node's search memchr()s for the first byte of what it looks
 * for: a rare first byte is skipped over at memory speed, a common one (space, 'e', '"') is verified at every hit.
 */
const COMMON = ' e"taoinsrhldcu:,mpfgwyb.v{}k0-1_2jx\nTSAIC3Mq459876NzPBDERLFOHWGUV/\\Y[]KJXZQ'
function rarity(b: number): number {
  const at = COMMON.indexOf(String.fromCharCode(b))
  return b >= 0x80 ? COMMON.length + 1 : at < 0 ? COMMON.length : at
}

const isLetter = (b: number) => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a)
const fold = (b: number) => (isLetter(b) ? b | 0x20 : b)

/** One needle, searched from its rarest byte: `anchor` (the needle from byte `k` on, in each case variant) is found by Buffer.indexOf, the rest verified here. */
interface Needle {
  bytes: Buffer
  k: number
  variants: Buffer[]
  ignoreCase: boolean
}

function compile(text: string, ignoreCase: boolean): Needle | undefined {
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length === 0) return undefined
  const weight = (b: number) => (ignoreCase && isLetter(b) ? Math.min(rarity(b | 0x20), rarity(b & ~0x20)) : rarity(b))
  let k = 0
  for (let i = 1; i < bytes.length; i++) if (weight(bytes[i]) > weight(bytes[k])) k = i
  // Under ignoreCase the anchor is cut after its third letter and searched in each case variant (at most eight
  // Buffer.indexOf passes, those starting with a capital cheap); the whole needle is then compared folded at each
  // candidate. Two letters left too many candidates to verify one by one in JavaScript ("ku" of kubeconfig in backup).
  let variants = [bytes.subarray(k)]
  if (ignoreCase) {
    let end = k
    for (let letters = 0; end < bytes.length; end++) {
      if (isLetter(bytes[end]) && ++letters > 3) break
    }
    variants = [Buffer.from(bytes.subarray(k, end))]
    for (let i = 0; i < end - k; i++) {
      if (!isLetter(variants[0][i])) continue
      variants = variants.flatMap((v) => {
        const lower = Buffer.from(v)
        const upper = Buffer.from(v)
        lower[i] |= 0x20
        upper[i] &= ~0x20
        return [lower, upper]
      })
    }
  }
  return {bytes, k, variants, ignoreCase}
}

function matchesAt(n: Needle, buf: Uint8Array, at: number, end = buf.length): boolean {
  if (at < 0 || at + n.bytes.length > end) return false
  if (!n.ignoreCase) {
    for (let i = 0; i < n.bytes.length; i++) if (buf[at + i] !== n.bytes[i]) return false
    return true
  }
  for (let i = 0; i < n.bytes.length; i++) if (fold(buf[at + i]) !== fold(n.bytes[i])) return false
  return true
}

/**
 * The characters of a needle a database is asked for (SQLite's LIKE refuses a pattern over 50 000 bytes as "too
 * complex", and matches a long one in time that grows with its length at every row): its first SQL_NEEDLE_CHARS. A line
 * holding the needle holds that prefix, so the database's answer stays a superset, which is all grepLines promises;
 * the caller checks what it keeps. A surrogate pair is never split.
 */
export const SQL_NEEDLE_CHARS = 256
export function sqlNeedle(needle: string): string {
  if (needle.length <= SQL_NEEDLE_CHARS) return needle
  const end = SQL_NEEDLE_CHARS - (/[\ud800-\udbff]/.test(needle[SQL_NEEDLE_CHARS - 1]) ? 1 : 0)
  return needle.slice(0, end)
}

/** A compiled filter: where the next needle occurs in a buffer of whole lines, and whether a string holds one. */
export interface LineGrep {
  /** Start of the first occurrence of any needle at or after `from` in `buf` (a view of whole lines only), or -1. */
  next(buf: Buffer, from: number): number
  /** Whether the line's text contains a needle (for backends that hold lines as strings). */
  test(text: string): boolean
}

/** Finds occurrences region by region; each needle remembers its next hit so a region is searched once per variant. */
export function compileGrep(filter: RawLineFilter): LineGrep {
  let needles = compiled.get(filter)
  if (!needles) {
    needles = filter.needles.map((t) => compile(t, filter.ignoreCase)).filter((n): n is Needle => n !== undefined)
    compiled.set(filter, needles)
  }
  return grepOf(needles)
}

/** A search reads many transcripts with one filter: its needles are compiled once (and their SIMD pairs). */
const compiled = new WeakMap<RawLineFilter, Needle[]>()
const compiledPairs = new WeakMap<RawLineFilter, Pair[]>()

function grepOf(needles: Needle[]): LineGrep {
  // next[i][v]: the next verified occurrence of needles[i] found through its variant v in `current` (-2: not searched).
  let current: Buffer | undefined
  let next: number[][] = []
  const first = (buf: Buffer, from: number): number => {
    if (buf !== current) {
      current = buf
      next = needles.map((n) => n.variants.map(() => -2))
    }
    let best = -1
    for (let i = 0; i < needles.length; i++) {
      const n = needles[i]
      for (let v = 0; v < n.variants.length; v++) {
        let at = next[i][v]
        if (at === -2 || (at !== -1 && at - n.k < from)) {
          let start = Math.max(from + n.k, at + 1)
          for (;;) {
            at = buf.indexOf(n.variants[v], start)
            if (at === -1 || matchesAt(n, buf, at - n.k)) break
            start = at + 1
          }
          next[i][v] = at
        }
        if (at !== -1 && (best === -1 || at - n.k < best)) best = at - n.k
      }
    }
    return best
  }
  return {
    next: first,
    test: (text) => {
      current = undefined
      return needles.length > 0 && first(Buffer.from(text, 'utf8'), 0) !== -1
    },
  }
}

/**
 * The SIMD finder's view of a needle: two of its bytes (its two rarest, `lo` before `hi`), each with the mask that
 * folds it to lower case (0x20 for a letter under ignoreCase, else 0) and its value so folded.
 */
interface Pair {
  n: Needle
  lo: number
  dist: number
  c1: number
  c2: number
  f1: number
  f2: number
}

function pairOf(n: Needle): Pair {
  const b = n.bytes
  const weight = (x: number) => (n.ignoreCase && isLetter(x) ? Math.min(rarity(x | 0x20), rarity(x & ~0x20)) : rarity(x))
  let k1 = 0
  for (let i = 1; i < b.length; i++) if (weight(b[i]) > weight(b[k1])) k1 = i
  let k2 = k1
  for (let i = 0; i < b.length; i++) if (i !== k1 && (k2 === k1 || weight(b[i]) > weight(b[k2]))) k2 = i
  const lo = Math.min(k1, k2)
  const hi = Math.max(k1, k2)
  const mask = (x: number) => (n.ignoreCase && isLetter(x) ? 0x20 : 0)
  return {n, lo, dist: hi - lo, c1: b[lo] | mask(b[lo]), c2: b[hi] | mask(b[hi]), f1: mask(b[lo]), f2: mask(b[hi])}
}

/** A compiled filter over a SimdBlock: call begin() after each read into the block, then next() with rising `from`. */
export interface BlockGrep {
  /** Bytes the finder may read past the end of the searched range: the block needs that much slack. */
  readonly slack: number
  begin(): void
  /** Start of the first occurrence of any needle in block.bytes[from, end) (whole lines), or -1. */
  next(block: SimdBlock, from: number, end: number): number
}

export function compileBlockGrep(filter: RawLineFilter): BlockGrep {
  let pairs = compiledPairs.get(filter)
  if (!pairs) {
    let needles = compiled.get(filter)
    if (!needles) {
      needles = filter.needles.map((t) => compile(t, filter.ignoreCase)).filter((n): n is Needle => n !== undefined)
      compiled.set(filter, needles)
    }
    pairs = needles.map(pairOf)
    compiledPairs.set(filter, pairs)
  }
  // next[i]: needle i's next verified start in the block since begin() (-2: not searched yet; -1: none left).
  const next = pairs.map(() => -2)
  return {
    slack: Math.max(0, ...pairs.map((p) => p.dist)) + 32,
    begin: () => next.fill(-2),
    next: (block, from, end) => {
      let best = -1
      for (let i = 0; i < pairs.length; i++) {
        const p = pairs[i]
        let at = next[i]
        if (at === -2 || (at !== -1 && at < from)) {
          const limit = end - p.n.bytes.length + 1 + p.lo
          let pos = Math.max(from, at + 1) + p.lo
          for (;;) {
            const r = pos < limit ? block.find(pos, limit, p.dist, p.c1, p.c2, p.f1, p.f2) : -1
            if (r === -1 || r >= limit) {
              at = -1
              break
            }
            if (matchesAt(p.n, block.bytes, r - p.lo, end)) {
              at = r - p.lo
              break
            }
            pos = r + 1
          }
          next[i] = at
        }
        if (at !== -1 && (best === -1 || at < best)) best = at
      }
      return best
    },
  }
}
