// The pattern of `sessions search` compiled once: a literal or an RE2 regular expression (smart case, --word), every
// match in a text, the needles a stored line must hold to contain one (the store's raw prefilter), and the phrase a
// full-text index may be asked for.
import type {RE2JS} from 're2js'

import {UsageError} from '../errors.js'
import {importRe2} from '../lazy.js'
import type {RawLineFilter} from '../store/types.js'
import {canonicalNonAscii} from '../util/canonical-unit.js'
import {requiredLiterals} from './regex-literals.js'
import type {SearchRole} from './search-text.js'

/** A match inside a hit's snippet: [start, end) as JavaScript string (UTF-16) indexes. */
export interface SearchMatch {
  start: number
  end: number
}

/** Letters, digits, marks, private use and connectors: a superset of the token characters of FTS5's unicode61. */
export const WORD_CHAR = /[\p{L}\p{N}\p{M}\p{Co}\p{Pc}]/u

/** The compiled pattern: every match in a text, and the needles a stored line must contain to hold one. */
export interface Matcher {
  ignoreCase: boolean
  matches(text: string): SearchMatch[]
  /**
   * Whether `text` holds a match, when that is much cheaper to tell than where (RE2: its plain test runs ~6x faster
   * than finding spans), and exact: a --regex without --word that every match holds a literal of, so no match is empty.
   */
  test?(text: string): boolean
  /** Undefined: no line can be skipped (a regular expression with no literal every match holds, or a literal of nothing but escaped characters). */
  filter?: RawLineFilter
}

/**
 * Characters that a JSON writer may spell as an escape in the stored line, so that their bytes are not in it: `"` and
 * `\`, control characters, `/` (`\/`), `<` `>` `&` `'` (Go's and PHP's HTML-safe escapes), U+2028/2029, surrogates and
 * U+FFFD (an invalid byte decodes to it). Other non-ASCII characters may be written as \u escapes by ASCII-only writers
 * (Python's default): a needle holding one comes with the needle `\u`, so a line with any such escape is parsed.
 */
const ESCAPABLE = /["\\/<>&'\u0000-\u001f\u007f\u2028\u2029\ud800-\udfff\ufffd]/

/**
 * ripgrep's smart case: case-insensitive unless the pattern (its escapes aside: `\pL`, `\p{Greek}`, `\x{41}`, `\D`...)
 * has an upper-case letter. `(?i)` or `(?-i)` in a --regex still says otherwise for what follows it.
 */
export function smartCase(pattern: string, regex: boolean): boolean {
  const literal = regex ? pattern.replace(/\\[pPux]\{[^}]*\}|\\[pP][A-Za-z]|\\k<[^>]*>|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\c[A-Za-z]|\\./g, '') : pattern
  return !/\p{Lu}|\p{Lt}/u.test(literal)
}

/** re2js (RE2's linear-time engine), loaded by loadRegexEngine: only a --regex search pays for it. */
let re2: {RE2JS: typeof RE2JS} | undefined

/** Loads the --regex engine; compileMatcher needs it for a --regex (its callers await this first). */
export async function loadRegexEngine(): Promise<void> {
  re2 ??= (await importRe2()) as {RE2JS: typeof RE2JS}
}

/**
 * The longest --regex taken: a longer one is a usage error (V8 refuses case-insensitive ones of ~20 000 characters with
 * a stack overflow, and matching time grows with the pattern's length). A literal has no limit (see LITERAL_PREFIX).
 */
export const MAX_REGEX_CHARS = 4096

/**
 * A literal is found by a RegExp of its first LITERAL_PREFIX code units (V8 cannot compile one of ~40 000 characters
 * under /i), and the rest of it is compared at each such start, unit by unit, as /i compares them.
 */
const LITERAL_PREFIX = 1024

/** The case-insensitive canonical form of one UTF-16 unit without the `u` flag (ECMA-262 Canonicalize, non-unicode). */
function canonicalUnit(c: number): number {
  if (c < 0x80) return c >= 0x61 && c <= 0x7a ? c - 0x20 : c
  return canonicalNonAscii(c)
}

export function compileMatcher(pattern: string, opts: {regex?: boolean; word?: boolean}): Matcher {
  if (pattern === '') throw new UsageError('The pattern is empty; give the text to look for.', 'E_BAD_ARGUMENT')
  const ignoreCase = smartCase(pattern, Boolean(opts.regex))
  const bounded = (text: string, start: number, end: number) => {
    if (!opts.word) return true
    const before = start === 0 ? '' : start >= 2 && isLowSurrogate(text, start - 1) ? text.slice(start - 2, start) : text[start - 1]
    const after = end === text.length ? '' : String.fromCodePoint(text.codePointAt(end)!)
    return !WORD_CHAR.test(before) && !WORD_CHAR.test(after)
  }
  if (opts.regex) {
    if (pattern.length > MAX_REGEX_CHARS) {
      throw new UsageError(`--regex takes patterns of up to ${MAX_REGEX_CHARS} characters; this one has ${pattern.length} characters.`, 'E_BAD_REGEX', [
        'drop --regex to search for a long text as it is (a literal has no length limit)',
      ])
    }
    if (!re2) throw new Error('loadRegexEngine() must run before a --regex is compiled')
    let compiled: RE2JS
    try {
      compiled = re2.RE2JS.compile(pattern, ignoreCase ? re2.RE2JS.CASE_INSENSITIVE : 0)
    } catch (error) {
      throw new UsageError(`--regex "${pattern}" is not a valid regular expression (RE2 syntax): ${(error as Error).message.replace(/^error parsing regexp: /, '').replace('`(?i)', '`')}`, 'E_BAD_REGEX', [
        'escape special characters with a backslash, or drop --regex to search for the text as it is; lookarounds and backreferences do not exist in RE2, which matches in linear time',
      ])
    }
    const filter = regexFilter(pattern, ignoreCase)
    // requiredLiterals found a literal every match holds: no match is empty, so a test is a hit (without --word).
    const exactTest = !opts.word && requiredLiterals(pattern) !== undefined
    return {ignoreCase, matches: (text) => re2Matches(compiled, text, bounded), ...(exactTest ? {test: (text: string) => compiled.test(text)} : {}), filter}
  }
  // A literal. No `u` flag: under /iu an ASCII letter also matches non-ASCII ones (k and the Kelvin sign), which the raw
  // prefilter (ASCII case folding only) would skip. The RegExp finds its first LITERAL_PREFIX units; the rest of it is
  // compared at each start that gives.
  const re = new RegExp(pattern.slice(0, LITERAL_PREFIX).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), `g${ignoreCase ? 'i' : ''}`)
  const rest = pattern.slice(LITERAL_PREFIX)
  const restAt = (text: string, at: number): boolean => {
    if (at + rest.length > text.length) return false
    for (let k = 0; k < rest.length; k++) {
      const a = text.charCodeAt(at + k)
      const b = rest.charCodeAt(k)
      if (a !== b && (!ignoreCase || canonicalUnit(a) !== canonicalUnit(b))) return false
    }
    return true
  }
  const matches = (text: string): SearchMatch[] => {
    const out: SearchMatch[] = []
    re.lastIndex = 0
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const start = m.index
      if (rest && !restAt(text, start + m[0].length)) {
        re.lastIndex = start + 1
        continue
      }
      const end = start + m[0].length + rest.length
      if (rest) re.lastIndex = end
      if (bounded(text, start, end)) out.push({start, end})
      else re.lastIndex = start + 1
    }
    return out
  }
  return {ignoreCase, matches, filter: needleFilter(pattern, ignoreCase)}
}

/**
 * Every match of an RE2 pattern in `text` that `bounded` accepts, as UTF-16 [start, end) spans, never an empty one. A
 * text with no match at all is ruled out first by RE2's plain test, which is several times faster than finding spans.
 */
function re2Matches(re: RE2JS, text: string, bounded: (text: string, start: number, end: number) => boolean): SearchMatch[] {
  if (!re.test(text)) return []
  const out: SearchMatch[] = []
  const m = re.matcher(text)
  let from = 0
  while (from <= text.length && m.find(from)) {
    const start = m.start()
    const end = m.end()
    // The next start to try: past this code point (a surrogate pair is one).
    const next = start + (isHighSurrogate(text, start) && isLowSurrogate(text, start + 1) ? 2 : 1)
    if (end === start) from = next
    else if (bounded(text, start, end)) {
      out.push({start, end})
      from = end
    } else from = next
  }
  return out
}

const isHighSurrogate = (s: string, i: number) => {
  const c = s.charCodeAt(i)
  return c >= 0xd800 && c <= 0xdbff
}

/**
 * The raw-line filter of a `--regex` pattern: the best of the literal runs every match contains (regex-literals.ts),
 * chosen as for a literal. Under RE2's case folding an ASCII k or s also matches the Kelvin sign or the long s, whose bytes are not
 * ASCII, so those letters split a run there; the runs are joined by `"`, which needleFilter never keeps in a needle.
 */
export function regexFilter(pattern: string, ignoreCase: boolean): RawLineFilter | undefined {
  const runs = requiredLiterals(pattern)
  if (!runs) return undefined
  return needleFilter((ignoreCase ? runs.flatMap((r) => r.split(/[ks]/i)) : runs).join('"'), ignoreCase)
}

export const isLowSurrogate = (s: string, i: number) => {
  const c = s.charCodeAt(i)
  return c >= 0xdc00 && c <= 0xdfff
}

/**
 * The longest run of the literal that a stored line must hold byte for byte: no escapable character in it, and under
 * ignoreCase no non-ASCII letter (its other case is other bytes). ASCII runs first: JSON writers spell printable ASCII
 * as itself (save the escapable characters above); a non-ASCII run brings the `\u` needle along.
 */
export function needleFilter(pattern: string, ignoreCase: boolean): RawLineFilter | undefined {
  const runs: string[] = []
  let run = ''
  for (const ch of pattern) {
    const unsafe = ESCAPABLE.test(ch) || (ignoreCase && ch.codePointAt(0)! > 0x7f && ch.toLowerCase() !== ch.toUpperCase())
    if (unsafe) {
      if (run) runs.push(run)
      run = ''
    } else run += ch
  }
  if (run) runs.push(run)
  const ascii = runs.filter((r) => /^[\x20-\x7e]+$/.test(r)).sort((a, b) => b.length - a.length)[0]
  if (ascii) return {needles: [ascii], ignoreCase}
  const other = runs.sort((a, b) => Buffer.byteLength(b) - Buffer.byteLength(a))[0]
  return other ? {needles: [other, '\\u'], ignoreCase} : undefined
}

/**
 * The phrase to ask a store's full-text index for, when its answer is a superset of the scan's, so that verifying its
 * candidates with the same matcher gives the same hits. OpenClaw's FTS5 table holds user and assistant text only, as
 * unicode61 tokens (letters, digits; case and diacritics folded), so: a literal (not --regex) with --word (a match
 * inside a longer word is not a token of the index), --role user or assistant, and printable ASCII (its tokens are
 * then the runs of ASCII letters and digits, whatever the tokenizer does with other scripts). A word-bounded match
 * starts and ends at a token boundary of the text, because WORD_CHAR holds every character unicode61 puts in a token.
 */
export function indexTokens(pattern: string, opts: {regex?: boolean; word?: boolean; role?: SearchRole}): string[] | undefined {
  if (opts.regex || !opts.word || (opts.role !== 'user' && opts.role !== 'assistant')) return undefined
  if (!/^[\x20-\x7e]+$/.test(pattern)) return undefined
  const tokens = pattern.split(/[^A-Za-z0-9]+/).filter(Boolean)
  return tokens.length > 0 ? tokens : undefined
}

