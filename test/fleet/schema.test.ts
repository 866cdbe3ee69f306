// The fleet schema's migrations on a real PostgreSQL: applied once, in order, idempotent, safe when several hosts start
// at once, and refused (not downgraded) when the database is newer than this clawkit.
import {expect, it} from 'vitest'

import {connectPg, displayUrl, pgError, resolveStoreUrl} from '../../src/fleet/pg.js'
import {migrate, SCHEMA_VERSION, schemaVersion} from '../../src/fleet/schema.js'
import {describePg, PG_PASSWORD, usePg} from '../support/postgres.js'

describePg('fleet schema migrations (real PostgreSQL)', () => {
  const pg = usePg()

  it('an empty database gets every migration once; a second run applies nothing', async () => {
    const url = pg.db()
    const c = await connectPg(url)
    try {
      expect(await schemaVersion(c)).toBe(0)
      const first = await migrate(c)
      expect(first).toMatchObject({from: 0, to: SCHEMA_VERSION})
      expect(first.applied).toHaveLength(SCHEMA_VERSION)
      expect(await schemaVersion(c)).toBe(SCHEMA_VERSION)
      expect(await migrate(c)).toEqual({from: SCHEMA_VERSION, to: SCHEMA_VERSION, applied: []})
      const tables = (await c.query<{t: string}>("SELECT tablename AS t FROM pg_tables WHERE tablename LIKE 'clawkit_%' ORDER BY 1")).rows.map((r) => r.t)
      expect(tables).toEqual(['clawkit_agents', 'clawkit_entries', 'clawkit_events', 'clawkit_hosts', 'clawkit_schema_migrations', 'clawkit_transcripts'])
    } finally {
      await c.end()
    }
  })

  it('eight clients migrating the same empty database at once: each step applied exactly once, none fails', async () => {
    const url = pg.db()
    const clients = await Promise.all(Array.from({length: 8}, () => connectPg(url)))
    try {
      const results = await Promise.all(clients.map((c) => migrate(c)))
      expect(results.flatMap((r) => r.applied)).toHaveLength(SCHEMA_VERSION)
      const rows = (await clients[0].query<{version: number}>('SELECT version FROM clawkit_schema_migrations ORDER BY version')).rows
      expect(rows.map((r) => r.version)).toEqual(Array.from({length: SCHEMA_VERSION}, (_, i) => i + 1))
    } finally {
      await Promise.all(clients.map((c) => c.end()))
    }
  })

  it('a database migrated by a newer clawkit is refused with both versions named, and nothing is changed', async () => {
    const url = pg.db()
    const c = await connectPg(url)
    try {
      await migrate(c)
      await c.query("INSERT INTO clawkit_schema_migrations (version, name) VALUES ($1, 'from the future')", [SCHEMA_VERSION + 1])
      await expect(migrate(c)).rejects.toMatchObject({code: 'E_STORE_SCHEMA_NEWER', message: expect.stringContaining(`v${SCHEMA_VERSION + 1}, newer than this clawkit knows (v${SCHEMA_VERSION})`)})
    } finally {
      await c.end()
    }
  })

  it('a wrong password: one line that names the database without any password', async () => {
    const url = pg.db().replace(PG_PASSWORD, 'not-the-Password-9')
    const err = await connectPg(url).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(err).toMatchObject({code: 'E_STORE_DB'})
    expect(err!.message).toContain('password')
    expect(err!.message).not.toContain('not-the-Password-9')
    expect(err!.message).not.toContain(PG_PASSWORD)
    expect(err!.message).toContain(displayUrl(url))
  })
})

it('the URL comes from the flag, then CLAWKIT_STORE_URL, then clawkit settings; displayUrl drops the password', () => {
  expect(resolveStoreUrl('postgres://a@h/db', {CLAWKIT_STORE_URL: 'postgres://b@h/db'})).toEqual({url: 'postgres://a@h/db', from: 'flag'})
  expect(resolveStoreUrl(undefined, {CLAWKIT_STORE_URL: 'postgres://b@h/db', CLAWKIT_CONFIG_DIR: '/nonexistent-dir'})).toEqual({url: 'postgres://b@h/db', from: 'env'})
  expect(resolveStoreUrl(undefined, {CLAWKIT_CONFIG_DIR: '/nonexistent-dir'})).toBeUndefined()
  expect(displayUrl('postgres://sync:s3cr%40t@db.example:5432/fleet?sslmode=require&password=x1')).toBe('postgres://sync@db.example:5432/fleet?sslmode=require&password=%3Credacted%3E')
  expect(displayUrl('host=db password=zz')).toBe('<connection string>')
  const e = pgError(Object.assign(new Error('connect ECONNREFUSED for postgres://u:hunter22@h/db'), {code: 'ECONNREFUSED'}), 'postgres://u:hunter22@h/db', 'connect')
  expect(e.message).not.toContain('hunter22')
  expect(e.message).toContain('is the server running')
})
