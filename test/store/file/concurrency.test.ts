import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, tempDir} from '../../support/cli.js'

function run(script: string, args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [path.join(ROOT, 'test/support', script), ...args], {stdio: ['ignore', 'ignore', 'inherit']})
    c.on('error', reject)
    c.on('close', resolve)
  })
}

describe('concurrent writers on one sessions.json', () => {
  it('8 processes x 50 updates under the store lock lose no update', async () => {
    const dir = tempDir()
    const store = path.join(dir, 'sessions.json')
    const codes = await Promise.all(Array.from({length: 8}, (_, w) => run('store-worker.mjs', [store, String(w), '50'])))
    expect(codes).toEqual(Array(8).fill(0))
    const data = JSON.parse(fs.readFileSync(store, 'utf8'))
    expect(data['agent:main:main'].hits).toBe(400)
    expect(Object.keys(data)).toHaveLength(401)
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp') || f.endsWith('.lock'))).toEqual([])
    expect(fs.statSync(store).mode & 0o777).toBe(0o600)
  })

  it('clawkit and a foreign writer following OpenClaw\'s lock protocol interleave without lost updates', async () => {
    const dir = tempDir()
    const store = path.join(dir, 'sessions.json')
    const jobs = [
      ...Array.from({length: 4}, (_, w) => run('store-worker.mjs', [store, String(w), '30'])),
      ...Array.from({length: 4}, (_, w) => run('foreign-writer.mjs', [store, String(w), '30'])),
    ]
    expect(await Promise.all(jobs)).toEqual(Array(8).fill(0))
    const data = JSON.parse(fs.readFileSync(store, 'utf8'))
    expect(data['agent:main:main'].hits).toBe(240)
    expect(Object.keys(data).filter((k) => k.includes(':worker-'))).toHaveLength(120)
    expect(Object.keys(data).filter((k) => k.includes(':foreign-'))).toHaveLength(120)
  })
})
