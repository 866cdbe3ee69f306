// `clawkit sessions usage`: token and cost totals across keys, resets and archives, grouped as asked.
import {Flags} from '@oclif/core'

import {BaseCommand, pagerFlags} from '../../cli/base-command.js'
import {startLive} from '../../cli/live.js'
import {ExitCode, UsageError} from '../../errors.js'
import {hostFlags, storeUrlFlag} from '../../fleet/flags.js'
import {colorEnabled, paint} from '../../render/color.js'
import {terminalWidth} from '../../render/fit.js'
import {printable} from '../../render/safe.js'
import {renderStatusLine, renderUsage, usageCsv} from '../../render/sessions/usage.js'
import {BUDGET_PERIODS} from '../../sessions/budget-types.js'
import {localTime} from '../../sessions/format.js'
import {usageStatusLine} from '../../sessions/statusline.js'
import {fleetUsage, sessionsUsage, USAGE_BY, type SessionsUsageResult, usageTimeZone} from '../../sessions/usage.js'
import {clawkitDirs, loadSettings, settingsPath} from '../../settings.js'

export type {LargestCall, SessionsUsageResult, UsageBy, UsageRow} from '../../sessions/usage.js'

export default class SessionsUsage extends BaseCommand<typeof SessionsUsage> {
  static override summary = 'Total tokens and cost by session, key, agent, model, channel, cron job, day, week or month'
  static override description =
    'Sums the usage OpenClaw records on every assistant message, in live transcripts and (by default) in .reset./.deleted. archives and earlier SQLite windows, so a reset never makes cost disappear. Where a message recorded no cost, it is computed from the model prices in openclaw.json and the row is marked estimated.'
  static override examples = [
    '<%= config.bin %> sessions usage',
    '<%= config.bin %> sessions usage --by day --since 7d',
    '<%= config.bin %> sessions usage --by day,model --last 7 --timezone Europe/Berlin',
    '<%= config.bin %> sessions usage --by month,agent --csv > spend.csv',
    '<%= config.bin %> sessions usage --all-agents --by model --json',
    '<%= config.bin %> sessions usage --limit 10',
    '<%= config.bin %> sessions usage --all-agents --max-cost 25 --per day --notify discord:channel:123456789012345678',
    '<%= config.bin %> sessions usage --check --json',
    '<%= config.bin %> sessions usage --statusline',
    '<%= config.bin %> sessions usage --by day,model --last 7 --watch',
    '<%= config.bin %> sessions usage --store-url postgres://reader@db.example/fleet --by host',
  ]
  static override flags = {
    by: Flags.string({description: `group by, or a comma list to break down (day,model): ${USAGE_BY.join(', ')} (host: on the fleet replica, with --store-url)`, default: 'session', helpValue: '<by[,by...]>'}),
    since: Flags.string({description: 'only calls at or after this date/time or duration ago (2026-11-01, 7d, 12h); a date without a zone is in --timezone', helpValue: '<when>'}),
    until: Flags.string({description: 'only calls at or before this date/time or duration ago; a bare date takes in its whole day', helpValue: '<when>'}),
    last: Flags.string({description: 'only the last N periods of the --by time grouping (day, week, month, hour), the current one included', helpValue: '<n>'}),
    timezone: Flags.string({description: 'IANA time zone of days, weeks, months and bare dates (default: the local zone, TZ)', helpValue: '<zone>'}),
    'max-cost': Flags.string({description: 'check a spend limit in dollars over the agents read (for --per, in --timezone): exit code 7 when passed, 0 within', helpValue: '<usd>'}),
    per: Flags.string({description: 'the period of --max-cost (default day)', options: [...BUDGET_PERIODS]}),
    check: Flags.boolean({description: 'check the budgets in clawkit\'s settings (every agent) and look for runaway sessions: exit code 7 when a limit is passed or a runaway found'}),
    notify: Flags.string({description: 'with --max-cost or --check: send one alert per limit passed and period (and per runaway and hour) through message send\'s path, e.g. discord:channel:<id>', helpValue: '<channel>:<target>'}),
    statusline: Flags.boolean({description: 'print one short line for a shell prompt or tmux: today\'s spend, this month\'s, and the most expensive session active in the last hour (every agent unless --agent)'}),
    watch: Flags.boolean({description: 'on a terminal: redraw the report in place every 5 s, until Ctrl-C'}),
    csv: Flags.boolean({description: 'print the rows as CSV (a header line, no total line)'}),
    agent: Flags.string({description: 'agent id (default: the configured default agent)', helpValue: '<id>'}),
    'all-agents': Flags.boolean({description: 'every agent (configured or found on disk)'}),
    'include-archived': Flags.boolean({description: 'count .reset./.deleted. archives and earlier windows (on by default)', default: true, allowNo: true}),
    limit: Flags.string({description: 'show the top N rows by cost (the total still counts every call)', helpValue: '<n|all>'}),
    scan: Flags.boolean({description: 'read every transcript instead of clawkit\'s local catalog (which also remembers the spend of transcripts OpenClaw removed)'}),
    wide: Flags.boolean({description: 'print every column in full (on a terminal, columns are otherwise left out or cut to fit its width)'}),
    'store-url': storeUrlFlag,
    ...hostFlags,
    ...pagerFlags,
  }

  async run(): Promise<SessionsUsageResult | undefined> {
    const f = this.flags
    if (f.statusline) return this.statusLine()
    if (f.watch) return this.watch()
    const hosts = await this.fleetHostsFromFlags()
    if (f.csv && this.jsonEnabled()) throw new UsageError('--csv and --json print two different documents: use one', 'E_FLAG_CONFLICT')
    const checking = f.check || f['max-cost'] !== undefined
    if (f.per !== undefined && f['max-cost'] === undefined) throw new UsageError('--per is the period of --max-cost: add --max-cost <usd>', 'E_BAD_FLAG')
    if (f.notify !== undefined && !checking) throw new UsageError('--notify sends budget alerts: add --max-cost <usd> or --check', 'E_BAD_FLAG')
    if (checking && hosts) throw new UsageError('budgets are checked on a local state dir; the fleet replica is read only for reports', 'E_FLAG_CONFLICT')
    // The budget code (and message send's, for alerts) loads only for a check: a report or a status line starts without it.
    const budget = checking ? await import('../../sessions/budget.js') : undefined
    const notify = f.notify === undefined ? undefined : budget!.parseNotify(f.notify)
    const opts = {by: f.by, since: f.since, until: f.until, last: f.last, timezone: f.timezone, agent: f.agent, allAgents: f['all-agents'], includeArchived: f['include-archived'], limit: f.limit}
    let result: SessionsUsageResult
    if (hosts) result = await fleetUsage(hosts, {...opts, prefixHost: f.host === undefined})
    else {
      const state = this.openState()
      // The ledger's code loads only here: every other command starts without it.
      const ledger = f.scan ? undefined : (await import('../../catalog/ledger.js')).catalogLedger(await this.catalog(state))
      result = await sessionsUsage(state, ledger ? {...opts, ledger} : {...opts, scan: true})
      if (budget) {
        const {budgetCheck, budgetsOf, sendAlerts} = budget
        const settings = loadSettings(state.env)
        const budgets = budgetsOf(f.check ? settings.budgets : [], {maxCost: f['max-cost'], per: f.per})
        if (f.check && !settings.budgets?.length && f['max-cost'] === undefined) {
          process.stderr.write(`Note: no budgets in ${settingsPath(state.env)} ("budgets": [{"maxCostUsd": 20, "per": "day"}]); only runaway sessions are checked.\n`)
        }
        const now = new Date()
        const check = await budgetCheck(state, {budgets, agents: result.agents, timezone: result.timezone, now, ...(ledger ? {ledger} : {})})
        const alerts = notify ? await sendAlerts(state, {check, notify, dataDir: clawkitDirs(state.env).data, now}) : []
        result = {...result, budget: {...check, alerts}}
        for (const a of alerts) if (a.status === 'failed') process.stderr.write(`Warning: the alert about ${printable(a.about)} could not be sent to ${printable(`${a.channel}:${a.target}`)}: ${printable(a.error ?? '')}; the next check tries again.\n`)
        if (check.over > 0 || check.runaways.length > 0) process.exitCode = ExitCode.budgetExceeded
      }
    }
    if (f.csv) this.out(usageCsv(result).trimEnd())
    else if (!this.jsonEnabled()) await this.page(renderUsage(result, {width: f.wide ? undefined : terminalWidth(), bars: Boolean(process.stdout.isTTY)}))
    else {
      // The document counts them; a script that reads only the totals still hears that they may be short.
      if (result.badLines > 0) process.stderr.write(`Warning: ${result.badLines} unreadable line(s) skipped in the transcripts read (any of them may have been a model call); run "clawkit doctor".\n`)
      if (result.badValues > 0) process.stderr.write(`Warning: ${result.badValues} token or cost figure(s) were not plausible numbers: counted as 0 (badValues).\n`)
    }
    return result
  }

  /** --statusline: one line from the catalog (a scan without it), for every agent unless --agent. */
  private async statusLine(): Promise<undefined> {
    const f = this.flags
    if (this.jsonEnabled() || f.csv || f.watch) throw new UsageError('--statusline prints one line of text: leave out --json, --csv and --watch', 'E_FLAG_CONFLICT')
    if (f['store-url'] !== undefined) throw new UsageError('--statusline reads the local state dir', 'E_FLAG_CONFLICT')
    const state = this.openState()
    const ledger = f.scan ? undefined : (await import('../../catalog/ledger.js')).catalogLedger(await this.catalog(state))
    const line = await usageStatusLine(state, {...(f.agent ? {agent: f.agent} : {}), timezone: usageTimeZone(f.timezone), now: new Date(), ...(ledger ? {ledger} : {})})
    process.stdout.write(renderStatusLine(line))
    return undefined
  }

  /**
   * --watch: the report redrawn in place every 5 s on the terminal's alternate screen (cursor home, each line cleared to
   * its end, the rest cleared), as status --watch does; Ctrl-C leaves with the last report printed.
   */
  private async watch(): Promise<undefined> {
    const f = this.flags
    if (this.jsonEnabled() || f.csv) throw new UsageError('--watch redraws a report; --json and --csv print one document: use one or the other', 'E_FLAG_CONFLICT')
    if (f['store-url'] !== undefined || f.check || f['max-cost'] !== undefined) throw new UsageError('--watch redraws a local report; budgets are checked once (run the check from cron instead)', 'E_FLAG_CONFLICT')
    if (!process.stdout.isTTY) throw new UsageError('--watch redraws the screen of a terminal, and stdout is not one', 'E_NOT_A_TERMINAL', ['for a record over time, run "clawkit sessions usage --json" at intervals instead'])
    const state = this.openState()
    const {catalogLedger} = await import('../../catalog/ledger.js')
    const opts = {by: f.by, since: f.since, until: f.until, last: f.last, timezone: f.timezone, agent: f.agent, allAgents: f['all-agents'], includeArchived: f['include-archived'], limit: f.limit}
    const live = startLive()
    const ESC = '\u001B['
    let last = ''
    await live.write(`${ESC}?1049h${ESC}?25l${ESC}2J`)
    try {
      while (!live.signal.aborted) {
        // Each frame is a fresh report: --since 7d and --last move with the clock, and a catalog of its own brings
        // the ledger up to date (a catalog reads each agent once, for one answer).
        const catalog = f.scan ? undefined : await this.unlistedCatalog(state)
        let result: SessionsUsageResult
        try {
          result = await sessionsUsage(state, {...opts, now: new Date(), ...(catalog ? {ledger: catalogLedger(catalog)} : {scan: true})})
        } finally {
          catalog?.close()
        }
        const width = f.wide ? undefined : (process.stdout.columns ?? 80)
        last = renderUsage(result, {width, bars: true})
        const head = paint(colorEnabled(), 'dim', `Watching: redrawn every 5 s (last ${localTime(new Date().toISOString())}); Ctrl-C to stop.`)
        const lines = [head, ...last.trimEnd().split('\n')]
        const rows = process.stdout.rows ?? 24
        const shown = lines.length <= rows - 1 ? lines : [...lines.slice(0, rows - 2), `\u2026 ${lines.length - rows + 2} more line(s): a taller terminal shows them`]
        await live.write(`${ESC}H${shown.map((l) => `${l}${ESC}K`).join('\n')}${ESC}J`)
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 5000)
          live.signal.addEventListener('abort', () => {
            clearTimeout(t)
            resolve()
          }, {once: true})
        })
      }
    } finally {
      process.stdout.write(`${ESC}?25h${ESC}?1049l${last}`)
      live.done()
    }
    return undefined
  }
}
