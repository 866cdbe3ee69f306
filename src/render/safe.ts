// Terminal-safe text: data from files (keys, ids, transcript text, error details) is printed with its control and
// invisible characters made visible, so a hostile message or file can neither break the layout, send escape
// sequences, reorder text (bidi overrides) nor make two different strings look the same (zero-width characters).
import {withHintContext} from '../text/hint-context.js'

// C0 and C1 controls; printed as JSON-style escapes (`\n`, `\u001b`).
const CONTROL = '\\u0000-\\u001F\\u007F-\\u009F'
const CONTROL_EXCEPT_NEWLINE_TAB = '\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F'
/**
 * Invisible characters, printed as `<U+XXXX>` the way `less` shows them: every format character (\p{Cf}: the bidi
 * embeddings, overrides and isolates U+202A-202E and U+2066-2069, LRM/RLM/ALM, zero-width space, joiners, word
 * joiner, BOM, soft hyphen, tag characters), the line and paragraph separators U+2028/2029 (a line break to some
 * terminals), and the invisible fillers that are not format characters (combining grapheme joiner, Hangul fillers).
 */
const INVISIBLE = '\\p{Cf}\\p{Zl}\\p{Zp}\\u034F\\u115F\\u1160\\u3164\\uFFA0'

const LINE_RE = new RegExp(`[${CONTROL}]|[${INVISIBLE}]`, 'gu')
const LINES_RE = new RegExp(`[${CONTROL_EXCEPT_NEWLINE_TAB}]|[${INVISIBLE}]`, 'gu')

function escapeChar(c: string): string {
  if (c === '\n') return '\\n'
  if (c === '\t') return '\\t'
  if (c === '\r') return '\\r'
  const cp = c.codePointAt(0)!
  if (cp <= 0x9f) return `\\u${cp.toString(16).padStart(4, '0')}`
  return `<U+${cp.toString(16).toUpperCase().padStart(4, '0')}>`
}

/** One line: every control character (newlines included) escaped, every invisible character shown as <U+XXXX>. */
export function printable(s: string): string {
  return s.replace(LINE_RE, escapeChar)
}

/** A visible character on each side: what a joiner inside an emoji sequence or a Persian word has. */
const BETWEEN_VISIBLE = new RegExp(`[^\\s${CONTROL}${INVISIBLE}]`, 'u')

/**
 * Multi-line text (messages): newlines and tabs kept, every other control or invisible character made visible. The
 * zero-width joiner and non-joiner are kept where they join two visible characters, as they do in emoji sequences
 * (family, flag and profession emoji) and in Persian, Urdu and Indic script; anywhere else they only hide text. Keys
 * and ids go through printable(), which shows them always: there any invisible difference matters.
 */
export function printableLines(s: string): string {
  return escapeLines(s, ' ', ' ')
}

const isJoiner = (c: string): boolean => c === '\u200C' || c === '\u200D'

/** printableLines with the characters just outside `s` given: the end of the text before it and the start after. */
function escapeLines(s: string, before: string, after: string): string {
  return s.replace(LINES_RE, (c: string, at: number) => {
    if (isJoiner(c) && BETWEEN_VISIBLE.test(at === 0 ? before : charBefore(s, at)) && BETWEEN_VISIBLE.test(at + 1 < s.length ? String.fromCodePoint(s.codePointAt(at + 1)!) : after)) return c
    return escapeChar(c)
  })
}

function charBefore(s: string, at: number): string {
  if (at === 0) return ' '
  const low = s.charCodeAt(at - 1)
  // The second half of a surrogate pair: the character is the pair (an emoji before the joiner).
  return low >= 0xdc00 && low <= 0xdfff && at >= 2 ? s.slice(at - 2, at) : s[at - 1]
}

export interface LineEscaper {
  /** The printable form of the part of the stream that can be judged now; the rest is held back. */
  push(delta: string): string
  /** The printable form of what was held back, as if the text ended here; the next push starts a new text. */
  end(): string
}

/**
 * printableLines for a stream (a reply arriving in deltas): the output is the same wherever the stream was split. A
 * joiner at the end of a delta waits for the next character, a joiner at the start of one is judged against the last
 * character of the previous delta, and a surrogate pair split in two deltas (an emoji) is written whole, never as
 * two replacement characters.
 */
export function createLineEscaper(): LineEscaper {
  let before = ' '
  let held = ''
  return {
    push(delta: string): string {
      const s = held + delta
      let cut = s.length
      const last = s.charCodeAt(cut - 1)
      if (last >= 0xd800 && last <= 0xdbff) cut--
      if (cut > 0 && isJoiner(s[cut - 1])) cut--
      held = s.slice(cut)
      if (cut === 0) return ''
      const ready = s.slice(0, cut)
      const out = escapeLines(ready, before, held === '' ? ' ' : String.fromCodePoint(held.codePointAt(0)!))
      before = charBefore(ready, ready.length)
      return out
    },
    end(): string {
      const out = escapeLines(held, before, ' ')
      before = ' '
      held = ''
      return out
    },
  }
}

/** For human output: a hint with the run's state dir flags added (withHintContext), made printable (a state dir path can hold control or bidi characters). */
export function hintInContext(text: string): string {
  return printable(withHintContext(text))
}
