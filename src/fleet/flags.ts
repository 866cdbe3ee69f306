// The flags of the fleet reads (`--store-url`, `--host`, `--all-hosts`), shared by the read commands. Only the flag
// switches a command to the replica: CLAWKIT_STORE_URL and the settings' storeUrl are where `clawkit sync` sends rows,
// and a variable set for a cron'd sync must never turn this machine's `sessions list` into a fleet read.
import {Flags} from '@oclif/core'

import {ClawkitError, ExitCode, UsageError} from '../errors.js'
import {displayUrl} from './pg.js'
import {storeUrlOf} from './store-url.js'

export const storeUrlFlag = Flags.string({
  description: 'read the fleet replica in this PostgreSQL database (filled by `clawkit sync`) instead of the local store; the password is best kept in ~/.pgpass or PGPASSWORD',
  helpValue: '<url>',
  helpGroup: 'FLEET',
})

export const hostFlags = {
  host: Flags.string({description: 'with --store-url: only this host', helpValue: '<name>', helpGroup: 'FLEET'}),
  'all-hosts': Flags.boolean({description: 'with --store-url: every host that has synced (the default)', helpGroup: 'FLEET'}),
}

/** --host/--all-hosts mean nothing without --store-url: a usage error rather than a silently local read. */
export function requireStoreUrlFor(flags: {'store-url'?: string; host?: string; 'all-hosts'?: boolean}): void {
  if (flags['store-url'] !== undefined && !flags['store-url'].trim()) throw new UsageError('--store-url needs a PostgreSQL URL, for example --store-url postgres://reader@db.example/fleet', 'E_BAD_STORE_URL')
  if (flags['store-url']) {
    checkStoreUrl(flags['store-url'])
    return
  }
  const given = flags.host !== undefined ? '--host' : flags['all-hosts'] ? '--all-hosts' : undefined
  if (given) throw new UsageError(`${given} reads the fleet replica: add --store-url <url>`, 'E_FLAG_CONFLICT')
}

/**
 * On the commands that write (agent, sessions reset, message send, doctor): accepted only to refuse it in one clear
 * line, rather than oclif's "unknown flag", since a user who reads the fleet will try them there too.
 */
export const refusedStoreUrlFlag = Flags.string({description: 'refused: the fleet replica is for reading; run this command on the host', helpValue: '<url>', hidden: true})

/** E_REPLICA_READ_ONLY (exit 2) when a writing command is given --store-url. */
export function refuseReplicaWrite(flags: {'store-url'?: string}, command: string): void {
  if (flags['store-url'] === undefined) return
  throw new ClawkitError(`the fleet replica is for reading; run this on the host: ${command}`, {code: 'E_REPLICA_READ_ONLY', exitCode: ExitCode.usage, suggestions: [`drop --store-url to run "${command}" on this machine's own store`]})
}

/**
 * A `postgres://` URL or libpq key=value pairs (src/fleet/store-url.ts): anything else (another database's scheme, a
 * typo, a port past 65535) is a usage error before any connection is tried. The message shows it without its password.
 */
export function checkStoreUrl(raw: string): string {
  return storeUrlOf(raw, '--store-url', displayUrl)
}
