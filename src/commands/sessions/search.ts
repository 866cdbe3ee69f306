// `clawkit sessions search <pattern>`: where something was said, across agents, keys and (on request) archives.
import {Args, Flags} from '@oclif/core'

import {BaseCommand, pagerFlags} from '../../cli/base-command.js'
import {UsageError} from '../../errors.js'
import {hostFlags, storeUrlFlag} from '../../fleet/flags.js'
import {colorEnabled} from '../../render/color.js'
import {renderSearch} from '../../render/sessions/search.js'
import type {SessionsSearchResult} from '../../sessions/search.js'

export type {SearchMatch} from '../../sessions/search-matcher.js'
export type {SearchKind, SearchRole} from '../../sessions/search-text.js'
export type {SearchHit, SessionsSearchResult} from '../../sessions/search.js'

export default class SessionsSearch extends BaseCommand<typeof SessionsSearch> {
  static override summary = 'Find text in what was said, across sessions, agents and archives'
  static override description =
    'Searches message text, tool-call arguments, tool results and compaction/branch summaries (never the JSON around them), newest first. The pattern is literal and case-insensitive unless it has an upper-case letter (smart case, as in ripgrep); --regex makes it a regular expression in RE2 syntax, as ripgrep takes it (matched in linear time; no lookarounds or backreferences; README "sessions search" lists the syntax). On a SQLite store OpenClaw\'s full-text index is used where it gives the same answer as a scan (--word on user or assistant text). No hits is not an error: exit 0 and an empty list.'
  static override examples = [
    '<%= config.bin %> sessions search "deploy key"',
    '<%= config.bin %> sessions search --regex "error \\d{3}" --role tool --since 7d',
    '<%= config.bin %> sessions search invoice --all-agents --include-archived --json',
    '<%= config.bin %> sessions search "refund" --store-url postgres://reader@db.example/fleet --all-hosts',
  ]
  static override args = {
    pattern: Args.string({description: 'text to look for (a regular expression with --regex)'}),
  }
  static override flags = {
    regex: Flags.boolean({description: 'the pattern is a regular expression, RE2 syntax as in ripgrep: [[:alpha:]], \\pL, (?i), \\Q..\\E; no lookarounds or backreferences; up to 4096 characters'}),
    word: Flags.boolean({char: 'w', description: 'match whole words only (not inside a longer word)'}),
    agent: Flags.string({description: 'agent id (default: the configured default agent)', helpValue: '<id>'}),
    'all-agents': Flags.boolean({description: 'every agent (configured or found on disk)'}),
    key: Flags.string({description: 'only this session key\'s transcripts', helpValue: '<key>'}),
    role: Flags.string({description: 'only text of this role (tool: tool-call arguments and tool results; summary: compaction and branch summaries)', options: ['user', 'assistant', 'tool', 'summary']}),
    since: Flags.string({description: 'only entries at or after this date/time or duration ago (2026-11-01, 7d, 12h)', helpValue: '<when>'}),
    until: Flags.string({description: 'only entries at or before this date/time or duration ago (a bare date: that whole day)', helpValue: '<when>'}),
    'include-archived': Flags.boolean({description: 'also search .reset./.deleted. archives and earlier SQLite windows'}),
    limit: Flags.string({description: 'show the newest N hits (default 50)', helpValue: '<n|all>'}),
    scan: Flags.boolean({description: 'never use a full-text index (clawkit\'s local catalog, OpenClaw\'s in the SQLite era, the replica\'s trigram index): read every event'}),
    'store-url': storeUrlFlag,
    ...hostFlags,
    ...pagerFlags,
  }

  async run(): Promise<SessionsSearchResult> {
    const f = this.flags
    const pattern = this.args.pattern
    if (pattern === undefined) throw new UsageError('Pass the text to look for: clawkit sessions search <pattern>', 'E_MISSING_PATTERN')
    const hosts = await this.fleetHostsFromFlags()
    // Loaded here only: `sessions list` and every other command start without the search code.
    const {fleetSearch, sessionsSearch} = await import('../../sessions/search.js')
    const opts = {
      regex: f.regex,
      word: f.word,
      agent: f.agent,
      allAgents: f['all-agents'],
      key: f.key,
      role: f.role,
      since: f.since,
      until: f.until,
      includeArchived: f['include-archived'],
      limit: f.limit,
      scan: f.scan,
    }
    let result: SessionsSearchResult
    if (hosts) result = await fleetSearch(hosts, pattern, opts)
    else {
      const state = this.openState()
      // --scan reads every line: no index at all, the catalog included.
      result = await sessionsSearch(state, pattern, f.scan ? opts : {...opts, index: (await this.catalog(state)).searchIndex()})
    }
    if (!this.jsonEnabled()) await this.page(renderSearch(result, colorEnabled()))
    return result
  }
}
