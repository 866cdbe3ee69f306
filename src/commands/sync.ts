// `clawkit sync --to <url>`: this host's sessions copied, incrementally, into the fleet's PostgreSQL (src/fleet/sync.ts).
import {Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {ExitCode, UsageError} from '../errors.js'
import {resolveStoreUrl} from '../fleet/pg.js'
import {syncToFleet, type SyncResult} from '../fleet/sync.js'
import {hintInContext, printable} from '../render/safe.js'
import {createSpinner} from '../render/spinner.js'
import {renderSync} from '../render/sync.js'

export type {SyncAgentResult, SyncResult, SyncSkippedAgent, SyncTranscriptCounts} from '../fleet/sync.js'

export default class Sync extends BaseCommand<typeof Sync> {
  static override summary = "Copy this host's sessions into a shared PostgreSQL (the fleet replica)"
  static override description =
    'Uploads index entries, transcripts (archives and earlier windows included) and their usage totals of every agent (or --agent), incrementally: only what changed since the last sync. Runs the schema migrations first. Remote data is never deleted without --prune. The URL comes from --to, CLAWKIT_STORE_URL or clawkit\'s settings (storeUrl); credentials from the URL, PG* variables or ~/.pgpass, never printed.'
  static override examples = [
    '<%= config.bin %> sync --to postgres://sync@db.example/fleet',
    '<%= config.bin %> sync --host gw-eu-1 --json',
    '<%= config.bin %> sync --dry-run',
    '<%= config.bin %> sync --prune',
  ]
  static override flags = {
    to: Flags.string({description: 'the fleet database: a postgres:// URL or libpq key=value pairs (default: $CLAWKIT_STORE_URL, then storeUrl in clawkit settings)', helpValue: '<url>'}),
    host: Flags.string({description: "this host's name in the fleet (default: the machine's host name)", helpValue: '<name>'}),
    agent: Flags.string({description: 'sync only this agent (default: every agent, configured or found on disk)', helpValue: '<id>'}),
    'all-agents': Flags.boolean({description: 'every agent (the default, for symmetry with the other commands)'}),
    'dry-run': Flags.boolean({description: 'report what would be uploaded (and pruned); write nothing, not even migrations'}),
    prune: Flags.boolean({description: 'remove entries and transcripts of this host that are gone locally (listed first)'}),
  }

  async run(): Promise<SyncResult> {
    const f = this.flags
    const url = resolveStoreUrl(f.to)
    if (!url) throw new UsageError('no fleet database given: pass --to <postgres-url>, set CLAWKIT_STORE_URL, or set storeUrl in clawkit settings', 'E_NO_STORE_URL')
    const json = this.jsonEnabled()
    const spinner = await createSpinner('Syncing')
    spinner?.start()
    try {
      const result = await syncToFleet(this.openState(), {
        url: url.url,
        host: f.host,
        agent: f.agent,
        allAgents: f['all-agents'],
        dryRun: f['dry-run'],
        prune: f.prune,
        clawkitVersion: this.config.version,
        onProgress: spinner
          ? (p) => {
              spinner.text = `Syncing ${printable(p.agentId)}: transcript ${p.transcript}/${p.transcripts}, ${p.events} events, ${(p.bytes / 1048576).toFixed(1)} MiB`
            }
          : undefined,
        onPrune: (agentId, what) => {
          if (json) return
          spinner?.stop()
          const lines = [`${f['dry-run'] ? 'Would remove' : 'Removing'} from the replica (agent ${printable(agentId)}, gone on this host):`]
          for (const k of what.entries) lines.push(`  entry ${printable(k)}`)
          for (const t of what.transcripts) lines.push(`  transcript ${printable(t)}`)
          process.stderr.write(`${lines.join('\n')}\n`)
          spinner?.start()
        },
      })
      spinner?.stop()
      // One line per agent left out, even under --json (the document lists them in `skipped`); exit 6 says "partial".
      for (const s of result.skipped) {
        const what = s.needsNode ? `run the sync with Node ${s.needsNode}+ to upload it` : `${hintInContext('run "clawkit doctor"')} on this host, then sync again`
        process.stderr.write(`Warning: agent ${printable(s.agentId)} was not synced: ${printable(s.reason.replace(/\s+$/, ''))}; ${what}.\n`)
      }
      if (result.skipped.length > 0) process.exitCode = ExitCode.syncPartial
      this.out(renderSync(result))
      return result
    } finally {
      spinner?.stop()
    }
  }
}
