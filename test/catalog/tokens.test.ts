// The word index's promise at its root (src/catalog/tokens.ts, query.ts): for an ignore-case literal of word units the
// parts holding a vocabulary token that holds it are exactly the parts the matcher finds it in, and for any other
// pattern the runs asked for are held by every part it is found in (a superset). Checked against the matcher itself on
// texts and needles drawn from the characters that fold differently (the Kelvin sign, the long s, ß and ẞ, dotted I,
// final sigma, the micro sign, ligatures, lone surrogates, U+FFFD) and long tokens.
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {wordQuery} from '../../src/catalog/query.js'
import {fold, gramsOf, isIdToken, LONG_STEP, LONG_TOKEN, runsOfFolded, tokenHolds, TokenWriter, tokensOf} from '../../src/catalog/tokens.js'
import {compileMatcher, loadRegexEngine} from '../../src/sessions/search-matcher.js'

const TRICKY = ['a', 'b', 'k', 'K', 's', 'S', 'e', '\u212a', '\u017f', 'ß', 'ẞ', 'İ', 'ı', 'i', 'σ', 'ς', 'Σ', 'µ', 'μ', 'Μ', 'ﬁ', 'é', 'É', '_', '1', ' ', '-', '/', '"', '\n', '\ud800', '\udc00', '\ufffd', '😀', '数']
/** Runs of these make id-like tokens (tokens.ts isIdToken: ASCII, 8 units with a digit or 24), which the index keeps as trigrams. */
const IDISH = ['a', 'b', 'k', 'K', '1', '7', '_', 'f', 'A9', 'b2c']
const text = fc.oneof(
  fc.array(fc.constantFrom(...TRICKY), {maxLength: 40}).map((a) => a.join('')),
  fc.array(fc.oneof(fc.constantFrom(...TRICKY), fc.array(fc.constantFrom(...IDISH), {minLength: 4, maxLength: 16}).map((a) => a.join(''))), {maxLength: 12}).map((a) => a.join('')),
)
/** String.prototype.toWellFormed (Node 20 has it; the TypeScript lib this project targets does not name it). */
const wellFormed = (t: string): string => (t as string & {toWellFormed(): string}).toWellFormed()

const needle = fc.array(fc.constantFrom(...TRICKY), {minLength: 1, maxLength: 5}).map((a) => a.join(''))

/**
 * What the index says of one part: does some token of it hold every run of the query as the run says. A vocabulary token
 * is asked; an id-like one is read back and judged (spans.ts), which is asking it too.
 */
const indexHolds = (part: string, q: {runs: {run: string; how: 'inside' | 'prefix' | 'suffix' | 'whole'}[]}) => {
  // Tokens as SQLite gives them back: a lone surrogate is stored as U+FFFD.
  const {words, ids} = tokensOf(part)
  const toks = [...words, ...ids].map((t) => wellFormed(t))
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

  it('TokenWriter writes exactly tokensOf\'s vocabulary tokens (as SQLite stores them), its vocabulary holds each, and its grams are their id-like tokens\' trigrams', () => {
    const longish = fc.array(fc.constantFrom('a', 'b', 'é', '1', '\ud800', '😀', ' '), {minLength: 200, maxLength: 700}).map((a) => a.join(''))
    const longAscii = fc.array(fc.constantFrom('a', 'b', '1', '_', ' '), {minLength: 200, maxLength: 700}).map((a) => a.join(''))
    fc.assert(
      fc.property(fc.array(fc.oneof(text, longish, longAscii), {minLength: 1, maxLength: 6}), (parts) => {
        const w = new TokenWriter()
        const vocab = new Set<string>()
        const ids = new Set<string>()
        let from = 0
        for (const p of parts) {
          const n = w.add(p)
          const written = w.buf.toString('utf8', from, w.len)
          from = w.len
          const found = tokensOf(p)
          const want = [...found.words].map((t) => wellFormed(t))
          expect(n).toBe(want.length)
          expect(written === '' ? [] : written.split(' ')).toEqual(want.map((t) => Buffer.from(t).toString('utf8')))
          for (const t of want) vocab.add(t)
          for (const t of found.ids) ids.add(t)
        }
        expect(new Set(w.vocab)).toEqual(vocab)
        expect(w.vocab.length).toBeLessThanOrEqual(vocab.size + parts.join('').length)
        const grams = w.grams.text()
        expect(new Set(grams === '' ? [] : grams.split(' '))).toEqual(gramsOf(ids))
        expect(w.grams.size).toBe(gramsOf(ids).size)
        w.grams.clear()
        expect(w.grams.text()).toBe('')
      }),
      {numRuns: 1500},
    )
  })

  it('id-like tokens: ASCII, 8 units or more with a digit, or 24 or more; kept whole, out of the vocabulary', () => {
    for (const t of ['a1b2c3d4', '20261207', 'req_011ct7abcdefgh', 'abcdefghijklmnopqrstuvwx', 'x'.repeat(300)]) expect(isIdToken(t), t).toBe(true)
    for (const t of ['kubeconfig', 'a1b2c3d', 'deploy2', 'abcdefghijklmnopqrstuvw', 'é1234567890', '']) expect(isIdToken(t), t).toBe(false)
    const {words, ids} = tokensOf('Deploy build A1B2C3D4E5 to 4f3a9c0e-1b2d and kubeconfig')
    expect([...words].sort()).toEqual(['1b2d', 'and', 'build', 'deploy', 'kubeconfig', 'to'])
    expect([...ids].sort()).toEqual(['4f3a9c0e', 'a1b2c3d4e5'])
  })

  it('a long token is kept as overlapping pieces: every run of up to LONG_STEP units inside it is inside one piece', () => {
    // Not ASCII (an ASCII one is id-like, kept whole as trigrams).
    const long = Array.from({length: 1000}, (_, i) => 'abcd数fghij'[(i * 7) % 10] + (i % 13 === 0 ? '9' : '')).join('')
    const toks = [...tokensOf(long).words]
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
