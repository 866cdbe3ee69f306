// The human output of `clawkit store export`: its result as text (the command chooses when to print it).
import type {StoreExportResult} from '../../store/bridge/export.js'
import {formatBytes} from '../../text/bytes.js'

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
