// The --json documents of the `store` commands, which need a SQLite-era store (Node 22.15+), validated against their
// schemas like every other command's in test/schemas.test.ts.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import {SCHEMAS} from '../scripts/schemas.js'
import type {IndexResult} from '../src/commands/index/index.js'
import type {StoreExportResult} from '../src/store/bridge/export.js'
import type {StoreInfoResult} from '../src/store/bridge/info.js'
import type {StoreVerifyResult} from '../src/store/bridge/verify.js'
import {baseEnv, copyFixture, runCli, tempDir} from './support/cli.js'
import {checked, expectDoc} from './support/schema-check.js'
import {describeSqlite, IMPORTED_96, NATIVE_96} from './support/sqlite.js'

describeSqlite('SQLite-era documents validate against their schemas', () => {
  it('info and verify on the imported fixture, export of the native one', async () => {
    const env = baseEnv(tempDir())
    const imported = copyFixture(IMPORTED_96)
    const info = expectDoc<StoreInfoResult>(await runCli(['store', 'info', '--json', '--state-dir', imported], {env}), 'store-info')
    expect(info.agents.map((a) => a.agentId).sort()).toEqual(['main', 'work'])
    const verify = expectDoc<StoreVerifyResult>(await runCli(['store', 'verify', '--json', '--state-dir', imported], {env}), 'store-verify')
    expect(verify).toBeTruthy()
    const out = path.join(tempDir(), 'export')
    const exported = expectDoc<StoreExportResult>(await runCli(['store', 'export', '--out', out, '--json', '--state-dir', copyFixture(NATIVE_96)], {env}), 'store-export')
    expect(exported).toBeTruthy()
    expect(fs.existsSync(path.join(out, 'agents', 'main', 'sessions', 'sessions.json'))).toBe(true)
  })

  it('sessions list, history and status of a SQLite-era store have the same shapes as the JSON era\'s', async () => {
    const env = baseEnv(tempDir())
    const state = copyFixture(IMPORTED_96)
    expectDoc(await runCli(['sessions', 'list', '--all-agents', '--limit', '1', '--json', '--state-dir', state], {env}), 'sessions-list')
    expectDoc(await runCli(['sessions', 'history', 'agent:work:main', '--limit', '50', '--json', '--state-dir', state], {env}), 'sessions-history')
    expectDoc(await runCli(['status', '--all', '--json', '--state-dir', state], {env}), 'status')
  })

  it('index: build, status, rebuild and drop of the catalog', async () => {
    const env = baseEnv(tempDir())
    const state = copyFixture(IMPORTED_96)
    for (const args of [[], ['--status'], ['--rebuild'], ['--drop']]) {
      const doc = expectDoc<IndexResult>(await runCli(['index', ...args, '--json', '--state-dir', state], {env}), 'index')
      expect(doc.action).toBe(args.length === 0 ? 'build' : args[0].slice(2))
    }
  })

  it('every sqlite-only schema of scripts/schemas.js was checked against a real document', () => {
    for (const s of SCHEMAS.filter((e) => e.sqlite)) expect([...(checked.get(s.name) ?? [])], s.name).toContain('ok')
  })
})
