// Why a network request failed, in words: connection refused, DNS, TLS, reset, timeout. One wording for the model API,
// the channel APIs and the gateway probe, instead of "Connection error." or a bare errno code.

interface Errish {
  code?: unknown
  message?: unknown
  cause?: unknown
  errors?: unknown
}

const TLS_RE = /^(CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH|EPROTO$)/

/** The innermost error that carries an errno-style code (fetch and the SDK wrap it in one or two layers). */
function rootCause(err: unknown): Errish | undefined {
  let e = err as Errish | undefined
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    if (typeof e.code === 'string' && /^[A-Z_]+$/.test(e.code)) return e
    // happy-eyeballs connects fail with an AggregateError whose parts carry the codes.
    if (Array.isArray(e.errors) && e.errors.length > 0) return rootCause(e.errors[0])
    e = e.cause as Errish | undefined
  }
  return undefined
}

/**
 * A short phrase for a transport failure, e.g. "connection refused (ECONNREFUSED)", or undefined when the error is
 * not one (an HTTP status, an abort). No parentheses beyond the code, so callers can wrap it in their own.
 */
export function networkCause(err: unknown): string | undefined {
  const e = rootCause(err)
  if (!e) return undefined
  const code = String(e.code)
  if (code === 'ABORT_ERR') return undefined
  const msg = typeof e.message === 'string' ? e.message : ''
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (ECONNREFUSED)'
    case 'ENOTFOUND':
      return 'host not found: the DNS lookup failed (ENOTFOUND)'
    case 'EAI_AGAIN':
      return 'the DNS lookup timed out (EAI_AGAIN)'
    case 'ECONNRESET':
      return 'the connection was reset (ECONNRESET)'
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `the connection timed out (${code})`
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `the network or host is unreachable (${code})`
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return `the connection was closed (${code})`
    default:
      if (TLS_RE.test(code)) {
        // OpenSSL's text is "<op> EPROTO <hex>:error:<hex>:SSL routines:<fn>:<reason>:<source file>:<line>:"; the reason is the part worth showing.
        const reason = /SSL routines:[^:]*:([^:]+)/.exec(msg)?.[1] ?? msg.replace(/[.\s]+$/, '')
        return `TLS failed: ${reason || code} (${code})`
      }
      return msg ? `${msg.replace(/[.\s]+$/, '')} (${code})` : code
  }
}
