// `clawkit index`: build, rebuild, drop or describe the local catalog of a state dir (src/catalog/), which searches and
// usage otherwise build and refresh on their own.
import fs from 'node:fs'

import {Flags} from '@oclif/core'

import {Catalog, CatalogUnavailable} from '../../catalog/index.js'
import {type CatalogDetails, catalogBytes, catalogDetails, catalogSummary, type CatalogSummary} from '../../catalog/status.js'
import {BaseCommand} from '../../cli/base-command.js'
import {ClawkitError, ExitCode} from '../../errors.js'
import {catalogProgressLine} from '../../render/catalog-progress.js'
import {renderIndex} from '../../render/index/index.js'

export type {CatalogDetails, CatalogSummary} from '../../catalog/status.js'

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

export default class Index extends BaseCommand<typeof Index> {
  static override summary = 'Build, rebuild, drop or describe the local catalog that keeps search and usage fast'
  static override description =
    'The catalog is derived data in clawkit\'s data dir, never in the OpenClaw state dir: a full-text index of what `sessions search` reads and a ledger of every model call `sessions usage` sums, brought up to date with the store before every answer (only what changed is read). Searches and usage build it on first use; this command does it explicitly. Deleting it loses nothing OpenClaw still has, only the spend of transcripts OpenClaw has since removed. Needs Node 22.15 or later.'
  static override examples = ['<%= config.bin %> index', '<%= config.bin %> index --status', '<%= config.bin %> index --rebuild', '<%= config.bin %> index --drop --json']
  static override flags = {
    rebuild: Flags.boolean({description: 'drop the catalog, then build it again from the store', exclusive: ['drop', 'status']}),
    drop: Flags.boolean({description: 'delete the catalog (commands scan, or build it again on their next use)', exclusive: ['rebuild', 'status']}),
    status: Flags.boolean({description: 'say what the catalog holds, its size against the text it covers, and what changed since (reads no transcript)', exclusive: ['rebuild', 'drop']}),
  }

  async run(): Promise<IndexResult> {
    const f = this.flags
    const state = this.openState()
    const summary = () => catalogSummary(state.stateDir)
    let result: IndexResult
    if (f.drop) {
      const before = summary()
      const files = before.file ? [before.file, `${before.file}-wal`, `${before.file}-shm`].filter((p) => fs.existsSync(p)) : []
      const bytes = before.file ? catalogBytes(before.file) : 0
      for (const p of files) fs.rmSync(p, {force: true})
      result = {action: 'drop', stateDir: state.stateDir, catalog: summary(), dropped: {files, bytes}}
    } else if (f.status) {
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
      result = {action: 'status', stateDir: state.stateDir, catalog: s, ...(details ? {details} : {}), ...(changed === undefined ? {} : {changed})}
    } else {
      if (f.rebuild) {
        const s = summary()
        if (s.file) for (const p of [s.file, `${s.file}-wal`, `${s.file}-shm`]) fs.rmSync(p, {force: true})
      }
      const started = Date.now()
      const progress = catalogProgressLine()
      let transcripts = 0
      let bytes = 0
      const cat = Catalog.open(state, {
        onProgress: (p) => {
          progress?.onProgress(p)
        },
        onDone: () => progress?.done(),
      })
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
        result = {action: f.rebuild ? 'rebuild' : 'build', stateDir: state.stateDir, catalog: s, details: catalogDetails(cat.db.db, s.textBytes), read: {agents, transcripts, bytes, durationMs: Date.now() - started}}
      } finally {
        progress?.done()
        cat.close()
      }
    }
    if (!this.jsonEnabled()) process.stdout.write(renderIndex(result))
    return result
  }
}
