// Is an OpenClaw gateway listening? A loopback TCP connect to its configured port, with a short timeout.
import net from 'node:net'

import type {OpenClawConfig} from '../config/config.js'
import type {Env} from '../config/paths.js'
import {networkCause} from '../text/net-error.js'

export const DEFAULT_GATEWAY_PORT = 18_789
export const DEV_GATEWAY_PORT = 19_001
export const PROBE_TIMEOUT_MS = 250
/** The probe's `error` when nothing listens on the port (the `--json` text; the status line says it its own way). */
export const GATEWAY_REFUSED = 'connection refused, no gateway listening'

export interface GatewayProbe {
  host: string
  port: number
  /** Where the port came from: env OPENCLAW_GATEWAY_PORT, config gateway.port, the dev profile, or the default. */
  portSource: 'env' | 'config' | 'dev-profile' | 'default'
  url: string
  reachable: boolean
  connectLatencyMs: number | null
  error: string | null
  /** Set when a gateway listens: clawkit's writes can race with it. */
  warning: string | null
}

function validPort(v: unknown): number | undefined {
  const n = typeof v === 'string' ? Number(v.trim()) : v
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n < 65_536 ? n : undefined
}

/** OpenClaw's order: OPENCLAW_GATEWAY_PORT, then gateway.port, then 19001 for the dev profile, then 18789. */
export function resolveGatewayPort(config: OpenClawConfig, env: Env, profile?: string): {port: number; source: GatewayProbe['portSource']} {
  const fromEnv = validPort(env.OPENCLAW_GATEWAY_PORT)
  if (fromEnv) return {port: fromEnv, source: 'env'}
  const fromConfig = validPort(config.gateway?.port)
  if (fromConfig) return {port: fromConfig, source: 'config'}
  if (profile === 'dev') return {port: DEV_GATEWAY_PORT, source: 'dev-profile'}
  return {port: DEFAULT_GATEWAY_PORT, source: 'default'}
}

export function probeGateway(port: number, source: GatewayProbe['portSource'], timeoutMs = PROBE_TIMEOUT_MS): Promise<GatewayProbe> {
  const host = '127.0.0.1'
  const base = {host, port, portSource: source, url: `ws://${host}:${port}`}
  const started = process.hrtime.bigint()
  return new Promise((resolve) => {
    const socket = net.createConnection({host, port})
    let settled = false
    const finish = (reachable: boolean, error: string | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      const ms = Number((process.hrtime.bigint() - started) / 1_000_000n)
      resolve({
        ...base,
        reachable,
        connectLatencyMs: reachable ? ms : null,
        error,
        warning: reachable
          ? `A gateway is listening on ${host}:${port}. It keeps its own in-memory view of the store and, from about OpenClaw 2026.5, writes sessions.json without a file lock: clawkit writes (reset, doctor --fix) can race with it. Stop the gateway first, or make changes through it.`
          : null,
      })
    }
    // The timeout is decided after the loop's next I/O poll, not in the timers phase: status scans the store
    // synchronously while the connect is under way, and when that takes longer than the timeout, the expired timer
    // would otherwise run before the already-completed connect is seen, calling a listening gateway unreachable.
    const timer = setTimeout(() => setImmediate(() => finish(false, `no answer within ${timeoutMs} ms`)), timeoutMs)
    socket.once('connect', () => finish(true, null))
    // Plain phrases without parentheses: the status line puts its own around the port source.
    socket.once('error', (err: NodeJS.ErrnoException) => finish(false, err.code === 'ECONNREFUSED' ? GATEWAY_REFUSED : (networkCause(err) ?? err.message)))
  })
}
