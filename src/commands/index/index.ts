// `clawkit index`: build, rebuild, drop or describe the local catalog of a state dir (src/catalog/), which searches and
// usage otherwise build and refresh on their own.
import {Flags} from '@oclif/core'

import {indexCatalog, type IndexResult} from '../../catalog/maintain.js'
import {BaseCommand} from '../../cli/base-command.js'
import {catalogProgressLine} from '../../render/catalog-progress.js'
import {renderIndex} from '../../render/index/index.js'

export type {IndexResult} from '../../catalog/maintain.js'
export type {CatalogDetails, CatalogSummary} from '../../catalog/status.js'

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
    const action = f.drop ? 'drop' : f.status ? 'status' : f.rebuild ? 'rebuild' : 'build'
    const progress = action === 'build' || action === 'rebuild' ? catalogProgressLine() : undefined
    const result = await indexCatalog(state, action, progress ? {onProgress: (p) => progress.onProgress(p), onDone: () => progress.done()} : {})
    if (!this.jsonEnabled()) process.stdout.write(renderIndex(result))
    return result
  }
}
