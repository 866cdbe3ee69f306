// The table of writers the crash trials SIGKILL. To cover a new command (agent -m, message send, doctor --fix), add a
// row: how to spawn it, when to start the kill clock, what "old or new state" means for it, and its next command.
import fs from 'node:fs'
import path from 'node:path'
import {isDeepStrictEqual} from 'node:util'

import {cli, type CrashWriter, listMatching, runSpec, type TrialContext, type VerifyResult, WORKER} from './crash.js'
import {inspectLock} from '../../../src/store/lock.js'
import {scanJsonl} from './jsonl.js'
import {sha256} from './tree.js'

const MAIN = 'agent:main:main'
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** Mirror of applyIndexUpdate() in crash-worker.mjs: the index after the worker's first n updates. */
export function expectedIndexText(base: Record<string, any>, n: number, pad: string): string {
  const data = structuredClone(base)
  for (let i = 1; i <= n; i++) {
    data[MAIN].crashSeq = i
    data[`agent:main:crash-${i}`] = {sessionId: `crash-${i}`, updatedAt: 1_800_000_000_000 + i, pad}
  }
  return JSON.stringify(data, null, 2)
}

/** Fields `sessions reset` may change or drop; every other field of the entry must survive it. */
const RESET_TOUCHED = new Set([
  'sessionId', 'updatedAt', 'sessionFile', 'systemSent', 'abortedLastRun', 'inputTokens', 'outputTokens', 'totalTokens', 'totalTokensFresh',
  'compactionCount', 'sessionStartedAt', 'cacheRead', 'cacheWrite', 'estimatedCostUsd', 'memoryFlushAt', 'memoryFlushCompactionCount',
  'memoryFlushContextHash', 'lastInteractionAt', 'cliSessionIds', 'cliSessionBindings', 'claudeCliSessionId', 'abortCutoffMessageSid',
  'abortCutoffTimestamp', 'compactionCheckpoints',
])

function readIndex(ctx: TrialContext, problems: string[]): {text: string; data?: Record<string, any>} {
  let text = ''
  try {
    text = fs.readFileSync(ctx.indexPath, 'utf8')
  } catch (error) {
    problems.push(`sessions.json unreadable: ${(error as Error).message}`)
    return {text}
  }
  try {
    return {text, data: JSON.parse(text)}
  } catch (error) {
    problems.push(`sessions.json does not parse (${text.length} bytes): ${(error as Error).message}`)
    return {text}
  }
}

/** Where the bytes of a transcript now live: its own path and/or `<file>.reset.<ts>` archives. */
function findTranscriptCopies(file: string, bytes: Buffer): {atPath: boolean; archives: string[]} {
  const want = sha256(bytes)
  const atPath = fs.existsSync(file) && sha256(fs.readFileSync(file)) === want
  const dir = path.dirname(file)
  const archives = listMatching(dir, new RegExp(`^${path.basename(file).replaceAll('.', '\\.')}\\.reset\\.`)).filter((n) => sha256(fs.readFileSync(path.join(dir, n))) === want)
  return {atPath, archives}
}

/** Index is the fixture's (old) or a correct reset of the main entry (new); the old transcript is intact somewhere. */
function verifyReset(ctx: TrialContext, problems: string[]): string {
  const {text, data} = readIndex(ctx, problems)
  if (!data) return 'unparseable'
  if (text !== JSON.stringify(data, null, 2)) problems.push('sessions.json is not in OpenClaw\'s 2-space serialization')
  for (const k of Object.keys(ctx.baseIndex)) if (k !== MAIN && !isDeepStrictEqual(data[k], ctx.baseIndex[k])) problems.push(`entry ${k} changed`)
  const extra = Object.keys(data).filter((k) => !(k in ctx.baseIndex))
  if (extra.length > 0) problems.push(`unexpected keys ${extra.join(', ')}`)
  const before = ctx.baseIndex[MAIN]
  const after = data[MAIN]
  const copies = findTranscriptCopies(ctx.transcriptPath, ctx.baseTranscript)
  if (isDeepStrictEqual(after, before)) {
    // Old state: the session must still read exactly as before, so its transcript must still be where the index says.
    if (!copies.atPath) problems.push(`old index but the old transcript is no longer at ${path.basename(ctx.transcriptPath)} (archives: ${copies.archives.join(', ') || 'none'})`)
    return 'old'
  }
  if (!after || typeof after !== 'object') {
    problems.push('main entry missing')
    return 'broken'
  }
  if (!UUID_RE.test(after.sessionId) || after.sessionId === before.sessionId) problems.push(`new sessionId ${after.sessionId} is not a fresh UUID`)
  if (after.sessionFile !== path.join(ctx.sessionsDir, `${after.sessionId}.jsonl`)) problems.push(`sessionFile ${after.sessionFile} does not match the new id`)
  for (const [k, v] of Object.entries(before)) if (!RESET_TOUCHED.has(k) && !isDeepStrictEqual(after[k], v)) problems.push(`reset lost field ${k}`)
  for (const k of Object.keys(after)) if (!(k in before) && !RESET_TOUCHED.has(k)) problems.push(`reset added field ${k}`)
  if (after.inputTokens !== 0 || after.totalTokens !== 0 || after.totalTokensFresh !== true) problems.push('reset left token counters')
  // New state: the old conversation is archived (or, if the kill landed between the index write and the archive
  // rename, still under its old name); it is never gone.
  if (!copies.atPath && copies.archives.length === 0) problems.push('old transcript lost: neither at its path nor archived')
  if (copies.atPath && copies.archives.length > 0) problems.push('old transcript both live and archived')
  return copies.atPath ? 'new(unarchived)' : 'new'
}

/** The next writer after any index/reset crash: the real CLI's reset must reclaim dead locks and land cleanly. */
async function recoverWithCliReset(ctx: TrialContext): Promise<string[]> {
  const problems: string[] = []
  const pre = readIndex(ctx, problems).data
  if (!pre) return problems
  const preEntry = pre[MAIN]
  const preTranscript = path.join(ctx.sessionsDir, path.basename(String(preEntry.sessionFile ?? `${preEntry.sessionId}.jsonl`)))
  const preBytes = fs.existsSync(preTranscript) ? fs.readFileSync(preTranscript) : undefined
  // A temp file left by the kill must never be read as the index: the CLI lists exactly what sessions.json holds.
  if (listMatching(ctx.sessionsDir, /^sessions\.json\..*\.tmp$/).length > 0) {
    const list = await runSpec(cli(['sessions', 'list', '--json', '--state-dir', ctx.stateDir]), ctx.env)
    const keys = list.code === 0 ? (JSON.parse(list.stdout).sessions as {key: string}[]).map((r) => r.key).sort() : []
    if (!isDeepStrictEqual(keys, Object.keys(pre).sort())) problems.push(`sessions list with a stale .tmp present shows ${keys.length} keys, sessions.json has ${Object.keys(pre).length}`)
  }
  const r = await runSpec(cli(['sessions', 'reset', MAIN, '--json', '--state-dir', ctx.stateDir]), ctx.env)
  if (r.code !== 0) {
    problems.push(`recovery reset exited ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`)
    return problems
  }
  const doc = JSON.parse(r.stdout)
  const post = readIndex(ctx, problems).data
  if (!post) return problems
  problems.push(...checkLocksAfterRecovery(ctx, [ctx.indexPath, path.join(ctx.sessionsDir, `${doc.sessionId}.jsonl`), preTranscript]))
  if (post[MAIN]?.sessionId !== doc.sessionId || doc.previousSessionId !== preEntry.sessionId) problems.push('recovery reset did not land')
  for (const k of Object.keys(pre)) if (k !== MAIN && !isDeepStrictEqual(post[k], pre[k])) problems.push(`recovery changed entry ${k}`)
  if (preBytes && (!doc.archivedTranscript || sha256(fs.readFileSync(doc.archivedTranscript)) !== sha256(preBytes))) problems.push('recovery did not archive the transcript intact')
  return problems
}

/**
 * The locks the recovery command needed must be gone (reclaimed, then released). A lock on a file it did not touch
 * (the old transcript of a session whose index row was already rotated) is left as OpenClaw leaves it, for doctor to
 * clean; it must at least be recognisably stale.
 */
function checkLocksAfterRecovery(ctx: TrialContext, needed: string[]): string[] {
  const problems: string[] = []
  const neededLocks = new Set(needed.map((f) => `${path.basename(f)}.lock`))
  for (const name of listMatching(ctx.sessionsDir, /\.lock$/)) {
    if (neededLocks.has(name)) problems.push(`lock ${name} left after the recovery command`)
    else if (!inspectLock(path.join(ctx.sessionsDir, name))?.stale) problems.push(`orphan lock ${name} is not recognisably stale`)
    else ctx.scratch.orphanLocks = ((ctx.scratch.orphanLocks as number) ?? 0) + 1
  }
  return problems
}

function verifyIndexWorker(ctx: TrialContext, progress: number): VerifyResult {
  const problems: string[] = []
  const {text} = readIndex(ctx, problems)
  const pad = ctx.scratch.pad as string
  let outcome = 'unexpected'
  if (text === (progress === 0 ? ctx.baseIndexText : expectedIndexText(ctx.baseIndex, progress, pad))) outcome = `old:${progress}`
  else if (text === expectedIndexText(ctx.baseIndex, progress + 1, pad)) outcome = `new:${progress + 1}`
  else if (problems.length === 0) problems.push(`sessions.json is neither the state after update ${progress} nor after ${progress + 1} (${text.length} bytes)`)
  return {outcome, problems}
}

const SEQ_RE = /^seq (\d+) /

function verifyTranscriptWorker(ctx: TrialContext, progress: number): VerifyResult {
  const problems: string[] = []
  const scan = scanJsonl(ctx.transcriptPath)
  if (!scan.bytes.subarray(0, ctx.baseTranscript.length).equals(ctx.baseTranscript)) problems.push('the bytes before the appends changed')
  if (scan.badComplete.length > 0) problems.push(`complete lines that do not parse: ${scan.badComplete.join(', ')}`)
  const baseLines = ctx.scratch.baseLineCount as number
  const ours = scan.lines.slice(baseLines)
  let parent = ctx.scratch.baseLeaf as string
  const ids = new Set<string>(ctx.scratch.baseIds as string[])
  ours.forEach((e, i) => {
    const text = (e.message as any)?.content?.[0]?.text as string | undefined
    const seq = Number(SEQ_RE.exec(text ?? '')?.[1])
    if (seq !== i + 1) problems.push(`entry ${i + 1} carries seq ${seq}`)
    if (e.parentId !== parent) problems.push(`entry ${i + 1} parentId ${e.parentId} != ${parent}`)
    if (typeof e.id !== 'string' || !/^[0-9a-f]{8}$/.test(e.id) || ids.has(e.id)) problems.push(`entry ${i + 1} has a bad or duplicate id ${e.id}`)
    ids.add(String(e.id))
    parent = String(e.id)
  })
  if (ours.length < progress) problems.push(`lost completed appends: ${ours.length} entries on disk, ${progress} reported`)
  if (ours.length > progress + 3) problems.push(`more entries than one batch beyond the last reported: ${ours.length} vs ${progress}`)
  if (scan.tail !== '' && !scan.tail.startsWith('{"type":"message"')) problems.push(`unterminated tail is not the start of an entry: ${scan.tail.slice(0, 40)}`)
  ctx.scratch.leaf = parent
  ctx.scratch.completeLines = scan.lines.length + scan.badComplete.length
  return {outcome: `${scan.tail ? 'torn' : 'clean'}:${ours.length}`, problems, tornLine: scan.tail !== ''}
}

async function recoverTranscript(ctx: TrialContext): Promise<string[]> {
  const problems: string[] = []
  const hadTail = scanJsonl(ctx.transcriptPath).tail !== ''
  const r = await runSpec({command: process.execPath, args: [WORKER, 'append-one', ctx.transcriptPath]}, ctx.env)
  if (r.code !== 0) return [`recovery append exited ${r.code}: ${r.stderr.trim()}`]
  const appended = JSON.parse(r.stdout)
  if (appended.parentId !== ctx.scratch.leaf) problems.push(`recovery append chained onto ${appended.parentId}, not the last complete entry ${ctx.scratch.leaf}`)
  problems.push(...checkLocksAfterRecovery(ctx, [ctx.transcriptPath]))
  const scan = scanJsonl(ctx.transcriptPath)
  // At most the one torn line is lost: it stays in the file, fenced onto its own line, and nothing else is bad.
  if (scan.tail !== '') problems.push('file still ends without a newline after the recovery append')
  if (scan.badComplete.length !== (hadTail ? 1 : 0)) problems.push(`${scan.badComplete.length} unparseable lines after recovery (expected ${hadTail ? 1 : 0})`)
  if (scan.lines.at(-1)?.id !== appended.id) problems.push('the recovered entry is not the last line')
  return problems
}

export const CRASH_WRITERS: CrashWriter[] = [
  {
    name: 'store.update (library worker: index rewrite loop)',
    covers: 'index',
    weight: 3,
    trigger: 'ready',
    maxDelayMs: 120,
    spawn(ctx) {
      const padBytes = ctx.rng.int(0, 40_000)
      ctx.scratch.pad = 'x'.repeat(padBytes)
      return {command: process.execPath, args: [WORKER, 'index', ctx.indexPath, String(padBytes)]}
    },
    verify: verifyIndexWorker,
    recover: recoverWithCliReset,
  },
  {
    name: 'appendEntries (library worker: transcript append loop)',
    covers: 'transcript',
    weight: 3,
    trigger: 'ready',
    maxDelayMs: 120,
    spawn(ctx) {
      const base = scanJsonl(ctx.transcriptPath)
      ctx.scratch.baseLineCount = base.lines.length
      const entries = base.lines.filter((l) => typeof l.id === 'string' && l.type !== 'session')
      ctx.scratch.baseLeaf = entries.at(-1)?.id
      ctx.scratch.baseIds = entries.map((e) => e.id)
      return {command: process.execPath, args: [WORKER, 'transcript', ctx.transcriptPath, String(ctx.rng.int(1, 2 ** 31)), String(ctx.rng.pick([0, 2, 3]))]}
    },
    verify: verifyTranscriptWorker,
    recover: recoverTranscript,
  },
  {
    name: 'clawkit sessions reset (CLI, kill after its first lock appears)',
    covers: 'index+transcript',
    weight: 3,
    trigger: 'lock',
    maxDelayMs: 15,
    spawn: (ctx) => cli(['sessions', 'reset', MAIN, '--json', '--state-dir', ctx.stateDir]),
    verify: (ctx) => {
      const problems: string[] = []
      return {outcome: verifyReset(ctx, problems), problems}
    },
    recover: recoverWithCliReset,
  },
  {
    name: 'clawkit sessions reset (CLI, kill at any time)',
    covers: 'index+transcript',
    weight: 1,
    trigger: 'spawn',
    maxDelayMs: 900,
    spawn: (ctx) => cli(['sessions', 'reset', MAIN, '--json', '--state-dir', ctx.stateDir]),
    verify: (ctx) => {
      const problems: string[] = []
      return {outcome: verifyReset(ctx, problems), problems}
    },
    recover: recoverWithCliReset,
  },
  // Hook for the lead: `clawkit agent -m` (issue 3) and `clawkit message send` (issue 5) rows go here, spawned against
  // the mock Anthropic server, with verify() checking the index (old or new row) and the transcript (verifyTranscript
  // style: prefix intact, chain intact, at most one torn line) and recover() running the same command again.
]
