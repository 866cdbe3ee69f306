// Issue 29's concurrency acceptance, JSON era: `sessions cleanup --yes` beside writers that follow OpenClaw's lock
// protocol (4 processes adding live sessions and bumping a counter on the main session, test/support/foreign-writer.mjs)
// and clawkit resets of a live key: no live session and no update is lost, and the cleanup still does what it planned.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import type {SessionsCleanupResult} from '../../src/sessions/cleanup.js'
import {baseEnv, cliWith, json, readIndexFile, ROOT, sessionsJsonPath, tempDir} from '../support/cli.js'
import {MIXED, mixedJsonStore} from '../support/cleanup-store.js'

function foreign(store: string, worker: number, iterations: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [path.join(ROOT, 'test/support/foreign-writer.mjs'), store, String(worker), String(iterations)], {stdio: ['ignore', 'ignore', 'inherit']})
    c.on('error', reject)
    c.on('close', resolve)
  })
}

describe('sessions cleanup beside other writers', () => {
  it('loses no live session, no counter update and no reset, and applies its plan', {timeout: 300_000}, async () => {
    const state = tempDir()
    fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify({agents: {defaults: {workspace: path.join(state, 'workspace')}}}))
    mixedJsonStore(state, Date.now(), 40)
    const store = sessionsJsonPath(state)
    const cli = cliWith(['--state-dir', state], {env: baseEnv(tempDir()), timeoutMs: 240_000})
    const plan = json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--json'])).stores[0]
    const ITER = 150
    const resets = (async () => {
      const out: number[] = []
      for (let i = 0; i < 3; i++) out.push((await cli(['sessions', 'reset', 'agent:main:explicit:new'])).code ?? -1)
      return out
    })()
    const [cleanup, ...rest] = await Promise.all([cli(['sessions', 'cleanup', '--rules', '2026.9', '--yes', '--json']), ...Array.from({length: 4}, (_, w) => foreign(store, w, ITER))])
    expect(cleanup.code, cleanup.stderr).toBe(0)
    expect(rest).toEqual([0, 0, 0, 0])
    expect(await resets).toEqual([0, 0, 0])

    const data = readIndexFile(store) as Record<string, Record<string, unknown>>
    // Every update of the other writers is there: their 600 sessions and 600 counter bumps on the main session.
    expect(Object.keys(data).filter((k) => k.includes(':foreign-'))).toHaveLength(4 * ITER)
    expect(data['agent:main:main'].hits).toBe(4 * ITER)
    // The plan was applied: removals gone, archives marked; keys it did not plan are live and unarchived.
    for (const c of plan.changes) {
      if (c.archiveReason) expect(data[c.key], c.key).toMatchObject({archiveReason: c.archiveReason})
      else expect(data[c.key], c.key).toBeUndefined()
    }
    const planned = new Set(plan.changes.map((c) => c.key))
    for (const k of MIXED.map((m) => m.key).filter((k) => !planned.has(k))) expect(data[k]?.archivedAt, k).toBeUndefined()
    // The resets all landed: three archives of the key's earlier transcripts, and its live transcript exists.
    const live = data['agent:main:explicit:new']
    expect(fs.existsSync(String(live.sessionFile))).toBe(true)
    const dir = path.dirname(store)
    expect(fs.readdirSync(dir).filter((n) => n.includes('.jsonl.reset.'))).toHaveLength(3)
  })
})
