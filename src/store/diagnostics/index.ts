// The store side of `clawkit doctor` (and of status's cheap checks): each agent's backend diagnoses its own layout
// and runs its own repairs. The JSON-file layout's checks are in file/ (orphans, modes, torn lines, lock leftovers,
// moved sessionFile, the index file), the SQLite database's in sqlite/; doctor's core (src/doctor/) adds the checks
// of the state dir as a whole, decides which repairs are allowed, and runs the passes. Nothing outside src/store/
// needs to know where a session file lives.
import fs from 'node:fs'
import path from 'node:path'

import type {JournalEntry} from '../journal.js'
import type {OpenClawState} from '../state.js'
import type {SessionStoreData} from '../types.js'
import {type CheckOptions, currentUid, legacyOnly, type StoreContext} from './context.js'
import {checkEntries} from './file/entries.js'
import {checkIndexFile} from './file/index-file.js'
import {checkLegacySessionsDir} from './file/legacy.js'
import {MAX_LOCKS_PER_STEP, withLiveStore, withTranscriptLocks} from './file/live.js'
import {checkLocks, checkLockScratch} from './file/locks.js'
import {checkStorePermissions} from './file/modes.js'
import {applyIndexEdits} from './file/repairs.js'
import {scanStores, type StoreScan} from './file/scan.js'
import {checkMigrationRuns, type MigrationRun, readMigrationRuns} from './sqlite/import-checks.js'
import {applySqliteRepairs} from './sqlite/repairs.js'
import {checkSqlite} from './sqlite/routing.js'
import type {DoctorAgentSummary, LiveStore, PlannedFinding, Repair, SqliteAgentSummary} from './types.js'

export {type CheckOptions, hasNoTurns, currentUid, modeOf, writable} from './context.js'
export {chmodPath} from './file/repairs.js'
export type {StoreScan} from './file/scan.js'

/** What one look at the agents' stores found, kept so that status and the re-check after repairs need not look twice. */
export interface StoresDiagnosis {
  /** One per distinct store (agents sharing a `session.store` are looked at once). Opaque outside src/store/. */
  scans: StoreScan[]
  /** SQLite-era agents' figures (only from a full, not a cheap, check). */
  sqlite: Map<string, SqliteAgentSummary>
}

/** Checks of the session layout that concern the state dir as a whole (the pre-multi-agent `sessions/` dir). */
export function diagnoseStateLayout(state: OpenClawState, out: PlannedFinding[]): void {
  checkLegacySessionsDir(state, out)
}

/** Look at every agent's store once (the listing and index a check and a status share). */
export function scanAgentStores(state: OpenClawState, agentIds: string[]): Promise<StoreScan[]> {
  return scanStores(state, agentIds)
}

/** Every finding of each agent's backend, in the order doctor prints them (scripts and goldens compare it). */
export async function diagnoseStores(state: OpenClawState, agentIds: string[], opts: CheckOptions & {scans?: StoreScan[]}, out: PlannedFinding[]): Promise<StoresDiagnosis> {
  const sqlite = new Map<string, SqliteAgentSummary>()
  const scans = opts.scans ?? (await scanStores(state, agentIds))
  // Read once, and under status's cheap checks only when a legacy sessions.json asks whether an import covered it.
  let runs: MigrationRun[] | undefined
  const migrationRuns = () => (runs ??= readMigrationRuns(state.stateDir))
  for (const scan of scans) await checkStore(state, scan, {...opts, sqliteStats: sqlite, migrationRuns}, out)
  if (!opts.cheap) checkMigrationRuns(state.stateDir, scans.flatMap((s) => s.agentIds), migrationRuns(), out)
  return {scans, sqlite}
}

async function checkStore(state: OpenClawState, scan: StoreScan, opts: CheckOptions, out: PlannedFinding[]): Promise<void> {
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
  // This order is the order of the findings in doctor's output, which scripts and goldens compare: keep it.
  if (legacyOnly(state, scan)) {
    // No JSON-era check judges legacy files (a torn line, a mode, an orphan, a lock of a store nobody writes), so no
    // repair touches them: what they need is OpenClaw's import, which sqlite-legacy-not-imported says. The
    // directories keep their checks (the agent dir holds the database, the sessions dir OpenClaw's published archives).
    checkStorePermissions(c, {dirsOnly: true})
    checkSqlite(c)
    return
  }
  checkStorePermissions(c)
  checkSqlite(c)
  checkLocks(c)
  checkLockScratch(c)
  checkIndexFile(c)
  await checkEntries(c)
}

/** Doctor's `agents[]`: each store's figures (a SQLite-era agent's from its database when a full check read them). */
export function summarizeStores(d: StoresDiagnosis, state: OpenClawState): DoctorAgentSummary[] {
  return d.scans.map((s) => {
    const sqlite = d.sqlite.get(s.agentId)
    // A SQLite-era agent's sessions are the database's (null when it was not read); its legacy files are not its own.
    const legacy = legacyOnly(state, s)
    return {
      agentId: s.agentId,
      ...(s.agentIds.length > 1 ? {sharedWith: s.agentIds.slice(1)} : {}),
      configured: s.configured,
      storePath: s.storePath,
      sessionsDir: s.sessionsDir,
      sessions: legacy ? (sqlite?.sessions ?? null) : s.data ? Object.keys(s.data).length : s.storeError || s.readError ? null : 0,
      transcripts: legacy ? 0 : s.transcripts.length,
      era: state.sqliteStore(s.agentId) ? ('sqlite' as const) : ('json' as const),
      ...(sqlite ? {sqlite} : {}),
    }
  })
}

/** The path a repair writes to (or below): the index for index edits, otherwise the finding's own path. */
export function repairTarget(f: PlannedFinding): string {
  return f.repair?.kind === 'index' ? f.repair.storePath : f.path
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

const REPAIR_ORDER: Repair['kind'][] = ['lock', 'perm', 'sqlite', 'store-recover', 'index', 'transcript', 'archive', 'orphan-archive']

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

/**
 * Run the planned repairs, kind by kind in a fixed order, each under the locks its backend needs. A repair never writes
 * through a symbolic link planted since the check (the confirm prompt can wait for minutes). `entry`: doctor's journal
 * entry, in which SQLite repairs record their rows (file repairs are imaged by the caller's snapshot).
 */
export async function applyRepairs(stateDir: string, plan: PlannedFinding[], entry?: JournalEntry): Promise<void> {
  for (const kind of REPAIR_ORDER) {
    const batch = plan.filter((f) => {
      if (f.repair?.kind !== kind) return false
      const link = linkedComponent(stateDir, repairTarget(f))
      if (link) f.repairError = `not changed: ${link} is a symbolic link; doctor does not write through links`
      return !link
    })
    if (kind === 'index' || kind === 'orphan-archive') {
      await applyStoreRepairs(kind, batch)
      continue
    }
    if (kind === 'sqlite') {
      await applySqliteRepairs(batch, entry)
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
