// `clawkit doctor`: find and repair everything that can go wrong in an OpenClaw session store.
import {Flags} from '@oclif/core'

import {BaseCommand, pagerFlags} from '../cli/base-command.js'
import {runDoctor} from '../doctor/doctor.js'
import type {DoctorResult, Finding} from '../doctor/types.js'
import {refusedStoreUrlFlag, refuseReplicaWrite} from '../fleet/flags.js'
import {colorEnabled} from '../render/color.js'
import {renderDoctor} from '../render/doctor.js'
import {printable} from '../render/safe.js'

export type {DoctorResult, Finding} from '../doctor/types.js'

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
    'no-journal': Flags.boolean({description: 'with --fix: do not journal the repairs (clawkit undo then cannot reverse them)'}),
    deep: Flags.boolean({description: 'read big transcripts whole (default: header and tail only above 2 MiB)'}),
    ...pagerFlags,
  }

  async run(): Promise<DoctorResult> {
    refuseReplicaWrite(this.flags, this.flags.fix ? 'clawkit doctor --fix' : 'clawkit doctor (it checks the host\'s own files)')
    const f = this.flags
    const state = this.openState({tolerateConfigError: true, allowMissing: true})
    if (f['no-journal'] && (f.fix || f.yes) && !f['dry-run']) this.warnLine('--no-journal: these repairs are not recorded, so "clawkit undo" cannot reverse them.')
    const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
    const repair = f.fix || f.yes
    const result = await runDoctor(state, {
      agent: f.agent,
      repair,
      dryRun: f['dry-run'],
      deep: f.deep,
      noJournal: f['no-journal'],
      confirm: repair && !f.yes && interactive ? (plan) => this.confirm(plan) : undefined,
    })
    if (!this.jsonEnabled()) await this.page(renderDoctor(result, colorEnabled()))
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
