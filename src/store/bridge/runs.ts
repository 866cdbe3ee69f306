// OpenClaw's import run manifests (`<state>/session-sqlite-migration-runs/*.json`, store-sqlite.md §1.2), read-only.
import fs from 'node:fs'
import path from 'node:path'

import {MIGRATION_RUNS_DIR} from './locate.js'

export interface ManifestMove {
  archivePath: string
  sourcePath: string
  kind: string
  sessionKey?: string
  classification?: string
  reason?: string
  sha256?: string
  size?: number
  disposal?: string
}

export interface ManifestTarget {
  agentId: string
  validationBeforeArchive?: string
  issues: unknown[]
  plannedMoves: number
  completedMoves: ManifestMove[]
}

export interface MigrationRun {
  file: string
  runId: string | null
  openClawVersion: string | null
  /** §1.2: failed when it lacks completedAt, has failedAt or failureReports, or has issues that are not warnings. */
  status: 'completed' | 'failed' | 'unreadable'
  /** Why the run counts as failed (or why it could not be read); empty for a completed run. */
  reasons: string[]
  startedAt: string | null
  completedAt: string | null
  failedAt: string | null
  targets: ManifestTarget[]
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

function isWarning(issue: unknown): boolean {
  const i = issue as {severity?: unknown; level?: unknown} | null
  return typeof i === 'object' && i !== null && (i.severity === 'warning' || i.level === 'warning' || i.severity === 'warn' || i.level === 'warn')
}

function parseMove(m: unknown): ManifestMove | undefined {
  const o = m as Record<string, any> | null
  if (!o || typeof o !== 'object' || typeof o.archivePath !== 'string' || typeof o.kind !== 'string') return undefined
  const a = (o.artifact ?? {}) as Record<string, any>
  return {
    archivePath: o.archivePath,
    sourcePath: typeof o.sourcePath === 'string' ? o.sourcePath : '',
    kind: o.kind,
    ...(typeof o.sessionKey === 'string' ? {sessionKey: o.sessionKey} : {}),
    ...(typeof a.classification === 'string' ? {classification: a.classification} : {}),
    ...(typeof a.reason === 'string' ? {reason: a.reason} : {}),
    ...(typeof a.identity?.sha256 === 'string' ? {sha256: a.identity.sha256} : {}),
    ...(typeof a.identity?.size === 'number' ? {size: a.identity.size} : {}),
    ...(typeof a.disposal?.state === 'string' ? {disposal: a.disposal.state} : {}),
  }
}

export function readMigrationRun(file: string): MigrationRun {
  const base: MigrationRun = {file, runId: null, openClawVersion: null, status: 'unreadable', reasons: [], startedAt: null, completedAt: null, failedAt: null, targets: []}
  let doc: Record<string, any>
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'))
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('not a JSON object')
  } catch (error) {
    return {...base, reasons: [`cannot be read: ${(error as Error).message}`]}
  }
  const targets: ManifestTarget[] = (Array.isArray(doc.targets) ? doc.targets : []).map((t: Record<string, any>) => ({
    agentId: String(t?.agentId ?? ''),
    ...(typeof t?.validationBeforeArchive === 'string' ? {validationBeforeArchive: t.validationBeforeArchive} : {}),
    issues: Array.isArray(t?.issues) ? t.issues : [],
    plannedMoves: Array.isArray(t?.plannedMoves) ? t.plannedMoves.length : 0,
    completedMoves: (Array.isArray(t?.completedMoves) ? t.completedMoves : []).map(parseMove).filter((m: ManifestMove | undefined): m is ManifestMove => m !== undefined),
  }))
  const reasons: string[] = []
  if (!str(doc.completedAt)) reasons.push('no completedAt')
  if (doc.failedAt !== undefined && doc.failedAt !== null) reasons.push(`failedAt ${String(doc.failedAt)}`)
  if (doc.failureReports !== undefined && doc.failureReports !== null) reasons.push('failureReports present')
  const issues = targets.reduce((n, t) => n + t.issues.filter((i) => !isWarning(i)).length, 0)
  if (issues > 0) reasons.push(`${issues} issue(s) that are not warnings`)
  for (const t of targets) if (t.validationBeforeArchive === 'failed') reasons.push(`validation before archive failed for agent "${t.agentId}"`)
  return {
    ...base,
    runId: str(doc.runId),
    openClawVersion: str(doc.openClawVersion),
    status: reasons.length > 0 ? 'failed' : 'completed',
    reasons,
    startedAt: str(doc.startedAt),
    completedAt: str(doc.completedAt),
    failedAt: str(doc.failedAt),
    targets,
  }
}

/** Every run manifest of the state dir, oldest name first (names carry the start time in ms). */
export function readMigrationRuns(stateDir: string): MigrationRun[] {
  const dir = path.join(stateDir, MIGRATION_RUNS_DIR)
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return []
  }
  return names
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((n) => readMigrationRun(path.join(dir, n)))
}
