// Modes and owners inside one agent store: directories, sessions.json and transcripts open to other users, a sessions
// dir the owner cannot write, and files another user owns.
import fs from 'node:fs'
import path from 'node:path'

import {finding} from '../finding.js'
import {chmodPath} from './repairs.js'
import type {FileInfo} from './scan.js'
import {modeOf, type StoreContext, writable} from '../context.js'

/**
 * `dirsOnly`: the agent and sessions directories only, for a SQLite-era agent whose sessions.json and transcripts are
 * legacy files (their modes are OpenClaw's import's business, and a chmod would change them under it).
 */
export function checkStorePermissions(c: StoreContext, opts: {dirsOnly?: boolean} = {}): void {
  const {scan, out} = c
  const agentId = scan.agentId
  const agentDir = path.join(c.state.stateDir, 'agents', agentId)
  const owner: string[] = []
  const checkOwner = (p: string, st: {uid: number}) => {
    if (c.ownerUid !== undefined && st.uid !== c.ownerUid) owner.push(p)
  }
  // Severity of an open mode inside the state dir: a 0644 transcript is only readable by others when every directory
  // above it lets them through. OpenClaw creates its dirs with the umask (0755) and pi creates transcripts 0644, so
  // on a state dir the owner closed (0700, as OpenClaw's own doctor recommends) those modes expose nothing: info, with
  // --fix still tightening them. Open all the way down, they are a real exposure: warn.
  // Real paths: a linked dir (a symlinked sessions dir) is reached through where it really is, not through the state
  // dir, so one that lives outside it is judged a warning.
  const closedBy = (p: string): {dir: string; mode: string} | undefined => {
    let realState: string
    let realDir: string
    try {
      realState = fs.realpathSync(c.state.stateDir)
      realDir = path.dirname(fs.realpathSync(p))
    } catch {
      return undefined
    }
    const rel = path.relative(realState, realDir)
    if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined
    const chain: string[] = [realState]
    let cur = realState
    for (const part of rel.split(path.sep).filter(Boolean)) chain.push((cur = path.join(cur, part)))
    const modes: Array<{dir: string; mode: number}> = []
    for (const dir of chain) {
      try {
        modes.push({dir, mode: fs.statSync(dir).mode & 0o777})
      } catch {
        return undefined
      }
    }
    if (modes.every((m) => m.mode & 0o001) || modes.every((m) => m.mode & 0o010)) return undefined
    const block = modes.find((m) => (m.mode & 0o011) === 0) ?? modes.find((m) => (m.mode & 0o001) === 0)!
    return {dir: block.dir, mode: block.mode.toString(8).padStart(3, '0')}
  }
  const severityFor = (p: string) => (closedBy(p) ? ('info' as const) : ('warn' as const))
  const reachNote = (p: string, what: string) => {
    const closed = closedBy(p)
    return closed ? ` Other users cannot reach ${what} today: ${closed.dir} is ${closed.mode}, so this is info, not a warning; --fix tightens it anyway in case that directory is opened later.` : ''
  }
  if (process.platform !== 'win32') {
    for (const [id, dir] of [['agent-dir-permissions', agentDir], ['sessions-dir-permissions', scan.sessionsDir]] as const) {
      let st: fs.Stats
      try {
        st = fs.statSync(dir)
      } catch {
        continue
      }
      if (!st.isDirectory()) continue
      checkOwner(dir, st)
      if (id === 'agent-dir-permissions' && dir === scan.sessionsDir) continue
      if ((st.mode & 0o077) !== 0) {
        const note = reachNote(dir, 'it')
        out.push(finding({id, severity: severityFor(dir), agentId, path: dir, message: `Directory permissions are too open (${modeOf(st)})${note ? ` (OpenClaw creates its directories with the umask).${note}` : ': other users can list session files. --fix runs chmod 700.'}`, action: 'chmod 700', repair: {kind: 'perm', run: () => chmodPath(dir, 0o700)}}))
      }
    }
  }
  if (opts.dirsOnly) {
    reportOwners(c, owner)
    return
  }
  if (scan.dirExists && !writable(scan.sessionsDir)) {
    const st = scan.dirStat!
    out.push(finding({id: 'sessions-dir-not-writable', severity: 'error', agentId, path: scan.sessionsDir, message: `Sessions directory not writable: new turns and resets will fail. --fix adds owner write permission; if you do not own it, run: sudo chown -R $USER "${scan.sessionsDir}".`, action: 'chmod u+rwx', repair: {kind: 'perm', run: () => chmodPath(scan.sessionsDir, (st.mode & 0o777) | 0o700)}}))
  }
  if (scan.storeStat) {
    checkOwner(scan.storePath, scan.storeStat)
    if (process.platform !== 'win32' && (scan.storeStat.mode & 0o077) !== 0) {
      const note = reachNote(scan.storePath, 'it')
      out.push(finding({id: 'store-permissions', severity: severityFor(scan.storePath), agentId, path: scan.storePath, message: `sessions.json is group/world accessible (${modeOf(scan.storeStat)}).${note || ' --fix runs chmod 600.'}`, action: 'chmod 600', repair: {kind: 'perm', run: () => chmodPath(scan.storePath, 0o600)}}))
    }
  }
  const open: FileInfo[] = []
  for (const t of scan.transcripts) {
    checkOwner(t.path, t)
    if ((t.mode & 0o077) !== 0) open.push(t)
  }
  if (process.platform !== 'win32' && open.length > 0) {
    out.push(
      finding({
        id: 'transcript-permissions',
        severity: severityFor(open[0].path),
        agentId,
        path: scan.sessionsDir,
        message: closedBy(open[0].path)
          ? `${open.length} transcript(s) have mode ${modeOf(open[0])} (e.g. ${open[0].name}), as OpenClaw's pi writer creates every transcript.${reachNote(open[0].path, 'them')}`
          : `${open.length} transcript(s) are readable by other users (e.g. ${open[0].name}, mode ${modeOf(open[0])}, and every directory above it up to the state dir lets them through); transcripts hold whole conversations. OpenClaw's pi writer creates them 0644. --fix runs chmod 600 on each; chmod 700 on the state dir closes the way in for new ones too.`,
        action: 'chmod 600 each transcript',
        details: {count: open.length, files: open.slice(0, 20).map((t) => t.name)},
        repair: {
          kind: 'perm',
          run: async () => {
            let done = 0
            let firstError: unknown
            for (const t of open) {
              try {
                await chmodPath(t.path, 0o600)
                done++
              } catch (error) {
                firstError ??= error
              }
            }
            // Any file left as it was keeps the finding open, with the reason.
            if (firstError) throw new Error(`chmod 600 on ${done} of ${open.length} transcript(s); ${(firstError as Error).message}`)
            return `chmod 600 on ${open.length} transcript(s)`
          },
        },
      }),
    )
  }
  reportOwners(c, owner)
}

function reportOwners(c: StoreContext, owner: string[]): void {
  const agentId = c.scan.agentId
  if (owner.length > 0) {
    c.out.push(finding({id: 'wrong-owner', severity: 'warn', agentId, path: c.scan.sessionsDir, message: `${owner.length} file(s) or dir(s) are owned by another user than the state dir's owner (e.g. ${owner[0]}); writes to them may fail. Run: sudo chown -R $USER "${path.join(c.state.stateDir, 'agents', agentId)}".`, details: {count: owner.length, paths: owner.slice(0, 20)}}))
  }
}
