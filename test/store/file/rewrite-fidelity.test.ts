// What a rewrite of sessions.json keeps of rows it did not touch: exactly what OpenClaw's own save keeps
// (JSON.parse, then JSON.stringify(store, null, 2)). docs/compatibility.md ("Files, locks and safety") documents this.
import fs from 'node:fs'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'

/** An untouched row as a hand editor or another tool may have written it: raw text, spliced in. */
const RAW_ROW = `{"sessionId": "numbers-1", "updatedAt": 1, "bigId": 1234567890123456789, "price": 1.50, "exp": 1e3, "neg0": -0, "accent": "caf\\u00e9", "slash": "a\\/b", "zUnknown": {"nested": [1, 2.0, true, null]}, "aFirst": "order kept"}`

describe('rewrite fidelity of untouched rows', () => {
  it('sessions reset of another row keeps keys, order, strings and unknown fields; numbers come back as JavaScript prints them', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = sessionsJsonPath(state)
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/\n}$/, `,\n  "agent:main:numbers": ${RAW_ROW}\n}`))
    const r = await runCli(['sessions', 'reset', 'agent:main:main', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code, r.stderr).toBe(0)
    const text = fs.readFileSync(file, 'utf8')
    const row = text.slice(text.indexOf('"agent:main:numbers"'))
    // Precision beyond 2^53, trailing zeros, exponents and -0: JavaScript's number printing, as in OpenClaw's save.
    expect(row).toContain('"bigId": 1234567890123456800,')
    expect(row).toContain('"price": 1.5,')
    expect(row).toContain('"exp": 1000,')
    expect(row).toContain('"neg0": 0,')
    // Escapes are decoded (the same characters), key order and unknown fields are kept.
    expect(row).toContain('"accent": "café",')
    expect(row).toContain('"slash": "a/b",')
    const parsed = JSON.parse(text)['agent:main:numbers']
    expect(Object.keys(parsed)).toEqual(['sessionId', 'updatedAt', 'bigId', 'price', 'exp', 'neg0', 'accent', 'slash', 'zUnknown', 'aFirst'])
    expect(parsed.zUnknown).toEqual({nested: [1, 2, true, null]})
    // Exactly OpenClaw's serialization of the same data: nothing else changes.
    expect(row.slice(row.indexOf('{'), row.indexOf('\n  }') + 4)).toBe(JSON.stringify(JSON.parse(RAW_ROW), null, 2).replaceAll('\n', '\n  '))
  })

  it('a command that changes nothing leaves the file byte for byte as it was', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = sessionsJsonPath(state)
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/\n}$/, `,\n  "agent:main:numbers": ${RAW_ROW}\n}`))
    const before = fs.readFileSync(file)
    const env = baseEnv(tempDir())
    for (const args of [['sessions', 'list', '--json'], ['sessions', 'history', 'main', '--json'], ['status', '--json']]) {
      await runCli([...args, '--state-dir', state], {env})
      expect(fs.readFileSync(file).equals(before), args.join(' ')).toBe(true)
    }
  })
})
