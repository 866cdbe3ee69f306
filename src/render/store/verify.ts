// The human output of `clawkit store verify`: its result as text (the command chooses when to print it).
import type {StoreVerifyResult} from '../../store/bridge/verify.js'

function refs(items: {line?: number; seq?: number; id?: string}[], count: number): string {
  const shown = items.slice(0, 5).map((e) => [e.line === undefined ? '' : `line ${e.line}`, e.seq === undefined ? '' : `seq ${e.seq}`, e.id ? `id ${e.id}` : ''].filter(Boolean).join(' '))
  return `${shown.join('; ')}${count > shown.length ? `; and ${count - shown.length} more` : ''}`
}

export function renderVerify(r: StoreVerifyResult): string {
  const L: string[] = []
  for (const run of r.runs) L.push(`Run ${run.runId ?? run.file}: ${run.status}${run.reasons.length ? ` (${run.reasons.join('; ')})` : ''}`)
  for (const t of r.transcripts) {
    L.push(`${t.status === 'ok' ? 'ok' : t.status.toUpperCase()}  ${t.agentId} ${t.sessionKey ?? '?'} ${t.sessionId ?? '?'}: ${t.archiveEvents} archived, ${t.dbEvents} in the database (${t.pairedEvents} paired, ${t.appendedAfterImport} appended after the import)`)
    if (t.missing.count) L.push(`    missing from the database: ${t.missing.count} (${refs(t.missing.items, t.missing.count)})`)
    if (t.extra.count) L.push(`    extra in the database: ${t.extra.count} (${refs(t.extra.items, t.extra.count)})`)
    if (t.different.count) L.push(`    different: ${t.different.count} (${refs(t.different.items, t.different.count)})`)
    if (t.outOfOrder.count) L.push(`    out of order in the database: ${t.outOfOrder.count} (archive line at another seq: ${refs(t.outOfOrder.items, t.outOfOrder.count)})`)
    for (const p of t.problems) L.push(`    ${p}`)
  }
  for (const s of r.stores) {
    L.push(`${s.status === 'ok' ? 'ok' : s.status.toUpperCase()}  ${s.agentId} sessions.json: ${s.keys} key(s)`)
    if (s.missingKeys.length) L.push(`    keys missing from the database: ${s.missingKeys.join(', ')}`)
    for (const m of s.sessionIdMismatches) L.push(`    ${m.key}: sessionId ${m.legacy} in the archive, ${m.db} in the database`)
    for (const p of s.problems) L.push(`    ${p}`)
  }
  L.push(r.ok ? `Verified: 0 differences (${r.transcripts.length} transcript(s), ${r.stores.length} session store(s)).` : `${r.differences} difference(s) found.`)
  return `${L.join('\n')}\n`
}
