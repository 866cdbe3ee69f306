// Where each agent's stores and OpenClaw's import leftovers are, and which era the agent is in (store-sqlite.md §1).
import fs from 'node:fs'
import path from 'node:path'

import {sqliteStorePath} from '../era.js'
import type {OpenClawState} from '../state.js'

/** OpenClaw's originals of an imported store, moved there by `doctor --fix` (§1.2). */
export const IMPORT_ARCHIVE_DIR = 'session-sqlite-import-archive'
/** Import run manifests, one JSON file per run, under the state dir (§1.2). */
export const MIGRATION_RUNS_DIR = 'session-sqlite-migration-runs'

/** json: sessions.json only. sqlite: a database and no legacy file. mixed: both (the database is the truth). */
export type StoreEra = 'json' | 'sqlite' | 'mixed' | 'none'

export interface AgentPaths {
  agentId: string
  db: string
  dbExists: boolean
  sessionsJson: string
  sessionsJsonExists: boolean
  sessionsDir: string
  importArchiveDir: string
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p)
    return true
  } catch {
    return false
  }
}

export function agentPaths(state: OpenClawState, agentId: string): AgentPaths {
  const ref = state.storeRef(agentId)
  const db = sqliteStorePath(state.stateDir, agentId)
  return {
    agentId,
    db,
    dbExists: exists(db),
    sessionsJson: ref.path,
    sessionsJsonExists: exists(ref.path),
    sessionsDir: path.dirname(ref.path),
    importArchiveDir: path.join(state.stateDir, 'agents', agentId, IMPORT_ARCHIVE_DIR),
  }
}

/**
 * Legacy JSON-era files in the sessions dir: sessions.json and live transcripts (`*.jsonl`, not the `.reset.` /
 * `.deleted.` archives nor trajectory side files). Only names are listed; no file is opened.
 */
export function legacyFiles(p: AgentPaths): string[] {
  let names: string[]
  try {
    names = fs.readdirSync(p.sessionsDir)
  } catch {
    return []
  }
  // The index first (it is what OpenClaw's import starts from), then the transcripts by name.
  const out: string[] = p.sessionsJsonExists ? [p.sessionsJson] : []
  for (const name of names.sort()) {
    const file = path.join(p.sessionsDir, name)
    if (name.endsWith('.jsonl') && !name.endsWith('.trajectory.jsonl') && file !== p.sessionsJson) out.push(file)
  }
  return out
}

/** The era as §1.3 defines it; `hasRows` says whether the database holds any session (unknown: treat as yes). */
export function eraOf(p: AgentPaths, legacy: string[], hasRows = true): StoreEra {
  if (p.dbExists && hasRows) return legacy.length > 0 ? 'mixed' : 'sqlite'
  if (legacy.length > 0) return 'json'
  return p.dbExists ? 'sqlite' : 'none'
}

/** Files of the import archive dir, sorted; empty when there is none. */
export function importArchiveFiles(p: AgentPaths): string[] {
  try {
    return fs
      .readdirSync(p.importArchiveDir)
      .sort()
      .map((n) => path.join(p.importArchiveDir, n))
  } catch {
    return []
  }
}

export function fileSize(p: string): number | null {
  try {
    return fs.statSync(p).size
  } catch {
    return null
  }
}
