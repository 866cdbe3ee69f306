import fc from 'fast-check'
import {beforeAll, describe, expect, it} from 'vitest'

import {requiredLiterals} from '../../src/sessions/regex-literals.js'

beforeAll(loadRegexEngine)
import {compileGrep} from '../../src/store/grep.js'
import {compileMatcher, loadRegexEngine, regexFilter} from '../../src/sessions/search-matcher.js'

describe('requiredLiterals (the runs every match of a --regex holds)', () => {
  it.each([
    ['kubeconfig', ['kubeconfig']],
    ['zebra\\.txt', ['zebra.txt']],
    ['foo.*bar', ['foo', 'bar']],
    ['colou?r', ['colo', 'r']],
    ['ab*c', ['a', 'c']],
    ['ab+c', ['ab', 'c']],
    ['a{2}bc', ['bc']],
    ['^error: (\\d+) files$', ['error: ', ' files']],
    ['x(?:a|b)y', ['x', 'y']],
    ['[abc]def', ['def']],
    ['\\bword\\b', ['word']],
    ['\\x41BC', ['BC']],
    ['\\u0041BC\\u{1F600}DE', ['BC', 'DE']],
    ['\\cJab', ['ab']],
    ['\\p{Lu}+abc', ['abc']],
    ['(?<y>\\d{4})-\\k<y>x', ['-', 'x']],
    ['(?<=pre)fix', ['fix']],
    // Group ten's backreference: its 0 is no literal (a review found `0xyz` taken as the needle, and hits lost).
    ['(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10xyz', ['xyz']],
    ['(a)\\1b', ['b']],
    // RE2 syntax: named classes, a ] first in a class, \pL, \x{..} and octal bodies are no literals.
    ['[[:alpha:]]+xy', ['xy']],
    ['[]a]bc', ['bc']],
    ['[^]a]bc', ['bc']],
    ['\\pLabc', ['abc']],
    ['\\PNabc', ['abc']],
    ['\\x{41}BC', ['BC']],
    ['\\012ab', ['ab']],
    ['(?P<y>\\d{4})-x', ['-x']],
    ['(?i:ab)cd', ['cd']],
  ])('%s gives %j', (source, expected) => {
    expect(requiredLiterals(source)).toEqual(expected)
  })

  it.each([['a|b'], ['zebra\\.txt|ZEBRA-\\w+'], ['[a-z]+'], ['(abc)'], ['.*'], ['\\d+'], ['a?'], ['(?i)abc'], ['ab(?i)cd'], ['\\Qa.b\\E']])('%s has none (a top-level alternative, nothing outside groups and classes, a bare flag group, \\Q quoting)', (source) => {
    expect(requiredLiterals(source)).toBeUndefined()
  })

  it('under ignore case splits runs at k and s, which /iu also lets match the Kelvin sign and the long s', () => {
    expect(regexFilter('kubeconfig', true)).toEqual({needles: ['ubeconfig'], ignoreCase: true})
    expect(compileMatcher('\u212Aubeconfig', {regex: true}).matches('\u212Aubeconfig')).toHaveLength(1)
    expect(compileMatcher('kubeconfig', {regex: true}).matches('\u212Aubeconfig')).toHaveLength(1)
    expect(regexFilter('KUBECONFIG', false)).toEqual({needles: ['KUBECONFIG'], ignoreCase: false})
  })
})

/** How writers may store a text: JSON.stringify, an ASCII-only writer (\u escapes) and an HTML-safe one. */
const WRITERS: ((s: string) => string)[] = [
  (s) => JSON.stringify({message: {content: s}}),
  (s) => JSON.stringify({message: {content: s}}).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  (s) => JSON.stringify({message: {content: s}}).replace(/[<>&']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
]

const atom = fc.oneof(
  fc.constantFrom('a', 'b', 'k', 'S', 'x', 'Z', '0', ' ', '-', '\u00e9', '\u212a', '\u017f', '<', '"', '/', '\\.', '\\\\', '\\/', '\\n', '\\d', '\\w', '\\s', '\\b', '\\x41', '\\u00e9', '.', '[ab]', '[^a]'),
  fc.constantFrom('(a|b)', '(?:xa)', '(?=a)', '(?!b)', '(k)', '\\1', '\\10', '\\11'),
  // RE2's own: flag groups, quoting, one-letter classes, named classes, a ] first in a class, braced hex, octal.
  fc.constantFrom('(?i)', '(?-i)', '(?i:ab)', '\\Qa.\\E', '\\Q\\E', '\\pL', '\\PL', '\\p{Lu}', '[[:alpha:]]', '[[:^digit:]z]', '[]a]', '[^]b]', '\\x{41}', '\\x{212A}', '\\012', '\\0', '(?P<n>x)', '\\z', '\\A', '\\C'),
)
const quantified = fc.tuple(atom, fc.constantFrom('', '', '', '?', '*', '+', '{2}', '{0,1}', '+?')).map(([a, q]) => (a.startsWith('(?=') || a.startsWith('(?!') || a === '\\b' ? a : a + q))
// Ten or more groups up front, so that two-digit backreferences (\\10, \\11) name a group and compile.
const pattern = fc.tuple(fc.boolean(), fc.array(quantified, {minLength: 1, maxLength: 8})).map(([groups, parts]) => (groups ? '(a?)'.repeat(11) : '') + parts.join(''))
const text = fc.array(fc.constantFrom('a', 'b', 'k', 'K', 's', 'S', 'x', 'X', 'z', 'Z', '0', '7', ' ', '-', '.', '\\', '/', '\n', '\u00e9', '\u00c9', '\u212a', '\u017f', '<', '"', 'A'), {maxLength: 24}).map((cs) => cs.join(''))

const esc = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
/** A pattern made from a piece of the text, each character kept, escaped, widened or given an optional neighbour: it matches. */
const derived = fc.tuple(text, fc.nat(), fc.nat(), fc.array(fc.nat(8), {maxLength: 24})).map(([t, a, b, ops]) => {
  const chars = [...t]
  const from = a % (chars.length + 1)
  const to = from + (b % (chars.length - from + 1))
  const forms = [
    (c: string) => esc(c),
    () => '.',
    (c: string) => `[${esc(c)}z]`,
    (c: string) => `${esc(c)}+`,
    (c: string) => `${esc(c)}q?`,
    (c: string) => `(?:${esc(c)}|#)`,
    (c: string) => `${esc(c)}\\w*`,
    (c: string) => `${esc(c)}{1}`,
    (c: string) => `${esc(c)}[^\\s]?`,
  ]
  const source = chars
    .slice(from, to)
    .map((c, i) => forms[ops[i] ?? 0](c))
    .join('')
  return [source || 'a', t] as const
})

/** Checks one pattern on one text; true when the pair counted (valid pattern, a match, and a filter to test). */
function keptWhereItMatches(source: string, t: string): boolean {
  let matcher
  try {
    matcher = compileMatcher(source, {regex: true})
  } catch {
    return false // not a valid pattern under the u flag: the command refuses it before any line is read
  }
  if (!matcher.filter || matcher.matches(t).length === 0) return false
  const grep = compileGrep(matcher.filter)
  for (const write of WRITERS) {
    const line = write(t)
    expect(grep.test(line), `${source} on ${JSON.stringify(t)} stored as ${line}`).toBe(true)
    expect(grep.next(Buffer.from(`${line}\n`), 0), `${source} on ${line} (block scan)`).toBeGreaterThanOrEqual(0)
  }
  return true
}

describe('the --regex raw-line filter never skips a line that holds a match', () => {
  it('property: patterns made from the text itself (escaped, widened, with optional parts) keep the line, however it was written', () => {
    let checked = 0
    fc.assert(
      fc.property(derived, ([source, t]) => {
        if (keptWhereItMatches(source, t)) checked++
      }),
      {numRuns: 3000, seed: 18},
    )
    // Enough pairs had a filter for the property to mean something.
    expect(checked).toBeGreaterThan(1000)
  })

  it('property: random patterns (groups, classes, escapes, quantifiers, Kelvin sign, long s) on random texts', () => {
    fc.assert(
      fc.property(pattern, text, (source, t) => {
        keptWhereItMatches(source, t)
      }),
      {numRuns: 4000, seed: 18},
    )
  })
})
