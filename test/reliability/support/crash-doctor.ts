// Crash-trial writer for `clawkit doctor --fix --yes` (issue 14 item 2): the trial plants one of each thing doctor
// repairs with a write, SIGKILLs doctor somewhere in its repairs, and checks that every repair either landed whole or
// not at all, that nothing doctor does not own changed, and that the next doctor --fix finishes the job.
import {randomUUID} from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import {isDeepStrictEqual} from 'node:util'

import {cli, listMatching, runSpec, type SpawnSpec, type TrialContext, type VerifyResult} from './crash.js'
import {checkStoreInvariants} from './store-invariants.js'

const MAIN = 'agent:main:main'
const EXTRA = 'agent:main:crash-extra'
const id = (n: number) => `dddddddd-0000-4000-8000-${String(n).padStart(12, '0')}`
const ORPHAN = id(1)
const EMPTY = id(2)
const EXTRA_ID = id(3)
const EXPLICIT = `agent:main:explicit:${ORPHAN}`
/** Above Linux's largest pid_max (2^22): never a live process. */
const DEAD_PID = 4_194_999
const TORN = '{"type":"message","id":"torn0001","parentId":null,"message":{"role":"us'

interface Planted {
  mainIndexBefore: Record<string, any>
  workIndexPath: string
  workIndexBefore: Record<string, any>
  transcript: Buffer
  orphanPath: string
  orphan: Buffer
  emptyPath: string
  empty: Buffer
  tmpPath: string
  tmp: Buffer
}

function line(o: unknown): string {
  return `${JSON.stringify(o)}\n`
}

/** One of each repair doctor writes: two relocated rows, a missing updatedAt, an orphan to re-index, an empty orphan
 * to archive, a torn last line, a stale lock and an old temp file. */
export function spawnDoctorFix(ctx: TrialContext): SpawnSpec {
  const dir = ctx.sessionsDir
  const ts = '2026-11-20T10:00:00.000Z'
  const orphan = Buffer.from(
    line({type: 'session', version: 3, id: ORPHAN, timestamp: ts, cwd: ctx.stateDir}) +
      line({type: 'message', id: 'a0000001', parentId: null, timestamp: ts, message: {role: 'user', content: [{type: 'text', text: 'orphaned question'}], timestamp: 1}}) +
      line({type: 'message', id: 'a0000002', parentId: 'a0000001', timestamp: ts, message: {role: 'assistant', content: [{type: 'text', text: 'orphaned answer'}], provider: 'anthropic', model: 'claude-opus-4-6', usage: {input: 10, output: 5, cacheRead: 0, cacheWrite: 0}, stopReason: 'stop', timestamp: 2}}),
  )
  const empty = Buffer.from(line({type: 'session', version: 3, id: EMPTY, timestamp: ts, cwd: ctx.stateDir}))
  const orphanPath = path.join(dir, `${ORPHAN}.jsonl`)
  const emptyPath = path.join(dir, `${EMPTY}.jsonl`)
  fs.writeFileSync(orphanPath, orphan, {mode: 0o600})
  fs.writeFileSync(emptyPath, empty, {mode: 0o600})
  const extraPath = path.join(dir, `${EXTRA_ID}.jsonl`)
  fs.writeFileSync(extraPath, line({type: 'session', version: 3, id: EXTRA_ID, timestamp: ts, cwd: ctx.stateDir}) + line({type: 'message', id: 'b0000001', parentId: null, timestamp: ts, message: {role: 'user', content: [{type: 'text', text: 'kept'}], timestamp: 1}}), {mode: 0o600})
  fs.writeFileSync(`${extraPath}.lock`, JSON.stringify({pid: DEAD_PID, createdAt: new Date().toISOString()}, null, 2), {mode: 0o600})
  const index = {...ctx.baseIndex, [EXTRA]: {sessionId: EXTRA_ID, sessionFile: extraPath, label: 'crash extra'}}
  fs.writeFileSync(ctx.indexPath, JSON.stringify(index, null, 2), {mode: 0o600})
  fs.appendFileSync(ctx.transcriptPath, TORN)
  const tmpPath = path.join(dir, `sessions.json.${randomUUID()}.tmp`)
  fs.writeFileSync(tmpPath, '{"half": ', {mode: 0o600})
  const hourAgo = new Date(Date.now() - 3600_000)
  fs.utimesSync(tmpPath, hourAgo, hourAgo)
  const workIndexPath = path.join(ctx.stateDir, 'agents', 'work', 'sessions', 'sessions.json')
  const planted: Planted = {
    mainIndexBefore: index,
    workIndexPath,
    workIndexBefore: JSON.parse(fs.readFileSync(workIndexPath, 'utf8')),
    transcript: fs.readFileSync(ctx.transcriptPath),
    orphanPath,
    orphan,
    emptyPath,
    empty,
    tmpPath,
    tmp: fs.readFileSync(tmpPath),
  }
  ctx.scratch.doctor = planted
  return cli(['doctor', '--fix', '--yes', '--json', '--state-dir', ctx.stateDir])
}

function readIndexAt(file: string, problems: string[]): Record<string, any> | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8')
    const data = JSON.parse(text)
    if (text !== JSON.stringify(data, null, 2)) problems.push(`${path.basename(path.dirname(path.dirname(file)))}: sessions.json is not in OpenClaw's 2-space serialization`)
    return data
  } catch (error) {
    problems.push(`${file} does not parse: ${(error as Error).message}`)
    return undefined
  }
}

/** The file is at its path or in exactly one `<name>.deleted.<ts>`, with its bytes, never both. */
function movedWhole(file: string, bytes: Buffer, problems: string[]): boolean {
  const dir = path.dirname(file)
  const copies = listMatching(dir, new RegExp(`^${path.basename(file).replaceAll('.', '\\.')}\\.deleted\\.`)).filter((n) => !n.endsWith('.tmp'))
  const atPath = fs.existsSync(file)
  if (atPath && !fs.readFileSync(file).equals(bytes)) problems.push(`${path.basename(file)} changed in place`)
  for (const c of copies) if (!fs.readFileSync(path.join(dir, c)).equals(bytes)) problems.push(`${c} is not a byte copy`)
  if (atPath && copies.length > 0) problems.push(`${path.basename(file)} is both live and archived`)
  if (!atPath && copies.length !== 1) problems.push(`${path.basename(file)} is gone (${copies.length} archives)`)
  return !atPath
}

/** A row is its old self or exactly the planned repair of it (true when repaired). */
function rowOldOrRepaired(key: string, before: any, after: any, repaired: (row: any) => boolean, problems: string[]): boolean {
  if (isDeepStrictEqual(after, before)) return false
  if (after && repaired(after)) return true
  problems.push(`row ${key} is neither the old one nor its repair: ${JSON.stringify(after).slice(0, 300)}`)
  return false
}

/** State after the kill: every repair landed whole or not at all; count how many landed. */
function checkDoctorState(ctx: TrialContext, problems: string[]): number {
  const p = ctx.scratch.doctor as Planted
  let landed = 0
  const index = readIndexAt(ctx.indexPath, problems)
  const work = readIndexAt(p.workIndexPath, problems)
  if (!index || !work) return landed
  const extraKeys = Object.keys(index).filter((k) => !(k in p.mainIndexBefore))
  if (extraKeys.some((k) => k !== EXPLICIT)) problems.push(`unexpected rows ${extraKeys.join(', ')}`)
  const local = (before: any, dir: string) => (row: any) => isDeepStrictEqual(row, {...before, sessionFile: path.join(dir, path.basename(before.sessionFile))})
  const mainBefore = p.mainIndexBefore[MAIN]
  if (rowOldOrRepaired(MAIN, mainBefore, index[MAIN], local(mainBefore, ctx.sessionsDir), problems)) landed++
  const workKey = Object.keys(p.workIndexBefore)[0]
  if (rowOldOrRepaired(workKey, p.workIndexBefore[workKey], work[workKey], local(p.workIndexBefore[workKey], path.dirname(p.workIndexPath)), problems)) landed++
  const extraBefore = p.mainIndexBefore[EXTRA]
  if (rowOldOrRepaired(EXTRA, extraBefore, index[EXTRA], (row) => Number.isFinite(row.updatedAt) && isDeepStrictEqual({...row, updatedAt: undefined}, {...extraBefore, updatedAt: undefined}), problems)) landed++
  // The orphan with messages is only ever indexed, never moved or changed.
  if (!fs.existsSync(p.orphanPath) || !fs.readFileSync(p.orphanPath).equals(p.orphan)) problems.push('the orphan transcript with messages was moved or changed')
  if (index[EXPLICIT]) {
    landed++
    if (index[EXPLICIT].sessionId !== ORPHAN || index[EXPLICIT].sessionFile !== p.orphanPath) problems.push(`re-indexed row points elsewhere: ${JSON.stringify(index[EXPLICIT])}`)
  }
  if (movedWhole(p.emptyPath, p.empty, problems)) landed++
  if (movedWhole(p.tmpPath, p.tmp, problems)) landed++
  // The torn line: still there, or cut off with its bytes in <transcript>.bak.<ts> (written before the cut).
  const now = fs.readFileSync(ctx.transcriptPath)
  const clean = p.transcript.subarray(0, p.transcript.length - TORN.length)
  const baks = listMatching(ctx.sessionsDir, new RegExp(`^${path.basename(ctx.transcriptPath).replaceAll('.', '\\.')}\\.bak\\.`)).filter((n) => !n.endsWith('.tmp'))
  const tornKept = baks.some((b) => fs.readFileSync(path.join(ctx.sessionsDir, b), 'utf8') === TORN)
  if (now.equals(clean)) {
    landed++
    if (!tornKept) problems.push('the torn line was cut off without its backup')
  } else if (!now.equals(p.transcript)) problems.push('the main transcript is neither the old bytes nor the old bytes without the torn line')
  // Nothing doctor does not own: every row keeps a live transcript, nothing is lost, no live transcript archived.
  const inv = checkStoreInvariants(ctx.sessionsDir, {before: p.mainIndexBefore, allowedNewKeys: (k) => k === EXPLICIT, allowTornTail: true, allowLocks: true})
  problems.push(...inv.problems)
  return landed
}

export function verifyDoctorFix(ctx: TrialContext): VerifyResult {
  const problems: string[] = []
  const landed = checkDoctorState(ctx, problems)
  return {outcome: `${landed}-of-7-repairs`, problems}
}

/** The next command is doctor --fix again: it reclaims the dead doctor's locks and lands every repair. */
export async function recoverDoctorFix(ctx: TrialContext): Promise<string[]> {
  const r = await runSpec(cli(['doctor', '--fix', '--yes', '--json', '--state-dir', ctx.stateDir]), ctx.env)
  if (![0, 3, 4].includes(r.code ?? -1)) return [`recovery doctor --fix exited ${r.code}: ${(r.stderr.trim() || r.stdout.trim()).slice(0, 300)}`]
  const problems: string[] = []
  const landed = checkDoctorState(ctx, problems)
  if (landed !== 7) problems.push(`after the next doctor --fix only ${landed} of 7 repairs are in place`)
  return problems
}
