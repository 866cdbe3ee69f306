// Lock leftovers in a sessions dir: stale locks that block writers, live ones to leave alone, things in a lock's place
// that are not lock files, and scratch files of interrupted lock acquisitions.
import {isPidAlive} from '../../../os/process.js'
import {describePathKind} from '../../../os/safe-open.js'
import {inspectLock, LOCK_SCRATCH_RE, lockHolderPid, lockScratchIsLeftover, UNREADABLE_LOCK_GRACE_MS} from '../../lock.js'
import type {StoreContext} from '../context.js'
import {finding} from '../finding.js'
import {clearStaleLock, removeLockScratch} from './repairs.js'

export function checkLocks(c: StoreContext): void {
  for (const lockPath of c.scan.locks) {
    const info = inspectLock(lockPath, {now: c.opts.now})
    if (!info) {
      const kind = describePathKind(lockPath)
      if (kind) c.out.push(finding({id: 'lock-not-a-file', severity: 'error', agentId: c.scan.agentId, path: lockPath, message: `${lockPath} is ${kind}, not a lock file: every writer of this file refuses to run while it is there (OpenClaw cannot take its lock either). Remove it once the tool that made it is gone.`, details: {kind}}))
      continue
    }
    // The same holder a waiting writer names.
    const pid = lockHolderPid(info)
    const age = Math.round(info.ageMs / 1000)
    if (!info.stale && pid === undefined) {
      // No pid in the file and nobody seen holding it: OpenClaw's rule keeps it until its mtime is 30 minutes old.
      const young = info.holders !== undefined
      c.out.push(
        finding({
          id: 'live-lock',
          severity: 'info',
          agentId: c.scan.agentId,
          path: lockPath,
          message: young
            ? `Lock file without a valid pid, written ${age}s ago and not held open by any process: it is being taken right now, or was left by a crash; writers reclaim it after ${UNREADABLE_LOCK_GRACE_MS / 1000}s.`
            : `Lock file without a valid pid (age ${age}s), and open files cannot be checked here: writers wait for it until it is 30 minutes old (OpenClaw's rule). If no OpenClaw or clawkit process is running, remove it.`,
          details: {pid: null, ageMs: info.ageMs},
        }),
      )
      continue
    }
    if (info.stale) {
      c.out.push(finding({id: 'stale-lock', severity: 'warn', agentId: c.scan.agentId, path: lockPath, message: `Stale lock (${info.staleReasons.join(', ')}; pid ${pid ?? 'missing'}, age ${age}s) blocks writers until it times out or is removed. --fix removes it.`, action: 'remove the lock file', details: {pid: pid ?? null, ageMs: info.ageMs, reasons: info.staleReasons}, repair: {kind: 'lock', run: () => clearStaleLock(lockPath)}}))
    } else {
      const unreadable = pid !== info.payload?.pid ? ' (the file holds no valid pid; that process has it open)' : ''
      c.out.push(finding({id: 'live-lock', severity: 'info', agentId: c.scan.agentId, path: lockPath, message: `Lock held by live pid ${pid} for ${age}s${unreadable}: an OpenClaw gateway, agent run or another clawkit is writing. Leave it; it is released when that process finishes.`, details: {pid: pid ?? null, ageMs: info.ageMs}}))
    }
  }
}

export function checkLockScratch(c: StoreContext): void {
  for (const t of c.scan.lockScratch) {
    const pid = Number(LOCK_SCRATCH_RE.exec(t.name)![1])
    if (!lockScratchIsLeftover(pid, c.opts.now - t.mtimeMs)) continue // a lock being taken right now
    const why = isPidAlive(pid) ? `pid ${pid} is running but the file is over a minute old (the pid was reused, or the process is stuck)` : `pid ${pid} is gone (killed while taking the lock)`
    c.out.push(finding({id: 'lock-scratch-leftover', severity: 'warn', agentId: c.scan.agentId, path: t.path, message: `Leftover scratch file of a lock acquisition: ${why}. It holds a pid, no session data, and blocks nothing. --fix removes it.`, action: 'remove the scratch file', details: {pid}, repair: {kind: 'lock', run: () => removeLockScratch(t.path)}}))
  }
}
