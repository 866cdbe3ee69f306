// writeJsonDocument: the pieces always join to exactly JSON.stringify(doc, null, 2), and a large list is split.
import {describe, expect, it, vi} from 'vitest'

import {writeJsonDocument} from '../../src/cli/json-document.js'

function pieces(doc: unknown): string[] {
  const out: string[] = []
  writeJsonDocument(doc, (t) => out.push(t))
  return out
}

const row = (i: number) => ({key: `agent:main:s${i}`, updatedAt: 1_700_000_000_000 + i, label: i % 7 === 0 ? undefined : `ß✓ "${i}"\n`, tags: i % 3 === 0 ? [] : [i, {n: null}], empty: {}, skip: () => i})

describe('writeJsonDocument', () => {
  it('spells every kind of document as JSON.stringify(doc, null, 2) does', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const docs: unknown[] = [
      undefined,
      null,
      0,
      'text',
      [],
      {},
      Array.from({length: 200}, (_, i) => row(i)),
      {count: 0, sessions: []},
      {count: 64, sessions: Array.from({length: 64}, (_, i) => row(i))},
      {count: 65, sessions: Array.from({length: 65}, (_, i) => row(i))},
      {path: null, count: 1000, sessions: Array.from({length: 1000}, (_, i) => row(i)), after: 'tail'},
      {a: Array.from({length: 130}, (_, i) => i), b: {nested: Array.from({length: 300}, (_, i) => row(i))}, c: Array.from({length: 129}, (_, i) => [i, [i]]), 7: 'integer keys come first'},
      {rows: Array.from({length: 100}, (_, i) => (i % 10 === 0 ? undefined : i % 10 === 1 ? (() => 1) : new Point(i, -i)))},
      {when: new Date(0), rows: Array.from({length: 100}, (_, i) => new Date(i * 1000))},
      Object.assign(Object.create(null), {rows: Array.from({length: 70}, (_, i) => i)}),
      {toJSON: () => ({rows: Array.from({length: 100}, (_, i) => i)})},
      {rows: Object.assign(Array.from({length: 100}, (_, i) => i), {toJSON: () => 'an array that spells itself'})},
      new Point(1, 2),
    ]
    for (const [i, doc] of docs.entries()) expect(pieces(doc).join(''), `document ${i}`).toBe(JSON.stringify(doc, null, 2) ?? 'null')
  })

  it('writes a large list in pieces of at most 64 rows, each no larger than its rows', () => {
    const doc = {count: 10_000, sessions: Array.from({length: 10_000}, (_, i) => row(i))}
    const out = pieces(doc)
    expect(out.join('')).toBe(JSON.stringify(doc, null, 2))
    const longest = Math.max(...out.map((p) => p.length))
    expect(out.length).toBeGreaterThanOrEqual(10_000 / 64)
    expect(longest).toBeLessThan(JSON.stringify(doc.sessions.slice(0, 65), null, 2).length * 1.5)
  })

  it('writes the document whole when a value holds the placeholder it would use', () => {
    // The placeholder carries a random tag; with the tag known, a value can hold it, and then the document is one piece.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5)
    try {
      const tag = `\u0000clawkit-rows-${(0.5).toString(36).slice(2)}-0`
      const doc = {note: tag, sessions: Array.from({length: 100}, (_, i) => row(i))}
      const out = pieces(doc)
      expect(out).toHaveLength(1)
      expect(out[0]).toBe(JSON.stringify(doc, null, 2))
      const apart = {note: tag.slice(0, -1), sessions: doc.sessions}
      expect(pieces(apart).length).toBeGreaterThan(1)
      expect(pieces(apart).join('')).toBe(JSON.stringify(apart, null, 2))
    } finally {
      random.mockRestore()
    }
  })
})
