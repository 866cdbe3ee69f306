// Issue 28: the spend of a transcript removed after it was cataloged stays in `sessions usage`, marked removed. The JSON
// era's case (a pruned reset archive) is in index.sqlite.test.ts; this is the SQLite era's, through the real CLI: the
// 2026.9.6 fixture whose deleted session lives on as an archive row, which OpenClaw's cleanup then prunes (the row is
// deleted from session_transcript_archives).
import {expect, it} from 'vitest'

import type {SessionsUsageResult} from '../../../src/commands/sessions/usage.js'
import {baseEnv, copyFixture, json, runCli, tempDir} from '../../support/cli.js'
import {dbPath, openDb} from '../../support/sqlite-expect.js'
import {describeSqlite, DELETED_96} from '../../support/sqlite.js'

const usage = async (state: string, env: Record<string, string>, ...extra: string[]) => json<SessionsUsageResult>(await runCli(['sessions', 'usage', '--all-agents', '--by', 'session', '--json', ...extra, '--state-dir', state], {env}))

describeSqlite('removed spend in the SQLite era', () => {
  it('an archive row pruned after the catalog read it: its calls stay in the totals, marked removed; --scan leaves them out', async () => {
    const env = baseEnv(tempDir())
    const state = copyFixture(DELETED_96)
    const before = await usage(state, env)
    expect(before.source).toBe('catalog')
    const scanBefore = await usage(state, env, '--scan')
    const {source: _a, removed: _b, ...b} = before
    const {source: _c, removed: _d, ...s} = scanBefore
    expect(b).toEqual(s)
    // The archived (deleted) session's calls, as the scan counts them.
    const w = openDb(dbPath(state, 'main'), false)
    const archived = w.prepare('SELECT session_id FROM session_transcript_archives').all().map((r) => String(r.session_id))
    expect(archived).toHaveLength(1)
    const spent = scanBefore.rows.find((r) => r.sessionId === archived[0])!
    expect(spent.calls).toBeGreaterThan(0)
    w.prepare('DELETE FROM session_transcript_archives WHERE session_id = ?').run(archived[0])
    w.close()
    const after = await usage(state, env)
    const scanned = await usage(state, env, '--scan')
    expect(scanned.rows.find((r) => r.sessionId === archived[0])).toBeUndefined()
    expect(after.removed).toEqual({transcripts: 1, calls: spent.calls, costUsd: spent.costUsd})
    expect(after.total.calls).toBe(before.total.calls)
    expect(after.total.costUsd).toBe(before.total.costUsd)
    expect(after.total.calls).toBe(scanned.total.calls + spent.calls)
    expect(after.rows.find((r) => r.sessionId === archived[0])).toMatchObject({removed: true, calls: spent.calls, costUsd: spent.costUsd, removedCostUsd: spent.costUsd})
    const text = await runCli(['sessions', 'usage', '--all-agents', '--state-dir', state], {env})
    expect(text.stdout).toMatch(/^Removed: \$[\d.]+ of the total was spent in 1 transcript OpenClaw has since removed/m)
  })
})
