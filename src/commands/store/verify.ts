// `clawkit store verify`: after OpenClaw's JSON-to-SQLite import, compare what it archived with what the database holds.
import {BaseCommand} from '../../cli/base-command.js'
import {type StoreVerifyResult, verifyImport} from '../../store/bridge/verify.js'
import {ExitCode} from '../../errors.js'

export type {EventDiffs, EventRef, StoreVerifyResult, VerifiedStore, VerifiedTranscript} from '../../store/bridge/verify.js'

export default class StoreVerify extends BaseCommand<typeof StoreVerify> {
  static override summary = 'Check an imported state dir: every archived legacy transcript against the events in SQLite'
  static override description =
    'For each transcript "openclaw doctor --fix" imported (its run manifests and agents/*/session-sqlite-import-archive/), compares the archived JSONL with the ' +
    'session\'s events: counts, a sha256 of the canonical JSON of the events, and every missing, extra or different event. The archived sessions.json is checked ' +
    'against the session nodes (keys and sessionIds). Events appended by later turns are counted, not reported. Exit 0 when nothing differs, 5 when anything does. Read-only.'
  static override examples = ['<%= config.bin %> store verify', '<%= config.bin %> store verify --json']

  async run(): Promise<StoreVerifyResult> {
    const state = this.openState({tolerateConfigError: true})
    state.requireStateDir()
    const result = verifyImport(state)
    this.out(renderVerify(result))
    if (!result.ok) process.exitCode = ExitCode.storeDifferences
    return result
  }
}

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
