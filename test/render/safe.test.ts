// Terminal-safe text: which invisible characters are shown as <U+XXXX> and which joiners are left to join.
import {describe, expect, it} from 'vitest'

import {createLineEscaper, printable, printableLines} from '../../src/render/safe.js'

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

describe('createLineEscaper (a streamed reply)', () => {
  const samples = [
    'hi \u{1F468}\u200D\u{1F469}\u200D\u{1F467}!',
    '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645',
    '\u200Dabc\u200C',
    'a \u200Db a\u200B\u200Db a\u200D\u200Db \u{1F600}\u200D\n\u200D\u{1F600}',
    'pay \u202Eexe.txt\n\t\u2066x\u2069\u200B \u001b[2J',
  ]
  const stream = (parts: string[]): string => {
    const e = createLineEscaper()
    return parts.map((p) => e.push(p)).join('') + e.end()
  }

  it('prints the same as printableLines wherever the text is split in two, even inside a surrogate pair', () => {
    for (const s of samples) {
      for (let i = 0; i <= s.length; i++) expect(stream([s.slice(0, i), s.slice(i)]), `split at ${i} of ${JSON.stringify(s)}`).toBe(printableLines(s))
    }
  })

  it('prints the same as printableLines when every UTF-16 unit arrives alone, and with empty deltas between', () => {
    for (const s of samples) {
      expect(stream([...s.split('')])).toBe(printableLines(s))
      expect(stream(s.split('').flatMap((c) => ['', c]))).toBe(printableLines(s))
    }
  })

  it('after end(), the next text starts afresh: a joiner at its start joins nothing', () => {
    const e = createLineEscaper()
    expect(e.push('a\u200D') + e.end()).toBe('a<U+200D>')
    expect(e.push('\u200Db') + e.end()).toBe('<U+200D>b')
  })
})
