// The human output of `clawkit sessions cleanup`: per store OpenClaw's counters, then the plan as a table (what, why,
// bytes), and what the journal keeps.
import {formatBytes} from '../../text/bytes.js'
import type {SessionsCleanupResult} from '../../sessions/cleanup.js'
import {journalLine} from '../journal.js'
import {printable} from '../safe.js'
import {renderTable} from '../table.js'

const WHY: Record<string, string> = {
  'prune-missing': 'its transcript is missing (--fix-missing)',
  'prune-model-run': 'a gateway model-run probe older than 1 day',
  'archive-dashboard': 'a dashboard session inactive past archiveDashboardAfter',
  'archive-age': 'inactive past pruneAfter',
  'archive-cap': 'over maxEntries unarchived entries, oldest activity',
  'prune-stale': 'a runtime session (cron, subagent, hook, ...) inactive past pruneAfter',
  'cap-overflow': 'a runtime session over maxEntries',
  'retire-dm-scope': 'a direct-message session session.dmScope "main" folds into the main one (--fix-dm-scope)',
  'evict-budget': 'over the disk budget: removed with its transcript, no archive kept',
}

const FILE_WHY: Record<string, string> = {
  unreferenced: 'no entry references it, older than pruneAfter',
  temp: 'a stale temp file of the store',
  bak: 'a backup older than the age line (--sweep)',
  tmp: 'a temp file over 5 minutes old (--sweep)',
  'stale-lock': 'a lock whose holder is gone (--sweep)',
  'orphaned-archive': 'an archive no key claims, older than the age line (--sweep)',
  archive: 'beyond the newest archives kept per key (--keep)',
  budget: 'over the disk budget: archives first, oldest first',
}

const ROW_WHY: Record<string, string> = {
  budget: 'over the disk budget, oldest first',
  archive: 'beyond the newest archives kept per key (--keep)',
  'orphaned-archive': 'no live session holds its key, archived before the age line (--sweep)',
}

function age(ms: number, now: number): string {
  if (ms <= 0) return '-'
  const d = Math.floor((now - ms) / 86_400_000)
  return d >= 1 ? `${d}d ago` : `${Math.floor((now - ms) / 3_600_000)}h ago`
}

export async function renderCleanup(r: SessionsCleanupResult, color: boolean, now = Date.now()): Promise<string[]> {
  const out: string[] = []
  for (const s of r.stores) {
    if (out.length > 0) out.push('')
    out.push(`Agent: ${s.agentId}`, `Session store: ${printable(s.storePath)}`, `Maintenance mode: ${s.mode}`)
    out.push(`Entries: ${s.beforeCount} -> ${s.afterCount} (remove ${s.beforeCount - s.afterCount}); archive ${s.archived + s.capArchived}, of which ${s.capArchived} over the cap`)
    if (s.diskBudget) out.push(`Disk: ${formatBytes(s.diskBudget.totalBytesBefore)} of a ${formatBytes(s.diskBudget.maxBytes)} budget${s.diskBudget.overBudget ? ' (OVER BUDGET)' : ''}`)
    if (s.changes.length === 0 && s.files.length === 0 && s.archiveRows.length === 0) {
      out.push('Nothing to clean up.')
      continue
    }
    const rows = [
      ...s.changes.map((c) => [c.action, printable(c.key), age(c.activityAt, now), WHY[c.action] ?? '', c.action === 'evict-budget' ? `${formatBytes(c.bytes ?? 0)} freed` : c.bytes === null ? (c.archiveReason ? '0 (kept, archived)' : 'rows archived') : `${formatBytes(c.bytes)} archived`]),
      ...s.archiveRows.map((r) => ['remove-archive-row', printable(r.name), '-', `${ROW_WHY[r.why] ?? r.why}: an archive of ${printable(r.key)}`, formatBytes(r.bytes)]),
      ...s.files.map((f) => [`remove-${f.why}`, printable(f.path.split('/').pop() ?? f.path), '-', FILE_WHY[f.why], formatBytes(f.bytes)]),
    ]
    out.push('', (await renderTable([{header: 'Action'}, {header: 'What'}, {header: 'Active'}, {header: 'Why'}, {header: 'Bytes'}], rows, color)).trimEnd())
    const freed = s.files.reduce((n, f) => n + f.bytes, 0)
    if (freed > 0) out.push(`Files: ${formatBytes(freed)}.`)
    const active = s.skipped.filter((x) => x.why === 'active').map((x) => printable(x.key))
    const changed = s.skipped.filter((x) => x.why === 'changed').map((x) => printable(x.key))
    if (active.length > 0) out.push(`Left alone, active since the plan was made (a turn landed meanwhile): ${active.join(', ')}.`)
    if (changed.length > 0) out.push(`Left alone, another session holds the key now or it is gone: ${changed.join(', ')}.`)
    const under = s.skipped.filter((x) => x.why === 'under-budget').map((x) => printable(x.key))
    if (under.length > 0) out.push(`Not evicted, the store was under the disk budget's high water mark first: ${under.join(', ')}.`)
  }
  out.push('')
  if (r.dryRun) out.push('Dry run: nothing was changed. Run with --yes to apply (journaled: "clawkit undo" reverses it).')
  else if (r.mode === 'warn') out.push('Maintenance mode is "warn": nothing was changed (--enforce applies).')
  else {
    out.push(journalLine(r.journal))
    if (r.journal && r.journalBytes > 0) out.push(`The journal keeps ${formatBytes(r.journalBytes)} (the files and rows as they were, for undo) until it is pruned ("clawkit undo --prune" or the retention); only then is the space of what was removed free.`)
  }
  return out
}
