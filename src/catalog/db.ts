// The local catalog's database: where it lives (clawkit's data dir, one file per OpenClaw state dir, keyed by its real
// path), how it is opened (node:sqlite, WAL, 0600 in a 0700 dir) and its schema. It is derived data: deleting the file
// loses nothing OpenClaw still has, only the ledger's memory of spend whose transcripts OpenClaw has since removed.
import fs from 'node:fs'
import path from 'node:path'

import {clawkitDirs} from '../settings.js'
import {nodeSqlite, type SqlDatabase, type SqlStatement, type SqlValue} from '../util/node-sqlite.js'
import {WORDS_TOKENIZE} from './tokens.js'

/**
 * The catalog's own schema (PRAGMA user_version); a file of another version is rebuilt. 4: a word index (one full-text
 * row per searchable part, its folded tokens; a vocabulary with its trigrams) where 3 kept each span's trigrams. 5: the
 * vocabulary's tokens numbered densely (4 keyed them, and their trigrams, by a 53-bit hash). 6: id-like tokens kept out
 * of the vocabulary, as their spans' trigrams (grams).
 */
export const CATALOG_SCHEMA = 6

/** How long a writer waits for another clawkit process's write transaction (each is one transcript's batch, short). */
const BUSY_TIMEOUT_MS = 15_000

/** Why commands scan instead of using the catalog: said once on stderr, never on stdout. */
export class CatalogUnavailable {
  constructor(
    readonly code: 'node' | 'fts5' | 'data-dir' | 'inside-state-dir' | 'unreadable' | 'disabled',
    readonly reason: string,
  ) {}
}

/**
 * How much FTS5 holds in memory before it writes a segment (its default is 1 MiB): fewer, larger segments to merge
 * during a first build, ~12 % less of its time in FTS5 (measured on 200 MB of the benchmark's spans); a refresh of a
 * few turns never holds that much.
 */
const FTS_HASH_BYTES = 16 * 1024 * 1024

const SCHEMA = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) STRICT;
CREATE TABLE agents(agent TEXT PRIMARY KEY, token TEXT, listing TEXT, refreshed_at INTEGER) STRICT;
CREATE TABLE transcripts(
  id INTEGER PRIMARY KEY,
  agent TEXT NOT NULL,
  locator TEXT NOT NULL,
  session_id TEXT NOT NULL,
  session_key TEXT,
  "where" TEXT,
  ended TEXT,
  mark TEXT,
  lines INTEGER NOT NULL DEFAULT 0,
  text_bytes INTEGER NOT NULL DEFAULT 0,
  open_span INTEGER,
  open_grams TEXT,
  parts INTEGER NOT NULL DEFAULT 0,
  calls INTEGER NOT NULL DEFAULT 0,
  odd INTEGER NOT NULL DEFAULT 0,
  partial TEXT,
  removed_at INTEGER
) STRICT;
CREATE UNIQUE INDEX transcripts_listed ON transcripts(agent, locator) WHERE removed_at IS NULL;
-- The words: one row per searchable part (rowid: transcript << 32 | the part's number in it, digest.ts), its distinct
-- folded tokens (tokens.ts). Contentless, without positions: a part holds a token or it does not.
CREATE VIRTUAL TABLE words USING fts5(tokens, content='', contentless_delete=1, tokenize="${WORDS_TOKENIZE.replaceAll('"', '""')}", detail=none);
INSERT INTO words(words, rank) VALUES ('hashsize', ${FTS_HASH_BYTES});
-- Every token ever written to words (never removed: a token no part holds any more costs room, never a wrong answer),
-- numbered in the order first written and found by a 53-bit hash of its text (vocab_h), and its trigrams under the same
-- number: a needle's run is looked up there, then checked against each token's text. Dense numbers keep the trigrams'
-- doclists small (each rowid is stored as the step from the one before: a byte or three, where schema 4's hashes as
-- rowids took ~7 bytes a trigram, 90 of 165 MB on a store whose text is 16 % unique ids).
CREATE TABLE vocab(id INTEGER PRIMARY KEY, h INTEGER NOT NULL, token TEXT NOT NULL) STRICT;
CREATE INDEX vocab_h ON vocab(h);
CREATE VIRTUAL TABLE vtri USING fts5(token, content='', tokenize='trigram case_sensitive 1', detail=none, columnsize=0);
-- Id-like tokens (tokens.ts isIdToken: hashes, request ids, base64, numbers), which are nearly all seen once and would be
-- most of a vocabulary, are kept only as the distinct trigrams of the span they are in: a row of grams per span, under
-- the span's id (each trigram a term), the span marked \`ids\`. A needle that may sit inside one reads those spans back
-- (spans.ts). The open last span of a transcript, which the next lines are merged into, keeps its trigrams' text in
-- transcripts.open_grams until it closes (the table keeps no text to add the new lines' trigrams to).
CREATE VIRTUAL TABLE grams USING fts5(g, content='', contentless_delete=1, tokenize="${WORDS_TOKENIZE.replaceAll('"', '""')}", detail=none);
-- Where lines are: spans of whole lines (JSONL: byte offset and length; SQLite: seqs), the parts they hold (numbers
-- part_lo to part_lo + parts - 1), and the newest time of each (as search orders times, search-text.ts timeRank), so
-- that the newest hits are read first.
CREATE TABLE spans(id INTEGER PRIMARY KEY, transcript INTEGER NOT NULL, line INTEGER NOT NULL, lines INTEGER NOT NULL, "offset" INTEGER, bytes INTEGER, text_bytes INTEGER NOT NULL, tmax INTEGER, part_lo INTEGER NOT NULL, parts INTEGER NOT NULL, ids INTEGER NOT NULL DEFAULT 0) STRICT;
CREATE INDEX spans_of ON spans(transcript, part_lo);
CREATE INDEX spans_newest ON spans(tmax);
CREATE TABLE models(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, provider TEXT, model TEXT) STRICT;
CREATE TABLE calls(
  transcript INTEGER NOT NULL,
  line INTEGER NOT NULL,
  entry_key INTEGER,
  at INTEGER,
  model INTEGER,
  input ANY NOT NULL,
  output ANY NOT NULL,
  cache_read ANY NOT NULL,
  cache_write ANY NOT NULL,
  total_tokens ANY NOT NULL,
  cost_nano INTEGER,
  cost REAL,
  bad_values INTEGER NOT NULL DEFAULT 0,
  bad_cost INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(transcript, line)
) STRICT, WITHOUT ROWID;
CREATE INDEX calls_by_entry ON calls(entry_key) WHERE entry_key IS NOT NULL;
CREATE TABLE bad_lines(transcript INTEGER NOT NULL, line INTEGER NOT NULL, PRIMARY KEY(transcript, line)) STRICT, WITHOUT ROWID;
`

export interface CatalogDb {
  db: SqlDatabase
  /** The database file. */
  file: string
  /** The state dir's real path (what the file is keyed by). */
  stateDir: string
  /** A prepared statement per SQL text, for the life of the connection. */
  stmt(sql: string): SqlStatement
  close(): void
}

/** `<data dir>/catalog/`: one file per state dir. */
export function catalogDir(env: Record<string, string | undefined> = process.env): string {
  return path.join(clawkitDirs(env).data, 'catalog')
}

/**
 * The catalog file of a state dir (its real path), whether or not it exists: a 64-bit hash of the path names it (not
 * sha256, whose module costs a search ~25 ms to load), and the file records the path it is for (openCatalogDb checks).
 */
export function catalogFile(stateDirReal: string, env: Record<string, string | undefined> = process.env, n = 0): string {
  let h1 = 0x811c9dc5
  let h2 = 0x01000193 ^ stateDirReal.length
  for (let i = 0; i < stateDirReal.length; i++) {
    const ch = stateDirReal.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 0x01000193)
    h2 = Math.imul(h2 ^ ch, 0x5bd1e995) ^ (h2 >>> 15)
  }
  const hex = (x: number) => (x >>> 0).toString(16).padStart(8, '0')
  return path.join(catalogDir(env), `${hex(h1)}${hex(h2)}${n === 0 ? '' : `-${n}`}.sqlite`)
}

const isInside = (dir: string, p: string) => {
  const rel = path.relative(dir, p)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

const realOr = (p: string) => {
  try {
    return fs.realpathSync.native(p)
  } catch {
    return undefined
  }
}

/**
 * Opens (and with `create`, makes) the catalog of a state dir. Never inside the state dir itself (a data dir set there
 * would put clawkit's files among OpenClaw's); the dir is 0700 and the file 0600 (SQLite gives its -wal and -shm the
 * file's mode). A file of another schema version, or one that is not a database, is replaced: it is derived data.
 */
export function openCatalogDb(stateDir: string, opts: {env?: Record<string, string | undefined>; create: boolean}, n = 0): CatalogDb | CatalogUnavailable {
  const env = opts.env ?? process.env
  if (env.CLAWKIT_CATALOG === '0') return new CatalogUnavailable('disabled', 'CLAWKIT_CATALOG=0 turns the catalog off')
  const sqlite = nodeSqlite()
  if (!sqlite) return new CatalogUnavailable('node', `the local catalog needs node:sqlite (Node 22.15 or later); this is Node ${process.versions.node}`)
  const real = realOr(stateDir) ?? path.resolve(stateDir)
  const dir = catalogDir(env)
  const file = catalogFile(real, env, n)
  const dataReal = realOr(path.dirname(dir)) ?? path.resolve(path.dirname(dir))
  if (isInside(real, path.resolve(dir)) || isInside(real, dataReal)) return new CatalogUnavailable('inside-state-dir', `clawkit's data dir ${path.dirname(dir)} is inside the OpenClaw state dir ${real}; the catalog is never kept there`)
  if (!fs.existsSync(file)) {
    if (!opts.create) return new CatalogUnavailable('unreadable', `no catalog yet at ${file}`)
    try {
      fs.mkdirSync(dir, {recursive: true, mode: 0o700})
      // The file exists before SQLite opens it, so that it (and its -wal and -shm, which take its mode) is 0600.
      fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600))
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'EEXIST') return new CatalogUnavailable('data-dir', `cannot create the catalog in ${dir} (${code ?? (error as Error).message})`)
    }
  }
  try {
    fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK)
    fs.accessSync(dir, fs.constants.W_OK)
  } catch (error) {
    return new CatalogUnavailable('data-dir', `the catalog ${file} cannot be written (${(error as NodeJS.ErrnoException).code ?? 'no access'})`)
  }
  let db: SqlDatabase
  try {
    db = new sqlite.DatabaseSync(file)
  } catch (error) {
    return new CatalogUnavailable('unreadable', `cannot open the catalog ${file}: ${(error as Error).message}`)
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    ensureSchema(db, real)
    // Two state dirs whose paths hash alike: the second takes the next name.
    if (db.prepare("SELECT value FROM meta WHERE key = 'state_dir'").get()?.value !== real && n < 8) {
      db.close()
      return openCatalogDb(stateDir, opts, n + 1)
    }
    // Per connection: a commit writes the WAL without an fsync; a crash loses at most the last commits, never consistency.
    db.exec('PRAGMA synchronous = NORMAL')
  } catch (error) {
    db.close()
    if (/not a database|malformed|file is not/i.test((error as Error).message)) {
      // Derived data that cannot be read is made again: the next open starts from an empty catalog.
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, {force: true})
      return openCatalogDb(stateDir, opts, n)
    }
    if (/no such module: fts5|no such tokenizer|parse error in tokenize|unrecognized option/i.test((error as Error).message)) {
      return new CatalogUnavailable('fts5', `this Node's SQLite has no FTS5 with contentless_delete (SQLite 3.43+): ${(error as Error).message}`)
    }
    return new CatalogUnavailable('unreadable', `cannot use the catalog ${file}: ${(error as Error).message}`)
  }
  const cache = new Map<string, SqlStatement>()
  return {
    db,
    file,
    stateDir: real,
    stmt(sql) {
      let s = cache.get(sql)
      if (!s) {
        s = db.prepare(sql)
        cache.set(sql, s)
      }
      return s
    },
    close() {
      cache.clear()
      if (db.isOpen) db.close()
    },
  }
}

/** Creates the schema on an empty file, or replaces a catalog of another version, in one writer's transaction. */
function ensureSchema(db: SqlDatabase, stateDirReal: string): void {
  const version = () => Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0)
  if (version() === CATALOG_SCHEMA) return
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('BEGIN IMMEDIATE')
  try {
    const now = version()
    if (now !== CATALOG_SCHEMA) {
      if (now !== 0) {
        // Another clawkit's schema: the catalog is made again (derived data).
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'fts_%' AND name NOT LIKE 'words_%' AND name NOT LIKE 'vtri_%' AND name NOT LIKE 'grams_%'").all()
        for (const t of tables) db.exec(`DROP TABLE IF EXISTS "${String(t.name).replaceAll('"', '""')}"`)
      }
      db.exec(SCHEMA)
      db.prepare('INSERT INTO meta(key, value) VALUES (?, ?), (?, ?)').run('state_dir', stateDirReal, 'created_at', String(Date.now()))
      db.exec(`PRAGMA user_version = ${CATALOG_SCHEMA}`)
    }
    db.exec('COMMIT')
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK')
    throw error
  }
}

/** Runs `fn` in a write transaction (BEGIN IMMEDIATE: one writer at a time; readers are never blocked, WAL). */
export function writeTx<T>(c: CatalogDb, fn: () => T): T {
  c.db.exec('BEGIN IMMEDIATE')
  try {
    const out = fn()
    c.db.exec('COMMIT')
    return out
  } catch (error) {
    if (c.db.isTransaction) c.db.exec('ROLLBACK')
    throw error
  }
}

export type {SqlValue}
