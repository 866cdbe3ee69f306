// Who owns a state dir: OpenClaw's gateway (or an `agent --local` run) holds its ownership locks for its whole life,
// and clawkit writes nothing to a SQLite-era store while one does.
import fs from 'node:fs'
import path from 'node:path'

import {ClawkitError, ExitCode} from '../../errors.js'
import {isPidAlive, processesHoldingFile} from '../../os/process.js'
import {isRecord} from './entry-rows.js'

export interface StateOwner {
  /** The ownership lock (`<state>/tmp/openclaw-<uid>/gateway.*.lock.sqlite`) a live process holds open. */
  lock: string
  pids: number[]
  /** From the lock's JSON payload when present: "gateway", "agent-embedded", "sqlite-maintenance", ... */
  role?: string
  port?: number
}

/** OpenClaw's resolveGatewayLockDir. */
export function gatewayLockDir(stateDir: string): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined
  return path.join(stateDir, 'tmp', uid === undefined ? 'openclaw' : `openclaw-${uid}`)
}

function readPayload(file: string): {pid?: number; role?: string; port?: number} | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8'))
    return isRecord(v) ? {pid: typeof v.pid === 'number' ? v.pid : undefined, role: typeof v.role === 'string' ? v.role : 'gateway', port: typeof v.port === 'number' ? v.port : undefined} : undefined
  } catch {
    return undefined
  }
}

/**
 * Who owns the state dir, without touching OpenClaw's locks. OpenClaw holds `gateway.state.lock.sqlite` and
 * `gateway.<hash8>.lock.sqlite` with an exclusive SQLite transaction for the owner's whole life (sqlite-coordinator),
 * so the owner is the live process that has one of them open (/proc/<pid>/fd on Linux): the files themselves outlive
 * their owners (both fixtures carry them from dead processes), and taking or testing their SQLite lock could only
 * disturb a live owner. Where /proc cannot be read, the JSON payload beside them (`gateway.state.lock`, present only
 * while held, with the owner's pid, role and port) is the fallback, trusted while its pid is alive.
 */
export function findStateOwner(stateDir: string): StateOwner | undefined {
  const dir = gatewayLockDir(stateDir)
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return undefined
  }
  const locks = names.filter((n) => /^gateway\.[^/]*\.lock\.sqlite$/.test(n)).sort((a, b) => Number(b === 'gateway.state.lock.sqlite') - Number(a === 'gateway.state.lock.sqlite'))
  for (const name of locks) {
    const lock = path.join(dir, name)
    const payload = readPayload(lock.slice(0, -'.sqlite'.length))
    const holders = processesHoldingFile(lock)?.filter((pid) => pid !== process.pid)
    if (holders === undefined) {
      if (payload?.pid !== undefined && payload.pid !== process.pid && isPidAlive(payload.pid)) return {lock, pids: [payload.pid], role: payload.role, port: payload.port}
      continue
    }
    if (holders.length > 0) return {lock, pids: holders, role: payload?.role, port: payload?.port}
  }
  return undefined
}

/** Refuse to write while OpenClaw owns the state dir: one line saying who, and what to do instead. */
export function assertNoGatewayOwner(stateDir: string): void {
  const owner = findStateOwner(stateDir)
  if (!owner) return
  const who =
    owner.role === 'agent-embedded'
      ? `an "openclaw agent --local" run (pid ${owner.pids.join(', ')})`
      : owner.role && owner.role !== 'gateway'
        ? `OpenClaw ${owner.role} (pid ${owner.pids.join(', ')})`
        : `an OpenClaw gateway (pid ${owner.pids.join(', ')}${owner.port ? `, port ${owner.port}` : ''})`
  throw new ClawkitError(`${who} owns ${stateDir} (it holds ${path.basename(owner.lock)}), so clawkit writes nothing there: two writers would race on the session database.`, {
    code: 'E_GATEWAY_OWNS_STATE',
    exitCode: ExitCode.failure,
    suggestions: [owner.role === 'agent-embedded' ? 'Wait for that run to finish, then retry.' : 'Stop the gateway ("openclaw gateway stop") and retry, or make the change through the gateway (e.g. "openclaw agent", or /new in its channel).'],
  })
}
