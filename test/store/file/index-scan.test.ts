import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {CorruptFileError} from '../../../src/errors.js'
import {parseStoreText, serializeStore} from '../../../src/store/file/store.js'
import {projectEntries, visitEntries} from '../../../src/store/file/index-scan.js'
import type {SessionEntry} from '../../../src/store/types.js'
import {Rng, seedFromEnv} from '../../reliability/support/prng.js'
import {COMPACTION, copyFixture, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'

const project = (key: string, value: unknown) => (value && typeof value === 'object' && !Array.isArray(value) ? {key, sessionId: (value as SessionEntry).sessionId, entry: value} : undefined)

/** What the old whole-parse path gave: every object entry of JSON.parse's result, in its key order. */
function viaWholeParse(text: string, file: string) {
  const data = parseStoreText(text, file) as Record<string, unknown>
  return Object.keys(data)
    .filter((k) => data[k] && typeof data[k] === 'object' && !Array.isArray(data[k]))
    .map((k) => [k, project(k, data[k])])
}

async function viaScan(file: string, chunkBytes: number, parsedWhole: {n: number}) {
  const rows = await projectEntries(file, project, (text) => (parsedWhole.n++, parseStoreText(text, file)), {chunkBytes, minBytes: 0})
  return rows ? [...rows] : undefined
}

const rng = new Rng(seedFromEnv(7))
const rand = (n: number) => rng.int(0, n - 1)
const pick = <T>(xs: T[]): T => rng.pick(xs)

const KEYS = ['agent:main:main', 'agent:main:telegram:group:-1001', '__proto__', 'constructor', '10', '2', 'agent:main:"quoted"', 'agent:main:back\\slash', 'agent:main:é🦞', 'agent:main:}', 'agent:main:\n', 'agent:main:\u2028', '']
const VALUES: unknown[] = [
  'x',
  '}\n  }',
  'a "quote" and \\ backslash',
  '\n  },\n  "fake": {',
  42,
  null,
  [1, {a: '}'}, []],
  {deep: {deeper: {text: '\n  }'}}},
  {},
  [],
]

function randomEntry(): Record<string, unknown> {
  const e: Record<string, unknown> = {sessionId: `s${rand(1000)}`, updatedAt: rand(10_000)}
  for (let i = rand(5); i > 0; i--) e[pick(['note', 'origin', 'list', 'skillsSnapshot', 'x'])] = pick(VALUES)
  return e
}

describe('projectEntries: the index read entry by entry gives what a whole JSON.parse gives', () => {
  it('on generated stores: hostile keys, duplicates, integer-like keys, nested braces, at several chunk sizes', async () => {
    const dir = tempDir()
    let scanned = 0
    for (let round = 0; round < 150; round++) {
      const entries: [string, unknown][] = []
      for (let i = rand(12); i > 0; i--) entries.push([pick(KEYS) + (rand(3) === 0 ? '' : String(rand(50))), rand(40) === 0 ? pick(VALUES) : randomEntry()])
      // OpenClaw's own layout, built by hand so that keys can repeat (a hand-edited file) as JSON.stringify cannot.
      const body = entries.map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v, null, 2).replaceAll('\n', '\n  ')}`).join(',\n')
      const text = entries.length ? `{\n${body}\n}${pick(['', '\n', ' \t\r\n'])}` : '{}'
      const file = path.join(dir, `s${round}.json`)
      fs.writeFileSync(file, text)
      const want = viaWholeParse(text, file)
      for (const chunk of [5, 64, 1024 * 1024]) {
        const whole = {n: 0}
        expect(await viaScan(file, chunk, whole), `round ${round}, chunk ${chunk}:\n${text}`).toEqual(want)
        if (whole.n === 0) scanned++
      }
    }
    // Most stores take the entry-by-entry path (the rest hold a non-object or empty entry, or none), so the comparison
    // above is not only testing the fallback.
    expect(scanned).toBeGreaterThan(225)
  })

  it('real OpenClaw stores (the fixtures) take the entry-by-entry path when large, and are parsed whole when small', async () => {
    for (const fixture of [TWO_AGENTS, COMPACTION]) {
      const file = sessionsJsonPath(copyFixture(fixture))
      const want = viaWholeParse(fs.readFileSync(file, 'utf8'), file)
      const whole = {n: 0}
      expect(await viaScan(file, 4096, whole)).toEqual(want)
      expect(whole.n).toBe(0)
      // With the default threshold a small index is one JSON.parse (faster than many small ones).
      const rows = await projectEntries(file, project, (text) => (whole.n++, parseStoreText(text, file)))
      expect([...rows!]).toEqual(want)
      expect(whole.n).toBe(1)
    }
  })

  it('keys with quotes, backslashes, braces and escapes still take the entry-by-entry path', async () => {
    const data = Object.fromEntries(KEYS.map((k, i) => [k, {sessionId: `s${i}`, updatedAt: i, note: '\\"}\n  }'}]))
    const file = path.join(tempDir(), 'sessions.json')
    fs.writeFileSync(file, serializeStore(data))
    for (const chunk of [3, 64]) {
      const whole = {n: 0}
      expect(await viaScan(file, chunk, whole)).toEqual(viaWholeParse(serializeStore(data), file))
      expect(whole.n, `chunk ${chunk}`).toBe(0)
    }
  })

  it('invalid UTF-8 inside a value decodes as a whole read decodes it, wherever the chunks end', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const text = serializeStore({'agent:main:a': {sessionId: 'a', updatedAt: 1, note: 'XX🦞YY'}, 'agent:main:b': {sessionId: 'b', updatedAt: 2, note: 'ZZ'}})
    const bytes = Buffer.from(text.replace('XX', '\u0001\u0002').replace('ZZ', '\u0003'))
    const bad = Buffer.concat([bytes.subarray(0, bytes.indexOf(1)), Buffer.from([0xff, 0xe2, 0x82]), bytes.subarray(bytes.indexOf(1) + 2, bytes.indexOf(3)), Buffer.from([0xf0, 0x9f]), bytes.subarray(bytes.indexOf(3) + 1)])
    fs.writeFileSync(file, bad)
    for (const chunk of [1, 2, 3, 7, 64]) {
      const whole = {n: 0}
      expect(await viaScan(file, chunk, whole)).toEqual(viaWholeParse(bad.toString('utf8'), file))
      expect(whole.n).toBe(0)
    }
  })

  it('an entry far larger than a chunk costs linear copying (a 16 MB value in 4 KiB chunks)', async () => {
    // Copying everything read so far at every chunk would move ~32 GB here (it took 25 s); doubling moves < 2x the file.
    const data = {'agent:main:a': {sessionId: 'a', updatedAt: 1}, 'agent:main:big': {sessionId: 'big', updatedAt: 2, note: 'x'.repeat(16 * 1024 * 1024)}, 'agent:main:z': {sessionId: 'z', updatedAt: 3}}
    const file = path.join(tempDir(), 'sessions.json')
    fs.writeFileSync(file, serializeStore(data))
    const stats = {copiedBytes: 0}
    let wholeParses = 0
    const rows = [...(await projectEntries(file, project, (text) => (wholeParses++, parseStoreText(text, file)), {chunkBytes: 4096, minBytes: 0, stats}))!]
    expect(wholeParses).toBe(0)
    expect(stats.copiedBytes).toBeGreaterThan(0)
    expect(stats.copiedBytes).toBeLessThan(2 * fs.statSync(file).size)
    expect(rows.map(([k, r]) => [k, r.sessionId, JSON.stringify(r.entry).length])).toEqual(Object.entries(data).map(([k, e]) => [k, e.sessionId, JSON.stringify(e).length]))
  })

  it('entries written one per line (another formatter, same indent) fall back to the whole parse', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const entries = Array.from({length: 200}, (_, i) => `  "agent:main:k${i}": ${JSON.stringify({sessionId: `s${i}`, updatedAt: i})}`)
    const text = `{\n${entries.join(',\n')}\n}`
    fs.writeFileSync(file, text)
    const whole = {n: 0}
    expect(await viaScan(file, 64, whole)).toEqual(viaWholeParse(text, file))
    expect(whole.n).toBe(1)
  })

  it('other layouts (minified, tabs, CRLF) and non-object entries fall back to the whole parse; a BOM-led one is read entry by entry', async () => {
    const data = {'agent:main:main': {sessionId: 'a', updatedAt: 1}, 'agent:main:b': {sessionId: 'b', updatedAt: 2}}
    const pretty = serializeStore(data)
    const file = path.join(tempDir(), 'sessions.json')
    for (const text of [JSON.stringify(data), JSON.stringify(data, null, '\t'), pretty.replaceAll('\n', '\r\n'), `\uFEFF${pretty}`, JSON.stringify({...data, 'agent:main:n': null}, null, 2), JSON.stringify({...data, 'agent:main:e': {}}, null, 2)]) {
      fs.writeFileSync(file, text)
      const whole = {n: 0}
      if (text.startsWith('\uFEFF')) {
        // JSON.parse refuses a BOM; clawkit reads past it (OpenClaw would read the index as empty and overwrite it).
        expect(await viaScan(file, 64, whole)).toEqual(viaWholeParse(text.slice(1), file))
        expect(whole.n).toBe(0)
        continue
      }
      expect(await viaScan(file, 64, whole)).toEqual(viaWholeParse(text, file))
      expect(whole.n, text).toBe(1)
    }
  })

  it('a torn or corrupt index is reported by the whole parse, with its position, whatever the scan had read', async () => {
    const pretty = serializeStore({'agent:main:main': {sessionId: 'a', updatedAt: 1}, 'agent:main:b': {sessionId: 'b', updatedAt: 2}})
    const file = path.join(tempDir(), 'sessions.json')
    for (const text of [pretty.slice(0, -1), pretty.slice(0, 40), `${pretty}x`, pretty.replace('"a"', '"a\u0001"'), pretty.replace('updatedAt": 2', 'updatedAt": 2,')]) {
      fs.writeFileSync(file, text)
      await expect(viaScan(file, 16, {n: 0}), JSON.stringify(text)).rejects.toBeInstanceOf(CorruptFileError)
    }
  })

  it('a missing index is undefined (an empty store to callers)', async () => {
    expect(await projectEntries(path.join(tempDir(), 'none.json'), project, () => ({}))).toBeUndefined()
  })
})

describe('visitEntries: the index handed to an asynchronous visitor entry by entry', () => {
  async function visited(file: string, chunkBytes: number) {
    const out = new Map<string, unknown>()
    let inFlight = 0
    let most = 0
    await visitEntries(
      file,
      async (key, entry) => {
        most = Math.max(most, ++inFlight)
        await new Promise((resolve) => setImmediate(resolve))
        out.set(key, entry)
        inFlight--
      },
      (text) => parseStoreText(text, file),
      {chunkBytes, minBytes: 0},
    )
    return {rows: [...out], most}
  }

  it('generated stores (duplicates included) and a layout found irregular only at its end: each key\'s last visit is what a whole parse gives, one visit at a time', async () => {
    for (let round = 0; round < 30; round++) {
      const data: Record<string, SessionEntry> = {}
      for (let i = rand(30); i >= 0; i--) data[`agent:main:k${rand(20)}`] = randomEntry() as SessionEntry
      const file = path.join(tempDir(), 'sessions.json')
      // A key stored twice (its later value wins), and a layout the scan refuses only after it visited every entry.
      const pretty = serializeStore(data)
      const first = Object.keys(data)[0]
      const dup = `${pretty.slice(0, -2)},\n  ${JSON.stringify(first)}: {\n    "sessionId": "dup",\n    "updatedAt": 9\n  }\n}`
      for (const text of [pretty, pretty.replace(/\n}$/, '\n}\n\n'), dup, `${pretty.slice(0, -2)}\n  ,"agent:main:late": {"sessionId": "z", "updatedAt": 1}\n}`]) {
        fs.writeFileSync(file, text)
        const {rows, most} = await visited(file, 1 + rand(200))
        const expected = viaWholeParse(text, file).map(([k, r]) => [k, (r as {entry: unknown}).entry])
        expect(rows.sort(), text.slice(0, 200)).toEqual(expected.sort())
        expect(most).toBe(1)
      }
    }
  })

  it('a missing index visits nothing', async () => {
    let n = 0
    await visitEntries(path.join(tempDir(), 'none.json'), () => void n++, () => ({}))
    expect(n).toBe(0)
  })
})
