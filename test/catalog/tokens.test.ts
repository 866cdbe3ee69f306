// The word index's promise at its root (src/catalog/tokens.ts, query.ts): for an ignore-case literal of word units the
// parts holding a vocabulary token that holds it are exactly the parts the matcher finds it in, and for any other
// pattern the runs asked for are held by every part it is found in (a superset). Checked against the matcher itself on
// texts and needles drawn from the characters that fold differently (the Kelvin sign, the long s, ß and ẞ, dotted I,
// final sigma, the micro sign, ligatures, lone surrogates, U+FFFD) and long tokens.
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {wordQuery} from '../../src/catalog/query.js'
import {fold, LONG_STEP, LONG_TOKEN, runsOfFolded, tokenHolds, TokenWriter, tokensOf} from '../../src/catalog/tokens.js'
import {compileMatcher, loadRegexEngine} from '../../src/sessions/search-matcher.js'

const TRICKY = ['a', 'b', 'k', 'K', 's', 'S', 'e', '\u212a', '\u017f', 'ß', 'ẞ', 'İ', 'ı', 'i', 'σ', 'ς', 'Σ', 'µ', 'μ', 'Μ', 'ﬁ', 'é', 'É', '_', '1', ' ', '-', '/', '"', '\n', '\ud800', '\udc00', '\ufffd', '😀', '数']
const text = fc.array(fc.constantFrom(...TRICKY), {maxLength: 40}).map((a) => a.join(''))
/** String.prototype.toWellFormed (Node 20 has it; the TypeScript lib this project targets does not name it). */
const wellFormed = (t: string): string => (t as string & {toWellFormed(): string}).toWellFormed()

const needle = fc.array(fc.constantFrom(...TRICKY), {minLength: 1, maxLength: 5}).map((a) => a.join(''))

/** What the index says of one part: does some token of it hold every run of the query as the run says. */
const indexHolds = (part: string, q: {runs: {run: string; how: 'inside' | 'prefix' | 'suffix' | 'whole'}[]}) => {
  // Tokens as SQLite gives them back: a lone surrogate is stored as U+FFFD.
  const toks = [...tokensOf(part)].map((t) => wellFormed(t))
  return q.runs.every((r) => toks.some((t) => tokenHolds(t, r)))
}

describe('the word index against the matcher', () => {
  it('an exact query (ignore-case literal of word units) holds in a part exactly when the matcher finds it there', () => {
    fc.assert(
      fc.property(text, needle, (t, n) => {
        const lower = n.toLowerCase() === n ? n : n.toLowerCase()
        const m = compileMatcher(lower, {})
        const q = wordQuery(lower, {ignoreCase: m.ignoreCase, limited: true})
        const found = m.matches(t).length > 0
        if (!q) return
        if (found) expect(indexHolds(t, q), `${JSON.stringify(lower)} in ${JSON.stringify(t)}`).toBe(true)
        if (q.exact) expect(indexHolds(t, q), `${JSON.stringify(lower)} in ${JSON.stringify(t)}`).toBe(found)
      }),
      {numRuns: 3000},
    )
  })

  it('any literal, in either case, with or without --word: a part it is found in holds the runs asked for', () => {
    fc.assert(
      fc.property(text, needle, fc.boolean(), (t, n, word) => {
        const m = compileMatcher(n, {word})
        const q = wordQuery(n, {ignoreCase: m.ignoreCase, word, limited: true})
        if (q && m.matches(t).length > 0) expect(indexHolds(t, q), `${JSON.stringify(n)} in ${JSON.stringify(t)}`).toBe(true)
        if (q?.exact) expect(m.ignoreCase && !word).toBe(true)
      }),
      {numRuns: 3000},
    )
  })

  it('a --regex: a part it matches holds the runs of its literals (RE2 folds k, s and cased non-ASCII letters its own way)', async () => {
    await loadRegexEngine()
    const re = fc.tuple(needle, needle).map(([a, b]) => `${a.replace(/[\\.*+?^${}()|[\]]/g, '\\$&')}.?${b.replace(/[\\.*+?^${}()|[\]]/g, '\\$&')}`)
    fc.assert(
      fc.property(text, re, (t, r) => {
        let m
        try {
          m = compileMatcher(r, {regex: true})
        } catch {
          return
        }
        const q = wordQuery(r, {regex: true, ignoreCase: m.ignoreCase, limited: true})
        if (!q) return
        expect(q.exact).toBe(false)
        if (m.matches(t).length > 0) expect(indexHolds(t, q), `${JSON.stringify(r)} in ${JSON.stringify(t)}`).toBe(true)
      }),
      {numRuns: 2000},
    )
  })

  it('TokenWriter writes exactly tokensOf\'s tokens (as SQLite stores them), and its vocabulary holds each', () => {
    const longish = fc.array(fc.constantFrom('a', 'b', 'é', '1', '\ud800', '😀', ' '), {minLength: 200, maxLength: 700}).map((a) => a.join(''))
    fc.assert(
      fc.property(fc.array(fc.oneof(text, longish), {minLength: 1, maxLength: 6}), (parts) => {
        const w = new TokenWriter()
        const vocab = new Set<string>()
        let from = 0
        for (const p of parts) {
          const n = w.add(p)
          const written = w.buf.toString('utf8', from, w.len)
          from = w.len
          const want = [...tokensOf(p)].map((t) => wellFormed(t))
          expect(n).toBe(want.length)
          expect(written === '' ? [] : written.split(' ')).toEqual(want.map((t) => Buffer.from(t).toString('utf8')))
          for (const t of want) vocab.add(t)
        }
        expect(new Set(w.vocab)).toEqual(vocab)
        expect(w.vocab.length).toBeLessThanOrEqual(vocab.size + parts.join('').length)
      }),
      {numRuns: 1500},
    )
  })

  it('a long token is kept as overlapping pieces: every run of up to LONG_STEP units inside it is inside one piece', () => {
    const long = Array.from({length: 1000}, (_, i) => 'abcdefghij'[(i * 7) % 10] + (i % 13 === 0 ? '9' : '')).join('')
    const toks = [...tokensOf(long)]
    expect(toks.every((t) => t.length <= LONG_TOKEN)).toBe(true)
    expect(toks.some((t) => long.startsWith(t)) && toks.some((t) => long.endsWith(t))).toBe(true)
    for (let i = 0; i + LONG_STEP <= long.length; i += 37) expect(toks.some((t) => t.includes(long.slice(i, i + LONG_STEP)))).toBe(true)
  })

  it('folds as the matcher compares: the Kelvin sign and the long s stay themselves, Greek sigmas meet, ASCII is lower case', () => {
    expect(fold('KELVIN \u212a \u017f ς σ Σ µ')).toBe('kelvin \u212a \u017f Σ Σ Σ Μ')
    expect(runsOfFolded(fold('a/b'))).toEqual([
      {run: 'a', how: 'suffix'},
      {run: 'b', how: 'prefix'},
    ])
    expect(runsOfFolded(fold('x deploy to'))).toEqual([
      {run: 'x', how: 'suffix'},
      {run: 'deploy', how: 'whole'},
      {run: 'to', how: 'prefix'},
    ])
    expect(wordQuery('deploy', {ignoreCase: true, limited: true})?.exact).toBe(true)
    expect(wordQuery('deploy', {ignoreCase: true, limited: false})?.exact).toBe(false)
    expect(wordQuery('deploy', {ignoreCase: true, limited: true, role: 'user'})?.exact).toBe(false)
    expect(wordQuery('deploy', {ignoreCase: true, limited: true, timed: true})?.exact).toBe(false)
    expect(wordQuery('de ploy', {ignoreCase: true, limited: true})?.exact).toBe(false)
    expect(wordQuery('->', {ignoreCase: true, limited: true})).toBeUndefined()
  })
})
