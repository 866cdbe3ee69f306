// `clawkit sessions export`: a session as Markdown, self-contained HTML or its JSONL, streamed to stdout or a file.
import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {UsageError} from '../../errors.js'
import {hostFlags, storeUrlFlag} from '../../fleet/flags.js'
import {type ExportFormat, exportSession, type SessionsExportResult} from '../../sessions/export.js'

export type {ExportedSession, SessionsExportResult} from '../../sessions/export.js'

export default class SessionsExport extends BaseCommand<typeof SessionsExport> {
  static override summary = 'Export a session as Markdown, HTML or JSONL'
  static override description =
    'Streams the transcript (any size) to stdout or --out. md: a readable document; html: one self-contained page (no scripts, no network, light and dark themes, collapsible tool calls); jsonl: the lines as stored. Credentials from the config never appear in an export; --redact also masks key- and token-shaped strings.'
  static override examples = [
    '<%= config.bin %> sessions export agent:main:main > chat.md',
    '<%= config.bin %> sessions export main --format html --out chat.html',
    '<%= config.bin %> sessions export main --format jsonl --include-archived --out ./exports/',
    '<%= config.bin %> sessions export agent:main:main --store-url postgres://reader@db/fleet --host web-1 --format html --out chat.html',
  ]
  static override args = {
    session: Args.string({description: 'session key or sessionId (a current or an archived session)'}),
  }
  static override flags = {
    agent: Flags.string({description: 'agent whose store to search', helpValue: '<id>'}),
    format: Flags.string({description: 'md, html or jsonl', options: ['md', 'html', 'jsonl'], default: 'md'}),
    out: Flags.string({description: 'write to this file (jsonl with --include-archived: a directory takes one file per session)', helpValue: '<file>'}),
    force: Flags.boolean({description: 'overwrite an existing --out file'}),
    'include-archived': Flags.boolean({description: 'every session the key has had, oldest first, with a boundary at each reset'}),
    redact: Flags.boolean({description: 'also mask strings that look like API keys or tokens inside messages (always on with --store-url, where the host config\'s own credentials are unknown)'}),
    'store-url': storeUrlFlag,
    host: hostFlags.host,
  }

  async run(): Promise<SessionsExportResult> {
    const target = this.args.session
    if (!target) throw new UsageError('Pass a session key or id: clawkit sessions export <key|sessionId>', 'E_MISSING_SESSION')
    // The export itself goes to stdout without --out; a JSON document there would be mixed into it.
    if (this.jsonEnabled() && !this.flags.out) throw new UsageError('--json needs --out: without it the export itself is written to stdout.', 'E_FLAG_CONFLICT')
    const host = await this.fleetHostFor(target)
    const opts = {
      agent: this.flags.agent,
      format: this.flags.format as ExportFormat,
      out: this.flags.out,
      force: this.flags.force,
      includeArchived: this.flags['include-archived'],
      // The replica holds no host's openclaw.json, so the credentials it names cannot be removed by value there (one that
      // is not shaped like a key stays: docs/fleet.md, "Reading the fleet"): the export masks every key- and token-shaped string, always.
      redact: this.flags.redact || host !== undefined,
    }
    const result: SessionsExportResult = host ? {host: host.host, ...(await exportSession(host, target, opts))} : await exportSession(this.openState(), target, opts)
    if (this.flags.out && !this.jsonEnabled()) {
      process.stderr.write(`Exported ${result.messages} messages from ${result.sessions.length} session${result.sessions.length === 1 ? '' : 's'} to ${result.out}\n`)
    }
    return result
  }
}
