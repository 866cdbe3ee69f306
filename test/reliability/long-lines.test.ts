// Reading the end of a transcript whose last line is huge (a big tool result, a pasted file) through the real CLI:
// the whole line comes back intact, in one run well within its time limit. That the read is linear in the line is
// proven without a clock by the byte counts of the tail reader (test/store/file/transcript.test.ts, "every byte is read
// once and copied at most once"); the old reader re-copied the carried tail on every 64 KiB step and took 25 s at
// 20 MB and 96 s at 40 MB. No wall-clock comparison here: on a loaded 2-core CI it fails for no fault of the code.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, json, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../support/cli.js'

const MB = 1024 * 1024

describe('tail reads of a huge last line', () => {
  it('sessions history --limit 1 after one 24 MB message returns the whole message', async () => {
    const state = copyFixture(TWO_AGENTS)
    const index = JSON.parse(fs.readFileSync(sessionsJsonPath(state), 'utf8'))
    const transcript = path.join(path.dirname(sessionsJsonPath(state)), `${index['agent:main:main'].sessionId}.jsonl`)
    const env = baseEnv(tempDir())

    const lines = fs.readFileSync(transcript, 'utf8').trimEnd().split('\n')
    const leaf = JSON.parse(lines.at(-1)!).id
    const text = 'y'.repeat(24 * MB)
    fs.appendFileSync(transcript, `${JSON.stringify({type: 'message', id: 'feedbeef', parentId: leaf, timestamp: '2026-11-25T22:00:00.000Z', message: {role: 'user', content: text, timestamp: 1}})}\n`)

    const r = await runCli(['sessions', 'history', 'main', '--limit', '1', '--json', '--state-dir', state], {env, timeoutMs: 120_000})
    expect(r.signal, 'killed at the 120 s limit').toBeNull()
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    expect(doc.entries).toHaveLength(1)
    expect(doc.entries[0].text).toBe(text)
  }, 180_000)
})
