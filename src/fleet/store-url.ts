// What clawkit takes as the fleet database's address (`sync --to`, `--store-url`, CLAWKIT_STORE_URL, settings): a
// postgres:// URL, or libpq's key=value pairs as psql takes them, turned into the URL the `pg` package parses. Anything
// else is a usage error before any connection or DNS lookup is tried.
import {UsageError} from '../errors.js'

/** The forms that work, as every refusal names them. */
export const STORE_URL_FORMS = 'give one like postgres://reader@db.example:5432/fleet, or libpq key=value pairs (host=db.example dbname=fleet user=reader)'

/**
 * The libpq keywords `pg` honours, and the query parameter each becomes (pg-connection-string reads `host`, `port`,
 * `user`, `password` and the ssl settings from the query, and the database from the path). libpq refuses a keyword it
 * does not know; clawkit refuses one its client would silently ignore (target_session_attrs, load_balance_hosts...).
 */
const KEYWORDS = new Set(['host', 'hostaddr', 'port', 'dbname', 'user', 'password', 'sslmode', 'sslcert', 'sslkey', 'sslrootcert', 'application_name', 'connect_timeout', 'options', 'client_encoding'])

/** A string in libpq's key=value form rather than a URL: it starts with `keyword =` and has no `scheme://`. */
function looksLikeConninfo(raw: string): boolean {
  return /^\s*[A-Za-z_]+\s*=/.test(raw) && !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(raw.trim())
}

/**
 * libpq's conninfo syntax (PQconnectdb): `keyword = value` pairs separated by whitespace; a value is single-quoted to
 * hold spaces, and inside a value `\'` and `\\` stand for a quote and a backslash. Throws a message on bad syntax.
 */
export function parseConninfo(raw: string): Map<string, string> {
  const out = new Map<string, string>()
  let i = 0
  const n = raw.length
  const space = (c: string | undefined) => c !== undefined && /\s/.test(c)
  while (i < n) {
    while (space(raw[i])) i++
    if (i >= n) break
    const start = i
    while (i < n && raw[i] !== '=' && !space(raw[i])) i++
    const key = raw.slice(start, i)
    while (space(raw[i])) i++
    if (raw[i] !== '=') throw new Error(`"${key}" has no "=" after it`)
    i++
    while (space(raw[i])) i++
    let value = ''
    if (raw[i] === "'") {
      i++
      for (;;) {
        if (i >= n) throw new Error(`the quoted value of "${key}" is unterminated`)
        const c = raw[i++]
        if (c === "'") break
        if (c === '\\' && i < n) value += raw[i++]
        else value += c
      }
    } else {
      while (i < n && !space(raw[i])) {
        const c = raw[i++]
        if (c === '\\' && i < n) value += raw[i++]
        else value += c
      }
    }
    if (!/^[A-Za-z_]+$/.test(key)) throw new Error(`"${key}" is not a keyword`)
    out.set(key, value)
  }
  return out
}

/** The postgres:// URL that says what a conninfo string says (the password, if any, in the `password` parameter). */
function conninfoToUrl(info: Map<string, string>, what: string): string {
  const unknown = [...info.keys()].filter((k) => !KEYWORDS.has(k))
  if (unknown.length > 0) throw new UsageError(`${what}: the keyword ${unknown.map((k) => `"${k}"`).join(', ')} is not one clawkit's PostgreSQL client honours (it takes ${[...KEYWORDS].join(', ')}); ${STORE_URL_FORMS}`, 'E_BAD_STORE_URL')
  const host = info.get('host') || info.get('hostaddr')
  if (host?.includes(',')) throw new UsageError(`${what}: several hosts (host=${host}) are not supported; name one, ${STORE_URL_FORMS}`, 'E_BAD_STORE_URL')
  const q = new URLSearchParams()
  if (host) q.set('host', host)
  for (const k of ['port', 'user', 'password', 'sslmode', 'sslcert', 'sslkey', 'sslrootcert', 'application_name', 'connect_timeout', 'options', 'client_encoding']) {
    const v = info.get(k)
    if (v !== undefined && v !== '') q.set(k, v)
  }
  const db = info.get('dbname')
  const query = q.toString()
  return `postgres:///${db ? encodeURIComponent(db) : ''}${query ? `?${query}` : ''}`
}

/**
 * The fleet database's address as the URL clawkit connects with: a postgres:// or postgresql:// URL as given (trimmed),
 * or libpq key=value pairs turned into one. `what` names where it came from (`--store-url`, `CLAWKIT_STORE_URL`...).
 * Anything else (another scheme, not a URL, a port past 65535, an unknown keyword) is E_BAD_STORE_URL, exit 2, shown
 * without its password; nothing is looked up or connected to.
 */
export function storeUrlOf(raw: string, what: string, display: (url: string) => string): string {
  const text = raw.trim()
  if (looksLikeConninfo(text)) {
    let info: Map<string, string>
    try {
      info = parseConninfo(text)
    } catch (error) {
      throw new UsageError(`${what} <connection string> is not valid libpq key=value syntax: ${(error as Error).message}; ${STORE_URL_FORMS}`, 'E_BAD_STORE_URL')
    }
    return conninfoToUrl(info, `${what} <connection string>`)
  }
  let u: URL | undefined
  try {
    u = new URL(text)
  } catch {}
  if (!u || (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:')) {
    throw new UsageError(`${what} ${u ? display(text) : '<not a URL>'} is not a PostgreSQL URL; ${STORE_URL_FORMS}`, 'E_BAD_STORE_URL')
  }
  return text
}
