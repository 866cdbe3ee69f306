// `clawkit store export`: a JSON-era state dir (sessions.json + JSONL transcripts) written from SQLite-era stores.
import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {exportStore, type StoreExportResult} from '../../store/bridge/export.js'
import {UsageError} from '../../errors.js'
import {formatBytes} from '../../store/bytes.js'

export type {ExportedAgent, ExportedSession, ExportedTranscript, ExportSkip, StoreExportResult} from '../../store/bridge/export.js'

export default class StoreExport extends BaseCommand<typeof StoreExport> {
  static override summary = 'Write a JSON-era state dir (sessions.json and JSONL transcripts) from SQLite-era session stores'
  static override description =
    'The way back from OpenClaw\'s SQLite import: every session becomes a sessions.json entry and a <sessionId>.jsonl transcript with each event\'s JSON unchanged, ' +
    'earlier sessionIds of a key become <sessionId>.jsonl.reset.<ts> archives, and openclaw.json is copied. The databases are only read. ' +
    '--out must be a new or empty directory outside the state dir; the export appears there complete or not at all. Needs Node 22.15 or later.'
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

export function renderExport(r: StoreExportResult): string {
  const L = [`Exported to ${r.out} (JSON-era state dir)`]
  for (const a of r.agents) {
    const archives = a.sessions.reduce((n, s) => n + s.archives.length, 0)
    L.push(`  ${a.agentId}: ${a.sessions.length} session(s), ${a.sessions.filter((s) => s.transcript).length} transcript(s), ${archives} reset archive(s), ${a.events} event(s), ${formatBytes(a.bytes)}`)
    if (a.harnessRenamed > 0) L.push(`    ${a.harnessRenamed} entr${a.harnessRenamed === 1 ? 'y' : 'ies'}: harness "openclaw" written as "pi", its 2026.4.27 name`)
    for (const s of a.skipped) L.push(`    skipped ${s.key ?? ''}${s.sessionId ? ` ${s.sessionId}` : ''}: ${s.reason}`)
    if (a.legacyLeftovers.length > 0) L.push(`    not exported: ${a.legacyLeftovers.length} legacy file(s) beside the database (never imported by OpenClaw)`)
  }
  for (const s of r.skippedAgents) L.push(`  ${s.agentId}: skipped (${s.reason})`)
  L.push(r.config ? `  config ${r.configChanges.length > 0 ? `written to ${r.config}, in OpenClaw 2026.4.27's form (${r.configChanges.join('; ')})` : `copied to ${r.config}`}` : '  no openclaw.json in the source; none written')
  return `${L.join('\n')}\n`
}
