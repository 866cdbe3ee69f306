// What the catalog's full-text index is asked for a search, and what it answers: the spans of lines (per transcript)
// whose searched text holds every trigram of the pattern's literal runs. The index only narrows: every span it names is
// read back from the store and judged by the same matcher and code path as a scan, so the hits are a scan's.
import {requiredLiterals} from '../sessions/regex-literals.js'
import type {LineSpan, TranscriptMark} from '../store/types.js'
import type {CatalogDb} from './db.js'
import type {AgentView} from './refresh.js'
import {spanOf} from './refresh.js'

/** More trigrams than this add little but cost: a long pattern is asked for this many, spread over it. */
const MAX_TRIGRAMS = 24

/**
 * Whether a character of the pattern can be looked up in the index. The index folds case as SQLite's trigram tokenizer
 * does (one code point to one, both in the text and in the query), so any character found as itself is found. Under
 * ignoreCase the matcher also takes a letter's other case: for ASCII the index folds the same way (a non-ASCII letter
 * never matches an ASCII one there: no `u` flag, or RE2's k and s folds, which split the run); a non-ASCII cased letter
 * may fold otherwise in SQLite than in JavaScript, so it ends the run. Control characters, surrogates and U+FFFD (an
 * invalid byte or a lone surrogate in the text becomes one) end a run too.
 */
function usable(ch: string, ignoreCase: boolean, regex: boolean): boolean {
  const cp = ch.codePointAt(0)!
  if (cp < 0x20 || cp === 0x7f || cp === 0xfffd || (cp >= 0xd800 && cp <= 0xdfff)) return false
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
 * The FTS5 query for a search (every trigram of every usable run, ANDed: the index keeps no positions), or undefined when
 * the pattern gives none: a literal of fewer than three usable characters, or a --regex with no literal run of three.
 * Such a search is a scan.
 */
export function ftsQuery(pattern: string, opts: {regex?: boolean; ignoreCase: boolean}): string | undefined {
  const grams = new Set<string>()
  for (const run of runsOf(pattern, opts)) for (let i = 0; i + 3 <= run.length; i++) grams.add(run.slice(i, i + 3).join(''))
  if (grams.size === 0) return undefined
  let list = [...grams]
  if (list.length > MAX_TRIGRAMS) list = Array.from({length: MAX_TRIGRAMS}, (_, i) => list[Math.floor((i * (list.length - 1)) / (MAX_TRIGRAMS - 1))])
  return [...new Set(list)].map((g) => `"${g.replaceAll('"', '""')}"`).join(' AND ')
}

/**
 * The spans to read of each transcript of the view for a query: the index's candidates, adjacent ones joined into one
 * read, and the unterminated end of a JSONL file (never indexed: a line is indexed once it is complete), which is read
 * as a scan reads it. A transcript absent from the result has nothing that could match.
 */
export function candidateSpans(c: CatalogDb, view: AgentView, query: string): Map<string, LineSpan[]> {
  const byId = new Map<number, string>()
  for (const [locator, id] of view.ids) byId.set(id, locator)
  const out = new Map<string, LineSpan[]>()
  const rows = c.stmt('SELECT s.transcript AS t, s.line, s.lines, s."offset" AS o, s.bytes FROM fts JOIN spans s ON s.id = fts.rowid WHERE fts MATCH ? ORDER BY s.transcript, s.line').all(query)
  for (const r of rows) {
    const locator = byId.get(Number(r.t))
    if (locator === undefined) continue
    const span = spanOf({line: Number(r.line), lines: Number(r.lines), offset: r.o === null ? null : Number(r.o), bytes: r.bytes === null ? null : Number(r.bytes)})
    const list = out.get(locator)
    if (!list) out.set(locator, [span])
    else {
      const last = list[list.length - 1]
      if (last.offset !== undefined && last.bytes !== undefined && span.offset === last.offset + last.bytes) last.bytes += span.bytes ?? 0
      else if (last.offset === undefined && last.lines !== undefined && span.offset === undefined && span.line === last.line + last.lines) last.lines += span.lines ?? 0
      else list.push(span)
    }
  }
  for (const [locator, id] of view.ids) {
    const tail = tailSpan(view.marks.get(id))
    if (!tail) continue
    const list = out.get(locator)
    if (list) list.push(tail)
    else out.set(locator, [tail])
  }
  return out
}

/** The unterminated last line of a JSONL transcript, as its mark says (read up to `bytes` of `size`), or none. */
export function tailSpan(mark: TranscriptMark | undefined): LineSpan | undefined {
  if (!mark || mark.bytes === undefined || mark.size === undefined || mark.size <= mark.bytes) return undefined
  return {line: mark.seq + 1, offset: mark.bytes}
}
