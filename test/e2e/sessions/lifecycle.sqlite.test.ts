// `sessions archive|delete|restore` in the SQLite era, through the real CLI, against what OpenClaw 2026.9.6 itself
// wrote in the openclaw-2026.9.6-deleted fixture: archive sets archived_at and archiveReason "manual"; delete leaves
// one session_transcript_archives row (zstd of the JSONL, sha256 of the stored bytes, the name's shape) published as
// a byte-identical file, and removes the rows; restore writes it back; undo after each gives every row back.
import {spawn} from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import type {SessionsArchiveResult, SessionsDeleteResult, SessionsRestoreResult} from '../../../src/sessions/lifecycle.js'
import {baseEnv, cliWith, copyFixture, json, jsonError, tempDir} from '../../support/cli.js'
import {bigSqliteSessions, headerOnlySqliteSession, mixedSqliteStore} from '../../support/cleanup-store.js'
import {DELETED_96, describeSqlite} from '../../support/sqlite.js'
import {query} from '../../support/sqlite-expect.js'
import {dbRows, hashTree, stateRows} from '../../support/state-hash.js'

function setup() {
  const state = copyFixture(DELETED_96)
  const env = baseEnv(tempDir())
  return {state, db: path.join(state, 'agents/main/agent/openclaw-agent.sqlite'), cli: cliWith(['--state-dir', state], {env})}
}

type Db = {prepare(sql: string): {all(...a: unknown[]): Record<string, unknown>[]; get(...a: unknown[]): Record<string, unknown> | undefined}; close(): void}

describeSqlite('sessions archive, delete, restore (SQLite era)', () => {
  it('archive: archived_at and entry_json archivedAt/archiveReason as OpenClaw writes them; undo gives every row back', async () => {
    const {state, db, cli} = setup()
    const rows = stateRows(state)
    const r = json<SessionsArchiveResult>(await cli(['sessions', 'archive', 'agent:main:keep', '--json']))
    const at = Date.parse(r.sessions[0].archivedAt)
    const node = query(db, (d) => d.prepare('SELECT archived_at, updated_at, entry_json FROM session_nodes WHERE session_key = ?').get('agent:main:keep'))!
    expect(Number(node.archived_at)).toBe(at)
    expect(JSON.parse(String(node.entry_json))).toMatchObject({archivedAt: at, archiveReason: 'manual', updatedAt: at})
    expect((await cli(['undo'])).code).toBe(0)
    expect(stateRows(state)).toEqual(rows)
  })

  it('delete: one archive row per window, shaped as OpenClaw 2026.9.6\'s, published byte-identical; rows gone; undo gives rows and files back', async () => {
    const {state, db, cli} = setup()
    const rows = stateRows(state)
    const files = hashTree(state, {dbs: false})
    const id = query(db, (d) => String(d.prepare('SELECT current_session_id FROM session_nodes WHERE session_key = ?').get('agent:main:scratch-2')!.current_session_id))
    const r = json<SessionsDeleteResult>(await cli(['sessions', 'delete', 'agent:main:scratch-2', '--json']))
    expect(r.sessions[0]).toMatchObject({key: 'agent:main:scratch-2', sessionId: id})
    const row = query(db, (d) => d.prepare('SELECT * FROM session_transcript_archives WHERE session_id = ?').get(id))!
    expect(row).toMatchObject({session_key: 'agent:main:scratch-2', reason: 'deleted', encoding: 'zstd', publish_attempts: 1, last_publish_error: null})
    expect(String(row.generation)).toMatch(/^[0-9a-f]{32}$/)
    expect(String(row.archive_name)).toMatch(new RegExp(`^${id}\\.jsonl\\.deleted\\.\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}Z\\.${String(row.generation)}\\.zst$`))
    const blob = Buffer.from(row.archive_blob as Uint8Array)
    expect(crypto.createHash('sha256').update(blob).digest('hex')).toBe(row.archive_sha256)
    const text = (process as unknown as {getBuiltinModule(id: string): {zstdDecompressSync(b: Buffer): Buffer}}).getBuiltinModule('node:zlib').zstdDecompressSync(blob).toString('utf8')
    expect(JSON.parse(text.split('\n')[0])).toMatchObject({type: 'session', id})
    expect(text.endsWith('\n')).toBe(true)
    const published = path.join(state, 'agents/main/sessions', String(row.archive_name))
    expect(fs.readFileSync(published).equals(blob)).toBe(true)
    expect(fs.statSync(published).mode & 0o777).toBe(0o600)
    // Every row of the session is gone, in every table that names it.
    const after = dbRows(db)
    for (const [table, list] of Object.entries(after)) if (table !== 'session_transcript_archives') expect(list.filter((l) => l.includes(id)), table).toEqual([])
    // clawkit reads it back as a deleted archive of its key.
    const h = await cli(['sessions', 'history', id, '--json'])
    expect(h.code, h.stderr).toBe(0)

    expect((await cli(['undo'])).code).toBe(0)
    expect(stateRows(state)).toEqual(rows)
    expect(hashTree(state, {dbs: false})).toEqual(files)
  })

  it('restore <id> of the fixture\'s real deleted session (--as: its key is live again) and undo', async () => {
    const {state, db, cli} = setup()
    const rows = stateRows(state)
    const refused = await cli(['sessions', 'restore', 'ddfebd8b-b803-4493-b99d-22be141b040c', '--json'])
    expect(refused.code).toBe(1)
    expect(jsonError(refused)).toMatchObject({code: 'E_SESSION_EXISTS'})
    expect(stateRows(state)).toEqual(rows)
    const r = json<SessionsRestoreResult>(await cli(['sessions', 'restore', 'ddfebd8b-b803-4493-b99d-22be141b040c', '--as', 'agent:main:old-scratch', '--json']))
    expect(r).toMatchObject({key: 'agent:main:old-scratch', sessionId: 'ddfebd8b-b803-4493-b99d-22be141b040c', how: 'deleted-archive'})
    const n = query(db, (d) => d.prepare('SELECT count(*) AS n FROM transcript_events WHERE session_id = ?').get('ddfebd8b-b803-4493-b99d-22be141b040c')!.n)
    expect(Number(n)).toBe(10)
    const h = json<{entries?: unknown[]; messages?: unknown[]}>(await cli(['sessions', 'history', 'agent:main:old-scratch', '--json']))
    expect(JSON.stringify(h)).toContain('capital of Italy')
    expect((await cli(['undo'])).code).toBe(0)
    expect(stateRows(state)).toEqual(rows)
  })

  it('archive and delete --dry-run say what would happen (dryRun: true, the rows delete would write) and change no row, file or journal', async () => {
    const {state, db, cli} = setup()
    const rows = stateRows(state)
    const files = hashTree(state)
    const ids = query(db, (d) => Object.fromEntries(d.prepare('SELECT session_key, current_session_id FROM session_nodes').all().map((r) => [String(r.session_key), String(r.current_session_id)])))
    const a = json<SessionsArchiveResult>(await cli(['sessions', 'archive', 'agent:main:keep', 'agent:main:scratch-2', '--dry-run', '--json']))
    expect(a).toMatchObject({dryRun: true, journal: null, sessions: [{key: 'agent:main:keep', sessionId: ids['agent:main:keep'], changed: true}, {key: 'agent:main:scratch-2', changed: false}]})
    // scratch-2 is archived already in the fixture: its own archivedAt, as archive would report it.
    expect(Date.parse(a.sessions[1].archivedAt)).toBe(Number(query(db, (d) => d.prepare('SELECT archived_at FROM session_nodes WHERE session_key = ?').get('agent:main:scratch-2')!.archived_at)))
    const d = json<SessionsDeleteResult>(await cli(['sessions', 'delete', 'agent:main:scratch-1', '--dry-run', '--json']))
    const id = ids['agent:main:scratch-1']
    expect(d).toMatchObject({dryRun: true, journal: null, reclaimedBytes: 0, sessions: [{key: 'agent:main:scratch-1', sessionId: id}]})
    expect(d.sessions[0].archived).toEqual([`${db}#archive/${id}.jsonl.deleted.${/\.deleted\.([^.]+\.\d{3}Z)\./.exec(d.sessions[0].archived[0])?.[1]}.<generation>.zst`])
    const table = await cli(['sessions', 'delete', 'agent:main:scratch-1', '--dry-run'])
    expect(table.stdout).toContain(`${id}.jsonl.deleted.`)
    expect(table.stdout).toContain('Dry run: nothing was changed.')
    expect(stateRows(state)).toEqual(rows)
    expect(hashTree(state)).toEqual(files)
    expect(json<{entries: unknown[]}>(await cli(['undo', '--list', '--json'])).entries).toEqual([])
    // The rows the delete writes are the ones it planned, with their generation drawn.
    const real = json<SessionsDeleteResult>(await cli(['sessions', 'delete', 'agent:main:scratch-1', '--json']))
    expect(real.sessions[0].archived).toHaveLength(1)
    expect(real.sessions[0].archived[0]).toMatch(new RegExp(`#archive/${id}\\.jsonl\\.deleted\\.[^.]+\\.\\d{3}Z\\.[0-9a-f]{32}\\.zst$`))
  })

  it('delete gives the freed pages back to the disk (incremental vacuum, as OpenClaw does); the database stays whole', async () => {
    const {state, db, cli} = setup()
    const rows = stateRows(state)
    const size = fs.statSync(db).size
    const r = json<SessionsDeleteResult>(await cli(['sessions', 'delete', 'agent:main:scratch-1', 'agent:main:scratch-2', '--json']))
    expect(r.reclaimedBytes).toBeGreaterThan(0)
    expect(fs.statSync(db).size).toBeLessThan(size)
    expect(query(db, (d) => d.prepare('PRAGMA integrity_check').get())).toEqual({integrity_check: 'ok'})
    expect((await cli(['undo'])).code).toBe(0)
    expect(stateRows(state)).toEqual(rows)
  })

  it('refuses while a gateway owns the state dir (archive, delete, restore, cleanup, undo), changing nothing', async () => {
    const {state, cli} = setup()
    json(await cli(['sessions', 'archive', 'agent:main:keep', '--json']))
    const rows = stateRows(state)
    const uid = process.getuid?.() ?? 0
    const lock = path.join(state, 'tmp', `openclaw-${uid}`, 'gateway.state.lock.sqlite')
    fs.mkdirSync(path.dirname(lock), {recursive: true})
    if (!fs.existsSync(lock)) fs.writeFileSync(lock, '')
    // A stand-in gateway: a live process holding the ownership lock open, as a gateway does for its whole life.
    const owner = spawn(process.execPath, ['-e', `require('fs').openSync(${JSON.stringify(lock)}, 'r'); process.stdout.write('ready'); setInterval(() => {}, 1000)`], {stdio: ['ignore', 'pipe', 'inherit']})
    await new Promise((resolve) => owner.stdout!.once('data', resolve))
    try {
      for (const args of [
        ['sessions', 'archive', 'agent:main:scratch-1'],
        ['sessions', 'delete', 'agent:main:scratch-2'],
        ['sessions', 'restore', 'agent:main:keep'],
        ['sessions', 'cleanup', '--older-than', '1d', '--yes'],
        ['undo'],
      ]) {
        const r = await cli([...args, '--json'])
        expect(r.code, args.join(' ')).toBe(1)
        expect(jsonError(r).code, args.join(' ')).toBe('E_GATEWAY_OWNS_STATE')
      }
    } finally {
      owner.kill()
    }
    expect(stateRows(state)).toEqual(rows)
  })

  it('cleanup --max-disk evicts the oldest archive rows and their published files, live sessions never; undo gives every row back', async () => {
    const {state, db, cli} = setup()
    const rows = stateRows(state)
    const files = hashTree(state, {dbs: false})
    const plan = json<{stores: {archiveRows: {name: string}[]; files: {why: string}[]; diskBudget: {overBudget: boolean}}[]}>(await cli(['sessions', 'cleanup', '--max-disk', '1kb', '--json'])).stores[0]
    expect(plan.diskBudget.overBudget).toBe(true)
    expect(plan.archiveRows.map((r) => r.name)).toEqual(['ddfebd8b-b803-4493-b99d-22be141b040c.jsonl.deleted.2026-11-26T15-58-50.163Z.7509a2fd67894eae9943c351591e8272.zst'])
    expect(plan.files.map((f) => f.why)).toEqual(['budget'])
    expect((await cli(['sessions', 'cleanup', '--max-disk', '1kb', '--yes', '--json'])).code).toBe(0)
    expect(query(db, (d) => Number(d.prepare('SELECT count(*) AS n FROM session_transcript_archives').get()!.n))).toBe(0)
    expect(query(db, (d) => Number(d.prepare('SELECT count(*) AS n FROM session_nodes').get()!.n))).toBe(3)
    expect((await cli(['undo'])).code).toBe(0)
    expect(stateRows(state)).toEqual(rows)
    expect(hashTree(state, {dbs: false})).toEqual(files)
  })

  it('cleanup --fix-dm-scope removes the direct-message rows dmScope "main" folds into the main session (rows archived and published); undo gives every row and file back', async () => {
    const DM = ['agent:main:direct:alice', 'agent:main:telegram:direct:123', 'agent:main:direct:bob', 'agent:main:telegram:group:-100']
    const {state, db, cli} = setup()
    await mixedSqliteStore(db, Date.now(), DM.length, (i) => DM[i])
    const rows = stateRows(state)
    const files = hashTree(state, {dbs: false})
    const r = json<{stores: {dmScopeRetired: number; changes: {key: string; action: string}[]}[]; journal: string}>(await cli(['sessions', 'cleanup', '--fix-dm-scope', '--active-key', 'agent:main:direct:bob', '--yes', '--json']))
    expect(r.stores[0].dmScopeRetired).toBe(2)
    expect(r.stores[0].changes.filter((c) => c.action === 'retire-dm-scope').map((c) => c.key).sort()).toEqual(['agent:main:direct:alice', 'agent:main:telegram:direct:123'])
    const keys = query(db, (d) => d.prepare('SELECT session_key FROM session_nodes').all().map((x) => String(x.session_key)))
    expect(keys).toEqual(expect.arrayContaining(['agent:main:direct:bob', 'agent:main:telegram:group:-100']))
    expect(keys).not.toContain('agent:main:direct:alice')
    expect(query(db, (d) => d.prepare("SELECT session_key FROM session_transcript_archives WHERE reason = 'deleted'").all().map((x) => String(x.session_key)))).toEqual(expect.arrayContaining(['agent:main:direct:alice', 'agent:main:telegram:direct:123']))
    expect((await cli(['undo'])).code).toBe(0)
    expect(stateRows(state)).toEqual(rows)
    expect(hashTree(state, {dbs: false})).toEqual(files)
  })

  it('cleanup --fix-missing removes a session whose transcript holds no message, as 2026.9.6 does, not one with messages; undo gives every row back', async () => {
    const {state, db, cli} = setup()
    await headerOnlySqliteSession(db, 'agent:main:explicit:empty', Date.now())
    const rows = stateRows(state)
    const files = hashTree(state, {dbs: false})
    const r = json<{stores: {missing: number; changes: {key: string; action: string}[]}[]}>(await cli(['sessions', 'cleanup', '--fix-missing', '--yes', '--json']))
    expect(r.stores[0].missing).toBe(1)
    expect(r.stores[0].changes.filter((c) => c.action === 'prune-missing').map((c) => c.key)).toEqual(['agent:main:explicit:empty'])
    const keys = query(db, (d) => d.prepare('SELECT session_key FROM session_nodes').all().map((x) => String(x.session_key)))
    expect(keys.sort()).toEqual(['agent:main:keep', 'agent:main:scratch-1', 'agent:main:scratch-2'])
    expect((await cli(['undo'])).code).toBe(0)
    expect(stateRows(state)).toEqual(rows)
    expect(hashTree(state, {dbs: false})).toEqual(files)
  })

  it('cleanup over the disk budget evicts an entry the cap archived with no archive kept, after the archive rows; undo gives every row and file back', async () => {
    const {state, db, cli} = setup()
    await bigSqliteSessions(db, Date.now(), 6, 40_000)
    const rows = stateRows(state)
    fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify({...JSON.parse(fs.readFileSync(path.join(state, 'openclaw.json'), 'utf8')), session: {maintenance: {maxEntries: 2, maxDiskBytes: '1kb'}}}))
    const cfgFiles = hashTree(state, {dbs: false})
    const plan = json<{stores: {changes: {key: string; action: string}[]; archiveRows: unknown[]; diskBudget: {overBudget: boolean; removedEntries: number}}[]}>(await cli(['sessions', 'cleanup', '--json'])).stores[0]
    expect(plan.diskBudget).toMatchObject({overBudget: true, removedEntries: 0})
    expect(plan.archiveRows.length).toBe(1)
    const evicted = plan.changes.filter((c) => c.action === 'evict-budget').map((c) => c.key)
    expect(evicted).toEqual(plan.changes.filter((c) => c.action === 'archive-cap').map((c) => c.key).sort())
    expect(evicted.length).toBeGreaterThan(0)
    const applied = json<{stores: {diskBudget: {removedEntries: number}}[]}>(await cli(['sessions', 'cleanup', '--yes', '--json'])).stores[0]
    expect(applied.diskBudget.removedEntries).toBe(evicted.length)
    const left = query(db, (d) => d.prepare('SELECT session_key FROM session_nodes').all().map((x) => String(x.session_key)))
    for (const k of evicted) expect(left).not.toContain(k)
    // No archive is kept of an evicted entry: neither a row nor a published file.
    expect(query(db, (d) => Number(d.prepare('SELECT count(*) AS n FROM session_transcript_archives').get()!.n))).toBe(0)
    expect(fs.readdirSync(path.join(state, 'agents/main/sessions'))).toEqual([])
    expect((await cli(['undo'])).code).toBe(0)
    expect(stateRows(state)).toEqual(rows)
    expect(hashTree(state, {dbs: false})).toEqual(cfgFiles)
  })

  it('delete then restore by key: the key is live again with the same transcript', async () => {
    const {state, cli} = setup()
    const before = json<unknown>(await cli(['sessions', 'history', 'agent:main:scratch-2', '--json']))
    json(await cli(['sessions', 'delete', 'agent:main:scratch-2', '--json']))
    json<SessionsRestoreResult>(await cli(['sessions', 'restore', 'agent:main:scratch-2', '--json']))
    const after = json<unknown>(await cli(['sessions', 'history', 'agent:main:scratch-2', '--json']))
    expect(JSON.stringify((after as {entries?: unknown}).entries ?? after)).toBe(JSON.stringify((before as {entries?: unknown}).entries ?? before))
    void state
  })

  it('delete then restore gives each event back byte for byte: unusual spacing, key order and unicode escapes included', async () => {
    const {db, cli} = setup()
    const KEY = 'agent:main:scratch-2'
    const sid = query(db, (d) => String(d.prepare('SELECT current_session_id FROM session_nodes WHERE session_key = ?').get(KEY)!.current_session_id))
    // Valid JSON no JSON.stringify writes: keys in another order, spaces around the punctuation, \u and \/ escapes.
    const {DatabaseSync} = (process as unknown as {getBuiltinModule(id: string): {DatabaseSync: new (p: string) => {prepare(s: string): {get(...a: unknown[]): Record<string, unknown>; run(...a: unknown[]): unknown}; close(): void}}}).getBuiltinModule('node:sqlite')
    const w = new DatabaseSync(db)
    const original = JSON.parse(String(w.prepare('SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = 4').get(sid).event_json)) as Record<string, unknown>
    expect(original).toMatchObject({type: 'message', message: {role: 'user'}})
    const odd = `{ ${Object.keys(original).reverse().map((k) => `${JSON.stringify(k)} :  ${JSON.stringify(original[k])}`).join(' ,\t')} }`.replace('"role":"user"', '"role" : "\\u0075ser"').replace('"third', '"\\u00fe\\/third')
    expect(JSON.parse(odd)).toMatchObject({id: original.id, message: {role: 'user'}})
    w.prepare('UPDATE transcript_events SET event_json = ?, event_utf8_bytes = ? WHERE session_id = ? AND seq = 4').run(odd, Buffer.byteLength(odd), sid)
    w.close()
    const events = () => query(db, (d) => d.prepare('SELECT seq, event_json FROM transcript_events WHERE session_id = ? ORDER BY seq').all(sid).map((r) => `${String(r.seq)} ${String(r.event_json)}`))
    const before = events()
    expect(before[4]).toBe(`4 ${odd}`)
    expect((await cli(['sessions', 'delete', KEY, '--json'])).code).toBe(0)
    expect(events()).toEqual([])
    const r = await cli(['sessions', 'restore', KEY, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(events()).toEqual(before)
  })
})
