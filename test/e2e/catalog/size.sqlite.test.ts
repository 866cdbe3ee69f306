// Issue 28: the full-text index is at most 0.5x the text it covers, and `clawkit index --status` and `status` say how big
// it is against that text. A small store's catalog is larger than its text (SQLite's pages, docs/catalog.md), so the
// bound is checked on a generated store of ~1 MB of text, through the real CLI; the benchmark's 1 GiB figure is in BENCHMARKS.md.
import {expect, it} from 'vitest'
import path from 'node:path'

import type {IndexResult} from '../../../src/commands/index/index.js'
import {baseEnv, json, runCli, tempDir} from '../../support/cli.js'
import {GeneratedStore} from '../../support/catalog-store.js'
import {describeSqlite} from '../../support/sqlite.js'

describeSqlite('the catalog\'s size', () => {
  it('the full-text index is at most 0.5x the text it covers, and index --status and status report it', async () => {
    const env = baseEnv(tempDir())
    const state = path.join(tempDir(), 'state')
    GeneratedStore.create(state, 28, {agents: ['main'], keys: 40, lines: 400})
    const built = json<IndexResult>(await runCli(['index', '--json', '--state-dir', state], {env, timeoutMs: 120_000}))
    const d = built.details!
    expect(built.catalog.textBytes).toBeGreaterThan(1_000_000)
    expect(d.ratio).toBe(Math.round((d.indexBytes / built.catalog.textBytes) * 1000) / 1000)
    expect(d.ratio!).toBeLessThanOrEqual(0.5)
    const text = await runCli(['index', '--status', '--state-dir', state], {env})
    expect(text.stdout).toContain(`the index is ${d.ratio}x of it`)
    // status shows the file (index, ledger and bookkeeping) against the same text, as the file is now (the build's
    // write-ahead log has been checkpointed since): index --status's figures of the same moment.
    const now = json<IndexResult>(await runCli(['index', '--status', '--json', '--state-dir', state], {env}))
    expect(now.details!.ratio).toBe(d.ratio)
    const status = await runCli(['status', '--state-dir', state], {env})
    expect(status.stdout).toMatch(new RegExp(`Catalog\\s+[\\d.]+ [KM]iB \\(${(now.catalog.bytes / now.catalog.textBytes).toFixed(2)}x of the [\\d.]+ [KM]iB of text it covers\\), 40 transcript`))
  }, 180_000)
})
