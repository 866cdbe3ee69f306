// The human output of `clawkit sync`: its result as text (the command chooses when to print it).
import type {SyncResult} from '../fleet/sync.js'
import {plural} from '../text/sentence.js'
import {printable} from './safe.js'

export function renderSync(r: SyncResult): string {
  const lines = [`${r.dryRun ? 'Dry run: would sync' : 'Synced'} host ${printable(r.host)} to ${printable(r.database)}${r.schema.applied.length > 0 ? ` (schema v${r.schema.from} -> v${r.schema.to})` : ''}`]
  if (r.schema.pending.length > 0) lines.push(`Schema migrations a sync would apply: ${r.schema.pending.length} (v${r.schema.from} -> v${r.schema.from + r.schema.pending.length})`)
  for (const a of r.agents) {
    const t = a.transcripts
    lines.push(
      `  ${printable(a.agentId)} (${a.era}): ${plural(a.entriesUpserted, 'entry', 'entries')} ${r.dryRun ? 'to upsert' : 'upserted'}, transcripts ${t.new} new, ${t.updated} updated, ${t.rewritten} rewritten, ${t.unchanged} unchanged; ${plural(a.events, 'event')} (${(a.bytes / 1048576).toFixed(2)} MiB) in ${(a.durationMs / 1000).toFixed(1)} s`,
    )
    if (a.pruned.entries.length + a.pruned.transcripts.length > 0) lines.push(`    ${r.dryRun ? 'would prune' : 'pruned'} ${plural(a.pruned.entries.length, 'entry', 'entries')}, ${plural(a.pruned.transcripts.length, 'transcript')}`)
    if (a.stale.entries + a.stale.transcripts > 0) lines.push(`    kept on the replica, gone here: ${plural(a.stale.entries, 'entry', 'entries')}, ${plural(a.stale.transcripts, 'transcript')} (--prune removes them)`)
  }
  if (r.skipped.length > 0) lines.push(`  ${r.dryRun ? 'would skip' : 'skipped'} ${r.skipped.length} agent${r.skipped.length === 1 ? '' : 's'} whose store could not be read here: ${r.skipped.map((s) => printable(s.agentId)).join(', ')} (partial sync)`)
  return `${lines.join('\n')}\n`
}
