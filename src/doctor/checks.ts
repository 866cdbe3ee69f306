// Doctor's checks: turn a state dir and its store scans into findings, each with the repair `--fix` would run.
import fs from 'node:fs'
import path from 'node:path'

import {lookupContextWindow, resolveWorkspaceDir} from '../config/config.js'
import {clause} from '../render/sentence.js'
import {isEntryObject} from '../store/index-scan.js'
import {inspectLock, isPidAlive, LOCK_SCRATCH_RE, lockHolderPid, lockScratchIsLeftover, UNREADABLE_LOCK_GRACE_MS} from '../store/lock.js'
import {describePathKind, NotRegularFileError} from '../store/safe-open.js'
import {buildExplicitSessionKey, buildMainSessionKey} from '../store/session-key.js'
import type {OpenClawState} from '../store/state.js'
import {isSafeSessionId, tailTranscript} from '../store/transcript.js'
import type {SessionEntry} from '../store/types.js'
import {applyIndexEdits, archiveEmptyOrphan, archiveTmp, chmodPath, clearStaleLock, recoverStore, removeLockScratch, removeStoreBom, repairTranscript} from './repairs.js'
import {type FileInfo, resolveFromScan, scanStore, type StoreScan} from './scan.js'
import {findStateDirs, isOpenClawStateDir} from './state-dirs.js'
import {inspectTranscript, inspectTranscriptSync, type TranscriptInspection} from './transcript-scan.js'
import type {FindingId, PlannedFinding, Repair, Severity} from './types.js'


/**
 * The state dir's own repairs act on the directory it names: a state dir that is a link (kept on another disk) is the
 * user's choice, unlike a link planted below it, which chmodPath refuses to follow.
 */
function stateDirItself(dir: string): string {
  return fs.realpathSync(dir)
}

export interface CheckOptions {
  /** Status mode: no transcript contents are read. */
  cheap?: boolean
  deep?: boolean
  now: number
}

/** A leftover temp file younger than this may be a write in progress. */
const TMP_GRACE_MS = 5 * 60 * 1000

function finding(id: FindingId, severity: Severity, agentId: string | null, p: string, message: string, repair?: Repair, action?: string, extra: Partial<PlannedFinding> = {}): PlannedFinding {
  return {id, severity, agentId, path: p, message, fixable: Boolean(repair), fixed: false, ...(action ? {action} : {}), ...extra, ...(repair ? {repair} : {})}
}

function notAFile(agentId: string, error: NotRegularFileError, key?: string): PlannedFinding {
  return finding('transcript-not-a-file', 'error', agentId, error.path, `${key ? `Transcript of "${key}"` : 'Transcript'} ${error.path} is ${error.kind}, not a regular file: clawkit and OpenClaw cannot read it. Move it out of the sessions directory (the session then reads as empty) or put the real transcript file in its place.`, undefined, undefined, key ? {key, details: {kind: error.kind}} : {details: {kind: error.kind}})
}

/** The start of a value as JSON; a value nested too deeply for JSON.stringify (thousands of levels) says so instead. */
function jsonPreview(v: unknown, max: number): string {
  try {
    return JSON.stringify(v)?.slice(0, max) ?? String(v)
  } catch {
    return Array.isArray(v) ? 'an array nested thousands of levels deep' : 'a value nested thousands of levels deep'
  }
}

function modeOf(st: fs.Stats | {mode: number}): string {
  return (st.mode & 0o777).toString(8).padStart(3, '0')
}

function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined
}

function writable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.W_OK)
    return true
  } catch {
    return false
  }
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

/** No turn has run on this entry yet: a fresh reset (zero counters) or counters cleared by /new. */
export function hasNoTurns(e: SessionEntry): boolean {
  const total = num(e.totalTokens)
  if (total === 0 && e.totalTokensFresh !== false) return true
  return total === undefined && !(num(e.inputTokens)! > 0) && !(num(e.outputTokens)! > 0) && !(num(e.estimatedCostUsd)! > 0)
}

// ---------------------------------------------------------------------------------------------------------------
// State dir as a whole

export function checkStateDir(state: OpenClawState, out: PlannedFinding[]): boolean {
  const dir = state.stateDir
  let st: fs.Stats
  try {
    st = fs.statSync(dir)
  } catch {
    out.push(finding('state-dir-missing', 'error', null, dir, `State directory missing (${dir}; chosen by ${state.stateDirReason}). Point --state-dir or OPENCLAW_STATE_DIR at the right directory, or run "openclaw setup" to create it.`))
    return false
  }
  if (!st.isDirectory() || !isOpenClawStateDir(dir)) {
    out.push(finding('state-dir-unrecognized', 'error', null, dir, `${dir} (chosen by ${state.stateDirReason}) is not an OpenClaw state dir: it has no openclaw.json, agents/ or legacy clawdbot.json. Doctor checked nothing in it and --fix changes nothing there. Point --state-dir or OPENCLAW_STATE_DIR at the directory OpenClaw uses.`))
    return false
  }
  if (!writable(dir)) {
    out.push(finding('state-dir-not-writable', 'error', null, dir, `State directory not writable (${dir}). clawkit and OpenClaw cannot save sessions. --fix adds owner write permission; if you do not own it, run: sudo chown -R $USER "${dir}".`, {kind: 'perm', run: () => chmodPath(stateDirItself(dir), (st.mode & 0o777) | 0o700)}, 'chmod u+rwx'))
  }
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    out.push(finding('state-dir-permissions', 'warn', null, dir, `State directory permissions are too open (${modeOf(st)}): other users can read sessions and credentials. --fix runs chmod 700.`, {kind: 'perm', run: () => chmodPath(stateDirItself(dir), 0o700)}, 'chmod 700'))
  }
  const uid = currentUid()
  if (uid !== undefined && uid !== 0 && st.uid !== uid) {
    out.push(finding('wrong-owner', 'warn', null, dir, `State directory is owned by uid ${st.uid}, not by you (uid ${uid}). Writes may fail or leave files others own. Run: sudo chown -R $USER "${dir}".`))
  }
  if (state.configError) {
    out.push(finding('config-invalid', 'error', null, state.configPath, `${state.configError.message} Doctor continued with an empty config, so configured agents and store paths were not applied.`))
  }
  if (state.configExists && !state.configError) {
    try {
      const cst = fs.statSync(state.configPath)
      if (process.platform !== 'win32' && (cst.mode & 0o077) !== 0) {
        out.push(finding('config-permissions', 'warn', null, state.configPath, `Config file is group/world readable (${modeOf(cst)}); it may hold API keys. --fix runs chmod 600.`, {kind: 'perm', run: () => chmodPath(state.configPath, 0o600)}, 'chmod 600'))
      }
      if (uid !== undefined && uid !== 0 && cst.uid !== uid) {
        out.push(finding('wrong-owner', 'warn', null, state.configPath, `Config file is owned by uid ${cst.uid}, not by you (uid ${uid}). Run: sudo chown $USER "${state.configPath}".`))
      }
    } catch {}
  }
  return true
}

export function checkSplitState(state: OpenClawState, out: PlannedFinding[]): void {
  const dirs = findStateDirs(state.stateDir, state.env)
  const others = dirs.filter((d) => !d.active)
  if (others.length > 0) {
    const serious = others.some((d) => d.kind !== 'profile')
    const list = others.map((d) => `${d.path} (${d.kind}${d.hasSessions ? ', has sessions' : ''})`).join('; ')
    out.push(
      finding(
        'split-state',
        serious ? 'warn' : 'info',
        null,
        state.stateDir,
        `Multiple OpenClaw state directories exist: ${list}. Active: ${state.stateDir} (chosen by ${state.stateDirReason}). Sessions in the others are invisible here and can split history; ` +
          (serious ? 'merge them or set OPENCLAW_STATE_DIR so OpenClaw and clawkit use the same one.' : 'profile dirs are separate on purpose; pass --profile <name> to work on one.'),
        undefined,
        undefined,
        {details: {active: state.stateDir, reason: state.stateDirReason, dirs}},
      ),
    )
  }
  const legacy = path.join(state.stateDir, 'sessions')
  const legacyStore = path.join(legacy, 'sessions.json')
  let legacyFiles: string[] = []
  try {
    legacyFiles = fs.readdirSync(legacy).filter((n) => n === 'sessions.json' || n.endsWith('.jsonl'))
  } catch {}
  if (legacyFiles.length > 0) {
    out.push(
      finding(
        'legacy-sessions-dir',
        'warn',
        null,
        legacy,
        `Legacy pre-multi-agent session dir ${legacy} holds ${legacyFiles.length} file(s)${fs.existsSync(legacyStore) ? ' including sessions.json' : ''}; they are not part of any agent store. Run "openclaw doctor" to migrate them into agents/${state.defaultAgentId}/sessions (clawkit does not move them).`,
      ),
    )
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Per store

interface StoreContext {
  state: OpenClawState
  scan: StoreScan
  opts: CheckOptions
  out: PlannedFinding[]
  uid?: number
  ownerUid?: number
}

function checkStorePermissions(c: StoreContext): void {
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
        out.push(finding(id, severityFor(dir), agentId, dir, `Directory permissions are too open (${modeOf(st)})${note ? ` (OpenClaw creates its directories with the umask).${note}` : ': other users can list session files. --fix runs chmod 700.'}`, {kind: 'perm', run: () => chmodPath(dir, 0o700)}, 'chmod 700'))
      }
    }
  }
  if (scan.dirExists && !writable(scan.sessionsDir)) {
    const st = scan.dirStat!
    out.push(finding('sessions-dir-not-writable', 'error', agentId, scan.sessionsDir, `Sessions directory not writable: new turns and resets will fail. --fix adds owner write permission; if you do not own it, run: sudo chown -R $USER "${scan.sessionsDir}".`, {kind: 'perm', run: () => chmodPath(scan.sessionsDir, (st.mode & 0o777) | 0o700)}, 'chmod u+rwx'))
  }
  if (scan.storeStat) {
    checkOwner(scan.storePath, scan.storeStat)
    if (process.platform !== 'win32' && (scan.storeStat.mode & 0o077) !== 0) {
      const note = reachNote(scan.storePath, 'it')
      out.push(finding('store-permissions', severityFor(scan.storePath), agentId, scan.storePath, `sessions.json is group/world accessible (${modeOf(scan.storeStat)}).${note || ' --fix runs chmod 600.'}`, {kind: 'perm', run: () => chmodPath(scan.storePath, 0o600)}, 'chmod 600'))
    }
  }
  const open: FileInfo[] = []
  for (const t of scan.transcripts) {
    checkOwner(t.path, t)
    if ((t.mode & 0o077) !== 0) open.push(t)
  }
  if (process.platform !== 'win32' && open.length > 0) {
    out.push(
      finding(
        'transcript-permissions',
        severityFor(open[0].path),
        agentId,
        scan.sessionsDir,
        closedBy(open[0].path)
          ? `${open.length} transcript(s) have mode ${modeOf(open[0])} (e.g. ${open[0].name}), as OpenClaw's pi writer creates every transcript.${reachNote(open[0].path, 'them')}`
          : `${open.length} transcript(s) are readable by other users (e.g. ${open[0].name}, mode ${modeOf(open[0])}, and every directory above it up to the state dir lets them through); transcripts hold whole conversations. OpenClaw's pi writer creates them 0644. --fix runs chmod 600 on each; chmod 700 on the state dir closes the way in for new ones too.`,
        {
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
        'chmod 600 each transcript',
        {details: {count: open.length, files: open.slice(0, 20).map((t) => t.name)}},
      ),
    )
  }
  if (owner.length > 0) {
    out.push(finding('wrong-owner', 'warn', agentId, scan.sessionsDir, `${owner.length} file(s) or dir(s) are owned by another user than the state dir's owner (e.g. ${owner[0]}); writes to them may fail. Run: sudo chown -R $USER "${path.join(c.state.stateDir, 'agents', agentId)}".`, undefined, undefined, {details: {count: owner.length, paths: owner.slice(0, 20)}}))
  }
}

function checkSqlite(c: StoreContext): void {
  for (const agentId of c.scan.agentIds) {
    const db = path.join(c.state.stateDir, 'agents', agentId, 'agent', 'openclaw-agent.sqlite')
    if (!fs.existsSync(db)) continue
    const alone = !c.scan.storeStat
    c.out.push(
      finding(
        'sqlite-store',
        'info',
        agentId,
        db,
        `A SQLite-era session store exists ${alone ? 'instead of' : 'next to'} sessions.json: newer OpenClaw (from about 2026.7) keeps sessions there and treats sessions.json as legacy import input. clawkit reads that store (sessions list, history and status) but cannot change it yet (support is coming): agent, sessions reset, message send's mirror and doctor --fix refuse to write session files for it${alone ? '' : ' (the database is the truth; the sessions.json beside it is stale)'}. Use "openclaw" to write to this agent meanwhile.`,
      ),
    )
  }
}

function checkLockScratch(c: StoreContext): void {
  for (const t of c.scan.lockScratch) {
    const pid = Number(LOCK_SCRATCH_RE.exec(t.name)![1])
    if (!lockScratchIsLeftover(pid, c.opts.now - t.mtimeMs)) continue // a lock being taken right now
    const why = isPidAlive(pid) ? `pid ${pid} is running but the file is over a minute old (the pid was reused, or the process is stuck)` : `pid ${pid} is gone (killed while taking the lock)`
    c.out.push(finding('lock-scratch-leftover', 'warn', c.scan.agentId, t.path, `Leftover scratch file of a lock acquisition: ${why}. It holds a pid, no session data, and blocks nothing. --fix removes it.`, {kind: 'lock', run: () => removeLockScratch(t.path)}, 'remove the scratch file', {details: {pid}}))
  }
}

function checkLocks(c: StoreContext): void {
  for (const lockPath of c.scan.locks) {
    const info = inspectLock(lockPath, {now: c.opts.now})
    if (!info) {
      const kind = describePathKind(lockPath)
      if (kind) c.out.push(finding('lock-not-a-file', 'error', c.scan.agentId, lockPath, `${lockPath} is ${kind}, not a lock file: every writer of this file refuses to run while it is there (OpenClaw cannot take its lock either). Remove it once the tool that made it is gone.`, undefined, undefined, {details: {kind}}))
      continue
    }
    // The same holder a waiting writer names.
    const pid = lockHolderPid(info)
    const age = Math.round(info.ageMs / 1000)
    if (!info.stale && pid === undefined) {
      // No pid in the file and nobody seen holding it: OpenClaw's rule keeps it until its mtime is 30 minutes old.
      const young = info.holders !== undefined
      c.out.push(
        finding(
          'live-lock',
          'info',
          c.scan.agentId,
          lockPath,
          young
            ? `Lock file without a valid pid, written ${age}s ago and not held open by any process: it is being taken right now, or was left by a crash; writers reclaim it after ${UNREADABLE_LOCK_GRACE_MS / 1000}s.`
            : `Lock file without a valid pid (age ${age}s), and open files cannot be checked here: writers wait for it until it is 30 minutes old (OpenClaw's rule). If no OpenClaw or clawkit process is running, remove it.`,
          undefined,
          undefined,
          {details: {pid: null, ageMs: info.ageMs}},
        ),
      )
      continue
    }
    if (info.stale) {
      c.out.push(finding('stale-lock', 'warn', c.scan.agentId, lockPath, `Stale lock (${info.staleReasons.join(', ')}; pid ${pid ?? 'missing'}, age ${age}s) blocks writers until it times out or is removed. --fix removes it.`, {kind: 'lock', run: () => clearStaleLock(lockPath)}, 'remove the lock file', {details: {pid: pid ?? null, ageMs: info.ageMs, reasons: info.staleReasons}}))
    } else {
      const unreadable = pid !== info.payload?.pid ? ' (the file holds no valid pid; that process has it open)' : ''
      c.out.push(finding('live-lock', 'info', c.scan.agentId, lockPath, `Lock held by live pid ${pid} for ${age}s${unreadable}: an OpenClaw gateway, agent run or another clawkit is writing. Leave it; it is released when that process finishes.`, undefined, undefined, {details: {pid: pid ?? null, ageMs: info.ageMs}}))
    }
  }
}

function checkIndexFile(c: StoreContext): void {
  const {scan, out} = c
  const agentId = scan.agentId
  if (scan.storeError) {
    const sources = scan.backups.length + scan.tmps.length
    out.push(
      finding(
        'store-corrupt',
        'error',
        agentId,
        scan.storePath,
        `${clause(scan.storeError.message.replace(/ The file was left untouched.*$/, ''))}. Every session of this store is invisible until it is repaired. --fix keeps the broken file as sessions.json.bak.<ms>, restores the newest valid ${sources > 0 ? `of ${sources} backup/temp file(s)` : 'backup (none found: an empty index)'}, then re-indexes the transcripts on disk.`,
        {kind: 'store-recover', run: () => recoverStore(scan.storePath)},
        'restore from the newest valid backup, then re-index transcripts',
      ),
    )
  }
  if (scan.storeBom && !scan.storeError) {
    out.push(
      finding(
        'store-bom',
        'warn',
        agentId,
        scan.storePath,
        `sessions.json starts with a UTF-8 byte order mark (an editor added it). clawkit reads past it, but OpenClaw 2026.4.27 reads such an index as empty and overwrites it on its next save, losing every entry. --fix removes those 3 bytes and nothing else (the original is kept as sessions.json.bak.<ms>).`,
        {kind: 'store-recover', run: () => removeStoreBom(scan.storePath)},
        'remove the byte order mark',
      ),
    )
  }
  if (scan.readError) {
    out.push(finding('store-unreadable', 'error', agentId, scan.storePath, `sessions.json cannot be read (${scan.readError}); its sessions are invisible. Fix its ownership or permissions (sudo chown $USER "${scan.storePath}"; chmod 600).`))
  }
  for (const t of scan.tmps) {
    const young = c.opts.now - t.mtimeMs < TMP_GRACE_MS
    if (young) {
      out.push(finding('store-tmp-leftover', 'info', agentId, t.path, `A sessions.json temp file from the last ${Math.round(TMP_GRACE_MS / 60000)} minutes: probably a write in progress. Run doctor again later if it stays.`))
      continue
    }
    out.push(finding('store-tmp-leftover', 'warn', agentId, t.path, `Leftover temp file from an interrupted sessions.json write. ${scan.storeError ? 'It is a recovery candidate for the broken index. ' : ''}--fix renames it to *.deleted.<ts> (kept, not deleted).`, scan.storeError ? undefined : {kind: 'archive', run: () => archiveTmp(t.path, scan.storePath)}, 'rename to *.deleted.<ts>'))
  }
}

function workspaceFor(c: StoreContext, agentId: string): string {
  try {
    return resolveWorkspaceDir(c.state.stateDir, c.state.config, agentId, c.state.env)
  } catch {
    return c.state.stateDir
  }
}

async function checkEntries(c: StoreContext): Promise<void> {
  const {scan, out, opts, state} = c
  const data = scan.data
  const agentId = scan.agentId
  const referenced = new Set<string>()
  const mainKeys = new Set(scan.agentIds.map((id) => (state.config.session?.scope === 'global' ? 'global' : state.config.session?.mainKey ? `agent:${id}:${String(state.config.session.mainKey).toLowerCase()}` : buildMainSessionKey(id))))
  // The first key of each session id, and every key only for ids used more than once: 10 000 entries, few duplicates.
  const firstKeyBySid = new Map<string, string>()
  const keysBySharedSid = new Map<string, string[]>()
  const toInspect: {key: string; entry: SessionEntry; file: string; size: number; main: boolean}[] = []
  /** Entries whose transcript is missing, by sessionId: an orphan carrying that id is their file under another name. */
  const missingBySid = new Map<string, {f: PlannedFinding; stored: unknown}>()
  if (data) {
    for (const key of Object.keys(data)) {
      const entry = data[key]
      if (!isEntryObject(entry)) {
        out.push(finding('entry-malformed', 'error', agentId, scan.storePath, `Index entry "${key}" is not an object (${jsonPreview(entry, 60)}); OpenClaw ignores it. Remove it by hand from sessions.json (doctor does not drop index data).`, undefined, undefined, {key}))
        continue
      }
      const sid = typeof entry.sessionId === 'string' ? entry.sessionId.trim() : ''
      if (!sid) {
        out.push(finding('entry-missing-session-id', 'error', agentId, scan.storePath, `Index entry "${key}" has no sessionId, so it has no transcript. Run "clawkit sessions reset ${key}" to give it a fresh session.`, undefined, undefined, {key}))
        continue
      }
      const first = firstKeyBySid.get(sid)
      if (first === undefined) firstKeyBySid.set(sid, key)
      else {
        const keys = keysBySharedSid.get(sid)
        if (keys) keys.push(key)
        else keysBySharedSid.set(sid, [first, key])
      }
      let resolved
      try {
        resolved = resolveFromScan(scan, entry, key)
      } catch (error) {
        out.push(finding('entry-missing-session-id', 'error', agentId, scan.storePath, `Index entry "${key}": ${clause((error as Error).message)}. Run "clawkit sessions reset ${key}" to give it a valid session id.`, undefined, undefined, {key}))
        continue
      }
      const base = path.basename(resolved.path)
      referenced.add(base)
      const isMain = mainKeys.has(key)
      if (typeof entry.updatedAt !== 'number' || !Number.isFinite(entry.updatedAt)) {
        const t = resolved.exists ? scan.byName.get(base) : undefined
        const value = Math.round(t?.mtimeMs ?? (num(entry.sessionStartedAt) ?? opts.now))
        out.push(
          finding(
            'entry-missing-updated-at',
            'warn',
            agentId,
            scan.storePath,
            `Index entry "${key}" has no valid updatedAt: it sorts last, and OpenClaw's maintenance caps evict it first. --fix sets it to ${new Date(value).toISOString()} (${t ? 'the transcript\'s last write' : 'its start time'}).`,
            {
              kind: 'index',
              storePath: scan.storePath,
              agentId,
              edit: (d) => {
                const e = d[key]
                if (!isEntryObject(e) || (typeof e.updatedAt === 'number' && Number.isFinite(e.updatedAt))) return false
                e.updatedAt = value
                return true
              },
            },
            `set updatedAt to ${value}`,
            {key},
          ),
        )
      }
      if (resolved.location === 'relocated') {
        const stored = resolved.storedSessionFile!
        const local = resolved.path
        out.push(
          finding(
            'session-file-relocated',
            'warn',
            agentId,
            local,
            `Entry "${key}" stores sessionFile ${stored}, outside this sessions dir (the state dir was moved or copied); the transcript is here. OpenClaw would read and append to the old path. --fix rewrites sessionFile to ${local}.`,
            {
              kind: 'index',
              storePath: scan.storePath,
              agentId,
              edit: (d, live) => {
                const e = d[key]
                if (!isEntryObject(e) || e.sessionFile !== stored) return false
                if (!live.isLiveTranscript(local)) return `${path.basename(local)} was moved or removed meanwhile; left the entry alone`
                e.sessionFile = local
                return true
              },
            },
            'rewrite sessionFile to the local path',
            {key, details: {storedSessionFile: stored}},
          ),
        )
      }
      if (!resolved.exists) {
        const foreign = resolved.storedSessionFile && path.isAbsolute(resolved.storedSessionFile) && fs.existsSync(resolved.storedSessionFile) ? resolved.storedSessionFile : undefined
        if (foreign) {
          out.push(finding('session-file-foreign', 'error', agentId, foreign, `Entry "${key}" points at ${foreign}, outside this sessions dir (another state dir?), and there is no copy here. Copy that file to ${resolved.path} and run "clawkit doctor --fix" to point the entry at it.`, undefined, undefined, {key, details: {expected: resolved.path}}))
        } else if (hasNoTurns(entry)) {
          out.push(finding('transcript-not-started', 'info', agentId, resolved.path, `Entry "${key}" has no transcript yet and no turns recorded (new or just reset); the file is created on the next turn.`, undefined, undefined, {key}))
        } else if (isMain) {
          out.push(finding('main-transcript-missing', 'error', agentId, resolved.path, `Main session transcript missing for "${key}": its history will appear to reset on the next turn. Restore ${path.basename(resolved.path)} from a backup if you have one; otherwise "clawkit sessions reset ${key}" starts it cleanly.`, undefined, undefined, {key}))
          missingBySid.set(sid, {f: out[out.length - 1], stored: entry.sessionFile})
        } else {
          out.push(finding('transcript-missing', 'error', agentId, resolved.path, `Transcript missing for "${key}" (session ${sid}): its history is gone from this dir. Restore the file from a backup, or run "clawkit sessions reset ${key}" to start the session cleanly.`, undefined, undefined, {key}))
          missingBySid.set(sid, {f: out[out.length - 1], stored: entry.sessionFile})
        }
        continue
      }
      // The cheap pass (status) looks only at main transcripts.
      if (!opts.cheap || isMain) toInspect.push({key, entry, file: resolved.path, size: scan.byName.get(base)?.size ?? 0, main: isMain})
    }
    // In the order the ids first appear in the index.
    for (const sid of keysBySharedSid.size > 0 ? firstKeyBySid.keys() : []) {
      const keys = keysBySharedSid.get(sid)
      if (keys) out.push(finding('duplicate-session-id', 'warn', agentId, scan.storePath, `Session id ${sid} is used by ${keys.length} entries (${keys.join(', ')}): they write into the same transcript and reset each other. Run "clawkit sessions reset <key>" on all but one.`, undefined, undefined, {details: {sessionId: sid, keys}}))
    }
  }

  if (!opts.cheap) {
    const inspections = toInspect.map((t) => {
      try {
        return inspectTranscriptSync(t.file, {deep: opts.deep, size: t.size})
      } catch (error) {
        if (error instanceof NotRegularFileError) out.push(notAFile(agentId, error, t.key))
        return undefined
      }
    })
    toInspect.forEach((t, i) => {
      const ins = inspections[i]
      if (ins) checkTranscriptContents(c, t.key, t.entry, t.file, ins, t.main)
    })
  } else {
    for (const t of toInspect) if (t.main && t.size === 0 && !hasNoTurns(t.entry)) out.push(finding('main-transcript-header-only', 'warn', agentId, t.file, `Main session transcript for "${t.key}" is empty: session history may not be appending.`, undefined, undefined, {key: t.key}))
  }

  // Orphans can only be told apart once the index is known.
  if (!data && (scan.storeError || scan.readError)) return
  const orphans = scan.transcripts.filter((f) => !referenced.has(f.name))
  if (orphans.length === 0) return
  if (opts.cheap) {
    for (const o of orphans) out.push(finding(o.size === 0 ? 'orphan-transcript-empty' : 'orphan-transcript', o.size === 0 ? 'info' : 'warn', agentId, o.path, 'Transcript not referenced by any index entry. Run "clawkit doctor" for details.'))
    return
  }
  const inspections = orphans.map((o) => {
    try {
      return inspectTranscriptSync(o.path, {deep: opts.deep, size: o.size})
    } catch (error) {
      if (error instanceof NotRegularFileError) out.push(notAFile(agentId, error))
      return undefined
    }
  })
  const explicitTaken = new Set(Object.keys(data ?? {}))
  for (let i = 0; i < orphans.length; i++) {
    const o = orphans[i]
    const ins = inspections[i]
    if (!ins) continue
    const headerId = typeof ins.header?.id === 'string' ? ins.header.id.trim() : ''
    const missing = headerId ? missingBySid.get(headerId) : undefined
    if (missing?.f.key) {
      // The entry's own transcript under another name (renamed, or sessionFile edited): point the entry at it.
      missingBySid.delete(headerId)
      const {f, stored} = missing
      const key = f.key!
      f.message += ` A transcript with this session id exists under another name (${o.name}); --fix points the entry at it.`
      f.fixable = true
      f.action = `set sessionFile to ${o.path}`
      f.repair = {
        kind: 'index',
        storePath: scan.storePath,
        agentId,
        edit: (d, live) => {
          const e = d[key]
          if (!isEntryObject(e) || e.sessionId !== headerId || e.sessionFile !== stored) return false
          if (!live.isLiveTranscript(o.path)) return `${o.name} was moved or removed meanwhile; left the entry alone`
          if (live.references(o.path)) return `${o.name} is referenced by another entry now; left the entry alone`
          const holder = live.heldBy(o.path)
          if (holder) return `${o.name} is locked by another writer now (${holder}); left the entry alone. Run doctor again once it is done.`
          e.sessionFile = o.path
          return true
        },
      }
      continue
    }
    if (!ins.hasMessages) {
      out.push(
        finding(
          'orphan-transcript-empty',
          'info',
          agentId,
          o.path,
          `Orphan transcript with no messages (${ins.size === 0 ? 'empty' : 'header only'}); no entry references it. --fix renames it to *.deleted.<ts> (kept, not deleted).`,
          {kind: 'orphan-archive', storePath: scan.storePath, agentId, lockFiles: [o.path], run: (live) => archiveEmptyOrphan(o.path, live)},
          'rename to *.deleted.<ts>',
        ),
      )
      continue
    }
    await planReindex(c, o, ins, explicitTaken, firstKeyBySid)
  }
}

async function planReindex(c: StoreContext, o: FileInfo, ins: TranscriptInspection, taken: Set<string>, keyBySid: Map<string, string>): Promise<void> {
  const {scan, out, state} = c
  const agentId = scan.agentId
  const headerId = typeof ins.header?.id === 'string' ? ins.header.id.trim() : ''
  const fromName = o.name.replace(/\.jsonl$/, '').replace(/-topic-.*$/, '')
  const sessionId = isSafeSessionId(headerId) ? headerId : isSafeSessionId(fromName) ? fromName : ''
  const baseMsg = `Orphan transcript with messages: no index entry references it, so it is invisible to "sessions list" and cannot be continued.`
  if (!sessionId) {
    out.push(finding('orphan-transcript', 'warn', agentId, o.path, `${baseMsg} Neither its header nor its name gives a valid session id; add an entry by hand.`))
    return
  }
  // A second row with an id the index already holds would be a duplicate-session-id: a reset of one rotates the other.
  const owner = keyBySid.get(sessionId)
  if (owner !== undefined) {
    out.push(finding('orphan-transcript', 'warn', agentId, o.path, `${baseMsg} Its session id ${sessionId} belongs to entry "${owner}", which points at another file; attach this one by hand.`))
    return
  }
  let key = buildExplicitSessionKey(agentId, sessionId)
  if (taken.has(key)) {
    const alt = buildExplicitSessionKey(agentId, fromName)
    if (!isSafeSessionId(fromName) || taken.has(alt)) {
      out.push(finding('orphan-transcript', 'warn', agentId, o.path, `${baseMsg} The key ${key} is already taken by another entry; attach the file by hand.`))
      return
    }
    key = alt
  }
  taken.add(key)
  let last = ins.lastAssistant
  if (!last && !ins.complete) {
    try {
      const tail = await tailTranscript(o.path, {limit: 1, count: (e) => e.type === 'message' && (e as {message?: {role?: string}}).message?.role === 'assistant'})
      const m = [...tail.entries].reverse().find((e) => e.type === 'message' && (e as {message?: {role?: string}}).message?.role === 'assistant') as {message?: Record<string, unknown>} | undefined
      if (m?.message) last = {provider: m.message.provider as string, model: m.message.model as string, usage: m.message.usage as Record<string, unknown>}
    } catch {}
  }
  const entry: SessionEntry = {sessionId, updatedAt: Math.round(ins.lastTimestamp ?? o.mtimeMs)}
  const started = typeof ins.header?.timestamp === 'string' ? Date.parse(ins.header.timestamp) : Number.NaN
  if (Number.isFinite(started)) entry.sessionStartedAt = started
  entry.sessionFile = o.path
  if (last?.provider) entry.modelProvider = last.provider
  if (last?.model) entry.model = last.model
  const u = last?.usage ?? {}
  const input = num(u.input)
  if (input !== undefined) {
    const cacheRead = num(u.cacheRead) ?? 0
    const cacheWrite = num(u.cacheWrite) ?? 0
    entry.inputTokens = input
    entry.outputTokens = num(u.output) ?? 0
    entry.cacheRead = cacheRead
    entry.cacheWrite = cacheWrite
    // OpenClaw's totalTokens is the prompt size of the last call: input plus cache, output excluded.
    entry.totalTokens = input + cacheRead + cacheWrite
    entry.totalTokensFresh = true
  }
  const ctx = lookupContextWindow(state.config, entry.model, entry.modelProvider)
  if (ctx) entry.contextTokens = ctx
  const finalKey = key
  out.push(
    finding(
      'orphan-transcript',
      'warn',
      agentId,
      o.path,
      `${baseMsg} --fix re-attaches it as "${finalKey}" (the key OpenClaw uses for explicit session ids), with updatedAt, model and token figures from the file. It is never archived while it holds messages.`,
      {
        kind: 'index',
        storePath: scan.storePath,
        agentId,
        // Decided again under the store lock: a reset between its index write and its archive rename holds this
        // file's lock, so here the file is either still a free, live, unreferenced orphan, or visibly taken or moved.
        edit: (d, live) => {
          if (finalKey in d) return false
          if (!live.isLiveTranscript(o.path)) return `${o.name} was moved or removed meanwhile (a reset archives the transcript it rotates); nothing to re-attach`
          if (live.references(o.path, sessionId)) return `${o.name} or its session id ${sessionId} is in the index now; nothing to re-attach`
          const holder = live.heldBy(o.path)
          if (holder) return `${o.name} is locked by another writer now (${holder}; a reset may be archiving it); left alone. Run doctor again once it is done.`
          d[finalKey] = {...entry}
          live.added(finalKey, d[finalKey])
          return true
        },
      },
      `add index entry ${finalKey}`,
      {key: finalKey},
    ),
  )
}

function checkTranscriptContents(c: StoreContext, key: string, entry: SessionEntry, file: string, ins: TranscriptInspection, main: boolean): void {
  const agentId = c.scan.agentId
  const repair = (): Repair => ({
    kind: 'transcript',
    run: async () => (await repairTranscript(file, {sessionId: String(entry.sessionId), cwd: workspaceFor(c, agentId)})).action,
  })
  if (ins.size === 0) {
    if (main && !hasNoTurns(entry)) c.out.push(finding('main-transcript-header-only', 'warn', agentId, file, `Main session transcript for "${key}" is empty (0 bytes): session history may not be appending. OpenClaw rewrites it on the next turn.`, undefined, undefined, {key}))
    return
  }
  if (ins.badHeader) {
    c.out.push(finding('transcript-bad-header', 'error', agentId, file, `Transcript of "${key}" does not start with a session header: OpenClaw treats the file as empty and would start it over on the next turn. --fix copies it to <file>.bak.<ts> and writes a header (id ${entry.sessionId}) above the existing lines.`, repair(), 'back up, then add a session header', {key}))
  } else if (typeof ins.header?.id === 'string' && ins.header.id !== entry.sessionId) {
    c.out.push(finding('transcript-header-mismatch', 'warn', agentId, file, `Transcript of "${key}" has header id ${ins.header.id} but the entry's sessionId is ${entry.sessionId}: the file may belong to another session. Check it; "clawkit sessions reset ${key}" starts a fresh transcript and archives this one.`, undefined, undefined, {key, details: {headerId: ins.header.id, sessionId: entry.sessionId}}))
  }
  if (ins.badLines.length > 0) {
    c.out.push(finding('transcript-bad-lines', 'warn', agentId, file, `Transcript of "${key}" has ${ins.badLines.length} unparseable line(s) (first at line ${ins.badLines[0].line || '?'}); readers skip them. --fix copies the file to <file>.bak.<ts> and rewrites it without them (every parseable line kept byte for byte).`, ins.badHeader ? undefined : repair(), 'back up, then drop unparseable lines', {key, details: {lines: ins.badLines.slice(0, 20).map((l) => l.line)}}))
  }
  if (ins.tornTail) {
    c.out.push(finding('transcript-torn-line', 'warn', agentId, file, `Transcript of "${key}" ends with a torn line (${ins.tornTail.length} bytes, an interrupted write); the next append would be glued onto it. --fix moves those bytes into <file>.bak.<ts> and cuts them off.`, ins.badHeader || ins.badLines.length > 0 ? undefined : repair(), 'move the torn line to <file>.bak.<ts>', {key}))
  } else if (ins.missingFinalNewline) {
    c.out.push(finding('transcript-no-final-newline', 'warn', agentId, file, `Transcript of "${key}" does not end with a newline: OpenClaw's next append would be glued onto the last line and corrupt it. --fix appends the newline.`, ins.badHeader || ins.badLines.length > 0 ? undefined : repair(), 'append "\\n"', {key}))
  }
  if (main && ins.complete && ins.lineCount <= 1 && !ins.badHeader && !hasNoTurns(entry)) {
    c.out.push(finding('main-transcript-header-only', 'warn', agentId, file, `Main session transcript for "${key}" has only its header line: session history may not be appending. Check that OpenClaw can write ${path.dirname(file)}.`, undefined, undefined, {key}))
  }
}

export async function checkStore(state: OpenClawState, scan: StoreScan, opts: CheckOptions, out: PlannedFinding[]): Promise<void> {
  const uid = currentUid()
  let ownerUid: number | undefined
  if (uid !== undefined) {
    // root checks against the state dir's owner: files root created inside a user's state dir are the usual mistake.
    if (uid !== 0) ownerUid = uid
    else {
      try {
        ownerUid = fs.statSync(state.stateDir).uid
      } catch {}
    }
  }
  const c: StoreContext = {state, scan, opts, out, uid, ownerUid}
  checkStorePermissions(c)
  checkSqlite(c)
  checkLocks(c)
  checkLockScratch(c)
  checkIndexFile(c)
  await checkEntries(c)
}
