import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, BIN, tempDir} from '../support/cli.js'

/** A state dir whose `sessions list --json` is a few MB: far more than a pipe holds (64 KiB on Linux). */
function bigState(sessions: number): string {
  const state = tempDir()
  const dir = path.join(state, 'agents', 'main', 'sessions')
  fs.mkdirSync(dir, {recursive: true})
  const store: Record<string, unknown> = {}
  for (let i = 0; i < sessions; i++) {
    store[`agent:main:telegram:direct:${i}`] = {sessionId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, updatedAt: 1_700_000_000_000 + i, model: 'claude-sonnet-4-5', modelProvider: 'anthropic', contextTokens: 200_000, totalTokens: i, label: 'x'.repeat(200)}
  }
  fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(store, null, 2))
  return state
}

describe('bin/run.js ends the process once the output is out', () => {
  it('a reader that starts late still gets all of a multi-MB --json document, and the exit code', async () => {
    const state = bigState(6000)
    const child = spawn(process.execPath, [BIN, 'sessions', 'list', '--json', '--state-dir', state], {env: baseEnv(tempDir()), stdio: ['ignore', 'pipe', 'pipe']})
    // Nothing is read for a while: the CLI's writes fill the pipe and queue up behind it.
    child.stdout.pause()
    await new Promise((r) => setTimeout(r, 700))
    const chunks: Buffer[] = []
    child.stdout.on('data', (d: Buffer) => chunks.push(d))
    child.stdout.resume()
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)))
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
