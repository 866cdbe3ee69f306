// Reaching a fleet's PostgreSQL: which URL applies (flag, CLAWKIT_STORE_URL, clawkit's settings), how it may be shown
// (never with its password), and a client from the `pg` package, loaded only when a URL is given so that local commands
// never pay for it. Credentials come from the URL, PG* variables or ~/.pgpass, which `pg` itself reads.
import {ClawkitError, ExitCode} from '../errors.js'
import {importPg} from '../lazy.js'
import {loadSettings} from '../settings.js'
import {redactText} from '../text/redact.js'
import {storeUrlOf} from './store-url.js'

/** The subset of pg's Client that clawkit uses (the package's own types are a dev dependency only). */
export interface PgClient {
  query<R extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<{rows: R[]; rowCount: number | null}>
  end(): Promise<void>
  on(event: 'error', listener: (error: Error) => void): unknown
}

export interface StoreUrl {
  url: string
  from: 'flag' | 'env' | 'settings'
}

/**
 * `--to`, else CLAWKIT_STORE_URL, else `storeUrl` in clawkit's settings, as the URL to connect with (libpq key=value
 * pairs turned into one); undefined when none. One that is neither is a usage error naming where it came from.
 */
export function resolveStoreUrl(flag: string | undefined, env: Record<string, string | undefined> = process.env, flagName = '--to'): StoreUrl | undefined {
  if (flag?.trim()) return {url: storeUrlOf(flag, flagName, displayUrl), from: 'flag'}
  if (env.CLAWKIT_STORE_URL?.trim()) return {url: storeUrlOf(env.CLAWKIT_STORE_URL, 'CLAWKIT_STORE_URL', displayUrl), from: 'env'}
  const s = loadSettings(env).storeUrl
  return s ? {url: storeUrlOf(s, 'storeUrl (clawkit settings)', displayUrl), from: 'settings'} : undefined
}

/** The URL as it may appear in output and errors: no password, no `password=` parameter. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = ''
    for (const k of [...u.searchParams.keys()]) if (/pass/i.test(k)) u.searchParams.set(k, '<redacted>')
    return u.toString().replace(/^(\w+:\/\/[^:@/]*):@/, '$1@')
  } catch {
    // Not a URL (a libpq key=value string): show only that there was one.
    return '<connection string>'
  }
}

/** Every form the password of `url` could take in a message (raw and percent-decoded), for scrubbing. */
function secretsOf(url: string): string[] {
  try {
    const u = new URL(url)
    const out = [u.password]
    try {
      out.push(decodeURIComponent(u.password))
    } catch {
      // A malformed escape (%zz): the raw form is scrubbed all the same.
    }
    for (const [k, v] of u.searchParams) if (/pass/i.test(k)) out.push(v)
    return out.filter((s) => s.length > 0)
  } catch {
    return []
  }
}

function scrub(text: string, url: string): string {
  let out = text.split(url).join(displayUrl(url))
  for (const s of secretsOf(url)) out = out.split(s).join('<redacted>')
  return redactText(out)
}

const SQLSTATE_HINTS: Record<string, string> = {
  '28P01': 'the password was refused: check the URL, PGPASSWORD or ~/.pgpass',
  '28000': 'the server refused this role or host (pg_hba.conf)',
  '3D000': 'the database does not exist: create it first (docs/fleet.md, "Setting up a fleet database")',
  '42501': 'the role lacks a privilege sync needs (docs/fleet.md, "Setting up a fleet database", lists them)',
}

/** A driver or server error as one line that names the database (without its password) and what to do. */
export function pgError(error: unknown, url: string, doing: string): ClawkitError {
  const e = error as {code?: string; message?: string}
  const hint = (e.code && SQLSTATE_HINTS[e.code]) || (e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === 'ETIMEDOUT' ? 'is the server running and reachable from here?' : undefined)
  const msg = scrub(String(e.message ?? error), url)
  return new ClawkitError(`could not ${doing} at ${displayUrl(url)}: ${msg}${hint ? ` (${hint})` : ''}`, {code: 'E_STORE_DB', exitCode: ExitCode.failure, cause: error})
}

interface PgModule {
  Client: new (config: Record<string, unknown>) => PgClient & {connect(): Promise<void>}
  types: {setTypeParser(oid: number, parse: (v: string) => unknown): void}
}

let pgModule: Promise<PgModule> | undefined

/** `pg`, imported on first use only. */
async function loadPg(): Promise<PgModule> {
  pgModule ??= importPg().then((m) => {
    const pg = ((m as {default?: unknown}).default ?? m) as PgModule
    // int8 (counts, sums, seq) as numbers: clawkit's values stay far below 2^53.
    pg.types.setTypeParser(20, (v) => Number(v))
    return pg
  })
  return pgModule
}

/** A connected client; errors come back as one line without the password. */
export async function connectPg(url: string, opts: {applicationName?: string} = {}): Promise<PgClient> {
  const pg = await loadPg()
  let client: PgClient & {connect(): Promise<void>}
  try {
    // The constructor parses the URL: a malformed one ("Invalid URL", a port past 65535) fails here, named like the rest.
    client = new pg.Client({connectionString: url, application_name: opts.applicationName ?? 'clawkit', connectionTimeoutMillis: 15_000})
    // An idle client whose server goes away emits 'error'; unhandled it would crash the process with a stack trace.
    client.on('error', () => {})
    await client.connect()
  } catch (error) {
    throw pgError(error, url, 'connect to the fleet database')
  }
  return client
}
