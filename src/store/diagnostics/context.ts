// What every per-store check shares: the run's options, the store being checked, and small facts about files.
import fs from 'node:fs'

import type {OpenClawState} from '../state.js'
import type {SessionEntry} from '../types.js'
import {finiteNumber} from '../../util/values.js'
import type {StoreScan} from './file/scan.js'
import type {MigrationRun} from './sqlite/import-checks.js'
import type {PlannedFinding, SqliteAgentSummary} from './types.js'

export interface CheckOptions {
  /** Status mode: no transcript contents are read, and no SQLite database is opened. */
  cheap?: boolean
  deep?: boolean
  now: number
  /** Filled with each SQLite-era agent's figures (for doctor's `agents[]`). */
  sqliteStats?: Map<string, SqliteAgentSummary>
  /** The import manifests of the state dir (read once per run, on the first call). */
  migrationRuns?: () => MigrationRun[]
}

export interface StoreContext {
  state: OpenClawState
  scan: StoreScan
  opts: CheckOptions
  out: PlannedFinding[]
  uid?: number
  ownerUid?: number
}

export function modeOf(st: fs.Stats | {mode: number}): string {
  return (st.mode & 0o777).toString(8).padStart(3, '0')
}

export function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined
}

export function writable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** No turn has run on this entry yet: a fresh reset (zero counters) or counters cleared by /new. */
export function hasNoTurns(e: SessionEntry): boolean {
  const total = finiteNumber(e.totalTokens)
  if (total === 0 && e.totalTokensFresh !== false) return true
  return total === undefined && !(finiteNumber(e.inputTokens)! > 0) && !(finiteNumber(e.outputTokens)! > 0) && !(finiteNumber(e.estimatedCostUsd)! > 0)
}

/**
 * Every agent of the scan keeps its sessions in SQLite: the scanned sessions.json and transcripts are legacy import
 * input OpenClaw no longer reads (store-sqlite.md section 1.3), not a live store. A store shared with a JSON-era agent
 * stays live for that agent.
 */
export function legacyOnly(state: OpenClawState, scan: Pick<StoreScan, 'agentIds'>): boolean {
  return scan.agentIds.every((id) => state.sqliteStore(id) !== undefined)
}
