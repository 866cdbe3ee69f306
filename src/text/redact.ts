// The one redaction point for text that leaves clawkit. Servers echo what they were sent (a Telegram proxy puts the
// request path, with the bot token, into its 400; an API gateway returns the request headers), so no message can be
// trusted to be free of secrets just because clawkit wrote its own part carefully. Every error goes through
// describeError (cli/base-command.ts), which calls redactText; the few warning lines written directly call it too.

export const REDACTED = '<redacted>'

/** Shorter values are not treated as secrets: redacting "main" or "test" would garble ordinary text. */
const MIN_SECRET_LENGTH = 8

const registered = new Set<string>()

/** Env vars whose values are credentials clawkit (or the SDK) may send. */
const SECRET_ENV_RE = /(^|_)(TOKEN|API_KEY|APIKEY|SECRET|PASSWORD|AUTH_TOKEN)$/i

/** Config keys whose string values are credentials, anywhere in openclaw.json (channels, providers, gateway, hooks). */
const SECRET_KEY_RE = /^(token|bottoken|apptoken|usertoken|signingsecret|apikey|api_key|secret|password|authorization|accesstoken|clientsecret|webhooksecret)$/i

/**
 * Shapes of credentials that may reach a message even when clawkit never saw the value (a key from a credential
 * chain, a token typed in a URL): each keeps its label and loses the secret.
 */
const PATTERNS: Array<[RegExp, string]> = [
  [/\b(Bearer|Basic)\s+(?!<redacted>)[^\s"',;)\]}]{8,}/g, `$1 ${REDACTED}`],
  [/\bBot\s+(?!<redacted>)(?=[\w.-]*[\d.])[\w.-]{20,}/g, `Bot ${REDACTED}`],
  [/\bsk-ant-[A-Za-z0-9_-]{6,}/g, REDACTED],
  [/\bxox[abposr]-[A-Za-z0-9-]{6,}/g, REDACTED],
  [/\/bot\d{5,12}:[A-Za-z0-9_-]{20,}/g, `/bot${REDACTED}`],
  // `(?!...\.\.\.)`: placeholders in hints (ANTHROPIC_API_KEY=sk-ant-...) are not secrets.
  [/((?:x-api-key|api[_-]?key|authorization)["']?\s*[:=]\s*["']?)(?!(?:(?:Bearer|Bot|Basic)\s+)?<redacted>)(?![^\s"',;}]*(?:\.\.\.|\u2026))((?:Bearer|Bot|Basic)\s+)?[^\s"',;}]{6,}/gi, `$1$2${REDACTED}`],
]

/** Remember values to redact from now on (tokens read from files, resolved keys). Short or empty values are ignored. */
export function registerSecrets(values: Iterable<string | undefined | null>): void {
  for (const v of values) {
    if (typeof v !== 'string') continue
    const t = v.trim()
    if (t.length >= MIN_SECRET_LENGTH && t !== REDACTED) registered.add(t)
  }
}

/** Every credential-looking string value of a config object (walked, depth-limited, arrays included). */
export function configSecrets(config: unknown): string[] {
  const out: string[] = []
  const walk = (v: unknown, depth: number) => {
    if (depth > 12 || !v || typeof v !== 'object') return
    for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
      if (typeof child === 'string') {
        if (SECRET_KEY_RE.test(k)) out.push(child)
      } else if (k.toLowerCase() === 'headers' && child && typeof child === 'object' && !Array.isArray(child)) {
        // Extra request headers (webhooks, providers) carry their credentials under arbitrary names.
        for (const h of Object.values(child as Record<string, unknown>)) if (typeof h === 'string') out.push(h)
      } else walk(child, depth + 1)
    }
  }
  walk(config, 0)
  return out
}

function envSecrets(env: Record<string, string | undefined>): string[] {
  const out: string[] = []
  for (const [k, v] of Object.entries(env)) if (v && SECRET_ENV_RE.test(k)) out.push(v)
  return out
}

/** The text with every known secret and every credential-shaped string replaced by `<redacted>`. */
export function redactText(text: string, env: Record<string, string | undefined> = process.env): string {
  if (!text) return text
  let out = redactKnownSecrets(text, env)
  for (const [re, rep] of PATTERNS) out = out.replace(re, rep)
  return out
}

/**
 * Only the values clawkit knows to be secrets (the config's credentials, registered tokens, secret env vars), not the
 * credential-shaped patterns: what an export always removes, where a pattern could also mask a user's own text.
 */
export function redactKnownSecrets(text: string, env: Record<string, string | undefined> = process.env): string {
  return secretRedactor(env)(text)
}

/**
 * redactKnownSecrets with the secrets gathered once: for callers that redact many strings (an export of a million
 * lines), where gathering and sorting them per string would cost more than the replacing.
 */
export function secretRedactor(env: Record<string, string | undefined> = process.env): (text: string) => string {
  const secrets = new Set(registered)
  for (const s of envSecrets(env)) if (s.trim().length >= MIN_SECRET_LENGTH) secrets.add(s.trim())
  // Longest first, so a secret that contains another is replaced whole; servers echo paths and query strings
  // URL-encoded (a Telegram token's ':' becomes %3A), so the encoded form goes too.
  const forms: string[] = []
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) {
    forms.push(s)
    const enc = encodeURIComponent(s)
    if (enc !== s) forms.push(enc)
  }
  return (text) => {
    if (!text) return text
    let out = text
    for (const f of forms) if (out.includes(f)) out = out.split(f).join(REDACTED)
    return out
  }
}

/** redactText with the secrets gathered once (see secretRedactor). */
export function textRedactor(env: Record<string, string | undefined> = process.env): (text: string) => string {
  const known = secretRedactor(env)
  return (text) => {
    if (!text) return text
    let out = known(text)
    for (const [re, rep] of PATTERNS) out = out.replace(re, rep)
    return out
  }
}

/** redactText over every string of a JSON-able value (error envelopes, delivery errors); other values unchanged. */
export function redactDeep<T>(value: T, env?: Record<string, string | undefined>): T {
  if (typeof value === 'string') return redactText(value, env) as T
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, env)) as T
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = redactDeep(v, env)
    return out as T
  }
  return value
}
