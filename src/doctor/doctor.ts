// `clawkit doctor`: run every check on every agent, optionally repair (backup first, under locks), and re-check.
import path from 'node:path'

import type {OpenClawState} from '../store/state.js'
import {checkSplitState, checkStateDir, checkStore} from './checks.js'
import {applyIndexEdits} from './repairs.js'
import {scanStores, type StoreScan} from './scan.js'
import {
  type DoctorAgentSummary,
  type DoctorOptions,
  type DoctorResult,
  EXIT_ERRORS,
  EXIT_HEALTHY,
  EXIT_WARNINGS,
  type Finding,
  type PlannedFinding,
  type Repair,
} from './types.js'

export * from './types.js'

const REPAIR_ORDER: Repair['kind'][] = ['lock', 'perm', 'store-recover', 'index', 'transcript', 'archive']
const MAX_PASSES = 3

interface Collected {
  findings: PlannedFinding[]
  scans: StoreScan[]
}

/** Run the checks. `cheap` skips everything that reads transcript contents (what `status` uses). */
export async function collectFindings(state: OpenClawState, agentIds: string[], opts: {cheap?: boolean; deep?: boolean; now: number; scans?: StoreScan[]}): Promise<Collected> {
  const findings: PlannedFinding[] = []
  const exists = checkStateDir(state, findings)
  checkSplitState(state, findings)
  if (!exists) return {findings, scans: []}
  const scans = opts.scans ?? (await scanStores(state, agentIds))
  for (const scan of scans) await checkStore(state, scan, opts, findings)
  return {findings, scans}
}

function identity(f: Finding): string {
  return `${f.id}\0${f.agentId ?? ''}\0${f.path}\0${f.key ?? ''}`
}

function publicFinding(f: PlannedFinding): Finding {
  const {repair, ...rest} = f
  void repair
  return rest
}

async function applyRepairs(plan: PlannedFinding[]): Promise<void> {
  for (const kind of REPAIR_ORDER) {
    const batch = plan.filter((f) => f.repair?.kind === kind)
    if (kind === 'index') {
      const byStore = new Map<string, PlannedFinding[]>()
      for (const f of batch) {
        const r = f.repair as Extract<Repair, {kind: 'index'}>
        const list = byStore.get(r.storePath)
        if (list) list.push(f)
        else byStore.set(r.storePath, [f])
      }
      for (const [storePath, list] of byStore) {
        const applied = new Set<PlannedFinding>()
        const edits = list.map((f) => (data: Parameters<Extract<Repair, {kind: 'index'}>['edit']>[0]) => {
          const changed = (f.repair as Extract<Repair, {kind: 'index'}>).edit(data)
          if (changed) applied.add(f)
          return changed
        })
        try {
          const {backup} = await applyIndexEdits(storePath, (list[0].repair as Extract<Repair, {kind: 'index'}>).agentId, edits)
          for (const f of list) {
            f.fixed = applied.has(f)
            if (f.fixed && backup) f.backup = backup
            if (!f.fixed) f.repairError = 'the entry changed meanwhile; nothing to do'
          }
        } catch (error) {
          for (const f of list) f.repairError = (error as Error).message
        }
      }
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

function summarize(scans: StoreScan[]): DoctorAgentSummary[] {
  return scans.map((s) => ({
    agentId: s.agentId,
    ...(s.agentIds.length > 1 ? {sharedWith: s.agentIds.slice(1)} : {}),
    configured: s.configured,
    storePath: s.storePath,
    sessionsDir: s.sessionsDir,
    sessions: s.data ? Object.keys(s.data).length : s.storeError || s.readError ? null : 0,
    transcripts: s.transcripts.length,
  }))
}

export function exitCodeFor(findings: Finding[]): number {
  const open = findings.filter((f) => !f.fixed)
  if (open.some((f) => f.severity === 'error')) return EXIT_ERRORS
  if (open.some((f) => f.severity === 'warn')) return EXIT_WARNINGS
  return EXIT_HEALTHY
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
      await applyRepairs(plan)
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
    agents: summarize(collected.scans),
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
    const title = a ? `Agent ${id} (${a.sessions ?? '?'} sessions, ${a.transcripts} transcripts) ${path.relative(result.stateDir, a.storePath).startsWith('..') ? a.storePath : path.relative(result.stateDir, a.storePath)}` : `Agent ${id}`
    groups.push({agentId: id, title, findings: result.findings.filter((f) => f.agentId === id)})
  }
  return groups
}
