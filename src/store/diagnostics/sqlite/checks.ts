// Doctor's checks of a SQLite-era agent store (OpenClaw 2026.7 and later; spec store-sqlite.md): the database file and
// its WAL, its session rows and events (what the JSON-era import left is checked in sqlite-import-checks.ts).
// Plain doctor only reads: one read-only connection (query_only) inside one read transaction. What --fix may change is
// decided here (each finding's `repair`) and done in sqlite-repairs.ts.
import fs from 'node:fs'
import path from 'node:path'

import {ClawkitError} from '../../../errors.js'
import {processesHoldingFile} from '../../../os/process.js'
import type {JournalEntry} from '../../journal.js'
import {AGENT_SCHEMA_VERSION, eventText, mapSqliteError, openAgentDb, type SqlDatabase, sqliteSupported, SQLITE_NODE_REQUIREMENT} from '../../sqlite/driver.js'
import {journalRowsInTx} from '../../sqlite/journal.js'
import {chmodPath} from '../file/repairs.js'
import {finding} from '../finding.js'
import type {PlannedFinding, SqliteAgentSummary} from '../types.js'

/** OpenClaw's journal_size_limit (§2.3): a WAL above it is not being checkpointed and reset as OpenClaw expects. */
export const WAL_OVERSIZED_BYTES = 64 * 1024 * 1024
/** Rows a finding names in `details` (the count is always complete). */
export const DETAIL_LIMIT = 20

function sizeOf(p: string): number {
  try {
    return fs.statSync(p).size
  } catch {
    return 0
  }
}

export function oneLine(error: unknown): string {
  return ((error as Error)?.message ?? String(error)).replace(/\s+/g, ' ').trim()
}

export interface SqliteCheckContext {
  stateDir: string
  agentId: string
  /** agents/<id>/agent/openclaw-agent.sqlite (exists, or its WAL does). */
  db: string
  /** Live legacy transcripts in agents/<id>/sessions (from doctor's scan of the JSON-era store). */
  legacyTranscripts: {name: string; path: string}[]
  /** sha256 of legacy indexes OpenClaw recorded as verified imports (a receipt: OpenClaw accepts such a file). */
  importedIndexHashes: () => Set<string>
  out: PlannedFinding[]
}

interface Header {
  pageSize: number
  /** The in-header page count, when valid (bytes 92-95 equal the change counter, SQLite 3.7.0+). */
  pages?: number
}

/** The 100-byte database header (sqlite.org/fileformat.html §1.3), read without node:sqlite. */
function readHeader(file: string): Header | undefined {
  const buf = Buffer.alloc(100)
  let n = 0
  let fd: number | undefined
  try {
    fd = fs.openSync(file, 'r')
    n = fs.readSync(fd, buf, 0, 100, 0)
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
  if (n < 100 || buf.toString('latin1', 0, 16) !== 'SQLite format 3\u0000') return undefined
  const raw = buf.readUInt16BE(16)
  const pageSize = raw === 1 ? 65_536 : raw
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return undefined
  const valid = buf.readUInt32BE(24) === buf.readUInt32BE(92)
  return {pageSize, ...(valid ? {pages: buf.readUInt32BE(28)} : {})}
}

/**
 * Everything doctor checks on one agent's database. Returns the summary figures for the `agents[]` row. Never throws
 * for a damaged, locked or unreadable store: each is a finding (the other agents are still checked).
 */
export function checkSqliteAgent(c: SqliteCheckContext): SqliteAgentSummary {
  const {agentId, db, out} = c
  const wal = `${db}-wal`
  const walBytes = sizeOf(wal)
  const summary: SqliteAgentSummary = {path: db, dbBytes: 0, walBytes}
  let st: fs.Stats | undefined
  try {
    st = fs.statSync(db)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' && !fs.existsSync(db) && fs.existsSync(wal)) {
      // lstat too: a dangling link is "missing" to stat but is what OpenClaw would open.
      let dangling = false
      try {
        dangling = fs.lstatSync(db).isSymbolicLink()
      } catch {}
      if (!dangling) {
        out.push(finding({id: 'sqlite-wal-orphan', severity: 'error', agentId, path: wal, message: `A WAL (${walBytes} bytes) exists without its database ${path.basename(db)}: the transactions in it cannot be read or applied without the database, and OpenClaw would start an empty one beside it. Do not delete it; restore ${path.basename(db)} from a backup next to it, then run "openclaw doctor".`, details: {walBytes}}))
        return summary
      }
    }
    out.push(finding({id: 'sqlite-unreadable', severity: 'error', agentId, path: db, message: `The SQLite session store cannot be read (${oneLine(error)}). Check that ${db} is the real database file (a link must point at one) and that you can read it.`}))
    return summary
  }
  if (!st.isFile()) {
    out.push(finding({id: 'sqlite-unreadable', severity: 'error', agentId, path: db, message: `${db} is not a regular file, so neither OpenClaw nor clawkit can open it as the session database. Move it away and restore the database from a backup.`}))
    return summary
  }
  summary.dbBytes = st.size
  if (st.size === 0 && walBytes === 0) {
    // SQLite would open it as a database of schema 0; it is no database anyone wrote. OpenClaw 2026.9.6 lists no
    // sessions for it, creates its schema there on its next turn, and its doctor stops on it ("has no schema ownership
    // metadata"): a restore cut short or a file touched by hand, which only the user can tell apart.
    out.push(
      finding({
        id: 'sqlite-empty-file',
        severity: 'error',
        agentId,
        path: db,
        message: `${db} is an empty file (0 bytes), not an OpenClaw database: no sessions are stored in it, OpenClaw lists none for this agent and "openclaw doctor" stops on it. If the agent's sessions were in it, restore the file from a backup; if it never had any, remove the empty file (OpenClaw creates a new database on its next turn). Doctor changed nothing.`,
        details: {bytes: 0},
      }),
    )
    return summary
  }

  const holders = processesHoldingFile(db)?.filter((pid) => pid !== process.pid)
  if (holders) summary.holders = holders
  const header = st.size === 0 ? undefined : readHeader(db)
  let truncated: PlannedFinding | undefined
  if (st.size > 0 && !header) {
    out.push(finding({id: 'sqlite-not-a-database', severity: 'error', agentId, path: db, message: `${db} is not a SQLite database (its first 100 bytes are not a SQLite header): it is garbage or was cut off, and OpenClaw cannot open it. Restore it from a backup; doctor changed nothing.`, details: {bytes: st.size}}))
    return summary
  }
  if (header?.pages !== undefined && walBytes === 0 && st.size < header.pages * header.pageSize) {
    // With an empty WAL the file holds every page: fewer bytes than its header counts means it was cut off.
    truncated = finding({id: 'sqlite-truncated', severity: 'error', agentId, path: db, message: `${db} is truncated: its header counts ${header.pages} pages of ${header.pageSize} bytes (${header.pages * header.pageSize} bytes) but the file has ${st.size}. The sessions in the missing pages are lost from this file; restore it from a backup (doctor changed nothing).`, details: {bytes: st.size, expectedBytes: header.pages * header.pageSize}})
    out.push(truncated)
  }
  if ((st.mode & 0o200) === 0 || !canWrite(db)) {
    const mode = (st.mode & 0o777).toString(8).padStart(3, '0')
    out.push(
      finding({
        id: 'sqlite-read-only',
        severity: 'error',
        agentId,
        path: db,
        message: `The SQLite session store is read-only (mode ${mode}): OpenClaw cannot record turns or resets in it, and clawkit cannot either. --fix runs chmod 600 (the owner's read and write, as OpenClaw creates it); if you do not own it, run: sudo chown $USER "${db}".`,
        repair: {kind: 'perm', run: () => chmodPath(db, 0o600)},
        action: 'chmod 600',
        details: {mode},
      }),
    )
  }
  if (walBytes > WAL_OVERSIZED_BYTES) {
    out.push(finding({id: 'sqlite-wal-oversized', severity: 'warn', agentId, path: wal, message: `The WAL is ${mib(walBytes)} MiB, over OpenClaw's journal_size_limit of ${mib(WAL_OVERSIZED_BYTES)} MiB: checkpoints are not catching up (a long-running reader, or a process that died with the database open), and every read pays for it. ${holders?.length ? `pid ${holders.join(', ')} has the database open; once it is stopped, "clawkit doctor --fix" checkpoints the WAL.` : 'See sqlite-wal-stale.'}`, details: {walBytes, ...(holders ? {holders} : {})}}))
  }
  if (walBytes > 0 && holders && holders.length === 0) {
    // A clean close leaves the WAL empty (§1.1): frames with nobody holding the database were left by a process that
    // died. The committed ones are part of the database, so a normal connection's PASSIVE checkpoint only moves them
    // into the main file; uncommitted frames were never part of it.
    out.push(
      finding({
        id: 'sqlite-wal-stale',
        severity: 'warn',
        agentId,
        path: wal,
        message: `The WAL holds ${walBytes} bytes but no process has the database open: a process died before its checkpoint. The committed transactions in it are safe (every reader applies them), but the file stays large and must not be deleted. ${sqliteSupported() ? '--fix backs the database up, then checkpoints the WAL into it (PASSIVE, through a normal connection, as OpenClaw\'s own connections do).' : `Run "clawkit doctor --fix" on Node ${SQLITE_NODE_REQUIREMENT} or later to checkpoint it, or let OpenClaw's next start do it.`}`,
        ...(sqliteSupported() ? {repair: {kind: 'sqlite', db, agentId, run: checkpointWal}, action: 'back up the database, then checkpoint the WAL (PASSIVE)', details: {walBytes}} : {details: {walBytes}}),
      }),
    )
  }

  if (!sqliteSupported()) {
    out.push(finding({id: 'sqlite-unchecked', severity: 'warn', agentId, path: db, message: `The SQLite session store was not checked: this Node (${process.versions.node}) has no node:sqlite or zstd; doctor needs Node ${SQLITE_NODE_REQUIREMENT} or later for it (OpenClaw 2026.9.6 itself needs Node 24.16). The file checks above still ran.`}))
    return summary
  }
  let conn: SqlDatabase
  try {
    const opened = openAgentDb(db, {agentId})
    conn = opened.db
    summary.schemaVersion = opened.schemaVersion
  } catch (error) {
    openFailure(c, error, truncated)
    return summary
  }
  try {
    checkContents(c, conn, summary, truncated)
  } finally {
    conn.close()
  }
  return summary
}

function canWrite(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.W_OK)
    return true
  } catch {
    return false
  }
}

function mib(n: number): string {
  return (n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)
}

/** Why the database could not be opened, as one finding (the driver's error classes say which). */
function openFailure(c: SqliteCheckContext, error: unknown, truncated: PlannedFinding | undefined): void {
  const {agentId, db, out} = c
  const e = error instanceof ClawkitError ? error : mapSqliteError(db, error)
  const detail = oneLine(e)
  switch (e.code) {
    case 'E_SQLITE_SCHEMA_NEWER': {
      out.push(finding({id: 'sqlite-schema-newer', severity: 'warn', agentId, path: db, message: `${detail} The tables clawkit reads are not as it knows them, so it cannot check or show this store; a newer OpenClaw wrote it. Update clawkit, and use "openclaw" for this agent meanwhile.`}))
      return
    }
    case 'E_SQLITE_SCHEMA_OLDER': {
      out.push(finding({id: 'sqlite-schema-older', severity: 'error', agentId, path: db, message: `${detail} OpenClaw 2026.9.6 also refuses to open it until it is migrated.`}))
      return
    }
    case 'E_SQLITE_NOT_AGENT_DB': {
      out.push(finding({id: 'sqlite-schema-meta', severity: 'error', agentId, path: db, message: `${detail} OpenClaw refuses a database whose schema_meta does not name this agent (a copy from another agent?). Put the right database back; doctor changed nothing.`}))
      return
    }
    case 'E_SQLITE_BUSY': {
      out.push(finding({id: 'sqlite-locked', severity: 'warn', agentId, path: db, message: `The SQLite session store is locked by another process (waited 5 s): its contents were not checked. Run doctor again when the gateway or agent run is idle.`}))
      return
    }
    case 'E_SQLITE_CORRUPT': {
      if (truncated) return
      // SQLite's own words, without the driver's "cannot read ... damaged (...)" wrapper.
      const sqlite = /damaged \((.*)\)\.?$/.exec(detail)?.[1] ?? detail
      if (/not a database/i.test(detail)) out.push(finding({id: 'sqlite-not-a-database', severity: 'error', agentId, path: db, message: `${db} is not a database SQLite can open (SQLite: ${sqlite}). Restore it from a backup; doctor changed nothing.`}))
      else out.push(finding({id: 'sqlite-integrity', severity: 'error', agentId, path: db, message: `The SQLite session store is damaged (SQLite: ${sqlite}): OpenClaw may fail on it or lose what the damaged pages hold. Stop the gateway, keep a copy of the file, and restore it from a backup; doctor changed nothing.`}))
      return
    }
    case 'E_SQLITE_READONLY':
    default:
      out.push(finding({id: 'sqlite-unreadable', severity: 'error', agentId, path: db, message: `${detail} Doctor could not check it; fix the file or its directory (SQLite needs to create ${path.basename(db)}-shm beside it even to read).`}))
  }
}

interface EntryCheck {
  ok: boolean
  why?: string
  entry?: Record<string, unknown>
}

/** Reader invariants 1-3 of §3.1 for one session_nodes row. */
export function checkEntry(row: Record<string, unknown>): EntryCheck & {mismatch?: string} {
  let entry: unknown
  try {
    entry = JSON.parse(String(row.entry_json))
  } catch (error) {
    return {ok: false, why: `its entry_json does not parse (${oneLine(error)})`}
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return {ok: false, why: 'its entry_json is not an object'}
  const e = entry as Record<string, unknown>
  if (typeof e.sessionId !== 'string' || e.sessionId.trim() === '') return {ok: false, why: 'its entry_json has no string sessionId'}
  if (typeof e.updatedAt !== 'number' || !Number.isFinite(e.updatedAt)) return {ok: false, why: 'its entry_json has no finite updatedAt'}
  const mismatches: string[] = []
  if (row.current_session_id !== e.sessionId) mismatches.push(`current_session_id is ${String(row.current_session_id)} but entry_json.sessionId is ${e.sessionId}`)
  if (Number(row.updated_at) !== e.updatedAt) mismatches.push(`updated_at is ${String(row.updated_at)} but entry_json.updatedAt is ${e.updatedAt}`)
  return {ok: true, entry: e, ...(mismatches.length ? {mismatch: mismatches.join('; ')} : {})}
}

/** The key form OpenClaw's canonical validation accepts for this agent (§3.1 invariant 5, the part checkable here). */
export function canonicalKey(key: string, agentId: string): boolean {
  if (key === 'global' || key === 'unknown') return true
  return key === key.trim() && key.startsWith(`agent:${agentId}:`) && key.length > `agent:${agentId}:`.length
}

function tableNames(conn: SqlDatabase): Set<string> {
  return new Set(conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => String(r.name)))
}

function checkContents(c: SqliteCheckContext, conn: SqlDatabase, summary: SqliteAgentSummary, truncated: PlannedFinding | undefined): void {
  const {agentId, db, out} = c
  if (summary.schemaVersion !== undefined && summary.schemaVersion > AGENT_SCHEMA_VERSION) {
    out.push(finding({id: 'sqlite-schema-newer', severity: 'warn', agentId, path: db, message: `${db} uses OpenClaw agent schema version ${summary.schemaVersion}; clawkit knows version ${AGENT_SCHEMA_VERSION}. Its session tables are unchanged, so clawkit reads and checks it, but it writes nothing there (and --fix changes nothing in it). Update clawkit to write to it.`, details: {schemaVersion: summary.schemaVersion, known: AGENT_SCHEMA_VERSION}}))
  }
  const damaged = (error: unknown) => {
    // A lock taken by another process after the open (an exclusive-mode writer): the locked finding, once.
    if (mapSqliteError(db, error).code === 'E_SQLITE_BUSY') {
      if (!out.some((f) => f.id === 'sqlite-locked' && f.path === db)) openFailure(c, error, truncated)
      return
    }
    // A damaged page met by a query after quick_check passed (or was skipped): one integrity finding, no stack.
    if (truncated || out.some((f) => f.id === 'sqlite-integrity' && f.path === db)) return
    out.push(finding({id: 'sqlite-integrity', severity: 'error', agentId, path: db, message: `The SQLite session store is damaged (SQLite: ${oneLine(error)}): OpenClaw may fail on it or lose what the damaged pages hold. Stop the gateway, keep a copy of the file, and restore it from a backup; doctor changed nothing.`}))
  }
  try {
    conn.exec('BEGIN')
  } catch (error) {
    openFailure(c, error, truncated)
    return
  }
  try {
    const problems = conn.prepare(`PRAGMA quick_check(${DETAIL_LIMIT})`).all().map((r) => String(Object.values(r)[0]))
    if (!(problems.length === 1 && problems[0] === 'ok')) {
      if (truncated) truncated.details = {...truncated.details, quickCheck: problems}
      else out.push(finding({id: 'sqlite-integrity', severity: 'error', agentId, path: db, message: `The SQLite session store fails its integrity check (PRAGMA quick_check: ${problems[0]}${problems.length > 1 ? `, and ${problems.length - 1} more` : ''}). OpenClaw may fail on it or lose what the damaged pages hold. Stop the gateway, keep a copy of the file, and restore it from a backup (or try "openclaw doctor"); doctor changed nothing.`, details: {quickCheck: problems}}))
    }
  } catch (error) {
    damaged(error)
    if (mapSqliteError(db, error).code === 'E_SQLITE_BUSY') {
      conn.exec('ROLLBACK')
      return
    }
  }
  const tables = tableNames(conn)
  const run = (what: () => void) => {
    try {
      what()
    } catch (error) {
      damaged(error)
    }
  }
  run(() => checkNodes(c, conn, summary))
  run(() => checkWindows(c, conn, tables))
  run(() => checkEvents(c, conn, summary))
  try {
    conn.exec('COMMIT')
  } catch {}
}

function checkNodes(c: SqliteCheckContext, conn: SqlDatabase, summary: SqliteAgentSummary): void {
  const {agentId, db, out} = c
  let sessions = 0
  const rows = conn.prepare('SELECT n.session_key, n.current_session_id, n.entry_json, n.entry_valid, n.updated_at, w.session_key AS window_key FROM session_nodes n LEFT JOIN session_windows w ON w.session_id = n.current_session_id ORDER BY n.session_key').iterate()
  for (const row of rows) {
    const key = String(row.session_key)
    // A placeholder (transcript rows written before any entry) is skipped by every listing (§3.1).
    if (Number(row.entry_valid) === -1) continue
    sessions++
    const check = checkEntry(row)
    if (!check.ok) {
      out.push(finding({id: 'sqlite-entry-invalid', severity: 'error', agentId, path: db, message: `Session "${key}": ${check.why}. OpenClaw's listing fails on such a row ("invalid persisted session row requires repair"). Stop the gateway and run "openclaw doctor --fix"; clawkit does not rewrite entries.`, key}))
    } else if (check.mismatch) {
      out.push(finding({id: 'sqlite-entry-mismatch', severity: 'error', agentId, path: db, message: `Session "${key}": ${check.mismatch}. OpenClaw silently drops such a row from "sessions" (its count drops too), so the session looks gone. Stop the gateway and run "openclaw doctor --fix"; clawkit does not rewrite entries.`, key}))
    }
    if (row.window_key === null) {
      out.push(finding({id: 'sqlite-window-missing', severity: 'error', agentId, path: db, message: `Session "${key}" points at session ${String(row.current_session_id)}, which has no session_windows row: its transcript cannot be read or continued, and OpenClaw's canonical validation rejects it. Stop the gateway and run "openclaw doctor --fix"; clawkit does not create windows.`, key, details: {sessionId: row.current_session_id}}))
    } else if (row.window_key !== row.session_key) {
      out.push(finding({id: 'sqlite-window-missing', severity: 'error', agentId, path: db, message: `Session "${key}" points at session ${String(row.current_session_id)}, whose window belongs to "${String(row.window_key)}": the two keys would share one transcript. Stop the gateway and run "openclaw doctor --fix".`, key, details: {sessionId: row.current_session_id, windowKey: row.window_key}}))
    }
    if (Number(row.entry_valid) !== 1) {
      const fixable = check.ok && !check.mismatch && row.window_key === row.session_key && canonicalKey(key, agentId)
      const why = !check.ok || check.mismatch ? 'the entry itself is broken (see above)' : row.window_key !== row.session_key ? 'its window is missing (see above)' : !canonicalKey(key, agentId) ? `the key is not canonical for agent "${agentId}"` : ''
      out.push(
        finding({
          id: 'sqlite-entry-unvalidated',
          severity: 'error',
          agentId,
          path: db,
          message: `Session "${key}" has entry_valid ${String(row.entry_valid)}: a write set its entry without validating it, and until it is 1 every "openclaw sessions" fails ("invalid persisted session row requires repair"). ` +
            (fixable
              ? '--fix backs the database up, checks the row again inside one write transaction (entry_json parses, its sessionId and updatedAt match the row, its window exists) and sets entry_valid to 1, as OpenClaw\'s writer does after it validates.'
              : `--fix cannot validate it: ${why}. Stop the gateway and run "openclaw doctor --fix".`),
          ...(fixable ? {key, repair: {kind: 'sqlite', db, agentId, run: (conn2, journal) => validateEntry(conn2, db, key, agentId, journal)}, action: `set entry_valid = 1 for ${key}`} : {key}),
        }),
      )
    }
  }
  summary.sessions = sessions
}

function checkWindows(c: SqliteCheckContext, conn: SqlDatabase, tables: Set<string>): void {
  const {agentId, db, out} = c
  const cold = tables.has('session_transcript_cold_archives') ? 'AND NOT EXISTS (SELECT 1 FROM session_transcript_cold_archives a WHERE a.session_id = w.session_id)' : ''
  const rows = conn
    .prepare(`SELECT w.session_id, w.session_key, n.current_session_id FROM session_windows w LEFT JOIN session_nodes n ON n.session_key = w.session_key WHERE NOT EXISTS (SELECT 1 FROM transcript_events e WHERE e.session_id = w.session_id) ${cold} ORDER BY w.session_key, w.created_at`)
    .all()
  for (const row of rows) {
    const key = String(row.session_key)
    const current = row.current_session_id === row.session_id
    // A session's current window has no events until its first turn (§5.4: the transcript is optional).
    if (current) out.push(finding({id: 'sqlite-window-empty', severity: 'info', agentId, path: db, message: `Session "${key}" (session ${String(row.session_id)}) has no transcript events yet; OpenClaw writes them on its next turn.`, key, details: {sessionId: row.session_id}}))
    else out.push(finding({id: 'sqlite-window-empty', severity: 'warn', agentId, path: db, message: `An earlier window of "${key}" (session ${String(row.session_id)}) has no transcript events: that part of the conversation's history is not in the database (lost, or never written). Nothing to repair without it; "clawkit store verify" compares an imported store with its legacy originals.`, key, details: {sessionId: row.session_id}}))
  }
}

function checkEvents(c: SqliteCheckContext, conn: SqlDatabase, summary: SqliteAgentSummary): void {
  const {agentId, db, out} = c
  summary.events = Number(conn.prepare('SELECT count(*) AS n FROM transcript_events').get()?.n ?? 0)
  const badJson = new Map<string, number[]>()
  const undecodable = new Map<string, {seqs: number[]; why: string}>()
  const add = (m: Map<string, number[]>, sid: string, seq: number) => {
    const l = m.get(sid)
    if (l) l.push(seq)
    else m.set(sid, [seq])
  }
  // Plain events: checked in SQL, so a large store is not parsed row by row in JavaScript. Every reader expects an
  // object (json_type raises on invalid text, hence the CASE).
  for (const row of conn.prepare("SELECT session_id, seq FROM transcript_events WHERE event_json IS NOT NULL AND CASE WHEN json_valid(event_json) THEN json_type(event_json) <> 'object' ELSE 1 END ORDER BY session_id, seq").iterate()) {
    add(badJson, String(row.session_id), Number(row.seq))
  }
  for (const row of conn.prepare('SELECT session_id, seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE event_json IS NULL ORDER BY session_id, seq').iterate()) {
    const sid = String(row.session_id)
    const seq = Number(row.seq)
    const text = eventText(row as never)
    if ('error' in text) {
      const u = undecodable.get(sid)
      if (u) u.seqs.push(seq)
      else undecodable.set(sid, {seqs: [seq], why: text.error})
      continue
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text.text)
    } catch {}
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) add(badJson, sid, seq)
  }
  if (badJson.size === 0 && undecodable.size === 0) return
  const keyOf = conn.prepare('SELECT session_key FROM session_windows WHERE session_id = ?')
  const keyFor = (sid: string) => {
    const r = keyOf.get(sid)
    return r ? String(r.session_key) : undefined
  }
  for (const [sid, seqs] of badJson) {
    const key = keyFor(sid)
    out.push(finding({id: 'sqlite-event-invalid-json', severity: 'error', agentId, path: db, message: `${seqs.length} transcript event(s) of session ${sid}${key ? ` ("${key}")` : ''} are not JSON objects (they do not parse, or parse to something else; first at seq ${seqs[0]}): readers fail or skip them, and that part of the history cannot be shown or sent to the model. clawkit never rewrites events; restore the database from a backup, or ask OpenClaw ("openclaw doctor").`, ...(key ? {key} : {}), details: {sessionId: sid, count: seqs.length, seqs: seqs.slice(0, DETAIL_LIMIT)}}))
  }
  for (const [sid, {seqs, why}] of undecodable) {
    const key = keyFor(sid)
    out.push(finding({id: 'sqlite-event-undecodable', severity: 'error', agentId, path: db, message: `${seqs.length} compressed transcript event(s) of session ${sid}${key ? ` ("${key}")` : ''} cannot be decoded (first at seq ${seqs[0]}: ${why}): their content is unreadable to OpenClaw and clawkit. clawkit never rewrites events; restore the database from a backup.`, ...(key ? {key} : {}), details: {sessionId: sid, count: seqs.length, seqs: seqs.slice(0, DETAIL_LIMIT)}}))
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Repairs (run by sqlite-repairs.ts on a write connection, after the backup)

/** Stale WAL: move the committed frames into the database; closing the last connection then resets the WAL. */
function checkpointWal(conn: SqlDatabase): string {
  const r = conn.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() ?? {}
  const log = Number(r.log)
  const done = Number(r.checkpointed)
  if (Number(r.busy) !== 0 || log !== done) throw new Error(`the checkpoint moved ${done} of ${log} WAL frame(s): another connection is reading; run doctor again when the store is idle`)
  return `checkpointed ${done} WAL frame(s) into the database (PASSIVE)`
}

/**
 * entry_valid 0 on a row whose entry is sound: what OpenClaw's writer does after validating (§3.3), decided again
 * inside the write transaction. The validity update leaves a pending-validation marker, harmless on a valid row and
 * cleared by OpenClaw's next write (exp B, E). With a journal entry, the key's rows (the marker included) are recorded
 * before and after, before the commit, so that `clawkit undo` puts them back.
 */
async function validateEntry(conn: SqlDatabase, db: string, key: string, agentId: string, journal?: JournalEntry): Promise<string> {
  // Not write.ts's immediateWrite(): it rewords SQLite's errors as a store failure, and "changed meanwhile" is not one.
  conn.exec('BEGIN IMMEDIATE')
  try {
    const row = conn.prepare('SELECT n.current_session_id, n.entry_json, n.entry_valid, n.updated_at, w.session_key AS window_key FROM session_nodes n LEFT JOIN session_windows w ON w.session_id = n.current_session_id WHERE n.session_key = ?').get(key)
    if (!row) throw new Error(`session "${key}" is gone; nothing to validate`)
    if (Number(row.entry_valid) === 1) throw new Error(`session "${key}" was validated meanwhile; nothing to do`)
    const check = checkEntry(row)
    if (!check.ok || check.mismatch || row.window_key !== key || !canonicalKey(key, agentId)) throw new Error(`session "${key}" changed meanwhile and no longer validates; left alone`)
    const update = () => {
      const changed = conn.prepare('UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ? AND entry_valid = 0').run(key).changes
      if (Number(changed) !== 1) throw new Error(`session "${key}" changed meanwhile; left alone`)
    }
    if (journal) await journalRowsInTx(conn, journal, {agentId, store: db, label: `doctor --fix: set entry_valid = 1 for ${key}`, scope: {keys: [key], sessionIds: []}}, update)
    else update()
    conn.exec('COMMIT')
  } catch (error) {
    if (conn.isTransaction) conn.exec('ROLLBACK')
    throw error instanceof ClawkitError || !(error as {errcode?: number}).errcode ? error : mapSqliteError(db, error)
  }
  return `set entry_valid = 1 for ${key} (its entry parses and matches the row and its window)`
}

/** A stray -wal whose database is gone (no node:sqlite needed; the agent then looks JSON-era to everything else). */
export function walWithoutDb(db: string): boolean {
  try {
    fs.lstatSync(db)
    return false
  } catch {}
  try {
    // An empty WAL holds no transaction: nothing is lost without its database.
    const st = fs.statSync(`${db}-wal`)
    return st.isFile() && st.size > 0
  } catch {
    return false
  }
}
