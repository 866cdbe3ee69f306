// Which agents of a store keep their sessions in SQLite: those get the sqlite-* checks (sqlite-checks.ts) instead of
// being judged by the JSON-era file layout, and doctor's agents[] gets their figures.
import path from 'node:path'

import {findSqliteStore, sqliteStorePath} from '../../era.js'
import {finding} from '../finding.js'
import {checkSqliteAgent, type SqliteCheckContext, walWithoutDb} from './checks.js'
import {checkLegacyLeftovers, importedIndexHashes} from './import-checks.js'
import type {StoreContext} from '../context.js'

export function checkSqlite(c: StoreContext): void {
  const stateDir = c.state.stateDir
  for (const agentId of c.scan.agentIds) {
    const db = sqliteStorePath(stateDir, agentId)
    const sessionsDir = path.join(stateDir, 'agents', agentId, 'sessions')
    const ctx: SqliteCheckContext = {
      stateDir,
      agentId,
      db,
      legacyTranscripts: c.scan.sessionsDir === sessionsDir ? c.scan.transcripts : [],
      importedIndexHashes: () => importedIndexHashes(c.opts.migrationRuns?.() ?? [], agentId),
      out: c.out,
    }
    if (!findSqliteStore(stateDir, agentId)) {
      if (!c.opts.cheap && walWithoutDb(db)) checkSqliteAgent(ctx)
      continue
    }
    const alone = !c.scan.storeStat
    c.out.push(
      finding({
        id: 'sqlite-store',
        severity: 'info',
        agentId,
        path: db,
        message: `This agent keeps its sessions in SQLite (OpenClaw 2026.7 and later), ${alone ? 'with no sessions.json' : 'next to a sessions.json, which is legacy import input (the database is the truth)'}. Doctor checks the database itself (the sqlite-* findings), runs no JSON-era check on legacy files beside it, and --fix changes none of them: a rewritten or re-indexed legacy file would be imported again as a fork.`,
      }),
    )
    // Legacy files never imported are status's business too (the "doctor/status report" them); without any
    // beside the database this is one lstat, and with one the state needs attention whatever it costs to say so.
    const legacyStore = path.join(sessionsDir, 'sessions.json')
    // The scan read that index already (doctor's and status's one look at the store): its keys, not a second read.
    const scanned = c.scan.storePath === legacyStore && c.scan.storeStat ? {keys: c.scan.data ? Object.keys(c.scan.data) : undefined} : undefined
    checkLegacyLeftovers(ctx, legacyStore, scanned)
    if (c.opts.cheap) continue
    c.opts.sqliteStats?.set(agentId, checkSqliteAgent(ctx))
  }
}
