// The human output of `clawkit doctor`: its result as text (the command chooses when to print it).
import {journalLine} from './journal.js'
import {groupFindings} from '../doctor/doctor.js'
import type {DoctorResult} from '../doctor/types.js'
import {withHintContext} from '../text/hint-context.js'
import {paint, type Style} from './color.js'
import {hintInContext, printable} from './safe.js'

/** Above this many findings of one id in one group, the human output shows a few and counts the rest. */
const GROUP_PREVIEW = 5

const MARK: Record<string, [string, Style]> = {error: ['✖ error', 'red'], warn: ['⚠ warn ', 'yellow'], info: ['ℹ info ', 'cyan'], fixed: ['✔ fixed', 'green']}

export function renderDoctor(result: DoctorResult, color: boolean): string {
  // Keys, paths and messages quote names from files: control and invisible characters are made visible.
  const lines: string[] = [paint(color, 'bold', `clawkit doctor: ${printable(result.stateDir)}`), paint(color, 'dim', `(state dir chosen by ${printable(result.stateDirReason)}; config ${printable(result.configPath)})`)]
  for (const g of groupFindings(result)) {
    lines.push('', paint(color, 'bold', printable(g.title)))
    if (g.findings.length === 0) {
      lines.push(`  ${paint(color, 'green', '✔ ok')}`)
      continue
    }
    const perId = new Map<string, number>()
    for (const f of g.findings) {
      const seen = perId.get(f.id) ?? 0
      perId.set(f.id, seen + 1)
      if (seen >= GROUP_PREVIEW) continue
      const [mark, style] = MARK[f.fixed ? 'fixed' : f.severity]
      const head = `  ${paint(color, style, mark)} ${f.id}${f.key ? ` [${printable(f.key)}]` : ''}`
      lines.push(head, `      ${printable(withHintContext(f.message))}`)
      if (f.path) lines.push(paint(color, 'dim', `      path: ${printable(f.path)}`))
      if (f.fixed && f.action) lines.push(paint(color, 'green', `      done: ${printable(f.action)}${f.backup && !f.action.includes(f.backup) ? ` (backup: ${printable(f.backup)})` : ''}`))
      else if (result.dryRun && f.fixable) lines.push(paint(color, 'cyan', `      would: ${printable(f.action ?? 'repair')}`))
      if (f.repairError) lines.push(paint(color, 'red', `      repair failed: ${printable(f.repairError)}`))
    }
    for (const [id, n] of perId) if (n > GROUP_PREVIEW) lines.push(paint(color, 'dim', `  … and ${n - GROUP_PREVIEW} more ${id} (see --json for all)`))
  }
  const c = result.counts
  const fixable = result.findings.filter((f) => f.fixable && !f.fixed).length
  lines.push('', `Summary: ${c.error} error(s), ${c.warn} warning(s), ${c.info} info${result.fixed ? `; ${result.fixed} fixed` : ''}.`)
  if (result.cancelled) lines.push('Repairs cancelled; nothing was changed.')
  else if (result.dryRun) lines.push(fixable > 0 ? `Dry run: --fix would repair ${fixable} finding(s); nothing was changed.` : 'Dry run: nothing to repair.')
  else if (result.repair && result.fixed > 0 && result.journal !== undefined) lines.push(journalLine(result.journal))
  else if (!result.repair && fixable > 0) lines.push(hintInContext(`Run "clawkit doctor --fix" to repair ${fixable} finding(s) (backups are written first; --dry-run shows the plan).`))
  return `${lines.join('\n')}\n`
}
