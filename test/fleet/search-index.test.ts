// Migration v3's text index on clawkit_events.search_text, on a real PostgreSQL: pg_trgm (substring search) where the
// role may create the extension, else a full-text index, and the migration succeeds either way; searchIndexKind()
// tells a search which one it has.
import {expect, it} from 'vitest'

import {connectPg} from '../../src/fleet/pg.js'
import {migrate, SCHEMA_VERSION, searchIndexKind} from '../../src/fleet/schema.js'
import {describePg, PG_PASSWORD, usePg} from '../support/postgres.js'

describePg('fleet schema v3: the search_text index', () => {
  const pg = usePg()

  async function seedEvents(url: string): Promise<void> {
    const c = await connectPg(url)
    try {
      await c.query("INSERT INTO clawkit_hosts (host) VALUES ('h')")
      await c.query("INSERT INTO clawkit_agents (host, agent_id, era, store_path) VALUES ('h', 'main', 'json', '/s')")
      await c.query("INSERT INTO clawkit_transcripts (host, agent_id, session_id, locator, \"where\", ended, found_by, format) VALUES ('h', 'main', 's1', '/s1', 'live', 'current', 'index', 'jsonl')")
      await c.query("INSERT INTO clawkit_events (host, agent_id, session_id, seq, raw, search_text) SELECT 'h', 'main', 's1', i, '{}', 'line ' || i || CASE WHEN i = 777 THEN ' the capital of Portugal' ELSE '' END FROM generate_series(1, 2000) i")
      await c.query('ANALYZE clawkit_events')
    } finally {
      await c.end()
    }
  }

  it('a database owner gets pg_trgm: a substring query finds its row through the trigram index', async () => {
    const url = pg.db()
    const c = await connectPg(url)
    try {
      expect((await migrate(c)).to).toBe(SCHEMA_VERSION)
      expect(await searchIndexKind(c)).toBe('pg_trgm')
      await seedEvents(url)
      await c.query('SET enable_seqscan = off')
      const plan = (await c.query<{'QUERY PLAN': string}>("EXPLAIN SELECT seq FROM clawkit_events WHERE search_text ILIKE '%capital of portu%'")).rows.map((r) => r['QUERY PLAN']).join('\n')
      expect(plan).toContain('clawkit_events_search_trgm')
      expect((await c.query<{seq: number}>("SELECT seq FROM clawkit_events WHERE search_text ILIKE '%capital of portu%'")).rows).toEqual([{seq: 777}])
    } finally {
      await c.end()
    }
  })

  it('a role that may not create extensions: the migration still succeeds, with a full-text index', async () => {
    const url = pg.db()
    const db = new URL(url).pathname.slice(1)
    // Roles belong to the whole cluster, which the run's other files share: a name of this database's own.
    const role = `writer_${db}`
    pg.cluster.psql(`CREATE ROLE ${role} LOGIN PASSWORD '${PG_PASSWORD}'`)
    // Tables in public, but no CREATE on the database: CREATE EXTENSION is refused (insufficient_privilege).
    pg.cluster.psql(`GRANT CONNECT ON DATABASE "${db}" TO ${role}; GRANT USAGE, CREATE ON SCHEMA public TO ${role}`, db)
    const asRole = url.replace(/\/\/[^:]+:/, `//${role}:`)
    const c = await connectPg(asRole)
    try {
      const done = await migrate(c)
      expect(done.applied).toHaveLength(SCHEMA_VERSION)
      expect(await searchIndexKind(c)).toBe('fts')
      await seedEvents(asRole)
      const hit = await c.query<{seq: number}>("SELECT seq FROM clawkit_events WHERE to_tsvector('simple', coalesce(search_text, '')) @@ plainto_tsquery('simple', 'Portugal')")
      expect(hit.rows).toEqual([{seq: 777}])
    } finally {
      await c.end()
    }
  })
})
