// Side by side with a real OpenClaw 2026.9.6 on SQLite-era stores: `clawkit sessions list --json` prints the rows
// `openclaw sessions --json --limit all` prints, field by field and in the same order (ageMs aside), on copies of both
// fixtures and on a database with rows of every kind. Skipped unless CLAWKIT_INTEROP_OPENCLAW96 (the 2026.9.6 entry
// point) and CLAWKIT_INTEROP_NODE (a Node 24) are set, as scripts/interop.sh does for interop.test.ts.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, ROOT, tempDir} from '../support/cli.js'
import {IMPORTED_96, NATIVE_96} from '../support/sqlite.js'
import {dbPath} from '../support/sqlite-expect.js'
import {both, docOf, enabled96 as enabled, expectSame, NODE, openclaw, run, stateCopy as state} from './support/openclaw96.js'

/**
 * An --active window (minutes back from now) that keeps the imported fixture's agent:main:main, last updated by its
 * recorded turn (2026-11-26T10:49:53Z), and leaves out agent:work:main, 13 hours older, whenever the test runs: a fixed
 * 600 stopped keeping either once the fixture was ten hours old.
 */
const ACTIVE_IMPORTED = String(Math.ceil((Date.now() - Date.parse('2026-11-26T10:49:53.832Z')) / 60_000) + 600)

describe.skipIf(!enabled)('interop with OpenClaw 2026.9.6: sessions list on SQLite-era stores', () => {
  for (const [fixture, cases] of [
    [NATIVE_96, [[], ['--all-agents'], ['--limit', '1']]],
    [IMPORTED_96, [['--all-agents'], ['--agent', 'work'], ['--all-agents', '--active', ACTIVE_IMPORTED], ['--all-agents', '--limit', '1']]],
    // Sessions made through a gateway: participants rows, a deleted session's archive, an archived (hidden) session.
    ['openclaw-2026.9.6-deleted', [[], ['--limit', '2']]],
  ] as const) {
    for (const args of cases) {
      it(`${fixture} ${args.join(' ') || '(default agent)'}: the same rows and counts`, async () => {
        const dir = state(fixture)
        const {oc, ck} = await both(dir, [...args])
        expect(oc.sessions.length).toBeGreaterThan(0)
        expectSame(oc, ck)
      })
    }
  }

  it('rows of every kind (cron, spawn-child, group, owner, visibility, runtime override, fork) and skipped rows', async () => {
    const dir = state(NATIVE_96)
    // Written with the Node 24 runtime (this process may be Node 20, without node:sqlite).
    const script = `import(${JSON.stringify(path.join(ROOT, 'test', 'support', 'sqlite-expect.ts'))}).then((m) => m.addVarietyRows(${JSON.stringify(dbPath(dir, 'main'))}, 'main', ${Date.now() - 60_000}))`
    const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs')
    const home = tempDir()
    const w = await run(NODE!, [tsx, '-e', script], baseEnv(home), home)
    expect(w.code, w.stderr).toBe(0)
    const {oc, ck} = await both(dir, [])
    expect(oc.sessions.map((r: any) => r.kind).sort()).toEqual(['cron', 'direct', 'direct', 'direct', 'group', 'spawn-child'])
    expectSame(oc, ck)
  })

  it('a 0-byte agent database: OpenClaw lists no sessions and its doctor stops on it; clawkit says it is an empty file (E_SQLITE_EMPTY), and neither writes it', async () => {
    const dir = state(NATIVE_96)
    const db = dbPath(dir, 'main')
    for (const side of ['-wal', '-shm']) fs.rmSync(`${db}${side}`, {force: true})
    fs.truncateSync(db, 0)
    const home = tempDir()
    const oc = docOf(await openclaw(['sessions', '--json', '--limit', 'all'], dir, home), 'openclaw')
    expect(oc).toMatchObject({count: 0, sessions: []})
    const doctor = await openclaw(['doctor', '--non-interactive'], dir, home)
    expect(doctor.stdout + doctor.stderr).toContain('has no schema ownership metadata')
    const ck = await run(NODE!, [path.join(ROOT, 'bin', 'run.js'), 'sessions', 'list', '--json', '--state-dir', dir], baseEnv(home), home)
    expect(ck.code).toBe(1)
    expect(JSON.parse(ck.stdout).error.code).toBe('E_SQLITE_EMPTY')
    expect(fs.statSync(db).size).toBe(0)
  })
})
