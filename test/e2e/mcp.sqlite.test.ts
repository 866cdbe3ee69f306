// `clawkit mcp` on SQLite-era stores (real OpenClaw 2026.9.6 databases): every tool gives its command's --json, and
// nothing is written to the database (only the traces any reader of a WAL database leaves: its -shm, an empty -wal).
import {afterEach, expect, it} from 'vitest'

import {baseEnv, copyFixture, json, runCli, tempDir} from '../support/cli.js'
import {call, connectMcp, type McpSession, treeHash} from '../support/mcp.js'
import {DELETED_96, describeSqlite, IMPORTED_96, NATIVE_96} from '../support/sqlite.js'

let sessions: McpSession[] = []
afterEach(async () => {
  await Promise.all(sessions.map((s) => s.close()))
  sessions = []
})

async function cli(state: string, args: string[]): Promise<any> {
  const r = await runCli([...args, '--json', '--state-dir', state])
  expect(r.code, r.stderr).toBe(0)
  return json(r)
}

const withoutAge = (doc: any) => ({...doc, sessions: doc.sessions.map(({ageMs: _a, ...row}: any) => row)})
/** A SQLite reader's traces: the shared-memory index and an empty write-ahead log. */
const readerTrace = (rel: string, size: number) => /\.sqlite-shm$/.test(rel) || (/\.sqlite-wal$/.test(rel) && size === 0)

describeSqlite('clawkit mcp (SQLite era)', () => {
  it.each([NATIVE_96, IMPORTED_96, DELETED_96])('%s: each tool gives its command\'s --json, and the state dir is left as it was', async (fixture) => {
    const state = copyFixture(fixture)
    // Read once by the CLI first, so the reader's traces exist before the snapshot.
    const key = (await cli(state, ['sessions', 'list', '--all-agents'])).sessions[0].key as string
    const before = treeHash(state, readerTrace)
    const s = await connectMcp(['--state-dir', state], baseEnv(tempDir()))
    sessions.push(s)
    expect(withoutAge(await call(s, 'sessions_list', {allAgents: true, limit: 'all'}))).toEqual(withoutAge(await cli(state, ['sessions', 'list', '--all-agents'])))
    expect(await call(s, 'sessions_history', {session: key, limit: 5, raw: true})).toEqual(await cli(state, ['sessions', 'history', key, '--limit', '5', '--raw']))
    expect(await call(s, 'sessions_history', {session: key, limit: 2, offset: 3, includeArchived: true})).toEqual(await cli(state, ['sessions', 'history', key, '--limit', '2', '--offset', '3', '--include-archived']))
    expect(await call(s, 'sessions_lineage', {session: key})).toEqual(await cli(state, ['sessions', 'lineage', key]))
    expect(await call(s, 'sessions_search', {pattern: 'the', allAgents: true, includeArchived: true, limit: 'all'})).toEqual(await cli(state, ['sessions', 'search', 'the', '--all-agents', '--include-archived', '--limit', 'all']))
    expect(await call(s, 'sessions_usage', {allAgents: true, limit: 'all'})).toEqual(await cli(state, ['sessions', 'usage', '--all-agents']))
    const page = await call(s, 'sessions_export', {session: key, maxChars: 2000})
    const md = await runCli(['sessions', 'export', key, '--format', 'md', '--redact', '--state-dir', state])
    expect(page.markdown.replace(/^- Exported: .*$/m, '')).toBe(md.stdout.slice(0, 2000).replace(/^- Exported: .*$/m, ''))
    await s.close()
    expect(treeHash(state, readerTrace)).toEqual(before)
  })
})
