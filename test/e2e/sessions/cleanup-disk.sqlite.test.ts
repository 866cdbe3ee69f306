// `sessions cleanup`'s disk figures in the SQLite era measured as OpenClaw 2026.9.6 measures them
// (readSessionPhysicalDiskUsage): the sessions dir, the database and its WAL, never the -shm shared-memory file.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import {baseEnv, cliWith, copyFixture, json, tempDir} from '../../support/cli.js'
import {DELETED_96, describeSqlite} from '../../support/sqlite.js'

describeSqlite('sessions cleanup disk figures (SQLite era)', () => {
  it('totalBytesBefore is the database, its WAL and the sessions dir: the -shm file an open connection creates is not counted', async () => {
    const state = copyFixture(DELETED_96)
    const db = path.join(state, 'agents/main/agent/openclaw-agent.sqlite')
    const cli = cliWith(['--state-dir', state], {env: baseEnv(tempDir())})
    // A -shm file beside the database, as any process with the database open has (32 KiB, SQLite's first region).
    fs.writeFileSync(`${db}-shm`, Buffer.alloc(32_768))
    const plan = json<{stores: {diskBudget: {totalBytesBefore: number}}[]}>(await cli(['sessions', 'cleanup', '--dry-run', '--json'])).stores[0]
    const size = (p: string) => fs.statSync(p, {throwIfNoEntry: false})?.size ?? 0
    const sessionsDir = path.join(state, 'agents/main/sessions')
    const dirBytes = fs.readdirSync(sessionsDir).reduce((n, f) => n + size(path.join(sessionsDir, f)), 0)
    expect(dirBytes).toBeGreaterThan(0)
    expect(plan.diskBudget.totalBytesBefore).toBe(size(db) + size(`${db}-wal`) + dirBytes)
  })
})
