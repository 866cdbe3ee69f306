// clawkit's own tables in a fleet's PostgreSQL (`clawkit_*`), created and upgraded by numbered migrations that every
// sync runs first. Each migration runs once, in its own transaction, under an advisory lock, so hosts that start syncing
// at the same moment into an empty database neither race nor fail. The layout is documented in docs/fleet.md.
import {ClawkitError} from '../errors.js'
import type {PgClient} from './pg.js'

export interface Migration {
  version: number
  name: string
  sql: string
}

/**
 * Rows are keyed by host first: each host writes only its own, so hosts never contend for a row. Events are keyed by
 * (host, agent, session, seq) and only ever inserted; a transcript rewritten on its host is replaced whole, with its
 * generation bumped, in one transaction.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'hosts, agents, index entries, transcripts and their events',
    sql: `
CREATE TABLE clawkit_hosts (
  host text PRIMARY KEY,
  first_sync_at timestamptz NOT NULL DEFAULT now(),
  last_sync_started_at timestamptz,
  last_sync_at timestamptz,
  clawkit_version text,
  -- models.providers.*.models[].cost from the host's openclaw.json (prices only, never keys), for usage estimates
  prices jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE TABLE clawkit_agents (
  host text NOT NULL REFERENCES clawkit_hosts ON DELETE CASCADE,
  agent_id text NOT NULL,
  era text NOT NULL CHECK (era IN ('json', 'sqlite')),
  store_path text NOT NULL,
  synced_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (host, agent_id)
);
CREATE TABLE clawkit_entries (
  host text NOT NULL,
  agent_id text NOT NULL,
  session_key text NOT NULL,
  session_id text,
  updated_at bigint,
  entry jsonb NOT NULL,
  synced_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (host, agent_id, session_key),
  FOREIGN KEY (host, agent_id) REFERENCES clawkit_agents ON DELETE CASCADE
);
CREATE INDEX clawkit_entries_recent ON clawkit_entries (updated_at DESC);
CREATE TABLE clawkit_transcripts (
  host text NOT NULL,
  agent_id text NOT NULL,
  session_id text NOT NULL,
  session_key text,
  locator text NOT NULL,
  "where" text NOT NULL,
  ended text NOT NULL,
  ended_at timestamptz,
  found_by text NOT NULL,
  format text NOT NULL CHECK (format IN ('jsonl', 'sqlite')),
  generation integer NOT NULL DEFAULT 1,
  -- high-water mark: events 1..synced_seq are uploaded (JSONL: line numbers; SQLite: seq + 1)
  synced_seq bigint NOT NULL DEFAULT 0,
  -- JSONL: bytes uploaded and the sha256 of that prefix; SQLite: null bytes, the header event's sha256
  synced_bytes bigint,
  prefix_sha256 text,
  source_size bigint,
  source_mtime_ms double precision,
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  cache_read_tokens bigint NOT NULL DEFAULT 0,
  cache_write_tokens bigint NOT NULL DEFAULT 0,
  total_tokens bigint NOT NULL DEFAULT 0,
  cost_usd double precision NOT NULL DEFAULT 0,
  calls integer NOT NULL DEFAULT 0,
  synced_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (host, agent_id, session_id),
  FOREIGN KEY (host, agent_id) REFERENCES clawkit_agents ON DELETE CASCADE
);
CREATE INDEX clawkit_transcripts_key ON clawkit_transcripts (host, agent_id, session_key);
CREATE TABLE clawkit_events (
  host text NOT NULL,
  agent_id text NOT NULL,
  session_id text NOT NULL,
  seq bigint NOT NULL,
  -- the line or event_json exactly as the host stores it (decompressed)
  raw text NOT NULL,
  entry_type text,
  entry_id text,
  role text,
  at timestamptz,
  -- the message content that search reads (text, tool arguments and results, summaries), not the raw JSON
  search_text text,
  PRIMARY KEY (host, agent_id, session_id, seq),
  FOREIGN KEY (host, agent_id, session_id) REFERENCES clawkit_transcripts ON DELETE CASCADE
);
`,
  },
  {
    version: 2,
    name: 'entries keep the sha256 of their local JSON, so that sync uploads only changed entries',
    sql: `
-- sha256 (hex) of JSON.stringify(entry) as the host read it: sync compares it with the local entry and sends only the
-- entries that changed (the jsonb column normalizes key order, so it cannot be compared with the local text itself).
ALTER TABLE clawkit_entries ADD COLUMN entry_sha256 text;
`,
  },
  {
    version: 3,
    name: 'a text index on clawkit_events.search_text (pg_trgm when the role may create it, else full-text)',
    // pg_trgm serves substring search (ILIKE '%...%'); it is a trusted extension (PostgreSQL 13+), so a database owner
    // may create it, but a role without CREATE on the database, or a server without the contrib files, may not. Then a
    // full-text (word) index stands in, rather than failing every sync; searchIndexKind() says which one is there.
    sql: `
DO $clawkit$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    BEGIN
      CREATE EXTENSION pg_trgm;
    EXCEPTION WHEN insufficient_privilege OR undefined_file OR feature_not_supported OR invalid_parameter_value THEN
      RAISE NOTICE 'clawkit: pg_trgm cannot be created here (%); a full-text index on search_text stands in', SQLERRM;
    END;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    EXECUTE 'CREATE INDEX clawkit_events_search_trgm ON clawkit_events USING gin (search_text gin_trgm_ops)';
  ELSE
    EXECUTE 'CREATE INDEX clawkit_events_search_fts ON clawkit_events USING gin (to_tsvector(''simple'', coalesce(search_text, '''')))';
  END IF;
END
$clawkit$;
`,
  },
  {
    version: 4,
    name: 'transcript marks keep the JSONL file\'s inode and ctime and the SQLite rewrite watermark',
    // Size and mtime miss a same-size rewrite whose mtime was put back (cp -p, rsync -t); a SQLite header and last seq
    // miss a destructive rewrite that kept both. Rows from before (NULL here) are hashed again once, never skipped.
    sql: `
ALTER TABLE clawkit_transcripts ADD COLUMN source_ino bigint;
ALTER TABLE clawkit_transcripts ADD COLUMN source_ctime_ms double precision;
ALTER TABLE clawkit_transcripts ADD COLUMN source_generation text;
`,
  },
  {
    version: 5,
    name: 'transcripts record which search-text version wrote their search_text',
    // SEARCH_TEXT_VERSION (src/sessions/search-text.ts) of the clawkit that wrote the transcript's search_text: fleet search
    // narrows by the text only where it is the reader's own version, and sync uploads the others again. Every row so
    // far was written by version 1 (searchTextOf has not changed since search_text was added in v1).
    sql: `
ALTER TABLE clawkit_transcripts ADD COLUMN search_text_version integer;
UPDATE clawkit_transcripts SET search_text_version = 1;
`,
  },
]

/**
 * Which text index migration v3 left on clawkit_events.search_text: `pg_trgm` (substring matches: ILIKE '%term%'),
 * `fts` (whole words: to_tsvector('simple', ...) @@ plainto_tsquery('simple', term)), or `none` before v3.
 */
export async function searchIndexKind(client: PgClient): Promise<'pg_trgm' | 'fts' | 'none'> {
  const r = await client.query<{trgm: boolean; fts: boolean}>("SELECT to_regclass('clawkit_events_search_trgm') IS NOT NULL AS trgm, to_regclass('clawkit_events_search_fts') IS NOT NULL AS fts")
  return r.rows[0]?.trgm ? 'pg_trgm' : r.rows[0]?.fts ? 'fts' : 'none'
}

/** The newest schema this clawkit knows. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version

/** An arbitrary constant: the advisory lock every migration run takes (pg_advisory_xact_lock). */
const MIGRATION_LOCK = 7_264_101_126

export interface MigrateResult {
  from: number
  to: number
  applied: string[]
}

/** The schema version recorded in the database: 0 when clawkit has never written there. */
export async function schemaVersion(client: PgClient): Promise<number> {
  const t = await client.query<{present: boolean}>("SELECT to_regclass('clawkit_schema_migrations') IS NOT NULL AS present")
  if (!t.rows[0]?.present) return 0
  const r = await client.query<{v: number | null}>('SELECT max(version)::int AS v FROM clawkit_schema_migrations')
  return r.rows[0]?.v ?? 0
}

export class SchemaTooNewError extends ClawkitError {
  constructor(found: number) {
    super(`the fleet database has clawkit schema v${found}, newer than this clawkit knows (v${SCHEMA_VERSION}): upgrade clawkit on this host before syncing`, {code: 'E_STORE_SCHEMA_NEWER'})
  }
}

/**
 * Brings the schema to SCHEMA_VERSION. Each step runs in its own transaction under the advisory lock, re-reading the
 * version inside it, so concurrent runs apply each step once and the others wait, then find nothing to do.
 */
export async function migrate(client: PgClient): Promise<MigrateResult> {
  const from = await schemaVersion(client)
  if (from > SCHEMA_VERSION) throw new SchemaTooNewError(from)
  const applied: string[] = []
  for (const m of MIGRATIONS) {
    if (m.version <= from) continue
    await client.query('BEGIN')
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
      await client.query('CREATE TABLE IF NOT EXISTS clawkit_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())')
      const now = (await client.query<{v: number | null}>('SELECT max(version)::int AS v FROM clawkit_schema_migrations')).rows[0]?.v ?? 0
      if (now >= m.version) {
        await client.query('COMMIT')
        continue
      }
      await client.query(m.sql)
      await client.query('INSERT INTO clawkit_schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name])
      await client.query('COMMIT')
      applied.push(`v${m.version}: ${m.name}`)
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw error
    }
  }
  return {from, to: SCHEMA_VERSION, applied}
}
