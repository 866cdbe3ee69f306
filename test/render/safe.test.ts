// Terminal-safe text: which invisible characters are shown as <U+XXXX> and which joiners are left to join.
import {describe, expect, it} from 'vitest'

import {printable, printableLines} from '../../src/render/safe.js'

describe('printableLines (message bodies)', () => {
  it('keeps a zero-width joiner inside an emoji sequence (family emoji, astral characters on both sides)', () => {
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}'
    expect(printableLines(`hi ${family}!`)).toBe(`hi ${family}!`)
  })

  it('keeps a zero-width non-joiner between Persian letters', () => {
    const word = '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645'
    expect(printableLines(word)).toBe(word)
  })

  it('shows a joiner that joins nothing: at the start, at the end, beside a space or beside another invisible character', () => {
    expect(printableLines('\u200Dabc')).toBe('<U+200D>abc')
    expect(printableLines('abc\u200C')).toBe('abc<U+200C>')
    expect(printableLines('a \u200Db')).toBe('a <U+200D>b')
    expect(printableLines('a\u200B\u200Db')).toBe('a<U+200B><U+200D>b')
  })

  it('still shows bidi overrides, isolates and the zero-width space, and keeps newlines and tabs', () => {
    expect(printableLines('pay \u202Eexe.txt\n\t\u2066x\u2069\u200B')).toBe('pay <U+202E>exe.txt\n\t<U+2066>x<U+2069><U+200B>')
  })
})

describe('printable (keys, ids, one line)', () => {
  it('shows every joiner, even between letters: two keys must never look the same', () => {
    expect(printable('agent:main:a\u200Db')).toBe('agent:main:a<U+200D>b')
    expect(printable('a\nb')).toBe('a\\nb')
  })
})
