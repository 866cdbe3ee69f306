// Doctor's checks of what OpenClaw's import from the JSON era left (spec store-sqlite.md §1.2): legacy files beside an
// agent's SQLite store that were never imported, and the run manifests and archives of the import. None needs node:sqlite.
import fs from 'node:fs'
import path from 'node:path'

import {sha256} from '../../../util/hash.js'
import {finding} from '../finding.js'
import {DETAIL_LIMIT, oneLine, type SqliteCheckContext} from './checks.js'
import type {PlannedFinding} from '../types.js'

function sha256File(p: string): string | undefined {
  try {
    return sha256().update(fs.readFileSync(p)).digest('hex')
  } catch {
    return undefined
  }
}

/** Keys a legacy-leftovers message names (details name up to DETAIL_LIMIT; the count is always complete). */
const KEYS_IN_MESSAGE = 3

/** The keys of a legacy index read here (no scan read it); undefined when it does not parse as an index. */
function legacyKeysOf(file: string): string[] | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, ''))
    if (data && typeof data === 'object' && !Array.isArray(data)) return Object.keys(data)
  } catch {}
  return undefined
}

/**
 * A legacy sessions.json or JSONL transcripts beside the database (section 1.3): OpenClaw 2026.9.6 refuses to start
 * while a sessions.json exists that no verified import receipt covers, and their sessions are not in the database.
 * `scannedKeys`: the legacy index's keys when doctor's scan already read it (undefined: it did not parse), so a large
 * index is not read twice.
 */
export function checkLegacyLeftovers(c: SqliteCheckContext, legacyStore: string, scanned?: {keys?: string[]}): void {
  const {agentId, out} = c
  let isFile = false
  try {
    isFile = fs.lstatSync(legacyStore).isFile()
  } catch {}
  const transcripts = c.legacyTranscripts
  const leaveAlone = "Doctor runs no JSON-era check on these files and --fix leaves them untouched, for OpenClaw's import to read as they are."
  if (isFile) {
    // Hashing a large index costs a whole read: only when an import recorded a receipt this file could match.
    const receipts = c.importedIndexHashes()
    if (receipts.size > 0) {
      const hash = sha256File(legacyStore)
      if (hash && receipts.has(hash)) return
    }
    const keys = scanned ? scanned.keys : legacyKeysOf(legacyStore)
    const entries = keys?.length
    const named = keys && keys.length > 0 ? ` (${keys.slice(0, KEYS_IN_MESSAGE).map((k) => `"${k}"`).join(', ')}${keys.length > KEYS_IN_MESSAGE ? ', \u2026' : ''})` : ''
    out.push(
      finding({
        id: 'sqlite-legacy-not-imported',
        severity: 'error',
        agentId,
        path: legacyStore,
        message: `A legacy sessions.json${entries === undefined ? ' (not readable as an index)' : ` (${entries} entr${entries === 1 ? 'y' : 'ies'})`}${transcripts.length ? ` and ${transcripts.length} transcript(s)` : ''} lie beside this agent's SQLite store and were never imported: their sessions${named} are not in the database, and OpenClaw 2026.9.6 stops with "Legacy session store requires migration". ${leaveAlone} Stop the gateway, back up the state dir, and run "openclaw doctor --fix" to import them; "clawkit store info" lists the leftovers and "clawkit store verify" checks the import afterwards.`,
        details: {...(entries === undefined ? {} : {entries, keys: keys!.slice(0, DETAIL_LIMIT)}), transcripts: transcripts.length, files: transcripts.slice(0, DETAIL_LIMIT).map((t) => t.name)},
      }),
    )
    return
  }
  if (transcripts.length > 0) {
    out.push(
      finding({
        id: 'sqlite-legacy-not-imported',
        severity: 'warn',
        agentId,
        path: path.dirname(transcripts[0].path),
        message: `${transcripts.length} legacy transcript(s) (e.g. ${transcripts[0].name}) lie beside this agent's SQLite store with no sessions.json: no session points at them and they are not in the database. ${leaveAlone} "openclaw doctor --fix" imports or archives them (stop the gateway first); "clawkit store info" lists them.`,
        details: {transcripts: transcripts.length, files: transcripts.slice(0, DETAIL_LIMIT).map((t) => t.name)},
      }),
    )
  }
}

export const MIGRATION_RUNS_DIR = 'session-sqlite-migration-runs'
const ARCHIVE_DIR = 'session-sqlite-import-archive'

interface Move {
  archivePath?: unknown
  sourcePath?: unknown
  kind?: unknown
  sessionKey?: unknown
  artifact?: {identity?: {size?: unknown; sha256?: unknown}; classification?: unknown; reason?: unknown; disposal?: {state?: unknown}}
}
interface Target {
  agentId?: unknown
  validationBeforeArchive?: unknown
  issues?: unknown
  plannedMoves?: unknown
  completedMoves?: unknown
}
export interface MigrationRun {
  file: string
  runId: string
  manifest?: {completedAt?: unknown; failedAt?: unknown; failureReports?: unknown; startedAt?: unknown; targets?: unknown}
  error?: string
}

/** Every import manifest under <state>/session-sqlite-migration-runs (none: an empty list). */
export function readMigrationRuns(stateDir: string): MigrationRun[] {
  const dir = path.join(stateDir, MIGRATION_RUNS_DIR)
  let names: string[]
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json')).sort()
  } catch {
    return []
  }
  return names.map((name) => {
    const file = path.join(dir, name)
    try {
      const m = JSON.parse(fs.readFileSync(file, 'utf8'))
      if (!m || typeof m !== 'object' || Array.isArray(m) || !Array.isArray(m.targets)) return {file, runId: name.replace(/\.json$/, ''), error: 'it is not an import manifest (no targets list)'}
      return {file, runId: typeof m.runId === 'string' ? m.runId : name.replace(/\.json$/, ''), manifest: m}
    } catch (error) {
      return {file, runId: name.replace(/\.json$/, ''), error: oneLine(error)}
    }
  })
}

function targetsOf(run: MigrationRun): Target[] {
  return ((run.manifest?.targets as unknown[]) ?? []).filter((t): t is Target => !!t && typeof t === 'object')
}
function moves(list: unknown): Move[] {
  return Array.isArray(list) ? list.filter((m): m is Move => !!m && typeof m === 'object') : []
}

/** sha256 of every legacy index an import verified (OpenClaw's receipt: such a sessions.json is not "unimported"). */
export function importedIndexHashes(runs: MigrationRun[], agentId: string): Set<string> {
  const out = new Set<string>()
  for (const run of runs) {
    if (runFailure(run)) continue
    for (const t of targetsOf(run)) {
      if (t.agentId !== agentId) continue
      for (const m of moves(t.completedMoves)) {
        const cls = m.artifact?.classification
        if (m.kind === 'legacy-store' && (cls === 'imported' || cls === 'repair-original') && typeof m.artifact?.identity?.sha256 === 'string') out.add(m.artifact.identity.sha256)
      }
    }
  }
  return out
}

/** Why a run counts as failed (§1.2), or undefined for a completed one. */
function runFailure(run: MigrationRun): string | undefined {
  const m = run.manifest
  if (!m) return undefined
  const why: string[] = []
  if (!m.completedAt) why.push('it never completed')
  if (m.failedAt) why.push(`it failed at ${String(m.failedAt)}`)
  if (m.failureReports) why.push('it has failure reports')
  for (const t of targetsOf(run)) {
    if (t.validationBeforeArchive === 'failed') why.push(`the validation of agent "${String(t.agentId)}" failed before archiving`)
    const issues = Array.isArray(t.issues) ? t.issues : []
    const serious = issues.filter((i) => !(i && typeof i === 'object' && /^warn/i.test(String((i as {severity?: unknown; level?: unknown}).severity ?? (i as {level?: unknown}).level ?? ''))))
    if (serious.length) why.push(`agent "${String(t.agentId)}" has ${serious.length} issue(s)`)
  }
  return why.length ? why.join(', ') : undefined
}

/** Where an archived move lives in this state dir (manifests record the paths of the machine that ran the import). */
function localArchivePath(stateDir: string, agentId: string, archivePath: string): string {
  const name = path.basename(archivePath)
  return path.join(stateDir, 'agents', agentId, ARCHIVE_DIR, name)
}

/**
 * The import runs' records for the given agents: failed runs, moves OpenClaw classified `protected` (not, or not fully,
 * imported: the archived original is the only full copy), and archived originals that are gone or changed.
 */
export function checkMigrationRuns(stateDir: string, agentIds: string[], runs: MigrationRun[], out: PlannedFinding[]): void {
  const wanted = new Set(agentIds)
  for (const run of runs) {
    if (run.error) {
      out.push(finding({id: 'sqlite-migration-manifest-invalid', severity: 'warn', agentId: null, path: run.file, message: `The import manifest ${path.basename(run.file)} cannot be read (${run.error}): doctor cannot tell whether that import of legacy sessions succeeded. Keep the file; "openclaw doctor --session-sqlite inspect" reports the import state.`}))
      continue
    }
    const failure = runFailure(run)
    for (const t of targetsOf(run)) {
      const agentId = typeof t.agentId === 'string' ? t.agentId : undefined
      if (!agentId || !wanted.has(agentId)) continue
      const planned = moves(t.plannedMoves)
      const completed = moves(t.completedMoves)
      const done = new Set(completed.map((m) => String(m.archivePath)))
      const pending = planned.filter((m) => !done.has(String(m.archivePath)))
      if (failure || pending.length > 0) {
        out.push(
          finding({
            id: 'sqlite-migration-failed',
            severity: 'error',
            agentId,
            path: run.file,
            message: `The import of agent "${agentId}"'s legacy sessions (run ${run.runId}, started ${String(run.manifest?.startedAt ?? '?')}) did not finish cleanly: ${[failure, pending.length ? `${pending.length} planned move(s) never completed` : ''].filter(Boolean).join(', ')}. Some legacy sessions may be neither in the database nor where they were. Stop the gateway and run "openclaw doctor --session-sqlite recover" (it restores the run), then "clawkit store verify" to compare the database with the originals.`,
            details: {runId: run.runId, ...(failure ? {failure} : {}), pendingMoves: pending.slice(0, DETAIL_LIMIT).map((m) => m.sourcePath)},
          }),
        )
      }
      const protectedHistory: Move[] = []
      const protectedSide: Move[] = []
      for (const m of completed) {
        const cls = m.artifact?.classification
        const kind = String(m.kind)
        if (cls === 'protected') (kind === 'trajectory' ? protectedSide : protectedHistory).push(m)
        if (typeof m.archivePath !== 'string') continue
        if (m.artifact?.disposal?.state === 'disposed') continue
        const local = localArchivePath(stateDir, agentId, m.archivePath)
        let size: number | undefined
        try {
          size = fs.statSync(local).size
        } catch {}
        const expected = Number(m.artifact?.identity?.size)
        if (size === undefined || (Number.isFinite(expected) && size !== expected)) {
          const only = cls === 'protected'
          out.push(
            finding({
              id: 'sqlite-import-archive-missing',
              severity: only ? 'error' : 'warn',
              agentId,
              path: local,
              message: `The archived original ${path.basename(local)} (${kind}${typeof m.sessionKey === 'string' ? ` of "${m.sessionKey}"` : ''}) that run ${run.runId} recorded is ${size === undefined ? 'gone' : `changed (${size} bytes, recorded ${expected})`}. ${only ? 'OpenClaw classified it protected (not fully imported), so it held history the database lacks: restore it from a backup.' : 'It was only a recovery copy (the database holds what it had), but OpenClaw\'s recover and restore need it as recorded.'}`,
              details: {runId: run.runId, classification: cls, recorded: m.archivePath},
            }),
          )
        }
      }
      if (protectedHistory.length > 0) {
        out.push(finding({id: 'sqlite-import-protected', severity: 'warn', agentId, path: path.join(stateDir, 'agents', agentId, ARCHIVE_DIR), message: `${protectedHistory.length} legacy file(s) that run ${run.runId} archived are classified "protected": not (fully) imported, so the archived originals hold history the database may lack (e.g. ${path.basename(String(protectedHistory[0].archivePath))}). Keep them; "clawkit store verify" compares them with the database.`, details: {runId: run.runId, files: protectedHistory.slice(0, DETAIL_LIMIT).map((m) => ({archivePath: m.archivePath, kind: m.kind, reason: m.artifact?.reason}))}}))
      }
      if (protectedSide.length > 0) {
        out.push(finding({id: 'sqlite-import-protected', severity: 'info', agentId, path: path.join(stateDir, 'agents', agentId, ARCHIVE_DIR), message: `${protectedSide.length} trajectory side file(s) that run ${run.runId} archived are classified "protected" (OpenClaw never imports trajectories): the archive is their only copy. Nothing to do; keep the archive.`, details: {runId: run.runId, files: protectedSide.slice(0, DETAIL_LIMIT).map((m) => m.archivePath)}}))
      }
    }
  }
}
