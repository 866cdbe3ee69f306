// Test support for the SQLite era: run a suite only where node:sqlite and zstd exist, and never skip it silently in CI.
import fs from 'node:fs'
import path from 'node:path'

import {describe, it} from 'vitest'

import {sqliteSupported} from '../../src/store/sqlite/driver.js'
import {copyFixture} from './cli.js'

export const SQLITE_OK = sqliteSupported()
export const NATIVE_96 = 'openclaw-2026.9.6-native'
export const IMPORTED_96 = 'openclaw-2026.9.6-imported'
/** A real 2026.9.6 `sessions delete` (one session_transcript_archives row, published) and `sessions archive`. */
export const DELETED_96 = 'openclaw-2026.9.6-deleted'

/**
 * `describe` for suites that need node:sqlite (Node 22.15+). On an older Node they are skipped, unless
 * CLAWKIT_REQUIRE_SQLITE=1 (set by `npm test`'s Node 24 pass and CI), where a missing runtime fails instead.
 */
export const describeSqlite: typeof describe = (SQLITE_OK
  ? describe
  : process.env.CLAWKIT_REQUIRE_SQLITE === '1'
    ? ((name: string) =>
        describe(name, () => {
          it('needs Node 22.15+ with node:sqlite', () => {
            throw new Error(`CLAWKIT_REQUIRE_SQLITE=1 but Node ${process.versions.node} has no node:sqlite/zstd`)
          })
        }))
    : describe.skip) as typeof describe

/**
 * A snapshot diff (test/reliability/support/tree.ts) with the traces every SQLite reader leaves removed: opening a WAL
 * database, even read-only, creates or updates its `-shm` index and may create an empty `-wal` (OpenClaw's own readers
 * do the same). Everything else, the database file above all, must be unchanged.
 */
export function withoutReaderTraces<T extends {added: string[]; removed: string[]; changed: string[]}>(d: T, sizeOf: (rel: string) => number): T {
  const shm = (p: string) => /\.sqlite-shm$/.test(p)
  const emptyWal = (p: string) => /\.sqlite-wal$/.test(p) && sizeOf(p) === 0
  return {...d, added: d.added.filter((p) => !shm(p) && !emptyWal(p)), changed: d.changed.filter((p) => !shm(p))}
}

/**
 * A copy of a SQLite-era fixture whose model provider is the mock Messages API at `mockUrl` and whose workspace is
 * inside the copy (never the fixture's /home/user), for tests that run real turns on it.
 */
export function mockedStateCopy(fixture: string, mockUrl: string): string {
  const state = copyFixture(fixture)
  const cfgPath = path.join(state, 'openclaw.json')
  const cfg = JSON.parse(fs.readFileSync(cfgPath, 'utf8'))
  cfg.models.providers.mockant.baseUrl = mockUrl
  const ws = path.join(state, 'workspace')
  fs.mkdirSync(ws, {recursive: true})
  cfg.agents.defaults.workspace = ws
  for (const a of cfg.agents.list ?? []) if (a.workspace) a.workspace = ws
  fs.writeFileSync(cfgPath, JSON.stringify(cfg, null, 2))
  return state
}

/**
 * A host in the middle of an upgrade: agent `main` of a real 2026.9.6 state dir (SQLite era) beside agent `work` of a
 * real 2026.4.27 one (JSON era: sessions.json and its transcript), in one state dir.
 */
export function mixedEraState(): string {
  const state = copyFixture(NATIVE_96)
  const json = copyFixture('openclaw-2026.4.27-two-agents')
  fs.cpSync(path.join(json, 'agents', 'work'), path.join(state, 'agents', 'work'), {recursive: true})
  return state
}
