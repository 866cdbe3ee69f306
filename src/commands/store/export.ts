// `clawkit store export`: a JSON-era state dir (sessions.json + JSONL transcripts) written from SQLite-era stores.
import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {UsageError} from '../../errors.js'
import {renderExport} from '../../render/store/export.js'
import {exportStore, type StoreExportResult} from '../../store/bridge/export.js'

export type {ExportedAgent, ExportedSession, ExportedTranscript, ExportSkip, StoreExportResult} from '../../store/bridge/export.js'

export default class StoreExport extends BaseCommand<typeof StoreExport> {
  static override summary = 'Write a JSON-era state dir (sessions.json and JSONL transcripts) from SQLite-era session stores'
  static override description =
    'The way back from OpenClaw\'s SQLite import: every session becomes a sessions.json entry and a <sessionId>.jsonl transcript with each event\'s JSON unchanged, ' +
    'earlier sessionIds of a key become <sessionId>.jsonl.reset.<ts> archives, and openclaw.json is copied. The databases are only read. ' +
    '--out must be a new or empty directory outside the state dir; the export appears there complete or not at all. With no SQLite store to export (a JSON-era state dir) nothing is written and the exit code is 66. Needs Node 22.15 or later.'
  static override examples = ['<%= config.bin %> store export --out ~/openclaw-json-export', '<%= config.bin %> store export --out ./work-only --agent work --json']
  static override flags = {
    out: Flags.string({description: 'directory to create (or an empty one) for the exported state dir', helpValue: '<dir>', required: true}),
    agent: Flags.string({description: 'export only this agent', helpValue: '<id>'}),
    'all-agents': Flags.boolean({description: 'export every agent (the default)'}),
  }

  async run(): Promise<StoreExportResult> {
    const f = this.flags
    if (f.agent && f['all-agents']) throw new UsageError('--agent and --all-agents cannot be combined; pass one of them.', 'E_CONFLICTING_FLAGS')
    const state = this.openState()
    state.requireStateDir()
    const agents = f.agent ? [state.requireAgent(f.agent)] : state.allAgentIds()
    const result = await exportStore(state, agents, f.out)
    this.out(renderExport(result))
    return result
  }
}
