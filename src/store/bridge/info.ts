// `clawkit store info`: per agent, which era its sessions are in and what the store holds, read-only.
import path from 'node:path'

import {ClawkitError} from '../../errors.js'

import {mapSqliteError, openAgentDb, SqliteUnavailableError} from '../sqlite/driver.js'
import {readCounts} from '../sqlite/export-read.js'
import type {OpenClawState} from '../state.js'
import {agentPaths, eraOf, fileSize, importArchiveFiles, legacyFiles, MIGRATION_RUNS_DIR, type StoreEra} from './locate.js'
import {type MigrationRun, readMigrationRuns} from './runs.js'

export interface StoreDbInfo {
  path: string
  /** PRAGMA user_version. */
  userVersion: number
  /** The primary schema_meta row, or null when there is none. */
  schemaMeta: {role: string | null; schemaVersion: number | null; agentId: string | null; appVersion: string | null} | null
  /** Sessions (nodes, placeholders excluded), windows (one per sessionId) and transcript events. */
  sessions: number
  windows: number
  events: number
  sizeBytes: number
  /** null when there is no -wal file. */
  walBytes: number | null
}

export interface AgentStoreInfo {
  agentId: string
  era: StoreEra
  /** Set when the agent has a database that could be read. */
  db: StoreDbInfo | null
  /** Why the agent's database could not be read (damaged, locked, an unknown schema); the other agents are still shown. */
  dbError: {code: string; message: string} | null
  sessionsJson: string
  /** JSON-era files beside a database that OpenClaw never imported (sessions.json, live *.jsonl); [] otherwise. */
  legacyLeftovers: string[]
  /** Legacy files of a JSON-era agent (no database): its store. */
  legacyFiles: string[]
  importArchive: {dir: string; files: number; transcripts: number} | null
  /** Run ids of the migration runs that name this agent. */
  migrationRuns: string[]
}

export interface StoreInfoRun {
  file: string
  runId: string | null
  openClawVersion: string | null
  status: MigrationRun['status']
  reasons: string[]
  startedAt: string | null
  completedAt: string | null
  agents: string[]
  moves: number
}

/** `clawkit store info --json`. */
export interface StoreInfoResult {
  stateDir: string
  agents: AgentStoreInfo[]
  migrationRunsDir: string
  migrationRuns: StoreInfoRun[]
}

function dbInfo(file: string): StoreDbInfo {
  const {db, schemaVersion} = openAgentDb(file)
  try {
    db.exec('BEGIN')
    const meta = db.prepare("SELECT role, schema_version, agent_id, app_version FROM schema_meta WHERE meta_key = 'primary'").get()
    const counts = readCounts(db)
    db.exec('COMMIT')
    return {
      path: file,
      userVersion: schemaVersion,
      schemaMeta: meta
        ? {
            role: meta.role === null ? null : String(meta.role),
            schemaVersion: meta.schema_version === null ? null : Number(meta.schema_version),
            agentId: meta.agent_id === null ? null : String(meta.agent_id),
            appVersion: meta.app_version === null ? null : String(meta.app_version),
          }
        : null,
      ...counts,
      sizeBytes: fileSize(file) ?? 0,
      walBytes: fileSize(`${file}-wal`),
    }
  } catch (error) {
    throw mapSqliteError(file, error)
  } finally {
    db.close()
  }
}

export function storeInfo(state: OpenClawState, agents: string[]): StoreInfoResult {
  const runs = readMigrationRuns(state.stateDir)
  const out: AgentStoreInfo[] = []
  for (const agentId of agents) {
    const p = agentPaths(state, agentId)
    const legacy = legacyFiles(p)
    let db: StoreDbInfo | null = null
    let dbError: AgentStoreInfo['dbError'] = null
    try {
      db = p.dbExists ? dbInfo(p.db) : null
    } catch (error) {
      // A Node without node:sqlite can read no database at all: that stays the command's one-line error.
      if (!(error instanceof ClawkitError) || error instanceof SqliteUnavailableError) throw error
      dbError = {code: error.code, message: error.message}
    }
    const era = eraOf(p, legacy, db ? db.sessions > 0 : p.dbExists)
    const archive = importArchiveFiles(p)
    out.push({
      agentId,
      era,
      db,
      dbError,
      sessionsJson: p.sessionsJson,
      legacyLeftovers: era === 'mixed' ? legacy : [],
      legacyFiles: era === 'json' ? legacy : [],
      importArchive: archive.length > 0 ? {dir: p.importArchiveDir, files: archive.length, transcripts: archive.filter((f) => /\.jsonl\.imported-\d+(\.\d+)?$/.test(f) && !/\.trajectory\.jsonl\./.test(f)).length} : null,
      migrationRuns: runs.filter((r) => r.targets.some((t) => t.agentId === agentId)).map((r) => r.runId ?? path.basename(r.file)),
    })
  }
  return {
    stateDir: state.stateDir,
    agents: out,
    migrationRunsDir: path.join(state.stateDir, MIGRATION_RUNS_DIR),
    migrationRuns: runs.map((r) => ({
      file: r.file,
      runId: r.runId,
      openClawVersion: r.openClawVersion,
      status: r.status,
      reasons: r.reasons,
      startedAt: r.startedAt,
      completedAt: r.completedAt,
      agents: r.targets.map((t) => t.agentId),
      moves: r.targets.reduce((n, t) => n + t.completedMoves.length, 0),
    })),
  }
}
