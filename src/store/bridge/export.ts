// `clawkit store export`: a complete JSON-era state dir (sessions.json + one JSONL per session, older windows as
// `.reset.` archives) written from SQLite-era stores, which are only read. OpenClaw has no way back from its import
// (store-sqlite.md §1.2); this is it.
import fs from 'node:fs'
import path from 'node:path'

import JSON5 from 'json5'

import {ClawkitError, ExitCode, fileError, UsageError} from '../../errors.js'
import {archiveTimestamp, DIR_MODE, ensurePrivateDir, FILE_MODE, isWithin, realLocation} from '../fs-util.js'
import {randomUUID} from '../random-id.js'
import {SAFE_SESSION_ID_RE} from '../session-id.js'
import {mapSqliteError, openAgentDb, type SqlDatabase} from '../sqlite/driver.js'
import {readColdSessionIds, readNodes, readWindowsByKey, streamEvents, type WindowRow} from '../sqlite/export-read.js'
import type {OpenClawState} from '../state.js'
import {downgradeConfig} from './config-downgrade.js'
import {agentPaths, eraOf, legacyFiles, type StoreEra} from './locate.js'

export interface ExportedTranscript {
  sessionId: string
  /** Path in the export. */
  file: string
  events: number
  bytes: number
}

export interface ExportedSession {
  key: string
  sessionId: string
  /** The current window's transcript; null when the session has no events yet (OpenClaw allows that, §6.8). */
  transcript: ExportedTranscript | null
  /** Earlier sessionIds of the key (older windows), oldest first, as `<sessionId>.jsonl.reset.<ts>` archives. */
  archives: ExportedTranscript[]
}

export interface ExportSkip {
  key?: string
  sessionId?: string
  reason: string
}

export interface ExportedAgent {
  agentId: string
  era: StoreEra
  /** The database read (never written). */
  db: string
  /** sessions.json written in the export. */
  sessionsJson: string
  sessions: ExportedSession[]
  events: number
  bytes: number
  /** Entries whose 2026.9 harness id "openclaw" was written as "pi", the same harness under its 2026.4.27 name. */
  harnessRenamed: number
  /** Rows that could not become JSON-era files (placeholders, unparsable entries, unsafe ids, cold sessions). */
  skipped: ExportSkip[]
  /** JSON-era files beside the database in the source (mixed era): not exported, the database is the truth. */
  legacyLeftovers: string[]
}

/** `clawkit store export --json`. */
export interface StoreExportResult {
  stateDir: string
  out: string
  /** openclaw.json written into the export, or null when the source has none. */
  config: string | null
  /** What was turned back into 2026.4.27's config form (keys 2026.9.6's doctor adds); empty: copied byte for byte. */
  configChanges: string[]
  agents: ExportedAgent[]
  /** Agents with no database (JSON era or empty): nothing to convert. */
  skippedAgents: {agentId: string; era: StoreEra; reason: string}[]
}

/** An event that cannot be written as one JSONL line unchanged; the export is abandoned (nothing is left behind). */
export class ExportEventError extends ClawkitError {
  constructor(agentId: string, sessionId: string, seq: number, why: string) {
    super(`Cannot export agent "${agentId}": event ${seq} of session ${sessionId} ${why}. Nothing was written.`, {
      code: 'E_EXPORT_EVENT',
      exitCode: ExitCode.failure,
      suggestions: ['Run "clawkit doctor" on the source state dir; the database was not changed.'],
    })
  }
}

/**
 * --out must be new or an empty directory, outside the source state dir: where it lands with every link followed (a
 * link to the state dir, or a --state-dir given as a link, is the state dir), not how it is spelled.
 */
function checkOut(out: string, stateDir: string): {exists: boolean} {
  const realOut = realLocation(out)
  const realState = realLocation(stateDir)
  if (isWithin(path.resolve(stateDir), out) || isWithin(realState, realOut)) {
    const via = realOut === out ? '' : ` (it resolves to ${realOut})`
    throw new UsageError(`--out ${out}${via} is inside the state dir ${stateDir}${realState === path.resolve(stateDir) ? '' : `, which resolves to ${realState}`}; export to a directory outside it.`, 'E_EXPORT_OUT_INSIDE')
  }
  let st: fs.Stats
  try {
    st = fs.lstatSync(out)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {exists: false}
    throw fileError(error, out, 'read')
  }
  if (!st.isDirectory()) throw new UsageError(`--out ${out} exists and is not a directory; name a new or empty directory.`, 'E_EXPORT_OUT_EXISTS')
  if (fs.readdirSync(out).length > 0) throw new UsageError(`--out ${out} is not empty; name a new or empty directory (nothing is ever overwritten).`, 'E_EXPORT_OUT_NOT_EMPTY')
  return {exists: true}
}

/** Buffered, synchronous JSONL writer on a 0600 file created exclusively; fsync on close. */
class LineWriter {
  private fd: number
  private chunks: string[] = []
  private pending = 0
  bytes = 0
  lines = 0
  constructor(readonly file: string) {
    this.fd = fs.openSync(file, 'wx', FILE_MODE)
  }

  line(text: string): void {
    this.chunks.push(text, '\n')
    this.pending += text.length + 1
    this.lines++
    if (this.pending >= 1 << 16) this.flush()
  }

  private flush(): void {
    if (this.chunks.length === 0) return
    const buf = Buffer.from(this.chunks.join(''), 'utf8')
    let off = 0
    while (off < buf.length) off += fs.writeSync(this.fd, buf, off)
    this.bytes += buf.length
    this.chunks = []
    this.pending = 0
  }

  close(): void {
    this.flush()
    fs.fsyncSync(this.fd)
    fs.closeSync(this.fd)
  }

  abort(): void {
    try {
      fs.closeSync(this.fd)
    } catch {
      // already closed
    }
  }
}

function writeTranscript(db: SqlDatabase, agentId: string, w: WindowRow, file: string): ExportedTranscript | null {
  let writer: LineWriter | undefined
  try {
    for (const ev of streamEvents(db, w.sessionId)) {
      if (ev.text === undefined) throw new ExportEventError(agentId, w.sessionId, ev.seq, `cannot be decoded (${ev.error})`)
      // A raw line break can only be whitespace between JSON tokens; written unchanged it would split the event in two.
      if (/[\n\r]/.test(ev.text)) throw new ExportEventError(agentId, w.sessionId, ev.seq, 'contains a line break, so it cannot be one JSONL line unchanged')
      writer ??= new LineWriter(file)
      writer.line(ev.text)
    }
    if (!writer) return null
    writer.close()
    return {sessionId: w.sessionId, file, events: writer.lines, bytes: writer.bytes}
  } catch (error) {
    writer?.abort()
    throw error
  }
}

function exportAgent(agentId: string, era: StoreEra, legacy: string[], dbPath: string, outState: string, finalOut: string): ExportedAgent {
  const sessionsDir = path.join(outState, 'agents', agentId, 'sessions')
  fs.mkdirSync(sessionsDir, {recursive: true, mode: DIR_MODE})
  for (const d of [path.join(outState, 'agents'), path.join(outState, 'agents', agentId), sessionsDir]) fs.chmodSync(d, DIR_MODE)
  const result: ExportedAgent = {agentId, era, db: dbPath, sessionsJson: path.join(sessionsDir, 'sessions.json'), sessions: [], events: 0, bytes: 0, harnessRenamed: 0, skipped: [], legacyLeftovers: era === 'mixed' ? legacy : []}
  const {db} = openAgentDb(dbPath, {agentId})
  const store: Record<string, unknown> = {}
  try {
    // One read transaction: a consistent WAL snapshot even while OpenClaw writes (§5.3).
    db.exec('BEGIN')
    const nodes = readNodes(db)
    const windows = readWindowsByKey(db)
    const cold = readColdSessionIds(db)
    for (const node of nodes) {
      const wins = windows.get(node.sessionKey) ?? []
      windows.delete(node.sessionKey)
      if (node.entryValid === -1) {
        result.skipped.push({key: node.sessionKey, reason: 'placeholder row (transcript rows before any entry)'})
        continue
      }
      let entry: Record<string, unknown>
      try {
        entry = JSON.parse(node.entryJson)
        if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new Error('not an object')
      } catch {
        result.skipped.push({key: node.sessionKey, reason: 'entry_json is not a JSON object'})
        continue
      }
      const sessionId = typeof entry.sessionId === 'string' ? entry.sessionId : node.currentSessionId
      // Ids become file names: only OpenClaw's own safe shape (§1.4) is accepted.
      if (!SAFE_SESSION_ID_RE.test(sessionId)) {
        result.skipped.push({key: node.sessionKey, sessionId, reason: 'sessionId is not a safe file name'})
        continue
      }
      const file = path.join(sessionsDir, `${sessionId}.jsonl`)
      const exported: ExportedSession = {key: node.sessionKey, sessionId, transcript: null, archives: []}
      for (const w of wins) {
        if (!SAFE_SESSION_ID_RE.test(w.sessionId)) {
          result.skipped.push({key: node.sessionKey, sessionId: w.sessionId, reason: 'window sessionId is not a safe file name'})
          continue
        }
        if (cold.has(w.sessionId)) {
          result.skipped.push({key: node.sessionKey, sessionId: w.sessionId, reason: 'events are in cold storage (sessions/cold/), not exported'})
          continue
        }
        if (w.sessionId === sessionId) {
          exported.transcript = writeTranscript(db, agentId, w, file)
        } else {
          // An older window: the JSON era kept it as the reset archive of the key's previous transcript. Its
          // updated_at (the window's last event) stands for the moment of the reset, which the database does not keep.
          const archive = path.join(sessionsDir, `${w.sessionId}.jsonl.reset.${archiveTimestamp(new Date(w.updatedAt ?? w.createdAt ?? 0))}`)
          const t = writeTranscript(db, agentId, w, archive)
          if (t) exported.archives.push(t)
        }
      }
      for (const t of [exported.transcript, ...exported.archives]) {
        if (!t) continue
        result.events += t.events
        result.bytes += t.bytes
      }
      // 2026.9 renamed the embedded harness "pi" to "openclaw" (imported rows keep "pi" until their next turn), and
      // 2026.4.27 refuses to run a session whose harness it does not know ("Requested agent harness "openclaw" is not
      // registered"), so the JSON era gets its own name for it. Everything else in the entry is kept as stored.
      const out: Record<string, unknown> = {...entry}
      if (out.agentHarnessId === 'openclaw') {
        out.agentHarnessId = 'pi'
        result.harnessRenamed++
      }
      // Where the file will be once the export is in place (OpenClaw 2026.4.27 writes sessionFile absolute).
      out.sessionFile = path.join(finalOut, 'agents', agentId, 'sessions', `${sessionId}.jsonl`)
      store[node.sessionKey] = out
      result.sessions.push(exported)
    }
    for (const [key, wins] of windows) for (const w of wins) result.skipped.push({key, sessionId: w.sessionId, reason: 'window without a session node'})
    db.exec('COMMIT')
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK')
    throw error instanceof ClawkitError ? error : isFsError(error) ? fileError(error, finalOut, 'write the export to') : mapSqliteError(dbPath, error)
  } finally {
    db.close()
  }
  // OpenClaw's own layout: 2-space indent, no trailing newline (store-format.md §2).
  writeNew(result.sessionsJson, JSON.stringify(store, null, 2))
  return result
}

function isFsError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException)?.syscall === 'string'
}

function writeNew(file: string, data: string | Uint8Array): void {
  const fd = fs.openSync(file, 'wx', FILE_MODE)
  try {
    fs.writeFileSync(fd, data)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r')
    try {
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    // Some file systems refuse fsync on directories; best effort, as OpenClaw does.
  }
}

/**
 * The export is built in a hidden sibling directory and renamed to --out at the end: a crash or an error leaves no
 * half-written state dir that OpenClaw could take for a complete one.
 */
export async function exportStore(state: OpenClawState, agents: string[], outRaw: string): Promise<StoreExportResult> {
  const out = path.resolve(outRaw)
  const {exists} = checkOut(out, state.stateDir)
  const plans = agents.map((agentId) => {
    const p = agentPaths(state, agentId)
    const legacy = legacyFiles(p)
    return {agentId, p, legacy, era: eraOf(p, legacy)}
  })
  // Decided before anything is created: an export of no store at all (a JSON-era state dir) would be a directory
  // holding only openclaw.json, announced as "Exported".
  if (!plans.some((pl) => pl.p.dbExists)) {
    const json = plans.filter((pl) => pl.era === 'json').map((pl) => pl.agentId)
    const none = plans.filter((pl) => pl.era !== 'json').map((pl) => pl.agentId)
    throw new NothingToExportError(state.stateDir, [...(json.length ? [`${json.join(', ')}: JSON era, already in the form an export writes`] : []), ...(none.length ? [`${none.join(', ')}: no session store`] : [])].join('; '))
  }
  const parent = path.dirname(out)
  await ensurePrivateDir(parent)
  const staging = path.join(parent, `.${path.basename(out)}.clawkit-export-${randomUUID()}.tmp`)
  const result: StoreExportResult = {stateDir: state.stateDir, out, config: null, configChanges: [], agents: [], skippedAgents: []}
  try {
    fs.mkdirSync(staging, {mode: DIR_MODE})
    fs.chmodSync(staging, DIR_MODE)
    for (const {agentId, p, legacy, era} of plans) {
      if (!p.dbExists) {
        result.skippedAgents.push({agentId, era, reason: era === 'json' ? 'no SQLite store: its sessions are already in the JSON era' : 'no session store'})
        continue
      }
      const a = exportAgent(agentId, era, legacy, p.db, staging, out)
      // A database without sessions beside a sessions.json is the JSON era still (spec section 1.3: OpenClaw has not
      // imported it yet); an empty export of it would read as "no sessions".
      if (a.sessions.length === 0 && a.skipped.length === 0 && legacy.length > 0) {
        fs.rmSync(path.join(staging, 'agents', agentId), {recursive: true, force: true})
        result.skippedAgents.push({agentId, era: 'json', reason: 'its database has no sessions: its sessions.json (not imported yet) is the store'})
        continue
      }
      result.agents.push(a)
    }
    if (result.agents.length === 0) throw new NothingToExportError(state.stateDir, result.skippedAgents.map((sk) => `${sk.agentId}: ${sk.reason}`).join('; '))
    // The config, so the export is a state dir OpenClaw can run on (providers, agents, default model).
    if (state.configExists && fs.existsSync(state.configPath)) {
      const raw = fs.readFileSync(state.configPath)
      const {config, changes} = downgradeConfig(JSON5.parse(raw.toString('utf8')))
      // Unchanged configs keep their bytes (JSON5 comments included); a downgraded one is rewritten as JSON.
      writeNew(path.join(staging, 'openclaw.json'), changes.length > 0 ? `${JSON.stringify(config, null, 2)}\n` : raw)
      result.config = path.join(out, 'openclaw.json')
      result.configChanges = changes
    }
    fsyncDir(staging)
    if (exists) fs.rmdirSync(out)
    fs.renameSync(staging, out)
    fsyncDir(parent)
  } catch (error) {
    fs.rmSync(staging, {recursive: true, force: true})
    throw isFsError(error) ? fileError(error, out, 'write the export to') : error
  }
  return relocate(result, staging, out)
}

/**
 * No agent asked for has a SQLite store to export (exit 66, nothing to work on): a JSON-era store already is what an
 * export writes. Raised before anything is created.
 */
export class NothingToExportError extends ClawkitError {
  constructor(stateDir: string, why: string) {
    super(`Nothing to export from ${stateDir}: no SQLite store (${why}). Nothing was written.`, {
      code: 'E_NOTHING_TO_EXPORT',
      exitCode: ExitCode.nothingToDo,
      suggestions: ['"clawkit store info" shows each agent\'s era; copy a JSON-era state dir as it is'],
    })
  }
}

/** sessionFile values were written with the final --out path; the result's paths are rewritten the same way. */
function relocate(r: StoreExportResult, staging: string, out: string): StoreExportResult {
  const fix = (p: string) => (p.startsWith(staging) ? out + p.slice(staging.length) : p)
  for (const a of r.agents) {
    a.sessionsJson = fix(a.sessionsJson)
    for (const s of a.sessions) for (const t of [s.transcript, ...s.archives]) if (t) t.file = fix(t.file)
  }
  return r
}
