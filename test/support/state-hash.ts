// Test support for the journal's promise: a state dir after undo is the one before, byte for byte (its files) and row
// for row (every table of an agent database OpenClaw reads). Hashes, not copies, so a 10k-session store compares cheaply.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/** SQLite's own files beside a database: not content (a reader creates `-shm`, a checkpoint empties `-wal`). */
const SQLITE_SIDE = /\.sqlite(-wal|-shm|-journal)$/

/** Every regular file under `dir` as `relative path -> sha256`, without lock files, SQLite side files and (with `dbs: false`) databases. */
export function hashTree(dir: string, opts: {dbs?: boolean; exclude?: RegExp} = {}): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, {withFileTypes: true})) {
      const p = path.join(d, e.name)
      const rel = path.relative(dir, p)
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) {
        if (SQLITE_SIDE.test(e.name) || e.name.endsWith('.lock') || opts.exclude?.test(rel)) continue
        if (opts.dbs === false && e.name.endsWith('.sqlite')) continue
        out[rel] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')
      }
    }
  }
  walk(dir)
  return out
}

type Db = {prepare(sql: string): {all(...a: unknown[]): Record<string, unknown>[]; setReadBigInts(b: boolean): void}; close(): void}

/**
 * Every row of every table OpenClaw reads in an agent database, per table (sorted, values with their storage class):
 * FTS5's shadow tables are left out (their pages differ after any delete and re-insert) and the FTS table's own rows
 * are in. Needs node:sqlite (a `*.sqlite.test.ts` file).
 */
export function dbRows(file: string): Record<string, string[]> {
  const {DatabaseSync} = (process as unknown as {getBuiltinModule(id: string): {DatabaseSync: new (p: string, o: object) => Db}}).getBuiltinModule('node:sqlite')
  const db = new DatabaseSync(file, {readOnly: true})
  try {
    const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {name: string; sql: string | null}[]
    const virtual = new Set(tables.filter((t) => /CREATE\s+VIRTUAL/i.test(t.sql ?? '')).map((t) => t.name))
    const out: Record<string, string[]> = {}
    for (const t of tables) {
      const m = /_(data|idx|docsize|config|content)$/.exec(t.name)
      if (m && virtual.has(t.name.slice(0, m.index))) continue
      const st = db.prepare(`SELECT ${virtual.has(t.name) ? 'rowid, ' : ''}* FROM "${t.name}"`)
      st.setReadBigInts(true)
      const enc = (v: unknown) => (typeof v === 'bigint' ? `i${v}` : v instanceof Uint8Array ? `b${Buffer.from(v).toString('base64')}` : typeof v === 'number' ? `r${v}` : v)
      out[t.name] = st.all().map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, enc(v)]))).sort()
    }
    return out
  } finally {
    db.close()
  }
}

/** The rows of every agent database of a state dir, by path relative to it. */
export function stateRows(stateDir: string): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {}
  const agents = path.join(stateDir, 'agents')
  if (!fs.existsSync(agents)) return out
  for (const a of fs.readdirSync(agents)) {
    const db = path.join(agents, a, 'agent', 'openclaw-agent.sqlite')
    if (fs.existsSync(db)) out[path.relative(stateDir, db)] = dbRows(db)
  }
  return out
}
