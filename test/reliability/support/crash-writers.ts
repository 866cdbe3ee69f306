// The table of writers the crash trials SIGKILL. To cover a new command (agent -m, message send, doctor --fix), add a
// row: how to spawn it, when to start the kill clock, what "old or new state" means for it, and its next command.
import fs from 'node:fs'
import path from 'node:path'
import {isDeepStrictEqual} from 'node:util'

import {cli, type CrashWriter, listMatching, runSpec, type SpawnSpec, type TrialContext, type VerifyResult, WORKER} from './crash.js'
import {recoverDoctorFix, spawnDoctorFix, verifyDoctorFix} from './crash-doctor.js'
import {inspectLock} from '../../../src/store/lock.js'
import {channelEnv, type FakeChannels, startFakeChannels} from '../../support/fake-channels.js'
import {type MockAnthropic, startMockAnthropic} from '../../support/mock-anthropic.js'
import {scanJsonl} from './jsonl.js'
import {sha256} from '../../support/state-files.js'

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
  problems.push(...checkIndexAroundMain(ctx, text, data))
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

/** The index in OpenClaw's serialization, every row but the main one untouched, no row added. */
function checkIndexAroundMain(ctx: TrialContext, text: string, data: Record<string, any>): string[] {
  const problems: string[] = []
  if (text !== JSON.stringify(data, null, 2)) problems.push('sessions.json is not in OpenClaw\'s 2-space serialization')
  for (const k of Object.keys(ctx.baseIndex)) if (k !== MAIN && !isDeepStrictEqual(data[k], ctx.baseIndex[k])) problems.push(`entry ${k} changed`)
  const extra = Object.keys(data).filter((k) => !(k in ctx.baseIndex))
  if (extra.length > 0) problems.push(`unexpected keys ${extra.join(', ')}`)
  return problems
}

/** The transcript's old bytes unchanged, every complete line parses, and a torn end is the start of an entry. */
function checkTranscriptAfterKill(ctx: TrialContext, scan: ReturnType<typeof scanJsonl>, what: string, tailStart: string): string[] {
  const problems: string[] = []
  if (!scan.bytes.subarray(0, ctx.baseTranscript.length).equals(ctx.baseTranscript)) problems.push(`the transcript bytes before the ${what} changed`)
  if (scan.badComplete.length > 0) problems.push(`complete transcript lines that do not parse: ${scan.badComplete.join(', ')}`)
  if (scan.tail !== '' && !scan.tail.startsWith(tailStart)) problems.push(`unterminated tail is not the start of an entry: ${scan.tail.slice(0, 40)}`)
  return problems
}

/** Remember the transcript as the writer finds it: line count, leaf id and every id (for chain checks after the kill). */
function recordTranscriptBase(ctx: TrialContext): void {
  const base = scanJsonl(ctx.transcriptPath)
  const entries = base.lines.filter((l) => typeof l.id === 'string' && l.type !== 'session')
  ctx.scratch.baseLineCount = base.lines.length
  ctx.scratch.baseLeaf = entries.at(-1)?.id
  ctx.scratch.baseIds = entries.map((e) => e.id)
}

/** After the next command: no torn end left, and the only unparseable line is the one fenced torn line (if any). */
function checkFenced(scan: ReturnType<typeof scanJsonl>, hadTail: boolean, what: string): string[] {
  const problems: string[] = []
  if (scan.tail !== '') problems.push(`transcript still ends without a newline after the ${what}`)
  if (scan.badComplete.length !== (hadTail ? 1 : 0)) problems.push(`${scan.badComplete.length} unparseable lines after recovery (expected ${hadTail ? 1 : 0})`)
  return problems
}

function verifyResetRow(ctx: TrialContext): VerifyResult {
  const problems: string[] = []
  return {outcome: verifyReset(ctx, problems), problems}
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
  problems.push(...checkFenced(scan, hadTail, 'recovery append'))
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
      recordTranscriptBase(ctx)
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
    maxDelayMs: 'calibrated',
    spawn: (ctx) => cli(['sessions', 'reset', MAIN, '--json', '--state-dir', ctx.stateDir]),
    verify: verifyResetRow,
    recover: recoverWithCliReset,
  },
  {
    name: 'clawkit sessions reset (CLI, kill at any time)',
    covers: 'index+transcript',
    weight: 1,
    trigger: 'spawn',
    maxDelayMs: 'calibrated',
    spawn: (ctx) => cli(['sessions', 'reset', MAIN, '--json', '--state-dir', ctx.stateDir]),
    verify: verifyResetRow,
    recover: recoverWithCliReset,
  },
  {
    name: 'clawkit agent -m (CLI against the mock Anthropic server, kill after its first lock appears)',
    covers: 'index+transcript',
    weight: 3,
    trigger: 'lock',
    maxDelayMs: 'calibrated',
    spawn: spawnAgentTurn,
    verify: verifyAgentTurn,
    recover: recoverAgentTurn,
  },
  {
    name: 'clawkit message send (CLI against the fake Telegram API, kill after its first lock appears)',
    covers: 'index+transcript',
    weight: 2,
    trigger: 'lock',
    maxDelayMs: 'calibrated',
    spawn: spawnMessageSend,
    verify: verifyMessageSend,
    recover: recoverMessageSend,
  },
  {
    name: 'clawkit doctor --fix --yes (CLI, one of each repair planted, kill after its first lock change)',
    covers: 'index+transcript',
    weight: 2,
    trigger: 'lock',
    maxDelayMs: 'calibrated',
    spawn: spawnDoctorFix,
    verify: verifyDoctorFix,
    recover: recoverDoctorFix,
  },
]

// --- clawkit agent -m -------------------------------------------------------------------------------------------

/** One in-process mock Messages API for every agent trial (echoes the last user text); closed by the test's afterAll. */
let mockAnthropic: Promise<MockAnthropic> | undefined

/** One fake Telegram/Discord/Slack server for every message trial; closed with the mock. */
let fakeChannels: Promise<FakeChannels> | undefined

export async function closeCrashWriterServers(): Promise<void> {
  const m = mockAnthropic
  mockAnthropic = undefined
  if (m) await (await m).close()
  const f = fakeChannels
  fakeChannels = undefined
  if (f) await (await f).close()
}

/** Fields an agent turn may set on an existing entry; every other field must survive it byte for byte. */
const AGENT_TOUCHED = new Set([
  'updatedAt', 'lastInteractionAt', 'sessionFile', 'contextTokens', 'modelProvider', 'model', 'abortedLastRun', 'inputTokens', 'outputTokens',
  'cacheRead', 'cacheWrite', 'totalTokens', 'totalTokensFresh', 'estimatedCostUsd',
])

async function spawnAgentTurn(ctx: TrialContext): Promise<SpawnSpec> {
  const mock = await (mockAnthropic ??= startMockAnthropic())
  // The fixture's provider `mockant` points at a port that is not listening here; point it at this run's mock.
  const configPath = path.join(ctx.stateDir, 'openclaw.json')
  fs.writeFileSync(configPath, fs.readFileSync(configPath, 'utf8').replace('http://127.0.0.1:18089', mock.url))
  recordTranscriptBase(ctx)
  ctx.scratch.message = `crash trial ${ctx.trial} ${ctx.rng.int(1, 2 ** 31)}`
  return cli(['agent', '-m', ctx.scratch.message as string, '--agent', 'main', '--json', '--state-dir', ctx.stateDir])
}

function messageText(e: Record<string, any>): string {
  return ((e.message?.content ?? []) as any[]).filter((b) => b?.type === 'text').map((b) => b.text).join('')
}

/**
 * What a killed turn may leave: the index row old (the turn writes it once, at the end) or new (the turn's figures,
 * every other field kept, no other row touched); the transcript's old bytes intact, then a gap-free prefix of the
 * turn's entries (settings entries, the user message, the reply) chained onto the old leaf, and at most one torn
 * last line. A new row requires the whole reply on disk, since the index is written after it.
 */
function verifyAgentTurn(ctx: TrialContext): VerifyResult {
  const problems: string[] = []
  const {text, data} = readIndex(ctx, problems)
  const scan = scanJsonl(ctx.transcriptPath)
  problems.push(...checkTranscriptAfterKill(ctx, scan, 'turn', '{"type":'))
  const ours = scan.lines.slice(ctx.scratch.baseLineCount as number)
  let parent = ctx.scratch.baseLeaf as string
  const ids = new Set<string>(ctx.scratch.baseIds as string[])
  let stage = 'none' as 'none' | 'settings' | 'user' | 'reply'
  for (const [i, e] of ours.entries()) {
    if (e.parentId !== parent) problems.push(`turn entry ${i + 1} parentId ${e.parentId} != ${parent}`)
    if (typeof e.id !== 'string' || ids.has(e.id)) problems.push(`turn entry ${i + 1} has a bad or duplicate id ${e.id}`)
    ids.add(String(e.id))
    parent = String(e.id)
    const role = e.type === 'message' ? (e.message as any)?.role : undefined
    if (role === undefined && stage !== 'user' && stage !== 'reply' && e.type !== 'message') stage = 'settings'
    else if (role === 'user' && (stage === 'none' || stage === 'settings') && messageText(e) === ctx.scratch.message) stage = 'user'
    else if (role === 'assistant' && stage === 'user') stage = 'reply'
    else problems.push(`unexpected turn entry ${i + 1} (${e.type}${role ? `/${role}` : ''}) after ${stage}`)
  }
  if (stage === 'reply' && messageText(ours.at(-1)!) !== `Echo: ${ctx.scratch.message}`) problems.push(`reply text is ${JSON.stringify(messageText(ours.at(-1)!))}`)
  ctx.scratch.leaf = parent
  ctx.scratch.reachedUser = stage === 'user' || stage === 'reply'
  const transcriptState = `${stage}${scan.tail ? '+torn' : ''}`
  if (!data) return {outcome: 'unparseable', problems, tornLine: scan.tail !== ''}
  problems.push(...checkIndexAroundMain(ctx, text, data))
  const before = ctx.baseIndex[MAIN]
  const after = data[MAIN]
  if (isDeepStrictEqual(after, before)) return {outcome: `old/${transcriptState}`, problems, tornLine: scan.tail !== ''}
  if (!after || typeof after !== 'object') {
    problems.push('main entry missing')
    return {outcome: 'broken', problems}
  }
  for (const [k, v] of Object.entries(before)) if (!AGENT_TOUCHED.has(k) && !isDeepStrictEqual(after[k], v)) problems.push(`turn changed field ${k}`)
  for (const k of Object.keys(after)) if (!(k in before) && !AGENT_TOUCHED.has(k)) problems.push(`turn added field ${k}`)
  if (after.sessionFile !== ctx.transcriptPath) problems.push(`sessionFile ${after.sessionFile} is not the transcript the turn wrote`)
  if (!(after.updatedAt > before.updatedAt) || after.lastInteractionAt !== after.updatedAt) problems.push('updatedAt/lastInteractionAt not stamped')
  if (after.modelProvider !== 'mockant' || after.model !== 'claude-mock' || after.abortedLastRun !== false) problems.push(`row model ${after.modelProvider}/${after.model} aborted=${after.abortedLastRun}`)
  if (!(after.inputTokens > 0) || !(after.totalTokens > 0) || after.totalTokensFresh !== true) problems.push(`row tokens input=${after.inputTokens} total=${after.totalTokens} fresh=${after.totalTokensFresh}`)
  if (stage !== 'reply' || scan.tail !== '') problems.push(`new index row but the transcript holds only ${transcriptState}`)
  return {outcome: `new/${transcriptState}`, problems, tornLine: scan.tail !== ''}
}

/**
 * The next command after a killed turn is the next turn: it must reclaim the dead pid's locks, send the model the
 * history (the old conversation, the killed turn's complete entries), chain onto the last complete entry and fence a
 * torn line onto its own line.
 */
async function recoverAgentTurn(ctx: TrialContext): Promise<string[]> {
  const problems: string[] = []
  const mock = await mockAnthropic!
  const pre = scanJsonl(ctx.transcriptPath)
  const hadTail = pre.tail !== ''
  const preCount = pre.lines.length
  const next = `after crash ${ctx.trial}`
  const r = await runSpec(cli(['agent', '-m', next, '--agent', 'main', '--json', '--state-dir', ctx.stateDir]), ctx.env)
  if (r.code !== 0) return [`recovery turn exited ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`]
  const doc = JSON.parse(r.stdout)
  // The mock echoes the last user message; after a kill that left the user message without a reply, the model gets
  // both user texts in one turn, so the echo ends with (rather than equals) the recovery message.
  const reply = String(doc.payloads?.[0]?.text)
  if (!reply.startsWith('Echo: ') || !reply.endsWith(next)) problems.push(`recovery turn replied ${JSON.stringify(reply)}`)
  const sent = mock.messageRequests().filter((q) => JSON.stringify(q.body.messages).includes(next)).at(-1)
  const history = sent ? JSON.stringify(sent.body.messages) : ''
  if (!sent) problems.push('the mock never received the recovery turn')
  else if (ctx.scratch.reachedUser && !history.includes(String(ctx.scratch.message))) problems.push('the recovery turn did not send the killed turn\'s recorded user message')
  problems.push(...checkLocksAfterRecovery(ctx, [ctx.indexPath, ctx.transcriptPath]))
  const scan = scanJsonl(ctx.transcriptPath)
  problems.push(...checkFenced(scan, hadTail, 'recovery turn'))
  // The recovery turn's entries are the complete lines after the ones that were there before it; the first hangs off
  // the last complete entry of the killed turn (or the old leaf), the rest chain one after the other.
  const run = scan.lines.slice(preCount)
  let parent = ctx.scratch.leaf as string
  run.forEach((e, i) => {
    if (e.parentId !== parent) problems.push(`recovery entry ${i + 1} parentId ${e.parentId} != ${parent}`)
    parent = String(e.id)
  })
  if (!run.some((e) => (e.message as any)?.role === 'user' && messageText(e) === next)) problems.push('the recovery turn\'s user message is not in the transcript')
  const last = scan.lines.at(-1)
  if (!last || (last.message as any)?.role !== 'assistant' || messageText(last) !== reply) problems.push('the recovery reply is not the last line')
  const row = readIndex(ctx, problems).data?.[MAIN]
  if (row?.sessionId !== ctx.baseIndex[MAIN].sessionId || row?.sessionFile !== ctx.transcriptPath || row?.abortedLastRun !== false) problems.push('recovery turn did not land in the index row')
  return problems
}

// --- clawkit message send --------------------------------------------------------------------------------------

/** Fields a delivery mirror may set on an existing entry (mergeSessionEntry); every other field must survive it. */
const MIRROR_TOUCHED = new Set(['updatedAt', 'origin', 'deliveryContext', 'lastChannel', 'lastTo', 'lastAccountId'])

/** A Telegram DM: with the fixture's dmScope (main) it mirrors into agent:main:main, the trial's transcript. */
async function spawnMessageSend(ctx: TrialContext): Promise<SpawnSpec> {
  const fake = await (fakeChannels ??= startFakeChannels())
  Object.assign(ctx.env, channelEnv(fake))
  recordTranscriptBase(ctx)
  ctx.scratch.message = `crash send ${ctx.trial} ${ctx.rng.int(1, 2 ** 31)}`
  return cli(['message', 'send', '--channel', 'telegram', '-t', '123456789', '-m', ctx.scratch.message as string, '--json', '--state-dir', ctx.stateDir])
}

function isMirrorOf(e: Record<string, any>, text: string): boolean {
  return e.type === 'message' && e.message?.role === 'assistant' && e.message?.model === 'delivery-mirror' && messageText(e) === text
}

/**
 * The mirror writes the index row first, then appends one message. A kill leaves: both old; the row merged (newer
 * updatedAt, origin) and no line yet; or both new, the line possibly torn. Never a line without the row, never a
 * second line, never a changed byte of the old transcript or another row.
 */
function verifyMessageSend(ctx: TrialContext): VerifyResult {
  const problems: string[] = []
  const {text, data} = readIndex(ctx, problems)
  const scan = scanJsonl(ctx.transcriptPath)
  problems.push(...checkTranscriptAfterKill(ctx, scan, 'mirror', '{"type":"message"'))
  const ours = scan.lines.slice(ctx.scratch.baseLineCount as number)
  if (ours.length > 1) problems.push(`${ours.length} entries appended by one send`)
  const line = ours[0]
  if (line && (!isMirrorOf(line, ctx.scratch.message as string) || line.parentId !== ctx.scratch.baseLeaf || (ctx.scratch.baseIds as string[]).includes(String(line.id)))) {
    problems.push(`the appended entry is not this send's mirror on the old leaf: ${JSON.stringify(line).slice(0, 160)}`)
  }
  ctx.scratch.leaf = line ? String(line.id) : ctx.scratch.baseLeaf
  const transcriptState = `${line ? 'mirror' : 'none'}${scan.tail ? '+torn' : ''}`
  if (!data) return {outcome: 'unparseable', problems, tornLine: scan.tail !== ''}
  problems.push(...checkIndexAroundMain(ctx, text, data))
  const before = ctx.baseIndex[MAIN]
  const after = data[MAIN]
  if (isDeepStrictEqual(after, before)) {
    if (line || scan.tail) problems.push(`the transcript holds ${transcriptState} but the index row is old`)
    return {outcome: `old/${transcriptState}`, problems, tornLine: scan.tail !== ''}
  }
  for (const [k, v] of Object.entries(before)) if (!MIRROR_TOUCHED.has(k) && !isDeepStrictEqual(after?.[k], v)) problems.push(`mirror changed field ${k}`)
  for (const k of Object.keys(after ?? {})) if (!(k in before) && !MIRROR_TOUCHED.has(k)) problems.push(`mirror added field ${k}`)
  if (!(after?.updatedAt >= before.updatedAt)) problems.push('updatedAt went backwards')
  return {outcome: `merged/${transcriptState}`, problems, tornLine: scan.tail !== ''}
}

/** The next send must reclaim the dead pid's locks, chain its mirror onto the last complete entry and fence a torn line. */
async function recoverMessageSend(ctx: TrialContext): Promise<string[]> {
  const problems: string[] = []
  const pre = scanJsonl(ctx.transcriptPath)
  const hadTail = pre.tail !== ''
  const next = `after crash send ${ctx.trial}`
  const r = await runSpec(cli(['message', 'send', '--channel', 'telegram', '-t', '123456789', '-m', next, '--json', '--state-dir', ctx.stateDir]), ctx.env)
  if (r.code !== 0) return [`recovery send exited ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`]
  const doc = JSON.parse(r.stdout)
  if (doc.payload?.mirrored?.sessionKey !== MAIN || doc.payload?.mirrorError) problems.push(`recovery send mirrored ${JSON.stringify(doc.payload?.mirrored ?? doc.payload?.mirrorError)}`)
  problems.push(...checkLocksAfterRecovery(ctx, [ctx.indexPath, ctx.transcriptPath]))
  const scan = scanJsonl(ctx.transcriptPath)
  problems.push(...checkFenced(scan, hadTail, 'recovery send'))
  const last = scan.lines.at(-1)
  if (!last || !isMirrorOf(last, next)) problems.push('the recovery mirror is not the last line')
  else if (last.parentId !== ctx.scratch.leaf) problems.push(`recovery mirror parentId ${last.parentId} != last complete entry ${ctx.scratch.leaf}`)
  const row = readIndex(ctx, problems).data?.[MAIN]
  if (row?.sessionId !== ctx.baseIndex[MAIN].sessionId || row?.sessionFile !== ctx.baseIndex[MAIN].sessionFile) problems.push('recovery send moved the main row to another session')
  return problems
}
