// `clawkit doctor`: run every check on every agent, optionally repair (backup first, under locks), and re-check.
import fs from 'node:fs'
import path from 'node:path'

import {ExitCode} from '../errors.js'
import type {OpenClawState} from '../store/state.js'
import {checkSplitState, checkStateDir, checkStore} from './checks.js'
import type {SessionStoreData} from '../store/types.js'
import {MAX_LOCKS_PER_STEP, withLiveStore, withTranscriptLocks} from './live.js'
import {applyIndexEdits} from './repairs.js'
import {scanStores, type StoreScan} from './scan.js'
import {checkMigrationRuns, readMigrationRuns} from './sqlite-import-checks.js'
import {applySqliteRepairs} from './sqlite-repairs.js'
import {
  type DoctorAgentSummary,
  type DoctorOptions,
  type DoctorResult,
  type Finding,
  type LiveStore,
  type PlannedFinding,
  type Repair,
  type SqliteAgentSummary,
} from './types.js'

export * from './types.js'

const REPAIR_ORDER: Repair['kind'][] = ['lock', 'perm', 'sqlite', 'store-recover', 'index', 'transcript', 'archive', 'orphan-archive']
const MAX_PASSES = 3

interface Collected {
  findings: PlannedFinding[]
  scans: StoreScan[]
  /** SQLite-era agents' figures (only from a full, not a cheap, check). */
  sqlite: Map<string, SqliteAgentSummary>
}

/** Run the checks. `cheap` skips everything that reads transcript contents (what `status` uses). */
export async function collectFindings(state: OpenClawState, agentIds: string[], opts: {cheap?: boolean; deep?: boolean; now: number; scans?: StoreScan[]}): Promise<Collected> {
  const findings: PlannedFinding[] = []
  const exists = checkStateDir(state, findings)
  checkSplitState(state, findings)
  const sqlite = new Map<string, SqliteAgentSummary>()
  if (!exists) return {findings, scans: [], sqlite}
  const scans = opts.scans ?? (await scanStores(state, agentIds))
  const migrationRuns = opts.cheap ? [] : readMigrationRuns(state.stateDir)
  for (const scan of scans) await checkStore(state, scan, {...opts, sqliteStats: sqlite, migrationRuns}, findings)
  if (!opts.cheap) checkMigrationRuns(state.stateDir, scans.flatMap((s) => s.agentIds), migrationRuns, findings)
  for (const f of findings) {
    withholdLinkedRepair(state.stateDir, f)
    withholdSqliteEraRepair(state, f)
  }
  return {findings, scans, sqlite}
}

/**
 * Which repairs write session files (the index, transcripts, archives); permission and lock repairs write none. A
 * record, so that a new kind of repair cannot be added without deciding this for it.
 */
const WRITES_SESSION_FILES: Record<Repair['kind'], boolean> = {lock: false, perm: false, sqlite: false, 'store-recover': true, index: true, transcript: true, archive: true, 'orphan-archive': true}

/**
 * An agent whose sessions live in SQLite (OpenClaw 2026.7+) gets no session-file repair: its sessions.json, if any is
 * left, is legacy import input, and a rewritten or re-indexed one would be imported again as a fork.
 */
function withholdSqliteEraRepair(state: OpenClawState, f: PlannedFinding): void {
  if (!f.repair || !WRITES_SESSION_FILES[f.repair.kind] || f.agentId === null) return
  const db = state.sqliteStore(f.agentId)
  if (!db) return
  delete f.repair
  f.fixable = false
  delete f.action
  f.message = withoutFixPromise(f.message, `--fix leaves it alone: this agent keeps its sessions in SQLite (${db}), and clawkit changes no JSON-era session file of such an agent.`)
  f.details = {...f.details, sqliteStore: db}
}

/** The message's "--fix does X." sentence replaced by why it will not (or the reason appended when there is none). */
function withoutFixPromise(message: string, why: string): string {
  const re = /--fix (?:runs|adds|removes|renames|rewrites|keeps|copies|moves|appends|sets|points|re-attaches)\b.*?\.(?=\s|$)/s
  return re.test(message) ? message.replace(re, why) : `${message} ${why}`
}

/** The path a repair writes to (or below): the index for index edits, otherwise the finding's own path. */
function repairTarget(f: PlannedFinding): string {
  return f.repair?.kind === 'index' ? f.repair.storePath : f.path
}

/**
 * A repair never writes through a symbolic link: a linked agent or sessions dir (`agents/work -> /tmp/victim`) or a
 * linked file would carry a chmod or a rewrite out of the state dir. Such a finding stays, without a repair, saying
 * why; the repairs re-check at the moment they act, for a link planted after this check.
 */
function withholdLinkedRepair(stateDir: string, f: PlannedFinding): void {
  if (!f.repair) return
  const link = linkedComponent(stateDir, repairTarget(f))
  if (!link) return
  delete f.repair
  f.fixable = false
  delete f.action
  f.message = withoutFixPromise(f.message, `--fix leaves it alone: ${link} is a symbolic link, and doctor does not write through links (fix it at the link's target by hand, or replace the link with a real directory).`)
  f.details = {...f.details, symlink: link}
}

/**
 * The first symbolic link on the way from the state dir to `target`, the target included. The state dir itself may be
 * a link (a state dir kept on another disk); for a target outside the state dir (a configured session.store) only the
 * target itself is looked at.
 */
export function linkedComponent(stateDir: string, target: string): string | undefined {
  const rel = path.relative(stateDir, target)
  // The state dir itself: its link (a state dir kept on another disk) is the user's choice, and what is repaired is
  // the directory it names, which is the state dir.
  if (rel === '') return undefined
  const inside = !rel.startsWith('..') && !path.isAbsolute(rel)
  const steps = inside ? rel.split(path.sep).map((_, i, parts) => path.join(stateDir, ...parts.slice(0, i + 1))) : [target]
  for (const p of steps) {
    try {
      if (fs.lstatSync(p).isSymbolicLink()) return p
    } catch {
      return undefined
    }
  }
  return undefined
}

function identity(f: Finding): string {
  return `${f.id}\0${f.agentId ?? ''}\0${f.path}\0${f.key ?? ''}`
}

function publicFinding(f: PlannedFinding): Finding {
  const {repair, ...rest} = f
  void repair
  return rest
}

type StoreRepair = Extract<Repair, {kind: 'index' | 'orphan-archive'}>

/**
 * Per store, in steps of at most MAX_LOCKS_PER_STEP transcript locks: take the locks the repairs name (a file still
 * locked after a short wait is left alone), then the store lock, and let each repair decide again from the live state.
 */
async function applyStoreRepairs(kind: StoreRepair['kind'], batch: PlannedFinding[]): Promise<void> {
  const byStore = new Map<string, PlannedFinding[]>()
  for (const f of batch) {
    const r = f.repair as StoreRepair
    const list = byStore.get(r.storePath)
    if (list) list.push(f)
    else byStore.set(r.storePath, [f])
  }
  for (const [storePath, all] of byStore) {
    const agentId = (all[0].repair as StoreRepair).agentId
    const steps: PlannedFinding[][] = [[]]
    let locks = 0
    for (const f of all) {
      const n = (f.repair as StoreRepair).lockFiles?.length ?? 0
      if (locks + n > MAX_LOCKS_PER_STEP && steps.at(-1)!.length > 0) {
        steps.push([])
        locks = 0
      }
      steps.at(-1)!.push(f)
      locks += n
    }
    for (const step of steps) {
      await withTranscriptLocks(
        step.flatMap((f) => (f.repair as StoreRepair).lockFiles ?? []),
        async (busy) => {
          const ready: PlannedFinding[] = []
          for (const f of step) {
            const taken = ((f.repair as StoreRepair).lockFiles ?? []).find((file) => busy.has(file))
            if (taken) f.repairError = busy.get(taken)
            else ready.push(f)
          }
          if (ready.length === 0) return
          try {
            if (kind === 'index') await applyIndexStep(storePath, agentId, ready)
            else {
              await withLiveStore(storePath, async (live) => {
                for (const f of ready) {
                  try {
                    f.action = await (f.repair as Extract<Repair, {kind: 'orphan-archive'}>).run(live)
                    f.fixed = true
                  } catch (error) {
                    f.repairError = (error as Error).message
                  }
                }
              })
            }
          } catch (error) {
            for (const f of ready) if (!f.fixed) f.repairError = (error as Error).message
          }
        },
      )
    }
  }
}

async function applyIndexStep(storePath: string, agentId: string, list: PlannedFinding[]): Promise<void> {
  const outcome = new Map<PlannedFinding, boolean | string>()
  const edits = list.map((f) => (data: SessionStoreData, live: LiveStore) => {
    const result = (f.repair as Extract<Repair, {kind: 'index'}>).edit(data, live)
    outcome.set(f, result)
    return result === true
  })
  const {backup} = await applyIndexEdits(storePath, agentId, edits)
  for (const f of list) {
    const result = outcome.get(f)
    f.fixed = result === true
    if (f.fixed && backup) f.backup = backup
    if (!f.fixed) f.repairError = typeof result === 'string' ? result : 'the entry changed meanwhile; nothing to do'
  }
}

async function applyRepairs(stateDir: string, plan: PlannedFinding[]): Promise<void> {
  for (const kind of REPAIR_ORDER) {
    const batch = plan.filter((f) => {
      if (f.repair?.kind !== kind) return false
      // A link planted since the check (the confirm prompt can wait for minutes) is refused the same way.
      const link = linkedComponent(stateDir, repairTarget(f))
      if (link) f.repairError = `not changed: ${link} is a symbolic link; doctor does not write through links`
      return !link
    })
    if (kind === 'index' || kind === 'orphan-archive') {
      await applyStoreRepairs(kind, batch)
      continue
    }
    if (kind === 'sqlite') {
      await applySqliteRepairs(batch)
      continue
    }
    for (const f of batch) {
      try {
        const note = await (f.repair as {run: () => Promise<string | void>}).run()
        f.fixed = true
        if (note) f.action = note
        const bak = note ? /(\S+\.bak\.[^\s,;)]+)/.exec(note) : null
        if (bak) f.backup = bak[1]
      } catch (error) {
        f.repairError = (error as Error).message
      }
    }
  }
}

function summarize(scans: StoreScan[], sqlite: Map<string, SqliteAgentSummary>, state: OpenClawState): DoctorAgentSummary[] {
  return scans.map((s) => ({
    agentId: s.agentId,
    ...(s.agentIds.length > 1 ? {sharedWith: s.agentIds.slice(1)} : {}),
    configured: s.configured,
    storePath: s.storePath,
    sessionsDir: s.sessionsDir,
    sessions: s.data ? Object.keys(s.data).length : s.storeError || s.readError ? null : 0,
    transcripts: s.transcripts.length,
    era: state.sqliteStore(s.agentId) ? ('sqlite' as const) : ('json' as const),
    ...(sqlite.has(s.agentId) ? {sqlite: sqlite.get(s.agentId)} : {}),
  }))
}

export function exitCodeFor(findings: Finding[]): number {
  const open = findings.filter((f) => !f.fixed)
  if (open.some((f) => f.severity === 'error')) return ExitCode.doctorErrors
  if (open.some((f) => f.severity === 'warn')) return ExitCode.doctorWarnings
  return ExitCode.ok
}

const SEVERITY_ORDER = {error: 0, warn: 1, info: 2} as const

function sortFindings(list: Finding[]): Finding[] {
  return list.sort((a, b) => {
    if ((a.agentId ?? '') !== (b.agentId ?? '')) return a.agentId === null ? -1 : b.agentId === null ? 1 : 0
    return SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]
  })
}

export async function runDoctor(state: OpenClawState, opts: DoctorOptions = {}): Promise<DoctorResult> {
  const now = () => opts.now?.() ?? Date.now()
  const agentIds = opts.agent ? [state.requireAgent(opts.agent)] : state.allAgentIds()
  let collected = await collectFindings(state, agentIds, {deep: opts.deep, now: now()})
  const repair = Boolean(opts.repair) && !opts.dryRun
  const done: PlannedFinding[] = []
  const failures = new Map<string, string>()
  let cancelled = false
  if (repair) {
    let plan = collected.findings.filter((f) => f.repair)
    const proceed = plan.length === 0 || !opts.confirm || (await opts.confirm(plan.map(publicFinding)))
    cancelled = !proceed
    const tried = new Set<string>()
    for (let pass = 0; proceed && pass < MAX_PASSES && plan.length > 0; pass++) {
      for (const f of plan) tried.add(identity(f))
      await applyRepairs(state.stateDir, plan)
      for (const f of plan) {
        if (f.fixed) done.push(f)
        else if (f.repairError) failures.set(identity(f), f.repairError)
      }
      // Re-check: a recovered index reveals entries and orphans the broken one hid, and proves the repairs held.
      collected = await collectFindings(state, agentIds, {deep: opts.deep, now: now()})
      plan = collected.findings.filter((f) => f.repair && !tried.has(identity(f)))
    }
  }
  const remaining = collected.findings.map((f) => {
    const err = failures.get(identity(f))
    return err ? {...f, repairError: err} : f
  })
  const findings = sortFindings([...done.map(publicFinding), ...remaining.map(publicFinding)])
  const open = findings.filter((f) => !f.fixed)
  const counts = {error: 0, warn: 0, info: 0}
  for (const f of open) counts[f.severity]++
  const exitCode = exitCodeFor(findings)
  return {
    ok: counts.error === 0 && counts.warn === 0,
    stateDir: state.stateDir,
    stateDirReason: state.stateDirReason,
    configPath: state.configPath,
    agents: summarize(collected.scans, collected.sqlite, state),
    findings,
    fixed: done.length,
    dryRun: Boolean(opts.dryRun),
    repair,
    ...(cancelled ? {cancelled: true} : {}),
    counts,
    exitCode,
  }
}

/** Findings grouped for display: the state dir first, then each agent in order. */
export function groupFindings(result: DoctorResult): {agentId: string | null; title: string; findings: Finding[]}[] {
  const groups: {agentId: string | null; title: string; findings: Finding[]}[] = []
  groups.push({agentId: null, title: `State dir ${result.stateDir}`, findings: result.findings.filter((f) => f.agentId === null)})
  const ids = [...new Set([...result.agents.map((a) => a.agentId), ...result.findings.map((f) => f.agentId).filter((a): a is string => a !== null)])]
  for (const id of ids) {
    const a = result.agents.find((x) => x.agentId === id)
    const title = a?.sqlite
      ? `Agent ${id} (SQLite${a.sqlite.sessions === undefined ? '' : `: ${a.sqlite.sessions} sessions, ${a.sqlite.events ?? '?'} events`}) ${path.relative(result.stateDir, a.sqlite.path).startsWith('..') ? a.sqlite.path : path.relative(result.stateDir, a.sqlite.path)}`
      : a ? `Agent ${id} (${a.sessions ?? '?'} sessions, ${a.transcripts} transcripts) ${path.relative(result.stateDir, a.storePath).startsWith('..') ? a.storePath : path.relative(result.stateDir, a.storePath)}` : `Agent ${id}`
    groups.push({agentId: id, title, findings: result.findings.filter((f) => f.agentId === id)})
  }
  return groups
}
