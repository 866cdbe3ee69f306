// Reading the end of a transcript whose last line is huge (a big tool result, a pasted file) through the real CLI: the
// cost must be linear in the line, i.e. close to a plain read of the file. Compared with a plain read in the same run
// (a generous ratio, no absolute times); the old reader, which re-copied the carried tail on every 64 KiB step, took
// 25 s at 20 MB and 96 s at 40 MB.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../support/cli.js'

const MB = 1024 * 1024

function timed<T>(fn: () => T): {value: T; ms: number} {
  const started = process.hrtime.bigint()
  const value = fn()
  return {value, ms: Number(process.hrtime.bigint() - started) / 1e6}
}

describe('tail reads of a huge last line', () => {
  it('sessions history --limit 1 after one 24 MB message costs about a plain read of it, not a quadratic scan', async () => {
    const state = copyFixture(TWO_AGENTS)
    const index = JSON.parse(fs.readFileSync(sessionsJsonPath(state), 'utf8'))
    const transcript = path.join(path.dirname(sessionsJsonPath(state)), `${index['agent:main:main'].sessionId}.jsonl`)
    const env = baseEnv(tempDir())
    const run = async () => {
      const started = Date.now()
      const r = await runCli(['sessions', 'history', 'main', '--limit', '1', '--json', '--state-dir', state], {env, timeoutMs: 120_000})
      return {r, ms: Date.now() - started}
    }
    // The same command on the small session first: start-up and rendering, which the big one pays too.
    await run()
    const small = await run()
    expect(small.r.code, small.r.stderr).toBe(0)

    const lines = fs.readFileSync(transcript, 'utf8').trimEnd().split('\n')
    const leaf = JSON.parse(lines.at(-1)!).id
    const text = 'y'.repeat(24 * MB)
    fs.appendFileSync(transcript, `${JSON.stringify({type: 'message', id: 'feedbeef', parentId: leaf, timestamp: '2026-11-25T22:00:00.000Z', message: {role: 'user', content: text, timestamp: 1}})}\n`)
    // A plain read of the file and a parse of its last line: the least any reader of that message must do.
    const plain = timed(() => JSON.parse(fs.readFileSync(transcript, 'utf8').trimEnd().split('\n').at(-1)!))
    expect(plain.value.message.content).toHaveLength(text.length)

    const big = await run()
    expect(big.r.code, big.r.stderr).toBe(0)
    const doc = JSON.parse(big.r.stdout)
    expect(doc.entries.at(-1).text).toBe(text)
    // Linear: what the big run costs beyond the small one is a few plain reads (decode, parse, print the 24 MB as JSON).
    // Quadratic was ~30 s here, hundreds of plain reads.
    expect(big.ms, `history ${big.ms} ms, small ${small.ms} ms, plain read ${plain.ms.toFixed(0)} ms`).toBeLessThan(small.ms + 25 * plain.ms)
  }, 180_000)
})
