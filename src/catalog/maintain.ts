// `clawkit index`'s work: build, rebuild, drop or describe the local catalog of a state dir, as one IndexResult.
import fs from 'node:fs'

import {ClawkitError, ExitCode} from '../errors.js'
import type {OpenClawState} from '../store/state.js'
import {Catalog, CatalogUnavailable, type RefreshProgress} from './index.js'
import {type CatalogDetails, catalogBytes, catalogDetails, catalogSummary, type CatalogSummary} from './status.js'

/** The `index --json` document. */
export interface IndexResult {
  /** What was done: `build` (brought up to date, built where missing), `rebuild` (dropped, then built), `drop`, `status`. */
  action: 'build' | 'rebuild' | 'drop' | 'status'
  stateDir: string
  /** The catalog after the action. */
  catalog: CatalogSummary
  /** build, rebuild and status: the full-text index and the ledger measured apart. */
  details?: CatalogDetails
  /** build and rebuild: what this run read of the store. */
  read?: {agents: string[]; transcripts: number; bytes: number; durationMs: number}
  /** drop: the files removed and the bytes freed. */
  dropped?: {files: string[]; bytes: number}
  /** status: transcripts the catalog holds that changed since it was last brought up to date (one stat each; none read). */
  changed?: number
}

/** A catalog file with its WAL and shared-memory files. */
const filesOf = (file: string) => [file, `${file}-wal`, `${file}-shm`]

export async function indexCatalog(state: OpenClawState, action: IndexResult['action'], progress: {onProgress?: (p: RefreshProgress) => void; onDone?: () => void} = {}): Promise<IndexResult> {
  const summary = () => catalogSummary(state.stateDir)
  if (action === 'drop') {
    const before = summary()
    const files = before.file ? filesOf(before.file).filter((p) => fs.existsSync(p)) : []
    const bytes = before.file ? catalogBytes(before.file) : 0
    for (const p of files) fs.rmSync(p, {force: true})
    return {action: 'drop', stateDir: state.stateDir, catalog: summary(), dropped: {files, bytes}}
  }
  if (action === 'status') {
    const s = summary()
    let details: CatalogDetails | undefined
    let changed: number | undefined
    if (s.state === 'ready') {
      const cat = Catalog.open(state)
      if (!(cat instanceof CatalogUnavailable)) {
        try {
          details = catalogDetails(cat.db.db, s.textBytes)
          changed = await cat.changedSinceRefresh()
        } finally {
          cat.close()
        }
      }
    }
    return {action: 'status', stateDir: state.stateDir, catalog: s, ...(details ? {details} : {}), ...(changed === undefined ? {} : {changed})}
  }
  if (action === 'rebuild') {
    const s = summary()
    if (s.file) for (const p of filesOf(s.file)) fs.rmSync(p, {force: true})
  }
  const started = Date.now()
  let transcripts = 0
  let bytes = 0
  const cat = Catalog.open(state, progress)
  if (cat instanceof CatalogUnavailable) {
    throw new ClawkitError(`No catalog can be kept here: ${cat.reason}. Searches and usage read every transcript instead.`, {code: cat.code === 'node' ? 'E_NODE_TOO_OLD' : 'E_CATALOG_UNAVAILABLE', exitCode: ExitCode.failure})
  }
  const agents = state.allAgentIds()
  try {
    for (const agentId of agents) {
      const counted = (await cat.view(agentId))?.read
      if (!counted) {
        if (cat.failure) throw new ClawkitError(`The catalog failed while reading agent ${agentId}: ${cat.failure.message.split('\n')[0]}. What was read before is kept; run clawkit index again, or clawkit index --rebuild.`, {code: 'E_CATALOG_FAILED', exitCode: ExitCode.failure})
        continue
      }
      transcripts += counted.transcripts
      bytes += counted.bytes
    }
    const s = summary()
    return {action, stateDir: state.stateDir, catalog: s, details: catalogDetails(cat.db.db, s.textBytes), read: {agents, transcripts, bytes, durationMs: Date.now() - started}}
  } finally {
    progress.onDone?.()
    cat.close()
  }
}
