// bin/run.js's explicit exit (src/cli/boot.ts): nothing written is lost, and the exit code is the command's.
import {spawn} from 'node:child_process'

import {describe, expect, it} from 'vitest'

import {baseEnv, BIN, bigState, tempDir} from '../support/cli.js'

describe('bin/run.js ends the process once the output is out', () => {
  it('a reader that starts late still gets all of a multi-MB --json document, and the exit code', async () => {
    const state = bigState(6000)
    const child = spawn(process.execPath, [BIN, 'sessions', 'list', '--json', '--state-dir', state], {env: baseEnv(tempDir()), stdio: ['ignore', 'pipe', 'pipe']})
    const closed = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)))
    // Nothing is read for a while: the CLI's writes fill the pipe and queue up behind it.
    child.stdout.pause()
    await new Promise((r) => setTimeout(r, 700))
    const chunks: Buffer[] = []
    child.stdout.on('data', (d: Buffer) => chunks.push(d))
    child.stdout.resume()
    const code = await closed
    const out = Buffer.concat(chunks).toString('utf8')
    expect(out.length).toBeGreaterThan(1024 * 1024)
    const doc = JSON.parse(out)
    expect(doc.count).toBe(6000)
    expect(doc.sessions).toHaveLength(6000)
    expect(code).toBe(0)
  }, 20_000)

  it('an exit code set by a failing command survives the explicit exit', async () => {
    const child = spawn(process.execPath, [BIN, 'sessions', 'history', 'agent:main:nope', '--json', '--state-dir', bigState(1)], {env: baseEnv(tempDir()), stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d))
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)))
    expect(code).toBe(1)
    expect(JSON.parse(out).error.exitCode).toBe(1)
  })
})
