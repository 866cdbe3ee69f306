// Fills the fleet replica for the read tests with the real thing: `clawkit sync` run as a child process of the built
// CLI on one host's state dir. (Until sync landed, a test-only loader stood in for it; the read tests kept its name.)
import {connectPg} from '../../src/fleet/pg.js'
import type {SyncResult} from '../../src/fleet/sync.js'
import {expect} from 'vitest'

import {baseEnv, json, runCli, type RunResult, tempDir} from './cli.js'

export interface SeedResult {
  agents: number
  entries: number
  transcripts: number
  events: number
}

/**
 * `clawkit sync --to <url> --host <host>` of every agent of `stateDir` (or `agents`). `lastSyncAt` then back-dates the
 * host's sync times, for tests of the lag status reports.
 */
export async function seedHost(url: string, opts: {host: string; stateDir: string; agents?: string[]; lastSyncAt?: Date}): Promise<SeedResult> {
  const out: SeedResult = {agents: 0, entries: 0, transcripts: 0, events: 0}
  for (const args of opts.agents ? opts.agents.map((a) => ['--agent', a]) : [['--all-agents']]) {
    const r = await runCli(['sync', '--to', url, '--host', opts.host, '--state-dir', opts.stateDir, ...args, '--json'], {env: baseEnv(tempDir())})
    if (r.code !== 0) throw new Error(`clawkit sync of ${opts.host} failed (${r.code}): ${r.stdout}${r.stderr}`)
    const doc = json<SyncResult>(r)
    out.agents += doc.agents.length
    out.entries += doc.total.entriesUpserted
    out.transcripts += doc.total.transcripts.new + doc.total.transcripts.updated + doc.total.transcripts.rewritten
    out.events += doc.total.events
  }
  if (opts.lastSyncAt) {
    const client = await connectPg(url)
    try {
      await client.query('UPDATE clawkit_hosts SET last_sync_started_at = $2, last_sync_at = $2 WHERE host = $1', [opts.host, opts.lastSyncAt])
    } finally {
      await client.end()
    }
  }
  return out
}

/**
 * The two sides the fleet read tests compare: `local(host, args)` runs the CLI on that host's own state dir,
 * `fleet(args)` on the replica at `url()`; `ok` asserts exit 0. Each keeps the document type of the command it runs.
 */
export function fleetRunners(hosts: Record<string, string>, url: () => string) {
  return {
    local: <const A extends readonly string[]>(host: string, args: A) => runCli([...args, '--state-dir', hosts[host]] as const, {env: baseEnv(tempDir())}),
    fleet: <const A extends readonly string[]>(args: A, extra: Record<string, string> = {}) => runCli([...args, '--store-url', url()] as const, {env: baseEnv(tempDir(), extra)}),
    ok<D>(r: RunResult<D>): RunResult<D> {
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0)
      return r
    },
    /** Rows without `ageMs`, which depends on when each side ran. */
    withoutAge: <T extends {ageMs?: unknown}>(rows: T[]) => rows.map(({ageMs: _a, ...r}) => r),
  }
}
