// Concurrent writers through the real CLI on one session: resets of the same key serialize under the locks.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, json, readJson, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../support/cli.js'

describe('concurrent CLI writers on one session', () => {
  it('8 concurrent resets of the same key serialize: the ids form one chain, every old transcript is archived once', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const original = readJson(sessionsJsonPath(state))['agent:main:main'].sessionId
    const runs = await Promise.all(Array.from({length: 8}, () => runCli(['sessions', 'reset', 'agent:main:main', '--json', '--state-dir', state], {env})))
    expect(runs.map((r) => r.code)).toEqual(Array(8).fill(0))
    const docs = runs.map((r) => json(r))
    // Serialized resets: each one started from the id the previous one created, so previous->new is a single chain.
    const next = new Map(docs.map((d) => [d.previousSessionId, d.sessionId]))
    expect(next.size).toBe(8)
    const chain = [original]
    while (next.has(chain.at(-1))) chain.push(next.get(chain.at(-1))!)
    expect(chain).toHaveLength(9)
    expect(readJson(sessionsJsonPath(state))['agent:main:main'].sessionId).toBe(chain.at(-1))
    // Every transcript that existed was archived exactly once, and no lock or temp file is left.
    const dir = path.join(state, 'agents', 'main', 'sessions')
    const archives = fs.readdirSync(dir).filter((n) => n.includes('.jsonl.reset.'))
    expect(archives.map((n) => n.split('.jsonl.reset.')[0]).sort()).toEqual(chain.slice(0, -1).sort())
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.lock') || n.endsWith('.tmp'))).toEqual([])
  })
})
