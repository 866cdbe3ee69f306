// SqliteSessionStore on a real 2026.9.6 delete (openclaw-2026.9.6-deleted): the session_transcript_archives row of the
// deleted agent:main:scratch-1 session is listed once by allSessions, belongs to its key in sessionsOf (the key was
// re-created after the delete), and reads back line for line as the blob decodes (node:zlib here, not clawkit).
import zlib from 'node:zlib'

import {afterEach, expect, it} from 'vitest'

import {SqliteSessionStore} from '../../../src/store/sqlite/store.js'
import type {TranscriptLine} from '../../../src/store/types.js'
import {copyFixture} from '../../support/cli.js'
import {dbPath, openDb} from '../../support/sqlite-expect.js'
import {describeSqlite, DELETED_96} from '../../support/sqlite.js'

const DELETED_ID = 'ddfebd8b-b803-4493-b99d-22be141b040c'
const KEY = 'agent:main:scratch-1'

const stores: SqliteSessionStore[] = []
afterEach(() => {
  for (const s of stores.splice(0)) s.close()
})

function open(): {store: SqliteSessionStore; file: string; blobLines: string[]; name: string} {
  const file = dbPath(copyFixture(DELETED_96), 'main')
  const db = openDb(file)
  const row = db.prepare('SELECT archive_name, archive_blob FROM session_transcript_archives').get()!
  db.close()
  const blobLines = (zlib as any).zstdDecompressSync(Buffer.from(row.archive_blob)).toString('utf8').split('\n').filter(Boolean)
  const store = new SqliteSessionStore({agentId: 'main', path: file})
  stores.push(store)
  return {store, file, blobLines, name: row.archive_name}
}

describeSqlite('SqliteSessionStore and session_transcript_archives (real 2026.9.6 delete)', () => {
  it('allSessions lists the deleted session exactly once, under its key, next to the re-created key\'s window', async () => {
    const {store, file, name} = open()
    const all = await store.allSessions()
    const hits = all.filter((s) => s.sessionId === DELETED_ID)
    expect(hits).toHaveLength(1)
    expect(hits[0]).toMatchObject({key: KEY, where: 'deleted-archive', ended: 'deleted', foundBy: 'archive', transcript: {locator: `${file}#archive/${name}`, location: 'sqlite-archive', exists: true}})
    // Every transcript once: three live windows and the archive.
    expect(new Set(all.map((s) => s.transcript.locator)).size).toBe(all.length)
    expect(all).toHaveLength(4)
    // The key's sessions stay together, the archive before the re-created current one.
    expect(all.filter((s) => s.key === KEY).map((s) => s.ended)).toEqual(['deleted', 'current'])
  })

  it('sessionsOf(key) of a deleted and re-created key: the archive, then the current window', async () => {
    const {store} = open()
    const s = await store.sessionsOf(KEY)
    expect(s.map((x) => [x.sessionId, x.where])).toEqual([
      [DELETED_ID, 'deleted-archive'],
      ['e55fef6d-6250-4cd2-b420-d358c84625eb', 'window'],
    ])
    // A key that never had an archive is unchanged.
    expect((await store.sessionsOf('agent:main:keep')).map((x) => x.where)).toEqual(['window'])
  })

  it('readLines and headerLine of the archive give the blob\'s lines; tail reads its last messages', async () => {
    const {store, blobLines} = open()
    const [archived] = await store.sessionsOf(KEY)
    const lines: TranscriptLine[] = []
    for await (const l of store.readLines(archived.transcript)) lines.push(l)
    expect(lines.map((l) => l.raw)).toEqual(blobLines)
    expect(lines.every((l) => l.bad === undefined)).toBe(true)
    expect(lines.map((l) => l.line)).toEqual(blobLines.map((_, i) => i + 1))
    expect(await store.headerLine(archived.transcript)).toBe(blobLines[0])
    const tail = await store.tail(archived.transcript, {limit: 1, count: (e) => e.type === 'message', exactPartial: true})
    expect(tail?.header?.id).toBe(DELETED_ID)
    expect(tail?.entries[0]).toMatchObject({type: 'message', message: {role: 'assistant'}})
    expect(tail?.partial).toBe(true)
  })

  it('an archived transcript cannot be written: withTranscript refuses its locator before touching the database', async () => {
    const {store} = open()
    const [archived] = await store.sessionsOf(KEY)
    // As a caller sees it: inside its own async function.
    await expect((async () => store.withTranscript(archived.transcript, async () => 'never'))()).rejects.toMatchObject({code: 'E_ARCHIVED_TRANSCRIPT'})
    await expect((async () => store.findIdempotencyKey(archived.transcript, 'x'))()).rejects.toMatchObject({code: 'E_ARCHIVED_TRANSCRIPT'})
  })
})
