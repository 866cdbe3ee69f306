// The human output of `clawkit index`: what the catalog holds, its size against the text it covers, what a run read.
import type {IndexResult} from '../../catalog/maintain.js'
import {formatBytes} from '../../text/bytes.js'
import {printable} from '../safe.js'
import {plural} from '../../text/sentence.js'
import {groupDigits, localTime} from '../../sessions/format.js'

export function renderIndex(r: IndexResult): string {
  const out: string[] = []
  const c = r.catalog
  if (r.action === 'drop') {
    out.push(r.dropped && r.dropped.files.length > 0 ? `Dropped the catalog of ${printable(r.stateDir)}: ${formatBytes(r.dropped.bytes)} freed (${r.dropped.files.map(printable).join(', ')}).` : `No catalog to drop for ${printable(r.stateDir)}.`)
    out.push('Searches and usage build it again on their next run; the spend of transcripts OpenClaw had removed is forgotten.')
    return `${out.join('\n')}\n`
  }
  if (r.read) {
    const secs = (r.read.durationMs / 1000).toFixed(1)
    out.push(`${r.action === 'rebuild' ? 'Rebuilt' : 'Brought up to date'} the catalog of ${printable(r.stateDir)} in ${secs} s: read ${plural(r.read.transcripts, 'changed transcript')} (${formatBytes(r.read.bytes)}) of ${plural(r.read.agents.length, 'agent')}.`)
  }
  if (c.state === 'unavailable') {
    out.push(`Catalog: unavailable: ${c.reason ?? 'unknown reason'}. Searches and usage read every transcript.`)
    return `${out.join('\n')}\n`
  }
  if (c.state === 'none') {
    out.push(`Catalog: none yet for ${printable(r.stateDir)} (the first search or usage builds it, or run clawkit index).`)
    if (c.file) out.push(`  file     ${printable(c.file)}`)
    return `${out.join('\n')}\n`
  }
  const d = r.details
  out.push(`Catalog of ${printable(r.stateDir)}`)
  out.push(`  file          ${printable(c.file ?? '')}`)
  out.push(`  size          ${formatBytes(c.bytes)}${d && d.indexBytes > 0 ? ` (full-text index ${formatBytes(d.indexBytes)}, ledger ${formatBytes(d.ledgerBytes)})` : ''}`)
  out.push(`  text indexed  ${formatBytes(c.textBytes)} in ${plural(c.transcripts, 'transcript')}${d?.ratio != null ? `; the index is ${d.ratio}x of it` : ''}`)
  if (d) {
    out.push(`  ledger        ${plural(d.calls, 'model call')}${d.removed.transcripts > 0 ? `, of which ${groupDigits(d.removed.calls)} in ${plural(d.removed.transcripts, 'transcript')} OpenClaw has removed` : ''}`)
    for (const a of d.agents) out.push(`  agent ${printable(a.agentId)}: ${plural(a.transcripts, 'transcript')}, ${formatBytes(a.textBytes)} of text, ${plural(a.calls, 'call')}${a.refreshedAt ? `, up to date as of ${localTime(new Date(a.refreshedAt).toISOString())}` : ''}`)
  }
  if (r.changed !== undefined) out.push(r.changed === 0 ? '  changed since  nothing (one stat per transcript)' : `  changed since  ${plural(r.changed, 'transcript')} (read on the next search or usage, or by clawkit index)`)
  return `${out.join('\n')}\n`
}
