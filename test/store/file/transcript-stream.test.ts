// The streaming line reader behind export and lineage (store/file/transcript-stream.ts), on real files: lines that cross
// its 64 KiB reads, a multi-byte character split by a read, CRLF endings, blank lines, a torn last line, a BOM-less
// header, and a missing file.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {grepFileLines} from '../../../src/store/file/grep-scan.js'
import {grepTranscriptLines, streamTranscriptLines} from '../../../src/store/file/transcript-stream.js'
import {tempDir} from '../../support/cli.js'

async function collect(file: string) {
  const out = []
  for await (const l of streamTranscriptLines(file)) out.push(l)
  return out
}

describe('streamTranscriptLines', () => {
  it('gives every line whole and as stored, across chunk boundaries and a split multi-byte character; a torn last line is reported', async () => {
    const file = path.join(tempDir(), 't.jsonl')
    const big = `{"type":"message","id":"b","text":"${'\u00e9'.repeat(40_000)}\u{1F600}"}`
    // This length puts the second 64 KiB boundary inside a two-byte character of the next line (checked below).
    const pad = `{"type":"message","id":"p","text":"${'x'.repeat(65_535 - 37)}"}`
    const lines = ['{"type":"session","id":"s1","timestamp":"2026-01-01T00:00:00.000Z"}', pad, big, '', '{"type":"message","id":"c"}\r', '{"type":"mess']
    fs.writeFileSync(file, lines.join('\n'))
    const bigStart = Buffer.byteLength(`${lines[0]}\n${pad}\n`) + Buffer.byteLength('{"type":"message","id":"b","text":"')
    expect((2 * 65_536 - bigStart) % 2).toBe(1)
    const got = await collect(file)
    expect(got.map((l) => l.raw)).toEqual([lines[0], pad, big, lines[4], lines[5]])
    expect(got.map((l) => l.line)).toEqual([1, 2, 3, 5, 6])
    expect(got[2].value).toEqual(JSON.parse(big))
    expect(got[3].value).toEqual({type: 'message', id: 'c'})
    expect(got[4].bad?.reason).toBe('torn')
  })

  it('a missing file is an E_ENOENT error naming it', async () => {
    const file = path.join(tempDir(), 'none.jsonl')
    await expect(collect(file)).rejects.toMatchObject({code: 'E_ENOENT'})
  })
})

describe('grepTranscriptLines', () => {
  const filter = {needles: ['"usage"'], ignoreCase: false}

  it.each([
    ['Buffer.indexOf scan', grepTranscriptLines],
    ['WebAssembly SIMD scan (the file store\'s grepLines)', grepFileLines],
  ])('%s: yields only lines holding a needle, and a torn last line whatever it holds (a reader counting unreadable lines sees it)', async (_name, grep) => {
    const file = path.join(tempDir(), 't.jsonl')
    const lines = [{type: 'session', id: 's'}, {type: 'message', message: {role: 'user'}}, {type: 'message', message: {role: 'assistant', usage: {input: 1}}}]
    fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n{"type":"message","message":{"role":"assis`)
    const got = []
    for await (const l of grep(file, filter)) got.push({line: l.line, bad: l.bad?.reason, usage: (l.value as {message?: {usage?: unknown}} | undefined)?.message?.usage})
    expect(got).toEqual([
      {line: 3, bad: undefined, usage: {input: 1}},
      {line: 4, bad: 'torn', usage: undefined},
    ])
  })

  it('an unterminated last line that parses is a line like any other: yielded only when it holds a needle', async () => {
    const file = path.join(tempDir(), 't.jsonl')
    fs.writeFileSync(file, `{"type":"session","id":"s"}\n{"type":"message","message":{"role":"user"}}`)
    const got = []
    for await (const l of grepTranscriptLines(file, filter)) got.push(l)
    expect(got).toEqual([])
  })
})

describe('grepFileSpans', () => {
  it('numbers the lines of a span read with no filter as a whole read does, blank and empty lines included', async () => {
    const {grepFileSpans} = await import('../../../src/store/file/grep-scan.js')
    const file = path.join(tempDir(), 't.jsonl')
    const lines = ['{"type":"session","id":"s1"}', '{"type":"message","id":"a"}', '', '   ', '{"type":"message","id":"b"}', '', '', '{"type":"message","id":"c"}']
    fs.writeFileSync(file, `${lines.join('\n')}\n`)
    const whole = await collect(file)
    for (const filter of [undefined, {needles: ['message'], ignoreCase: false}]) {
      const got = []
      for await (const l of grepFileSpans(file, [{line: 1, offset: 0}], filter)) got.push(l)
      // Before the fix an empty line was counted twice with no filter: "c" came out as line 9.
      expect(got.map((l) => [l.line, l.raw])).toEqual(whole.filter((l) => !filter || l.raw.includes('message')).map((l) => [l.line, l.raw]))
    }
    expect(whole.map((l) => l.line)).toEqual([1, 2, 5, 8])
  })
})
