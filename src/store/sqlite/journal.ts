// Rows in a journal step (../journal.ts): every row of an agent database that belongs to a set of keys and session
// ids, captured as an image inside the write transaction, and the move of those rows from one image to another (a
// forward change or its undo), refused when the rows match neither.
//
// Which rows: every table with a `session_key`, `session_id` or `source_session_key` column (found in the schema, so a
// table OpenClaw adds later is covered too), the FTS rows of those sessions (by the rowids in
// session_transcript_fts_rows), and the AUTOINCREMENT counters of those tables. FTS5's shadow tables are not rows
// OpenClaw reads (their pages differ after any delete and re-insert); the FTS table's own rows are compared instead.
// Values keep their storage class: INTEGER as bigint, REAL as number, TEXT, BLOB, NULL.
import {sha256} from '../../util/hash.js'
import type {JournalEntry, RowScope} from '../journal.js'
import type {SqlDatabase} from './driver.js'
import {requireTx} from './transaction.js'

/** One stored value, JSON-safe: INTEGER `{i}` (decimal), REAL `{r}`, BLOB `{b}` (base64), TEXT as a string. */
export type CellValue = null | string | {i: string} | {r: number} | {b: string}

export interface TableImage {
  columns: string[]
  /** Rows as values in `columns` order, sorted by their JSON text (an image does not depend on read order). */
  rows: CellValue[][]
}

export interface RowImage {
  /** Every table of the scope that has rows, by name. The FTS table's rows carry a leading `rowid` column. */
  tables: Record<string, TableImage>
  /** sqlite_sequence of the scope's tables (not compared: other writers move it legitimately). */
  sequence: Record<string, string>
}

interface TableInfo {
  name: string
  columns: string[]
  keyColumns: string[]
  idColumns: string[]
  parents: string[]
  fts: boolean
}

/** Tables whose rows are not compared (a later validation by OpenClaw changes them without changing a session). */
const NOT_COMPARED = new Set(['session_canonical_validation_pending'])
/** FTS5 keeps its index in these shadow tables; SQLite and FTS5 own them. */
const FTS_SHADOW = /_(data|idx|docsize|config|content)$/

const schemaCache = new WeakMap<SqlDatabase, TableInfo[]>()

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

/** The scoped tables of this database, parents before children (by their foreign keys). */
export function scopedTables(db: SqlDatabase): TableInfo[] {
  const cached = schemaCache.get(db)
  if (cached) return cached
  const master = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all()
  const virtual = new Set(master.filter((t) => /CREATE\s+VIRTUAL\s+TABLE/i.test(String(t.sql ?? ''))).map((t) => String(t.name)))
  const infos: TableInfo[] = []
  for (const t of master) {
    const name = String(t.name)
    const m = FTS_SHADOW.exec(name)
    if (m && virtual.has(name.slice(0, m.index))) continue
    const columns = db.prepare(`PRAGMA table_info(${quote(name)})`).all().map((c) => String(c.name))
    const keyColumns = columns.filter((c) => c === 'session_key' || c === 'source_session_key')
    const idColumns = columns.filter((c) => c === 'session_id')
    if (keyColumns.length === 0 && idColumns.length === 0) continue
    const fts = virtual.has(name)
    // Only the transcript's FTS table is scoped by its row map; another virtual table with those columns is not ours.
    if (fts && name !== 'session_transcript_fts') continue
    const parents = fts ? [] : [...new Set(db.prepare(`PRAGMA foreign_key_list(${quote(name)})`).all().map((f) => String(f.table)))]
    infos.push({name, columns, keyColumns, idColumns, parents, fts})
  }
  const byName = new Map(infos.map((i) => [i.name, i]))
  const ordered: TableInfo[] = []
  const seen = new Set<string>()
  const visit = (i: TableInfo, stack: Set<string>) => {
    if (seen.has(i.name) || stack.has(i.name)) return
    stack.add(i.name)
    for (const p of i.parents) {
      const parent = byName.get(p)
      if (parent) visit(parent, stack)
    }
    seen.add(i.name)
    ordered.push(i)
  }
  for (const i of infos) visit(i, new Set())
  schemaCache.set(db, ordered)
  return ordered
}

function encode(v: unknown): CellValue {
  if (v === null || v === undefined) return null
  if (typeof v === 'bigint') return {i: v.toString()}
  if (typeof v === 'number') return {r: v}
  if (typeof v === 'string') return v
  if (v instanceof Uint8Array) return {b: Buffer.from(v).toString('base64')}
  throw new Error(`unexpected SQLite value of type ${typeof v}`)
}

function decode(v: CellValue): null | string | bigint | number | Uint8Array {
  if (v === null || typeof v === 'string') return v
  if ('i' in v) return BigInt(v.i)
  if ('r' in v) return v.r
  return Buffer.from(v.b, 'base64')
}

const J = (ids: readonly string[]) => JSON.stringify(ids)

/** The WHERE clause of a table's scope and its parameters (the keys and the ids, each a JSON array). */
function whereOf(t: TableInfo, scope: RowScope): {sql: string; params: string[]} {
  if (t.fts) return {sql: 'rowid IN (SELECT id FROM session_transcript_fts_rows WHERE session_id IN (SELECT value FROM json_each(?)))', params: [J(scope.sessionIds)]}
  const parts = [...t.keyColumns.map((c) => ({sql: `${quote(c)} IN (SELECT value FROM json_each(?))`, param: J(scope.keys)})), ...t.idColumns.map((c) => ({sql: `${quote(c)} IN (SELECT value FROM json_each(?))`, param: J(scope.sessionIds)}))]
  return {sql: parts.map((p) => p.sql).join(' OR '), params: parts.map((p) => p.param)}
}

/** Every row of the scope now (inside the caller's transaction, so that the image is the one a commit would keep). */
export function captureRows(db: SqlDatabase, scope: RowScope): RowImage {
  const tables: Record<string, TableImage> = {}
  for (const t of scopedTables(db)) {
    const select = t.fts ? `SELECT rowid, ${t.columns.map(quote).join(', ')} FROM ${quote(t.name)}` : `SELECT ${t.columns.map(quote).join(', ')} FROM ${quote(t.name)}`
    const where = whereOf(t, scope)
    const stmt = db.prepare(`${select} WHERE ${where.sql}`)
    stmt.setReadBigInts(true)
    const columns = t.fts ? ['rowid', ...t.columns] : t.columns
    const rows: CellValue[][] = []
    for (const r of stmt.all(...where.params)) rows.push(columns.map((c) => encode(r[c])))
    if (rows.length === 0) continue
    const text = rows.map((r) => JSON.stringify(r))
    const order = text.map((_, i) => i).sort((a, b) => (text[a] < text[b] ? -1 : text[a] > text[b] ? 1 : 0))
    tables[t.name] = {columns, rows: order.map((i) => rows[i])}
  }
  const sequence: Record<string, string> = {}
  const names = scopedTables(db).map((t) => t.name)
  if (db.prepare("SELECT 1 AS x FROM sqlite_master WHERE name = 'sqlite_sequence'").get()) {
    const stmt = db.prepare('SELECT name, seq FROM sqlite_sequence WHERE name IN (SELECT value FROM json_each(?))')
    stmt.setReadBigInts(true)
    for (const r of stmt.all(J(names))) sequence[String(r.name)] = String(r.seq)
  }
  return {tables, sequence}
}

/** The hash two images are compared by: every compared table's rows (not the counters, not the pending markers). */
export function rowImageHash(image: RowImage): string {
  const h = sha256()
  for (const name of Object.keys(image.tables).sort()) {
    if (NOT_COMPARED.has(name)) continue
    h.update(`${name}\n${JSON.stringify(image.tables[name])}\n`)
  }
  return h.digest('hex')
}

/** The FTS row map and the FTS table: their ids are SQLite rowids, handed out again once the highest ones are deleted. */
const FTS_IDS: Record<string, string> = {session_transcript_fts_rows: 'id', session_transcript_fts: 'rowid'}

/**
 * The hash of an image with the FTS row ids left out (each FTS row by its content, the map by session and message), and
 * the rows sorted again. Another writer's new FTS rows may take the ids a removal freed (`INTEGER PRIMARY KEY` without
 * AUTOINCREMENT reuses the highest), so an undo puts such rows back under new ids (writeRowImage): the same rows for
 * every reader (OpenClaw finds an FTS row through the map's id, which moves with it), but not the same ids.
 */
export function rowImageContentHash(image: RowImage): string {
  const h = sha256()
  for (const name of Object.keys(image.tables).sort()) {
    if (NOT_COMPARED.has(name)) continue
    const t = image.tables[name]
    const at = FTS_IDS[name] ? t.columns.indexOf(FTS_IDS[name]) : -1
    const rows = at < 0 ? t.rows.map((r) => JSON.stringify(r)) : t.rows.map((r) => JSON.stringify(r.filter((_, i) => i !== at))).sort()
    h.update(`${name}\n${JSON.stringify(t.columns.filter((_, i) => i !== at))}\n${rows.join('\n')}\n`)
  }
  return h.digest('hex')
}

/** Whether the rows now are an image's: by its recorded hash, or (FTS ids renumbered by an undo) by its content. */
export function rowsMatch(now: RowImage, hash: string, image: RowImage | undefined): boolean {
  return rowImageHash(now) === hash || (image !== undefined && rowImageContentHash(now) === rowImageContentHash(image))
}

/** What differs between two images, per table, as row counts: for a refusal that says what moved on. */
export function describeRowDifference(now: RowImage, want: RowImage): string[] {
  const out: string[] = []
  for (const name of new Set([...Object.keys(now.tables), ...Object.keys(want.tables)])) {
    if (NOT_COMPARED.has(name)) continue
    const a = new Set((now.tables[name]?.rows ?? []).map((r) => JSON.stringify(r)))
    const b = new Set((want.tables[name]?.rows ?? []).map((r) => JSON.stringify(r)))
    const extra = [...a].filter((r) => !b.has(r)).length
    const missing = [...b].filter((r) => !a.has(r)).length
    if (extra || missing) out.push(`${name}: ${extra} row(s) not in the journal's image, ${missing} of its row(s) gone`)
  }
  return out
}

/**
 * Replace the scope's rows (`now`, as the caller captured them in this transaction) with `to`'s. `leaving` is the
 * image the step moves away from (the one the caller found `now` to match, or `now` itself).
 * Children are deleted before parents and inserted after them; OpenClaw's triggers fire as on any write, and their
 * effects on the scope (entry_valid, the pending-validation markers) are then set to the image's values, leaving
 * other keys' markers as they were. AUTOINCREMENT counters go back to the image's when nothing else moved them.
 */
export function writeRowImage(db: SqlDatabase, scope: RowScope, now: RowImage, to: RowImage, leaving: RowImage = now): void {
  requireTx(db)
  const tables = scopedTables(db)
  const pendingBefore = db.prepare("SELECT 1 AS x FROM sqlite_master WHERE name = 'session_canonical_validation_pending'").get()
    ? db.prepare('SELECT session_key FROM session_canonical_validation_pending').all().map((r) => String(r.session_key))
    : undefined
  const seqStart = captureSequence(db, tables.map((t) => t.name))
  for (const t of [...tables].reverse()) {
    if (t.fts) continue
    const where = whereOf(t, scope)
    db.prepare(`DELETE FROM ${quote(t.name)} WHERE ${where.sql}`).run(...where.params)
  }
  // The FTS rows of the scope went with their row map (its delete trigger); any left without one go now.
  const fts = tables.find((t) => t.fts)
  const ftsNow = now.tables[fts?.name ?? '']
  if (fts && ftsNow) {
    const del = db.prepare(`DELETE FROM ${quote(fts.name)} WHERE rowid = ?`)
    for (const r of ftsNow.rows) del.run(decode(r[0]) as bigint)
  }
  const ftsIds = ftsIdMap(db, to)
  for (const t of tables) {
    const img = to.tables[t.name]
    if (!img || t.name === 'session_canonical_validation_pending') continue
    const stmt = db.prepare(`INSERT INTO ${quote(t.name)} (${img.columns.map(quote).join(', ')}) VALUES (${img.columns.map(() => '?').join(', ')})`)
    const at = FTS_IDS[t.name] ? img.columns.indexOf(FTS_IDS[t.name]) : -1
    for (const r of img.rows) {
      const values = r.map(decode)
      if (at >= 0) values[at] = ftsIds.get(String(values[at])) ?? values[at]
      stmt.run(...values)
    }
  }
  // entry_valid as the image has it (the insert trigger reset it to 0).
  const nodes = to.tables.session_nodes
  if (nodes) {
    const k = nodes.columns.indexOf('session_key')
    const v = nodes.columns.indexOf('entry_valid')
    const set = db.prepare('UPDATE session_nodes SET entry_valid = ? WHERE session_key = ?')
    if (k >= 0 && v >= 0) for (const r of nodes.rows) set.run(decode(r[v]), decode(r[k]))
  }
  if (pendingBefore) {
    const inScope = new Set(scope.keys)
    const want = new Set(pendingBefore.filter((k) => !inScope.has(k)))
    for (const r of to.tables.session_canonical_validation_pending?.rows ?? []) want.add(String(decode(r[0])))
    const now = db.prepare('SELECT session_key FROM session_canonical_validation_pending').all().map((r) => String(r.session_key))
    const del = db.prepare('DELETE FROM session_canonical_validation_pending WHERE session_key = ?')
    for (const k of now) if (!want.has(k)) del.run(k)
    const nowSet = new Set(now)
    const ins = db.prepare('INSERT INTO session_canonical_validation_pending (session_key) VALUES (?)')
    for (const k of want) if (!nowSet.has(k)) ins.run(k)
  }
  // A counter this move bumped goes back to the image's; one another writer moved since the image was taken stays.
  const setSeq = db.prepare('UPDATE sqlite_sequence SET seq = ? WHERE name = ?')
  for (const [name, seq] of Object.entries(to.sequence)) {
    if (seqStart[name] === leaving.sequence[name] || seqStart[name] === undefined) setSeq.run(BigInt(seq), name)
  }
}

/**
 * New ids for the image's FTS rows whose ids another session's rows hold now (the scope's own rows are deleted by
 * then): past the highest id in use and in the image, so that no two rows meet. The map row and its FTS row share one.
 */
function ftsIdMap(db: SqlDatabase, to: RowImage): Map<string, bigint> {
  const map = new Map<string, bigint>()
  const img = to.tables.session_transcript_fts_rows
  const at = img ? img.columns.indexOf('id') : -1
  if (!img || at < 0) return map
  const ids = img.rows.map((r) => decode(r[at]) as bigint)
  const taken = db.prepare('SELECT 1 AS x FROM session_transcript_fts_rows WHERE id = ?')
  const takenFts = to.tables.session_transcript_fts ? db.prepare('SELECT 1 AS x FROM session_transcript_fts WHERE rowid = ?') : undefined
  const max = db.prepare('SELECT max(id) AS m FROM session_transcript_fts_rows')
  max.setReadBigInts(true)
  let next = [BigInt((max.get()?.m as bigint | null) ?? 0n), ...ids].reduce((a, b) => (b > a ? b : a), 0n)
  for (const id of ids) if (taken.get(id) || takenFts?.get(id)) map.set(String(id), ++next)
  return map
}

function captureSequence(db: SqlDatabase, names: string[]): Record<string, string> {
  const out: Record<string, string> = {}
  if (!db.prepare("SELECT 1 AS x FROM sqlite_master WHERE name = 'sqlite_sequence'").get()) return out
  const stmt = db.prepare('SELECT name, seq FROM sqlite_sequence WHERE name IN (SELECT value FROM json_each(?))')
  stmt.setReadBigInts(true)
  for (const r of stmt.all(J(names))) out[String(r.name)] = String(r.seq)
  return out
}

/** The session ids a scope of keys reaches now: every window of those keys, plus the extra ids named. */
export function scopeOf(db: SqlDatabase, keys: readonly string[], extraIds: readonly string[] = []): RowScope {
  const ids = new Set(extraIds)
  for (const r of db.prepare('SELECT session_id FROM session_windows WHERE session_key IN (SELECT value FROM json_each(?))').all(J(keys))) ids.add(String(r.session_id))
  for (const r of db.prepare('SELECT current_session_id FROM session_nodes WHERE session_key IN (SELECT value FROM json_each(?))').all(J(keys))) ids.add(String(r.current_session_id))
  return {keys: [...new Set(keys)].sort(), sessionIds: [...ids].sort()}
}

/** Two scopes as one (a step's scope must cover its before and its after image). */
export function unionScope(a: RowScope, b: RowScope): RowScope {
  return {keys: [...new Set([...a.keys, ...b.keys])].sort(), sessionIds: [...new Set([...a.sessionIds, ...b.sessionIds])].sort()}
}

/**
 * Journal what `fn` changes in `scope`, inside the caller's write transaction (BEGIN IMMEDIATE, not yet committed):
 * the rows before and after are kept as blobs and the step recorded (synced) before the caller commits, as
 * SqliteSessionStore.journaledWrite does for its own writes. For writes on a connection of their own (doctor --fix).
 */
export async function journalRowsInTx<T>(db: SqlDatabase, entry: JournalEntry, p: {agentId: string; store: string; label: string; scope: RowScope}, fn: () => T): Promise<T> {
  requireTx(db)
  const scope = unionScope(p.scope, scopeOf(db, p.scope.keys))
  const before = captureRows(db, scope)
  const result = fn()
  const full = unionScope(scope, scopeOf(db, scope.keys))
  const after = captureRows(db, full)
  const b = await entry.putBlob(JSON.stringify(before))
  const a = await entry.putBlob(JSON.stringify(after))
  await entry.record({kind: 'rows', agentId: p.agentId, store: p.store, label: p.label, scope: full, before: {blob: b, hash: rowImageHash(before)}, after: {blob: a, hash: rowImageHash(after)}})
  return result
}
