// What the catalog's full-text index is asked for a search: every trigram of the pattern's literal runs that the index
// can look up as the matcher compares them (docs/catalog.md). Kept apart from the rest of the catalog, so that a search
// builds its query without loading the catalog's code.
import {requiredLiterals} from '../sessions/regex-literals.js'
import {foldGram, indexable} from './tokens.js'

/** More trigrams than this add little but cost: a long pattern is asked for this many, spread over it. */
const MAX_TRIGRAMS = 12

/**
 * Whether a character of the pattern can be looked up in the index. The index folds A-Z to a-z and nothing else, in the
 * text and in the query alike (tokens.ts), so any character found as itself is found. Under ignoreCase the matcher also
 * takes a letter's other case: for ASCII the index folds the same way (a non-ASCII letter never matches an ASCII one
 * there: no `u` flag, or RE2's k and s folds, which split the run); a non-ASCII cased letter is not folded by the index,
 * so it ends the run. Control characters, surrogates and U+FFFD (an invalid byte or a lone surrogate in the text becomes
 * one) end a run too: the index holds no trigram with one (tokens.ts indexable).
 */
function usable(ch: string, ignoreCase: boolean, regex: boolean): boolean {
  const cp = ch.codePointAt(0)!
  if (!indexable(cp)) return false
  if (!ignoreCase) return true
  if (cp < 0x80) return !(regex && /[ks]/i.test(ch))
  return ch.toLowerCase() === ch && ch.toUpperCase() === ch
}

/** The pattern's runs of usable characters (for --regex: inside the literal runs every match holds). */
function runsOf(pattern: string, opts: {regex?: boolean; ignoreCase: boolean}): string[][] {
  const sources = opts.regex ? (requiredLiterals(pattern) ?? []) : [pattern]
  const out: string[][] = []
  for (const src of sources) {
    let run: string[] = []
    for (const ch of src) {
      if (usable(ch, opts.ignoreCase, Boolean(opts.regex))) run.push(ch)
      else {
        if (run.length >= 3) out.push(run)
        run = []
      }
    }
    if (run.length >= 3) out.push(run)
  }
  return out
}

/**
 * The FTS5 query for a search (trigrams covering every usable run, ANDed: the index keeps no positions), or undefined when
 * the pattern gives none: a literal of fewer than three usable characters, or a --regex with no literal run of three.
 * Such a search is a scan.
 */
export function ftsQuery(pattern: string, opts: {regex?: boolean; ignoreCase: boolean}): string | undefined {
  const grams = new Set<string>()
  // Trigrams that cover every character of a run, not every trigram of it: as selective (a row must hold each), and a
  // query of fewer doclists costs less (kubeconfig: kub, eco, nfi, fig).
  for (const run of runsOf(pattern, opts)) {
    for (let i = 0; i + 3 <= run.length; i += 3) grams.add(foldGram(run.slice(i, i + 3).join('')))
    if (run.length % 3 !== 0) grams.add(foldGram(run.slice(run.length - 3).join('')))
  }
  if (grams.size === 0) return undefined
  let list = [...grams]
  if (list.length > MAX_TRIGRAMS) list = [...new Set(Array.from({length: MAX_TRIGRAMS}, (_, i) => list[Math.floor((i * (list.length - 1)) / (MAX_TRIGRAMS - 1))]))]
  return list.map((g) => `"${g.replaceAll('"', '""')}"`).join(' AND ')
}
