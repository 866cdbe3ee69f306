// `clawkit doctor`: run every check on every agent, optionally repair (backup first, under locks), and re-check.
import path from 'node:path'

import type {OpenClawState} from '../store/state.js'
import {checkSplitState, checkStateDir, checkStore} from './checks.js'
import type {SessionStoreData} from '../store/types.js'
import {MAX_LOCKS_PER_STEP, withLiveStore, withTranscriptLocks} from './live.js'
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
  type LiveStore,
  type PlannedFinding,
  type Repair,
} from './types.js'

export * from './types.js'

const REPAIR_ORDER: Repair['kind'][] = ['lock', 'perm', 'store-recover', 'index', 'transcript', 'archive', 'orphan-archive']
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

async function applyRepairs(plan: PlannedFinding[]): Promise<void> {
  for (const kind of REPAIR_ORDER) {
    const batch = plan.filter((f) => f.repair?.kind === kind)
    if (kind === 'index' || kind === 'orphan-archive') {
      await applyStoreRepairs(kind, batch)
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
