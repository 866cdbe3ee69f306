// `clawkit store verify`: after OpenClaw's `doctor --fix` import, compares every legacy transcript it archived with
// the events in the database, and the archived sessions.json with the session nodes. Read-only on both sides.
//
// Fair comparison: OpenClaw 2026.9.6 stores each JSONL line as one event, byte for byte (checked on the imported
// fixture: 24 of 24 lines equal, compressed ones included), seq = line index. Events are still compared as canonical
// JSON (keys sorted, no whitespace), so a future import that re-serializes without changing content is not a
// difference. They are paired by their `id` (every pi-tree entry and the header have one), else by position, and a
// paired event must also be where its line was (seq = the line's index among the archive's events): an event found
// under another seq is out of order, as the reader would replay it in another order.
// Events appended by later turns (after the import time in the archive's `.imported-<ms>` name, past the archive's
// end) are counted as `appendedAfterImport`, not as extra.
import fs from 'node:fs'
import path from 'node:path'

import {normalizeAgentId} from '../../config/agent-id.js'
import {ClawkitError, ExitCode} from '../../errors.js'
import {sha256} from '../../util/hash.js'
import {mapSqliteError, openAgentDb, type SqlDatabase} from '../sqlite/driver.js'
import {readNodes, streamEvents} from '../sqlite/export-read.js'
import type {OpenClawState} from '../state.js'
import {agentPaths, IMPORT_ARCHIVE_DIR} from './locate.js'
import {type ManifestMove, readMigrationRuns} from './runs.js'

/** Lists of events in a report are cut to this many; their counts are exact. */
export const MAX_LISTED = 100

export interface EventRef {
  /** 1-based line of the archived JSONL file. */
  line?: number
  /** seq of the event in the database. */
  seq?: number
  id?: string
}

export interface EventDiffs {
  count: number
  /** The first MAX_LISTED, in order. */
  items: EventRef[]
}

export interface VerifiedTranscript {
  agentId: string
  sessionKey: string | null
  sessionId: string | null
  archive: string
  runId: string | null
  classification: string | null
  /** ok; differs (events or archive differ); unverifiable (archive or database missing); disposed (OpenClaw removed the original on purpose). */
  status: 'ok' | 'differs' | 'unverifiable' | 'disposed'
  archiveEvents: number
  dbEvents: number
  /** Database events paired with an archived line (equal or not). */
  pairedEvents: number
  appendedAfterImport: number
  /** sha256 of the canonical JSON of the archived events, one per line; and of the database's first archiveEvents events. */
  archiveHash: string | null
  dbHash: string | null
  /** The archive file's sha256 now and as the manifest recorded it at import (null when unknown). */
  archiveSha256: {recorded: string | null; actual: string | null}
  missing: EventDiffs
  extra: EventDiffs
  different: EventDiffs
  /** Archived events whose database twin is at another seq than the line's index (`line` the archive's, `seq` the database's). */
  outOfOrder: EventDiffs
  problems: string[]
  differences: number
}

export interface VerifiedStore {
  agentId: string
  archive: string
  runId: string | null
  status: 'ok' | 'differs' | 'unverifiable' | 'disposed'
  keys: number
  /** Keys of the legacy sessions.json with no session node. */
  missingKeys: string[]
  /** Keys whose legacy sessionId is neither the node's current one nor one of its windows. */
  sessionIdMismatches: {key: string; legacy: string; db: string}[]
  problems: string[]
  differences: number
}

/** `clawkit store verify --json`. */
export interface StoreVerifyResult {
  stateDir: string
  ok: boolean
  /** Sum of every transcript's and store's differences; non-zero exits 5. */
  differences: number
  runs: {file: string; runId: string | null; status: string; reasons: string[]}[]
  transcripts: VerifiedTranscript[]
  stores: VerifiedStore[]
}

export class NothingToVerifyError extends ClawkitError {
  constructor(stateDir: string) {
    super(`Nothing to verify in ${stateDir}: no import archive (agents/*/${IMPORT_ARCHIVE_DIR}/) and no migration run manifest. "store verify" checks a state dir OpenClaw imported with "openclaw doctor --fix".`, {
      code: 'E_NOTHING_TO_VERIFY',
      // Not a failure (1): a cron check can tell "no import here yet" from "the import lost data" (5).
      exitCode: ExitCode.nothingToDo,
    })
  }
}


function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/** Canonical form of one event's text and its id; text that is not JSON is compared as it is. */
function canonicalEvent(text: string): {canon: string; id?: string} {
  try {
    const v = JSON.parse(text)
    const id = v && typeof v === 'object' && typeof v.id === 'string' ? (v.id as string) : undefined
    return {canon: canonical(v), ...(id === undefined ? {} : {id})}
  } catch {
    return {canon: `raw:${text}`}
  }
}

function digest(s: string): string {
  return sha256().update(s).digest('base64')
}

/** Non-blank lines of a file with their 1-based numbers, read in 64 KiB chunks (never the whole file). */
function* fileLines(file: string): Generator<{line: number; text: string}> {
  const fd = fs.openSync(file, 'r')
  try {
    const buf = Buffer.alloc(1 << 16)
    let rest = Buffer.alloc(0)
    let line = 0
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null)
      const chunk = n > 0 ? Buffer.concat([rest, buf.subarray(0, n)]) : rest
      let start = 0
      for (let i = 0; i < chunk.length; i++) {
        if (chunk[i] !== 0x0a) continue
        line++
        const text = chunk.subarray(start, i).toString('utf8').replace(/\r$/, '')
        start = i + 1
        if (text.trim()) yield {line, text}
      }
      rest = Buffer.from(chunk.subarray(start))
      if (n === 0) {
        if (rest.length > 0) {
          line++
          const text = rest.toString('utf8').replace(/\r$/, '')
          if (text.trim()) yield {line, text}
        }
        return
      }
    }
  } finally {
    fs.closeSync(fd)
  }
}

function fileSha256(file: string): string | null {
  try {
    const h = sha256()
    const fd = fs.openSync(file, 'r')
    try {
      const buf = Buffer.alloc(1 << 16)
      let n: number
      while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) h.update(buf.subarray(0, n))
    } finally {
      fs.closeSync(fd)
    }
    return h.digest('hex')
  } catch {
    return null
  }
}

function push(d: EventDiffs, ref: EventRef): void {
  d.count++
  if (d.items.length < MAX_LISTED) d.items.push(ref)
}

/** The import time recorded in an archive name (`….imported-<ms>[.<n>]`), or undefined. */
function importedAt(archive: string): number | undefined {
  const m = /\.imported-(\d{10,})(\.\d+)?$/.exec(archive)
  return m ? Number(m[1]) : undefined
}

interface Candidate {
  agentId: string
  archive: string
  runId: string | null
  move?: ManifestMove
  fallbackTime?: number
}

function verifyTranscript(db: SqlDatabase | undefined, c: Candidate): VerifiedTranscript {
  const r: VerifiedTranscript = {
    agentId: c.agentId,
    sessionKey: c.move?.sessionKey ?? null,
    sessionId: null,
    archive: c.archive,
    runId: c.runId,
    classification: c.move?.classification ?? null,
    status: 'ok',
    archiveEvents: 0,
    dbEvents: 0,
    pairedEvents: 0,
    appendedAfterImport: 0,
    archiveHash: null,
    dbHash: null,
    archiveSha256: {recorded: c.move?.sha256 ?? null, actual: null},
    missing: {count: 0, items: []},
    extra: {count: 0, items: []},
    different: {count: 0, items: []},
    outOfOrder: {count: 0, items: []},
    problems: [],
    differences: 0,
  }
  if (c.move?.disposal === 'disposed') {
    r.status = 'disposed'
    return r
  }
  if (!fs.existsSync(c.archive)) {
    r.problems.push('the archived original is missing, so this import cannot be verified')
    return finish(r, 'unverifiable')
  }
  r.archiveSha256.actual = fileSha256(c.archive)
  if (r.archiveSha256.recorded && r.archiveSha256.actual !== r.archiveSha256.recorded) r.problems.push('the archived original changed after the import (its sha256 differs from the run manifest)')
  // Archive side: canonical hash per event, in file order.
  const archived: {line: number; id?: string; hash: string}[] = []
  const archiveHash = sha256()
  for (const {line, text} of fileLines(c.archive)) {
    const {canon, id} = canonicalEvent(text)
    archiveHash.update(canon).update('\n')
    archived.push({line, hash: digest(canon), ...(id === undefined ? {} : {id})})
    if (archived.length === 1 && id !== undefined && /"type":"session"/.test(canon)) r.sessionId = id
  }
  r.archiveEvents = archived.length
  r.archiveHash = archiveHash.digest('hex')
  r.sessionId ??= /([^/]+)\.jsonl$/.exec(c.move?.sourcePath ?? '')?.[1] ?? null
  if (!db) {
    r.problems.push('the agent has no SQLite database')
    return finish(r, 'unverifiable')
  }
  if (!r.sessionId) {
    r.problems.push('the archived transcript has no session header and the manifest names no session file')
    return finish(r, 'unverifiable')
  }
  // Database side, streamed in seq order.
  const rows: {seq: number; id?: string; hash: string; createdAt: number | null; paired: boolean}[] = []
  const byId = new Map<string, number>()
  const bySeq = new Map<number, number>()
  const dbHash = sha256()
  for (const ev of streamEvents(db, r.sessionId)) {
    const {canon, id} = ev.text === undefined ? {canon: `undecodable:${ev.error}`, id: undefined} : canonicalEvent(ev.text)
    if (rows.length < archived.length) dbHash.update(canon).update('\n')
    const i = rows.push({seq: ev.seq, hash: digest(canon), createdAt: ev.createdAt, paired: false, ...(id === undefined ? {} : {id})}) - 1
    if (id !== undefined && !byId.has(id)) byId.set(id, i)
    bySeq.set(ev.seq, i)
  }
  r.dbEvents = rows.length
  r.dbHash = dbHash.digest('hex')
  archived.forEach((a, k) => {
    const i = a.id === undefined ? bySeq.get(k) : byId.get(a.id)
    const row = i === undefined ? undefined : rows[i]
    if (!row || row.paired) return push(r.missing, {line: a.line, ...(a.id === undefined ? {} : {id: a.id})})
    row.paired = true
    r.pairedEvents++
    if (row.hash !== a.hash) push(r.different, {line: a.line, seq: row.seq, ...(a.id === undefined ? {} : {id: a.id})})
    if (row.seq !== k) push(r.outOfOrder, {line: a.line, seq: row.seq, ...(a.id === undefined ? {} : {id: a.id})})
  })
  const at = importedAt(c.archive) ?? c.fallbackTime
  for (const row of rows) {
    if (row.paired) continue
    const later = row.seq >= archived.length && (at === undefined || row.createdAt === null || row.createdAt > at)
    if (later) r.appendedAfterImport++
    else push(r.extra, {seq: row.seq, ...(row.id === undefined ? {} : {id: row.id})})
  }
  return finish(r, 'differs')
}

function finish<T extends {problems: string[]; differences: number; status: string; missing?: EventDiffs; extra?: EventDiffs; different?: EventDiffs; outOfOrder?: EventDiffs}>(r: T, bad: T['status']): T {
  r.differences = (r.missing?.count ?? 0) + (r.extra?.count ?? 0) + (r.different?.count ?? 0) + (r.outOfOrder?.count ?? 0) + r.problems.length
  if (r.differences > 0) r.status = bad
  return r
}

function verifyStore(db: SqlDatabase | undefined, c: Candidate): VerifiedStore {
  const r: VerifiedStore = {agentId: c.agentId, archive: c.archive, runId: c.runId, status: 'ok', keys: 0, missingKeys: [], sessionIdMismatches: [], problems: [], differences: 0}
  if (c.move?.disposal === 'disposed') return {...r, status: 'disposed'}
  let legacy: Record<string, {sessionId?: unknown}>
  try {
    legacy = JSON.parse(fs.readFileSync(c.archive, 'utf8'))
    if (!legacy || typeof legacy !== 'object' || Array.isArray(legacy)) throw new Error('not a JSON object')
  } catch (error) {
    r.problems.push(fs.existsSync(c.archive) ? `the archived sessions.json cannot be read (${(error as Error).message})` : 'the archived sessions.json is missing')
    return finish(r, 'unverifiable')
  }
  if (!db) {
    r.problems.push('the agent has no SQLite database')
    return finish(r, 'unverifiable')
  }
  const nodes = new Map(readNodes(db).map((n) => [n.sessionKey, n]))
  const windows = db.prepare('SELECT session_id FROM session_windows WHERE session_key = ?')
  for (const [key, entry] of Object.entries(legacy)) {
    r.keys++
    const node = nodes.get(key)
    if (!node) {
      r.missingKeys.push(key)
      continue
    }
    const sid = typeof entry?.sessionId === 'string' ? entry.sessionId : ''
    if (sid === node.currentSessionId) continue
    if (windows.all(key).some((w) => w.session_id === sid)) continue
    r.sessionIdMismatches.push({key, legacy: sid, db: node.currentSessionId})
  }
  r.differences = r.missingKeys.length + r.sessionIdMismatches.length + r.problems.length
  if (r.differences > 0) r.status = 'differs'
  return r
}

const SAFE_AGENT = /^[a-z0-9][a-z0-9_-]{0,63}$/

export function verifyImport(state: OpenClawState): StoreVerifyResult {
  const runs = readMigrationRuns(state.stateDir)
  const candidates: Candidate[] = []
  const seen = new Set<string>()
  for (const run of runs) {
    const fallbackTime = Date.parse(run.completedAt ?? run.startedAt ?? '') || undefined
    for (const t of run.targets) {
      // Manifest values become paths: the agent id must be one OpenClaw could have written, and only the archive's
      // base name is used, inside that agent's own archive dir (the state dir may have moved since).
      if (!SAFE_AGENT.test(t.agentId) || normalizeAgentId(t.agentId) !== t.agentId) continue
      for (const m of t.completedMoves) {
        if (m.kind !== 'transcript' && m.kind !== 'legacy-store') continue
        const archive = path.join(state.stateDir, 'agents', t.agentId, IMPORT_ARCHIVE_DIR, path.basename(m.archivePath))
        if (seen.has(archive)) continue
        seen.add(archive)
        candidates.push({agentId: t.agentId, archive, runId: run.runId, move: m, fallbackTime})
      }
    }
  }
  // Archived originals no manifest names (a pruned or lost manifest) are verified too.
  const agents = new Set([...state.allAgentIds(), ...candidates.map((c) => c.agentId)])
  for (const agentId of agents) {
    const dir = agentPaths(state, agentId).importArchiveDir
    let names: string[] = []
    try {
      names = fs.readdirSync(dir).sort()
    } catch {
      continue
    }
    for (const name of names) {
      const archive = path.join(dir, name)
      if (seen.has(archive)) continue
      const transcript = /\.jsonl\.imported-\d+(\.\d+)?$/.test(name) && !/\.trajectory\.jsonl\./.test(name)
      const store = /^legacy-store\..*\.imported-\d+(\.\d+)?$/.test(name) && /\.json\.imported-/.test(name)
      if (!transcript && !store) continue
      seen.add(archive)
      candidates.push({agentId, archive, runId: null, move: store ? {archivePath: archive, sourcePath: '', kind: 'legacy-store'} : undefined})
    }
  }
  if (candidates.length === 0 && runs.length === 0) throw new NothingToVerifyError(state.stateDir)
  const result: StoreVerifyResult = {
    stateDir: state.stateDir,
    ok: true,
    differences: 0,
    runs: runs.map((r) => ({file: r.file, runId: r.runId, status: r.status, reasons: r.reasons})),
    transcripts: [],
    stores: [],
  }
  const byAgent = new Map<string, Candidate[]>()
  for (const c of candidates) byAgent.set(c.agentId, [...(byAgent.get(c.agentId) ?? []), c])
  for (const [agentId, list] of byAgent) {
    const p = agentPaths(state, agentId)
    const opened = p.dbExists ? openAgentDb(p.db) : undefined
    const db = opened?.db
    try {
      db?.exec('BEGIN')
      for (const c of list) {
        if (c.move?.kind === 'legacy-store') result.stores.push(verifyStore(db, c))
        else result.transcripts.push(verifyTranscript(db, c))
      }
      db?.exec('COMMIT')
    } catch (error) {
      throw mapSqliteError(p.db, error)
    } finally {
      db?.close()
    }
  }
  result.differences = [...result.transcripts, ...result.stores].reduce((n, x) => n + x.differences, 0)
  result.ok = result.differences === 0
  return result
}
