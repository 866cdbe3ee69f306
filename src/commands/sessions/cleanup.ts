// `clawkit sessions cleanup`: OpenClaw 2026.9.6's session maintenance, offline, in both eras, planned and journaled.
import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {parseByteSize, parseDurationMs} from '../../config/units.js'
import {UsageError} from '../../errors.js'
import {refusedStoreUrlFlag, refuseReplicaWrite} from '../../fleet/flags.js'
import {colorEnabled} from '../../render/color.js'
import {renderCleanup} from '../../render/sessions/cleanup.js'
import {cleanupSessions, type SessionsCleanupResult} from '../../sessions/cleanup.js'

export type {SessionsCleanupResult} from '../../sessions/cleanup.js'

export default class SessionsCleanup extends BaseCommand<typeof SessionsCleanup> {
  static override summary = 'Archive old sessions and prune leftovers as OpenClaw\'s sessions cleanup does, without a gateway'
  static override description =
    'Plans what OpenClaw 2026.9.6\'s sessions cleanup plans (session.maintenance: archive sessions inactive past pruneAfter, 30 days; remove runtime sessions (cron, subagent, hook) past it; keep at most maxEntries (5000) unarchived; prune transcript files no entry references older than pruneAfter), shows it as a table, and applies it only with --yes or a confirmation on a terminal (a dry run otherwise). Archived sessions stay readable; removed ones are deleted as OpenClaw deletes them (transcript kept as an archive). Journaled: clawkit undo reverses it.'
  static override examples = [
    '<%= config.bin %> sessions cleanup',
    '<%= config.bin %> sessions cleanup --all-agents --json',
    '<%= config.bin %> sessions cleanup --older-than 90d --kind cron --yes',
  ]
  static override flags = {
    'store-url': refusedStoreUrlFlag,
    agent: Flags.string({description: 'clean this agent\'s store (default: the default agent)', helpValue: '<id>'}),
    'all-agents': Flags.boolean({description: 'clean every agent\'s store'}),
    'dry-run': Flags.boolean({description: 'show the plan and change nothing (the default without --yes on a non-terminal)'}),
    yes: Flags.boolean({char: 'y', description: 'apply the plan without asking'}),
    enforce: Flags.boolean({description: 'apply even when session.maintenance.mode is "warn"'}),
    'fix-missing': Flags.boolean({description: 'also remove entries whose transcript is missing (SQLite era, as OpenClaw 2026.9.6: holds no message)'}),
    'fix-dm-scope': Flags.boolean({description: 'also remove direct-message sessions that session.dmScope "main" folds into the main session (OpenClaw 2026.9.6\'s --fix-dm-scope)'}),
    'active-key': Flags.string({description: 'a session key to protect from this cleanup', helpValue: '<key>'}),
    'older-than': Flags.string({description: 'archive sessions inactive this long (replaces session.maintenance.pruneAfter: 90d, 12h)', helpValue: '<duration>'}),
    kind: Flags.string({description: 'act only on sessions of this kind (direct, group, cron, subagent, acp, hook, heartbeat, dashboard, explicit); repeatable', multiple: true, helpValue: '<kind>'}),
    'max-disk': Flags.string({description: 'the disk budget to measure against (replaces session.maintenance.maxDiskBytes: 10gb, 500mb)', helpValue: '<size>'}),
    rules: Flags.string({description: 'whose maintenance rules: 2026.9 (OpenClaw 2026.9.6: archive old sessions, protect main, groups and threads, cap 5000) or 2026.4 (2026.4.27: remove old sessions, cap 500); default: the store\'s era', options: ['2026.4', '2026.9'], helpValue: '<version>'}),
    sweep: Flags.boolean({description: 'also remove leftovers: .bak files and orphaned archives (files, or SQLite archive rows whose key no session holds) older than the age line, .tmp files, stale locks'}),
    keep: Flags.integer({description: 'keep only the n newest archives of each key (.reset./.deleted. files, or SQLite archive rows and their published files)', min: 0, helpValue: '<n>'}),
    'no-journal': Flags.boolean({description: 'do not journal the cleanup: the space is free at once, and clawkit undo cannot reverse it'}),
  }

  async run(): Promise<SessionsCleanupResult> {
    refuseReplicaWrite(this.flags, 'clawkit sessions cleanup')
    const f = this.flags
    const num = <T>(flag: string, raw: string | undefined, parse: (s: string) => T): T | undefined => {
      if (raw === undefined) return undefined
      try {
        return parse(raw)
      } catch (error) {
        throw new UsageError(`--${flag}: ${(error as Error).message}`, 'E_BAD_FLAG')
      }
    }
    const olderThanMs = num('older-than', f['older-than'], (s) => parseDurationMs(s, 'd'))
    const maxDiskBytes = num('max-disk', f['max-disk'], (s) => parseByteSize(s))
    if (f['dry-run'] && f.yes) throw new UsageError('--dry-run and --yes contradict each other; give one.', 'E_FLAG_CONFLICT')
    const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
    const state = this.openState()
    const base = {agent: f.agent, allAgents: f['all-agents'], enforce: f.enforce, fixMissing: f['fix-missing'], fixDmScope: f['fix-dm-scope'], activeKey: f['active-key'], olderThanMs, kinds: f.kind, maxDiskBytes, rules: f.rules as '2026.4' | '2026.9' | undefined, sweep: f.sweep, keep: f.keep, noJournal: f['no-journal']}
    let apply = f.yes
    if (!apply && !f['dry-run'] && interactive && !this.jsonEnabled()) {
      const plan = await cleanupSessions(state, {...base, dryRun: true})
      for (const line of await renderCleanup(plan, colorEnabled())) if (!line.startsWith('Dry run:')) this.out(line)
      if (!plan.stores.some((s) => s.wouldMutate)) return plan
      apply = await this.confirm()
      if (!apply) {
        this.out('Nothing was changed.')
        return plan
      }
    } else if (!apply && !f['dry-run']) {
      this.warnLine('no --yes and no terminal to ask on: showing the plan only (a dry run); --yes applies it.')
    }
    if (apply && f['no-journal']) this.warnLine('--no-journal: this cleanup is not recorded, so "clawkit undo" cannot reverse it.')
    const r = await cleanupSessions(state, {...base, dryRun: !apply})
    // Not even made for --json: laying out a plan of 10 000 rows costs cli-table3 over a second.
    if (!this.jsonEnabled()) for (const line of await renderCleanup(r, colorEnabled())) this.out(line)
    return r
  }

  private async confirm(): Promise<boolean> {
    const {createInterface} = await import('node:readline/promises')
    const rl = createInterface({input: process.stdin, output: process.stderr})
    try {
      return /^y(es)?$/i.test((await rl.question('Apply this cleanup? It is journaled: "clawkit undo" reverses it. [y/N] ')).trim())
    } finally {
      rl.close()
    }
  }
}
