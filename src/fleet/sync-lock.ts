// One host's syncs take turns: a PostgreSQL advisory lock keyed by the host name, held for the whole sync (the
// session's end releases it, a killed sync's too).
import {ClawkitError, ExitCode} from '../errors.js'
import type {PgClient} from './pg.js'

/** Held by a running sync of this host; its name is in the message. */
export class SyncBusyError extends ClawkitError {
  constructor(host: string, waitedMs: number) {
    super(`another clawkit sync of host "${host}" is running against this database (waited ${Math.round(waitedMs / 1000)} s); it finishes what this one would do, so try again later`, {
      code: 'E_SYNC_BUSY',
      exitCode: ExitCode.failure,
    })
  }
}

/** The advisory lock of one host's syncs: a two-key lock (its own space, apart from the migrations' one-key lock). */
const SYNC_LOCK_CLASS = 7_264_019

export async function takeHostLock(client: PgClient, host: string, waitMs: number): Promise<void> {
  const started = Date.now()
  for (;;) {
    const r = await client.query<{ok: boolean}>("SELECT pg_try_advisory_lock($1, hashtext('clawkit-sync:' || $2)) AS ok", [SYNC_LOCK_CLASS, host])
    if (r.rows[0]?.ok) return
    // A sync killed a moment ago holds it until its server process notices the closed connection: a short wait covers that.
    if (Date.now() - started >= waitMs) throw new SyncBusyError(host, Date.now() - started)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

