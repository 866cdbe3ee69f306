// The human output of `clawkit store info`: its result as text (the command chooses when to print it).
import type {StoreInfoResult} from '../../store/bridge/info.js'
import {formatBytes} from '../../text/bytes.js'

export function renderStoreInfo(r: StoreInfoResult): string {
  // Each agent's heading, then its labelled rows; the values of every block start in one column.
  const blocks: {head: string; rows: [string, string][]}[] = []
  for (const a of r.agents) {
    const head = `Agent ${a.agentId}: ${a.era === 'mixed' ? 'mixed (the SQLite database is the truth; legacy files were never imported)' : a.era === 'none' ? 'no session store' : `${a.era === 'json' ? 'JSON' : 'SQLite'} era`}`
    const rows: [string, string][] = []
    if (a.db) {
      const meta = a.db.schemaMeta ? `schema_meta ${a.db.schemaMeta.schemaVersion ?? '?'} (OpenClaw ${a.db.schemaMeta.appVersion ?? '?'})` : 'no schema_meta row'
      rows.push(['database', a.db.path])
      rows.push(['schema', `user_version ${a.db.userVersion}, ${meta}`])
      rows.push(['contents', `${a.db.sessions} session(s), ${a.db.windows} window(s), ${a.db.events} event(s)`])
      rows.push(['size', `${formatBytes(a.db.sizeBytes)}, WAL ${a.db.walBytes === null ? 'none' : formatBytes(a.db.walBytes)}`])
    }
    if (a.dbError) rows.push(['database', `unreadable: ${a.dbError.message}`])
    if (a.era === 'json') rows.push(['sessions', `${a.sessionsJson}${a.legacyFiles.length > 1 ? ` (+${a.legacyFiles.length - 1} transcript(s))` : ''}`])
    for (const f of a.legacyLeftovers) rows.push(['leftover', `${f} (never imported)`])
    if (a.importArchive) rows.push(['import archive', `${a.importArchive.dir}: ${a.importArchive.files} file(s), ${a.importArchive.transcripts} transcript(s)`])
    if (a.migrationRuns.length > 0) rows.push(['migration runs', a.migrationRuns.join(', ')])
    blocks.push({head, rows})
  }
  const width = Math.max(0, ...blocks.flatMap((b) => b.rows.map(([label]) => label.length))) + 2
  const L = [`State dir: ${r.stateDir}`]
  for (const b of blocks) L.push('', b.head, ...b.rows.map(([label, value]) => `  ${label.padEnd(width)}${value}`))
  if (r.migrationRuns.length > 0) {
    L.push('', `Migration runs (${r.migrationRunsDir}):`)
    for (const run of r.migrationRuns) L.push(`  ${run.runId ?? run.file}: ${run.status}${run.reasons.length ? ` (${run.reasons.join('; ')})` : ''}, agents ${run.agents.join(', ') || 'none'}, ${run.moves} move(s)`)
  }
  return `${L.join('\n')}\n`
}
