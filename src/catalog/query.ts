// What the catalog's word index is asked for a search: the needle's word runs, folded as the index folds (tokens.ts),
// each with how a vocabulary token must hold it, and whether the index's answer is the search's answer (exact) or a
// superset that is read back and judged. Kept apart from the rest of the catalog, so that a search builds its query
// without loading the catalog's code.
import {requiredLiterals} from '../sessions/regex-literals.js'
import {fold, type NeedleRun, runsOfFolded} from './tokens.js'

export interface WordQuery {
  /** Every run must be held by a token of the part (ANDed). */
  runs: NeedleRun[]
  /**
   * The parts holding the runs are exactly the parts the search counts: an ignore-case literal of word units only (no
   * lone surrogate or U+FFFD, which the index keeps as one), with no --word, --role or time window, and a --limit (the
   * newest hits are read back, the count is the index's).
   */
  exact: boolean
}

export interface WordQueryOptions {
  regex?: boolean
  ignoreCase: boolean
  word?: boolean
  role?: string
  /** --since or --until given: the count depends on times the index does not keep. */
  timed?: boolean
  /** A --limit (not `all`): only the newest hits are needed. */
  limited?: boolean
}

const cased = (ch: string) => ch.toLowerCase() !== ch || ch.toUpperCase() !== ch

/**
 * The index's query for a search, or undefined when the pattern has no word unit to look up (`->`, or a --regex with no
 * literal every match holds): such a search is a scan.
 */
export function wordQuery(pattern: string, opts: WordQueryOptions): WordQuery | undefined {
  if (!opts.regex) {
    const folded = fold(pattern)
    const runs = runsOfFolded(folded)
    if (runs.length === 0) return undefined
    const plain = runs.length === 1 && runs[0].run.length === folded.length && !/[\ud800-\udfff\ufffd]/.test(pattern)
    return {runs, exact: plain && opts.ignoreCase && !opts.word && !opts.role && !opts.timed && Boolean(opts.limited)}
  }
  // A --regex: the literals every match holds. Under ignore-case RE2 folds by Unicode's simple case folding, which is not
  // the index's (k and the Kelvin sign, s and the long s, ß and ẞ): k, s and every cased non-ASCII letter end a run there,
  // leaving it open (a word unit of the text stands there).
  const runs: NeedleRun[] = []
  for (const literal of requiredLiterals(pattern) ?? []) {
    let piece = ''
    const flush = () => {
      if (piece) runs.push(...runsOfFolded(fold(piece)))
      piece = ''
    }
    for (const ch of literal) {
      if (opts.ignoreCase && (/[ks]/i.test(ch) || (ch.codePointAt(0)! > 0x7f && cased(ch)))) flush()
      else piece += ch
    }
    flush()
  }
  return runs.length > 0 ? {runs, exact: false} : undefined
}
