// `clawkit doctor`: find and repair everything that can go wrong in an OpenClaw session store.
import {Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {refusedStoreUrlFlag, refuseReplicaWrite} from '../fleet/flags.js'
import {groupFindings, runDoctor} from '../doctor/doctor.js'
import type {DoctorResult, Finding} from '../doctor/types.js'
import {colorEnabled, paint, type Style} from '../render/color.js'
import {printable} from '../render/safe.js'

export type {DoctorResult, Finding} from '../doctor/types.js'

/** Above this many findings of one id in one group, the human output shows a few and counts the rest. */
const GROUP_PREVIEW = 5

export default class Doctor extends BaseCommand<typeof Doctor> {
  static override summary = 'Check every agent\'s session store and repair it without losing data'
  static override description =
    'Checks permissions, split state dirs, the index, transcripts, orphans, moved state dirs and locks for every agent. ' +
    '--fix repairs what it can: every repair writes a backup first, runs under the store and transcript locks, and never deletes data. ' +
    'Exit codes: 0 healthy (info only), 3 warnings remain, 4 errors remain, 1 doctor failed, 2 usage error.'
  static override examples = [
    '<%= config.bin %> doctor',
    '<%= config.bin %> doctor --json',
    '<%= config.bin %> doctor --fix --dry-run',
    '<%= config.bin %> doctor --fix --yes --agent work',
  ]
  static override flags = {
    'store-url': refusedStoreUrlFlag,
    agent: Flags.string({description: 'check only this agent (the state dir checks still run)', helpValue: '<id>'}),
    fix: Flags.boolean({description: 'repair what can be repaired, backups first (alias: --repair)', aliases: ['repair']}),
    yes: Flags.boolean({char: 'y', description: 'do not ask before repairing (implies --fix)'}),
    'dry-run': Flags.boolean({description: 'show what --fix would do and change nothing'}),
    deep: Flags.boolean({description: 'read big transcripts whole (default: header and tail only above 2 MiB)'}),
  }

  async run(): Promise<DoctorResult> {
    refuseReplicaWrite(this.flags, this.flags.fix ? 'clawkit doctor --fix' : 'clawkit doctor (it checks the host\'s own files)')
    const f = this.flags
    const state = this.openState({tolerateConfigError: true})
    const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
    const repair = f.fix || f.yes
    const result = await runDoctor(state, {
      agent: f.agent,
      repair,
      dryRun: f['dry-run'],
      deep: f.deep,
      confirm: repair && !f.yes && interactive ? (plan) => this.confirm(plan) : undefined,
    })
    if (!this.jsonEnabled()) process.stdout.write(renderDoctor(result, colorEnabled()))
    process.exitCode = result.exitCode
    return result
  }

  private async confirm(plan: Finding[]): Promise<boolean> {
    const {createInterface} = await import('node:readline/promises')
    process.stderr.write(`doctor will repair ${plan.length} finding(s), writing a backup before each change:\n`)
    for (const p of plan.slice(0, 20)) process.stderr.write(`  - ${p.id}: ${printable(p.action ?? 'repair')} (${printable(p.path)})\n`)
    if (plan.length > 20) process.stderr.write(`  … and ${plan.length - 20} more\n`)
    const rl = createInterface({input: process.stdin, output: process.stderr})
    try {
      const answer = await rl.question('Apply these repairs? [y/N] ')
      return /^y(es)?$/i.test(answer.trim())
    } finally {
      rl.close()
    }
  }
}

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
      lines.push(head, `      ${printable(f.message)}`)
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
  else if (!result.repair && fixable > 0) lines.push(`Run "clawkit doctor --fix" to repair ${fixable} finding(s) (backups are written first; --dry-run shows the plan).`)
  return `${lines.join('\n')}\n`
}
