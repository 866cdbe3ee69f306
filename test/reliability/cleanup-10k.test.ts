// `sessions cleanup` on a generated JSON-era store of 10 000 sessions (half ordinary, half cron runs, ages 1-60 days,
// plus the kinds of MIXED): the plan's counters follow OpenClaw's rules, applying it removes ~2 700 runtime sessions
// in a few index rewrites (not one per key), and undo gives all 10 000 transcripts and the index back byte for byte.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import type {SessionsCleanupResult} from '../../src/sessions/cleanup.js'
import {baseEnv, cliWith, json, tempDir} from '../support/cli.js'
import {mixedJsonStore} from '../support/cleanup-store.js'
import {DEEP} from '../support/deep.js'
import {hashTree} from '../support/state-hash.js'

// A scale test (~25 s of CPU): npm run test:deep runs it, npm test does not (test/e2e/sessions/cleanup.test.ts covers
// the same rules on small stores).
describe.skipIf(!DEEP)('sessions cleanup on 10 000 sessions', () => {
  it('plans by OpenClaw\'s rules, applies, and undo gives every byte back', {timeout: 600_000}, async () => {
    const state = tempDir()
    fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify({agents: {defaults: {workspace: path.join(state, 'workspace')}}}))
    const now = Date.now()
    mixedJsonStore(state, now, 10_000, (i) => (i % 2 ? `agent:main:cron:job${i % 7}:run:gen-${i}` : `agent:main:explicit:gen-${i}`))
    const cli = cliWith(['--state-dir', state], {env: baseEnv(tempDir()), timeoutMs: 540_000})
    const before = hashTree(state)
    const plan = json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--json'])).stores[0]
    // Ages are 1 + (i % 60) days: keys 29-59 of every 60 are 30 days old or more by the time cleanup runs; odd ones are cron runs (removed), even
    // ones ordinary (archived); MIXED adds 2 archives and 3 removals.
    const old = Array.from({length: 10_000}, (_, i) => i).filter((i) => 1 + (i % 60) >= 30)
    expect(plan.pruned).toBe(old.filter((i) => i % 2).length + 3)
    expect(plan.archived).toBe(old.filter((i) => i % 2 === 0).length + 2)
    expect(plan.capArchived).toBe(0)
    const applied = json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--yes', '--json']))
    expect(applied.journal).toEqual(expect.any(String))
    expect(json<SessionsCleanupResult>(await cli(['sessions', 'cleanup', '--rules', '2026.9', '--json'])).stores[0].wouldMutate).toBe(false)
    const u = await cli(['undo', '--json'])
    expect(u.code, u.stderr).toBe(0)
    expect(hashTree(state)).toEqual(before)
  })
})
