// Crash-trial harness: start a writer, SIGKILL it at a seeded random point, then check what it left on disk.
// The writers live in a table (CRASH_WRITERS in crash-writers.ts); a new command is covered by adding a row.
import {type ChildProcess, spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {baseEnv, BIN, copyFixture, ROOT, type RunResult, runProcess, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {Rng} from './prng.js'

export const WORKER = path.join(ROOT, 'test', 'reliability', 'support', 'crash-worker.mjs')

/** A fresh copy of the two-agents fixture plus everything a writer's checks need to know about the "before". */
export interface TrialContext {
  trial: number
  rng: Rng
  stateDir: string
  sessionsDir: string
  indexPath: string
  /** The main session's transcript. */
  transcriptPath: string
  baseIndexText: string
  baseIndex: Record<string, any>
  baseTranscript: Buffer
  env: Record<string, string>
  /** Scratch values a writer's start() hands to its verify(). */
  scratch: Record<string, unknown>
}

export interface SpawnSpec {
  command: string
  args: string[]
}

export interface VerifyResult {
  /** 'old', 'new', 'prefix:<n>' …: which state the disk was found in. */
  outcome: string
  problems: string[]
  tornLine?: boolean
}

export interface CrashWriter {
  name: string
  /** What the writer rewrites or appends to. */
  covers: 'index' | 'transcript' | 'index+transcript'
  weight: number
  /** When the kill clock starts: at spawn, when the victim prints READY, or when a lock file appears in the sessions dir. */
  trigger: 'spawn' | 'ready' | 'lock'
  /** The kill lands uniformly in [0, maxDelayMs] after the trigger; 'calibrated': measured first (calibrateWindow). */
  maxDelayMs: number | 'calibrated'
  /** May be async (a row that needs a server first). */
  spawn(ctx: TrialContext): SpawnSpec | Promise<SpawnSpec>
  /** Check the disk right after the kill. `progress` is the last completed step the victim printed (0 if none). */
  verify(ctx: TrialContext, progress: number): VerifyResult | Promise<VerifyResult>
  /** The next command after the crash; must reclaim any lock left by the dead pid and leave a consistent state. */
  recover(ctx: TrialContext): Promise<string[]>
}

export interface TrialRecord {
  trial: number
  writer: string
  delayMs: number
  killed: boolean
  progress: number
  outcome: string
  leftoverLocks: string[]
  leftoverTmp: string[]
  tornLine: boolean
  /** Stale locks on files the recovery command did not need (left for doctor, as OpenClaw leaves them). */
  orphanLocks: number
  /** Ids of the findings `clawkit doctor --fix --yes` repaired after the recovery command. */
  doctorFixed: string[]
  problems: string[]
}

let cacheDir: string | undefined
/**
 * One clawkit cache dir for every trial and calibration run: with a fresh one each, every run on Node 20 compiled the
 * bundle and wrote the code cache at exit (5-8 ms), which the calibrated windows would then include.
 */
function sharedCacheDir(): string {
  cacheDir ??= tempDir('clawkit-crash-cache-')
  return cacheDir
}

export function newTrialContext(trial: number, rng: Rng): TrialContext {
  const stateDir = copyFixture(TWO_AGENTS)
  const sessionsDir = path.join(stateDir, 'agents', 'main', 'sessions')
  const indexPath = path.join(sessionsDir, 'sessions.json')
  const baseIndexText = fs.readFileSync(indexPath, 'utf8')
  const baseIndex = JSON.parse(baseIndexText)
  const transcriptPath = path.join(sessionsDir, `${baseIndex['agent:main:main'].sessionId}.jsonl`)
  return {
    trial,
    rng,
    stateDir,
    sessionsDir,
    indexPath,
    transcriptPath,
    baseIndexText,
    baseIndex,
    baseTranscript: fs.readFileSync(transcriptPath),
    env: baseEnv(tempDir(), {OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS: '8000', CLAWKIT_CACHE_DIR: sharedCacheDir()}),
    scratch: {},
  }
}

/** Remove a trial's state dir and HOME (failing trials keep theirs for inspection). */
export function disposeTrialContext(ctx: TrialContext): void {
  fs.rmSync(path.dirname(ctx.stateDir), {recursive: true, force: true})
  if (ctx.env.HOME) fs.rmSync(ctx.env.HOME, {recursive: true, force: true})
}

/** The clawkit CLI as a SpawnSpec. */
export function cli(args: string[]): SpawnSpec {
  return {command: process.execPath, args: [BIN, ...args]}
}

export function runSpec(spec: SpawnSpec, env: Record<string, string>, timeoutMs = 30_000): Promise<RunResult> {
  return runProcess(spec.command, spec.args, {env, cwd: ROOT, timeoutMs})
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('close', () => resolve())
  })
}

interface Launched {
  child: ChildProcess
  /** The trigger fired (false: the victim exited or the 15 s fallback ran out first). */
  triggered: boolean
  done: Promise<void>
  /** The last completed step the victim printed (0 if none). */
  progress(): number
  stderr(): string
}

/** Spawn the writer's process and resolve once its trigger fires (or it exits first). */
async function launch(writer: CrashWriter, ctx: TrialContext): Promise<Launched> {
  const spec = await writer.spawn(ctx)
  let watcher: fs.FSWatcher | undefined
  let armed!: () => void
  const triggered = new Promise<void>((r) => (armed = r))
  if (writer.trigger === 'lock') {
    watcher = fs.watch(ctx.sessionsDir, (_event, name) => {
      if (name && String(name).endsWith('.lock')) armed()
    })
  }
  const child = spawn(spec.command, spec.args, {cwd: ROOT, env: ctx.env, stdio: ['ignore', 'pipe', 'pipe']})
  const done = exited(child)
  if (writer.trigger === 'spawn') armed()
  let progress = 0
  let stderr = ''
  let buf = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buf += d
    let nl
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl)
      buf = buf.slice(nl + 1)
      if (line === 'READY') armed()
      const m = /^[CA] (\d+)$/.exec(line)
      if (m) progress = Number(m[1])
    }
  })
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  // A victim that never reaches its trigger (it failed early) must not hang the run.
  let fired = false
  void triggered.then(() => (fired = true))
  const fallback = setTimeout(armed, 15_000)
  await Promise.race([triggered, done])
  clearTimeout(fallback)
  watcher?.close()
  // A trigger that fired in the same tick as the exit still counts.
  await Promise.race([triggered, new Promise((r) => setImmediate(r))])
  return {child, done, triggered: fired, progress: () => progress, stderr: () => stderr}
}

/**
 * The kill window of a writer that ends by itself (`maxDelayMs: 'calibrated'`, the CLI rows): 90% of the median time
 * from its trigger to its exit over `runs` unkilled runs on this machine. Fixed windows were tuned to one machine: on
 * a faster one most runs ended before the kill, on a slower one the late steps were never reached.
 */
export async function calibrateWindow(writer: CrashWriter, runs = 3): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const ctx = newTrialContext(-1 - i, new Rng(7 + i))
    const l = await launch(writer, ctx)
    const t0 = performance.now()
    await l.done
    times.push(performance.now() - t0)
    if (l.child.exitCode !== 0) throw new Error(`calibration run of "${writer.name}" exited ${l.child.exitCode}: ${l.stderr().trim().split('\n').slice(-3).join(' | ')}`)
    // A trigger that never fired would leave a window measured from the wrong moment (or from the exit: ~0 ms).
    if (!l.triggered) throw new Error(`calibration run of "${writer.name}": its trigger (${writer.trigger}) never fired`)
    disposeTrialContext(ctx)
  }
  times.sort((a, b) => a - b)
  return Math.max(5, 0.9 * times[times.length >> 1])
}

/** One trial: launch, SIGKILL uniformly within the window after the trigger, then verify, recover and run doctor. */
export async function runTrial(writer: CrashWriter, ctx: TrialContext, windowMs?: number): Promise<TrialRecord> {
  const window = windowMs ?? (typeof writer.maxDelayMs === 'number' ? writer.maxDelayMs : undefined)
  if (window === undefined) throw new Error(`"${writer.name}" needs a calibrated window (calibrateWindow)`)
  const delayMs = ctx.rng.next() * window
  const l = await launch(writer, ctx)
  const {child, done} = l
  let killed = false
  if (child.exitCode === null && child.signalCode === null) {
    await sleepPrecise(delayMs)
    killed = child.kill('SIGKILL')
  }
  await done
  killed = killed && child.signalCode === 'SIGKILL'
  const progress = l.progress()
  const stderr = l.stderr()
  const record: TrialRecord = {
    trial: ctx.trial,
    writer: writer.name,
    delayMs: Math.round(delayMs * 10) / 10,
    killed,
    progress,
    outcome: '',
    leftoverLocks: listMatching(ctx.sessionsDir, /\.lock$/),
    leftoverTmp: listMatching(ctx.sessionsDir, /\.tmp$/),
    tornLine: false,
    orphanLocks: 0,
    doctorFixed: [],
    problems: [],
  }
  if (!killed && child.exitCode !== 0) record.problems.push(`victim exited ${child.exitCode} before the kill: ${stderr.trim().split('\n').slice(-3).join(' | ')}`)
  try {
    const v = await writer.verify(ctx, progress)
    record.outcome = v.outcome
    record.tornLine = Boolean(v.tornLine)
    record.problems.push(...v.problems)
    record.problems.push(...(await writer.recover(ctx)))
    record.orphanLocks = (ctx.scratch.orphanLocks as number) ?? 0
    const doctor = await doctorFix(ctx)
    record.doctorFixed = doctor.fixed
    record.problems.push(...doctor.problems)
  } catch (error) {
    record.problems.push(`check threw: ${(error as Error).stack ?? error}`)
  }
  return record
}

/**
 * The last step after every crash and its next command: `clawkit doctor --fix --yes --json` must end with a report in
 * which no fixable finding remains (every one it found is fixed, no repair failed) and no lock is left in the sessions
 * dir (the orphan locks the next command left for doctor included).
 */
export async function doctorFix(ctx: TrialContext): Promise<{fixed: string[]; problems: string[]}> {
  const r = await runSpec(cli(['doctor', '--fix', '--yes', '--json', '--state-dir', ctx.stateDir]), ctx.env)
  // Exit 3/4 are reports with remaining (non-fixable) warnings/errors, e.g. the index worker's rows without transcripts.
  if (![0, 3, 4].includes(r.code ?? -1)) return {fixed: [], problems: [`doctor --fix exited ${r.code}: ${(r.stderr.trim() || r.stdout.trim()).slice(0, 500)}`]}
  let doc: {findings: Array<{id: string; fixable: boolean; fixed: boolean; repairError?: string; path: string}>; exitCode: number; repair: boolean}
  try {
    doc = JSON.parse(r.stdout)
  } catch {
    return {fixed: [], problems: [`doctor --fix --json printed no JSON document: ${r.stdout.slice(0, 200)}`]}
  }
  const problems: string[] = []
  if (!doc.repair || doc.exitCode !== r.code) problems.push(`doctor report repair=${doc.repair} exitCode=${doc.exitCode} (process exited ${r.code})`)
  for (const f of doc.findings) {
    if (f.fixable && !f.fixed) problems.push(`doctor --fix left a fixable finding ${f.id} on ${path.basename(f.path)}${f.repairError ? `: ${f.repairError}` : ''}`)
  }
  const locks = listMatching(ctx.sessionsDir, /\.lock$/)
  if (locks.length > 0) problems.push(`locks left after doctor --fix: ${locks.join(', ')}`)
  return {fixed: doc.findings.filter((f) => f.fixed).map((f) => f.id), problems}
}

/** setTimeout for whole milliseconds, then a short spin for the fraction, so sub-ms delays are not all rounded to 1 ms. */
async function sleepPrecise(ms: number): Promise<void> {
  const whole = Math.floor(ms)
  if (whole > 0) await new Promise((r) => setTimeout(r, whole))
  const until = performance.now() + (ms - whole)
  while (performance.now() < until) {
    // spin
  }
}

export function listMatching(dir: string, re: RegExp): string[] {
  try {
    return fs.readdirSync(dir).filter((n) => re.test(n)).sort()
  } catch {
    return []
  }
}

export interface CrashSummary {
  seed: number
  trials: number
  killed: number
  completedBeforeKill: number
  corruptions: number
  byWriter: Record<string, {trials: number; killed: number; outcomes: Record<string, number>}>
  leftoverLocksReclaimed: number
  leftoverTmpIgnored: number
  tornLines: number
  orphanLocksLeftForDoctor: number
  /** Findings doctor --fix repaired after the recovery commands, by id (summed over trials). */
  doctorFixed: Record<string, number>
  wallMs: number
  failures: TrialRecord[]
}

export function summarize(seed: number, records: TrialRecord[], wallMs: number): CrashSummary {
  const byWriter: CrashSummary['byWriter'] = {}
  for (const r of records) {
    const w = (byWriter[r.writer] ??= {trials: 0, killed: 0, outcomes: {}})
    w.trials++
    if (r.killed) w.killed++
    const bucket = r.outcome.replace(/:\d+$/, '')
    w.outcomes[bucket] = (w.outcomes[bucket] ?? 0) + 1
  }
  const failures = records.filter((r) => r.problems.length > 0)
  return {
    seed,
    trials: records.length,
    killed: records.filter((r) => r.killed).length,
    completedBeforeKill: records.filter((r) => !r.killed).length,
    corruptions: failures.length,
    byWriter,
    leftoverLocksReclaimed: records.filter((r) => r.leftoverLocks.length > 0 && r.problems.length === 0).length,
    leftoverTmpIgnored: records.filter((r) => r.leftoverTmp.length > 0 && r.problems.length === 0).length,
    tornLines: records.filter((r) => r.tornLine).length,
    orphanLocksLeftForDoctor: records.reduce((n, r) => n + r.orphanLocks, 0),
    doctorFixed: records.flatMap((r) => r.doctorFixed).reduce<Record<string, number>>((acc, id) => ((acc[id] = (acc[id] ?? 0) + 1), acc), {}),
    wallMs,
    failures,
  }
}

/** Write a run's figures where RELIABILITY.md says they are (test-results/, git-ignored). */
export function writeResults(name: string, doc: unknown): string {
  const dir = path.join(ROOT, 'test-results')
  fs.mkdirSync(dir, {recursive: true})
  const file = path.join(dir, `${name}.json`)
  fs.writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`)
  return file
}
