// `clawkit doctor`: run every check on every agent, optionally repair (backup first, under locks), and re-check.
import path from 'node:path'

import {ExitCode} from '../errors.js'
import {runJournaled} from '../store/journal.js'
import {snapshotFiles} from '../store/journal-snapshot.js'
import {applyRepairs, diagnoseStateLayout, diagnoseStores, linkedComponent, repairTarget, type StoresDiagnosis, summarizeStores} from '../store/diagnostics/index.js'
import type {OpenClawState} from '../store/state.js'
import {plural} from '../text/sentence.js'
import {checkSplitState, checkStateDir} from './checks/state-dir.js'
import {type DoctorOptions, type DoctorResult, type Finding, type PlannedFinding, type Repair} from './types.js'

export * from './types.js'

const MAX_PASSES = 3

interface Collected extends StoresDiagnosis {
  findings: PlannedFinding[]
}

/**
 * Run the checks: the state dir as a whole here, then each agent's store through its backend's diagnostics. `cheap`
 * skips everything that reads transcript contents (what `status` uses); `scans` reuses a look status already took.
 */
export async function collectFindings(state: OpenClawState, agentIds: string[], opts: {cheap?: boolean; deep?: boolean; now: number; scans?: StoresDiagnosis['scans']}): Promise<Collected> {
  const findings: PlannedFinding[] = []
  const exists = checkStateDir(state, findings)
  checkSplitState(state, findings)
  diagnoseStateLayout(state, findings)
  if (!exists) return {findings, scans: [], sqlite: new Map()}
  const diagnosis = await diagnoseStores(state, agentIds, opts, findings)
  for (const f of findings) {
    withholdLinkedRepair(state.stateDir, f)
    withholdSqliteEraRepair(state, f)
  }
  return {findings, ...diagnosis}
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

function identity(f: Finding): string {
  return `${f.id}\0${f.agentId ?? ''}\0${f.path}\0${f.key ?? ''}`
}

function publicFinding(f: PlannedFinding): Finding {
  const {repair, ...rest} = f
  void repair
  return rest
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
  let journalId: string | null = null
  if (repair) {
    let plan = collected.findings.filter((f) => f.repair)
    const proceed = plan.length === 0 || !opts.confirm || (await opts.confirm(plan.map(publicFinding)))
    cancelled = !proceed
    const tried = new Set<string>()
    if (proceed && plan.length > 0) {
      // Journaled (clawkit undo): before each pass, the files its repairs may touch and those beside them are imaged
      // (the targets' bytes kept); afterwards what the repairs changed is recorded. SQLite repairs record their backup
      // file and the rows they change in the same entry, inside their transactions.
      const {journal} = await runJournaled({env: state.env, stateDir: state.stateDir, action: 'doctor-fix', command: `doctor --fix${opts.agent ? ` --agent ${opts.agent}` : ''}`, summary: `doctor --fix: ${plan.length} finding(s)`, noJournal: opts.noJournal}, async (entry) => {
        for (let pass = 0; pass < MAX_PASSES && plan.length > 0; pass++) {
          for (const f of plan) tried.add(identity(f))
          const targets = plan.filter((f) => f.repair && f.repair.kind !== 'sqlite').map((f) => repairTarget(f))
          const agentId = plan.find((f) => f.agentId)?.agentId ?? state.activeAgentId
          const snap = entry && targets.length > 0 ? await snapshotFiles(entry, {agentId, store: state.sessionStoreRef(agentId).path, label: `doctor --fix pass ${pass + 1}: ${targets.length} repair(s)`, targets}) : undefined
          await applyRepairs(state.stateDir, plan, entry)
          await snap?.finish()
          for (const f of plan) {
            if (f.fixed) done.push(f)
            else if (f.repairError) failures.set(identity(f), f.repairError)
          }
          // Re-check: a recovered index reveals entries and orphans the broken one hid, and proves the repairs held.
          collected = await collectFindings(state, agentIds, {deep: opts.deep, now: now()})
          plan = collected.findings.filter((f) => f.repair && !tried.has(identity(f)))
        }
      })
      journalId = journal?.id ?? null
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
    agents: summarizeStores(collected, state),
    findings,
    fixed: done.length,
    dryRun: Boolean(opts.dryRun),
    repair,
    ...(cancelled ? {cancelled: true} : {}),
    ...(repair ? {journal: journalId} : {}),
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
      ? `Agent ${id} (SQLite${a.sqlite.sessions === undefined ? '' : `: ${plural(a.sqlite.sessions, 'session')}, ${a.sqlite.events === undefined ? '? events' : plural(a.sqlite.events, 'event')}`}) ${path.relative(result.stateDir, a.sqlite.path).startsWith('..') ? a.sqlite.path : path.relative(result.stateDir, a.sqlite.path)}`
      : a ? `Agent ${id} (${a.sessions === null ? '? sessions' : plural(a.sessions, 'session')}, ${plural(a.transcripts, 'transcript')}) ${path.relative(result.stateDir, a.storePath).startsWith('..') ? a.storePath : path.relative(result.stateDir, a.storePath)}` : `Agent ${id}`
    groups.push({agentId: id, title, findings: result.findings.filter((f) => f.agentId === id)})
  }
  return groups
}
