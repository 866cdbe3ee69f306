// What the catalog of a state dir holds and how big it is: the cheap summary `status` shows (the file opened read-only,
// nothing refreshed or created) and the detailed one of `clawkit index --status` (the full-text index and the ledger
// measured apart, how many recorded transcripts changed since the last refresh).
import fs from 'node:fs'
import path from 'node:path'

import {nodeSqlite, type SqlDatabase} from '../util/node-sqlite.js'
import {sqliteSupported} from '../store/sqlite/support.js'
import {CATALOG_SCHEMA, catalogFile} from './db.js'

/** `status`'s line about the catalog (in its --json as `catalog`). */
export interface CatalogSummary {
  /** `ready`: a catalog exists; `none`: not built yet (the first search or usage, or `clawkit index`, builds it); `unavailable`: this Node cannot keep one. */
  state: 'ready' | 'none' | 'unavailable'
  /** The catalog's file in clawkit's data dir (null when unavailable). */
  file: string | null
  /** Its size on disk: the database and its write-ahead log. */
  bytes: number
  /** UTF-8 bytes of the searched text it indexes (transcripts still in the store). */
  textBytes: number
  transcripts: number
  /** When it was last brought up to date (ms), null when never. */
  refreshedAt: number | null
  /** Why it is unavailable. */
  reason?: string
}

const realOr = (p: string) => {
  try {
    return fs.realpathSync.native(p)
  } catch {
    return path.resolve(p)
  }
}

const sizeOf = (p: string) => {
  try {
    return fs.statSync(p).size
  } catch {
    return 0
  }
}

/** The catalog's files on disk: the database, its WAL and shared-memory index. */
export function catalogBytes(file: string): number {
  return sizeOf(file) + sizeOf(`${file}-wal`)
}

/** The cheap summary: never creates, refreshes or writes anything. */
export function catalogSummary(stateDir: string, env: Record<string, string | undefined> = process.env): CatalogSummary {
  if (env.CLAWKIT_CATALOG === '0') return {state: 'unavailable', file: null, bytes: 0, textBytes: 0, transcripts: 0, refreshedAt: null, reason: 'turned off (CLAWKIT_CATALOG=0)'}
  if (!sqliteSupported()) return {state: 'unavailable', file: null, bytes: 0, textBytes: 0, transcripts: 0, refreshedAt: null, reason: `needs Node 22.15 or later (node:sqlite); this is Node ${process.versions.node}`}
  // (sqliteSupported also asks for zstd, which every Node with a usable node:sqlite has: 22.15+.)
  const real = realOr(stateDir)
  for (let n = 0; n < 8; n++) {
    const file = catalogFile(real, env, n)
    if (!fs.existsSync(file)) return {state: 'none', file: catalogFile(real, env), bytes: 0, textBytes: 0, transcripts: 0, refreshedAt: null}
    let db: SqlDatabase | undefined
    try {
      db = new (nodeSqlite()!.DatabaseSync)(file, {readOnly: true})
      if (Number(db.prepare('PRAGMA user_version').get()?.user_version) !== CATALOG_SCHEMA) return {state: 'none', file, bytes: catalogBytes(file), textBytes: 0, transcripts: 0, refreshedAt: null}
      if (db.prepare("SELECT value FROM meta WHERE key = 'state_dir'").get()?.value !== real) continue
      const t = db.prepare('SELECT count(*) AS n, coalesce(sum(text_bytes), 0) AS b FROM transcripts WHERE removed_at IS NULL').get()
      const r = db.prepare('SELECT max(refreshed_at) AS t FROM agents').get()
      return {state: 'ready', file, bytes: catalogBytes(file), textBytes: Number(t?.b ?? 0), transcripts: Number(t?.n ?? 0), refreshedAt: r?.t === null || r?.t === undefined ? null : Number(r.t)}
    } catch (error) {
      return {state: 'unavailable', file, bytes: catalogBytes(file), textBytes: 0, transcripts: 0, refreshedAt: null, reason: `cannot read it: ${(error as Error).message.split('\n')[0]}`}
    } finally {
      db?.close()
    }
  }
  return {state: 'none', file: catalogFile(real, env), bytes: 0, textBytes: 0, transcripts: 0, refreshedAt: null}
}

/** `clawkit index --status`'s figures of one open catalog. */
export interface CatalogDetails {
  /** Pages of the full-text index (the words, the vocabulary and its trigrams, the id-like tokens' trigrams, and the spans that point into the store). */
  indexBytes: number
  /** Pages of the ledger (calls, models) and the bookkeeping (transcripts, agents). */
  ledgerBytes: number
  /** indexBytes / textBytes (the bound: at most 0.5). */
  ratio: number | null
  calls: number
  agents: {agentId: string; transcripts: number; textBytes: number; calls: number; refreshedAt: number | null}[]
  /** Transcripts OpenClaw removed since the catalog read them, whose calls the ledger keeps. */
  removed: {transcripts: number; calls: number}
}

export function catalogDetails(db: SqlDatabase, textBytes: number): CatalogDetails {
  let indexBytes = 0
  let ledgerBytes = 0
  try {
    for (const r of db.prepare('SELECT name, sum(pgsize) AS b FROM dbstat GROUP BY name').all()) {
      const name = String(r.name)
      if (/^(words|vocab|vtri|spans|grams)/.test(name)) indexBytes += Number(r.b)
      else ledgerBytes += Number(r.b)
    }
  } catch {
    // A SQLite without the dbstat table: the index is not told apart from the rest.
  }
  const agents = db
    .prepare(
      `SELECT a.agent, a.refreshed_at, (SELECT count(*) FROM transcripts t WHERE t.agent = a.agent AND t.removed_at IS NULL) AS n,
         (SELECT coalesce(sum(text_bytes), 0) FROM transcripts t WHERE t.agent = a.agent AND t.removed_at IS NULL) AS b,
         (SELECT count(*) FROM calls c JOIN transcripts t ON t.id = c.transcript WHERE t.agent = a.agent) AS calls FROM agents a ORDER BY a.agent`,
    )
    .all()
    .map((r) => ({agentId: String(r.agent), transcripts: Number(r.n), textBytes: Number(r.b), calls: Number(r.calls), refreshedAt: r.refreshed_at === null ? null : Number(r.refreshed_at)}))
  const removed = db.prepare('SELECT count(*) AS n, (SELECT count(*) FROM calls c JOIN transcripts t ON t.id = c.transcript WHERE t.removed_at IS NOT NULL) AS calls FROM transcripts WHERE removed_at IS NOT NULL').get()
  return {
    indexBytes,
    ledgerBytes,
    ratio: textBytes > 0 && indexBytes > 0 ? Math.round((indexBytes / textBytes) * 1000) / 1000 : null,
    calls: Number(db.prepare('SELECT count(*) AS n FROM calls').get()?.n ?? 0),
    agents,
    removed: {transcripts: Number(removed?.n ?? 0), calls: Number(removed?.calls ?? 0)},
  }
}
