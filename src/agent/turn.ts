// One agent turn end to end: pick the session, hold its transcript, run the tool loop, store the result like OpenClaw.
import path from 'node:path'

import {resolveWorkspaceDir} from '../config/config.js'
import type {Env} from '../config/paths.js'
import {ClawkitError, ExitCode, fileError} from '../errors.js'
import {importSdk} from '../lazy.js'
import {clawkitDirs} from '../settings.js'
import {toLlmMessages} from '../store/context.js'
import {findEntryIn} from '../store/entry-lookup.js'
import {normalizeSessionKey} from '../store/session-key.js'
import {randomUUID} from '../store/random-id.js'
import type {OpenClawState} from '../store/state.js'
import type {FoundEntry, LockedTranscript, SessionEntry, SessionStore, SessionStoreData, StoreRef, TranscriptLockOptions} from '../store/types.js'
import {toApiMessages} from './convert.js'
import {openModelClient} from './model-client.js'
import {resolveModel, type ResolvedModel} from './model.js'
import {type SelectedSession, selectSession, type SessionSelector} from './session-select.js'
import {normalizeThinkingLevel, type ThinkingLevel} from './thinking.js'
import {runToolLoop, type TurnStatus} from './tool-loop.js'
import type {ToolPolicy} from './tools.js'
import {TranscriptWriter} from './transcript-writer.js'
import {saveUnstoredTurn} from './unstored.js'
import {applyRunUsage, promptTokensOf, type TurnUsage} from './usage-apply.js'

export const DEFAULT_TIMEOUT_SECONDS = 600
/**
 * Lock-then-recheck rounds when the session keeps being rotated under the turn (reset, /new) before giving up. Each
 * round means another writer finished a rotation, so this only guards against a livelock; since a reset holds the
 * lock of the transcript it rotates, a burst of resets queues on the same lock as the turn, and 5 rounds were used up
 * by 10 concurrent resets in about 1 run of 8 (test/reliability/concurrency.test.ts).
 */
export const MAX_ROTATION_RETRIES = 20


export interface AgentTurnOptions {
  state: OpenClawState
  message: string
  selector: SessionSelector
  model?: string
  thinking?: ThinkingLevel
  /** 0 = no timeout. */
  timeoutMs?: number
  /** Tool switches from flags; OR-ed with openclaw.json `tools.allow` entries `write`/`exec`. */
  allowWrite?: boolean
  allowExec?: boolean
  /** External abort (Ctrl-C). */
  signal?: AbortSignal
  onText?: (delta: string) => void
  /** Called once the session is chosen and the model checked, before anything is written. */
  onSession?: (selected: SelectedSession) => void
  onStatus?: (status: TurnStatus) => void
  /** The session's transcript lock is held by another writer and the turn starts waiting for it. */
  onLockWait?: TranscriptLockOptions['onWait']
  env?: Env
}

export interface AgentTurnResult {
  /** The final reply: text blocks of the last assistant message. */
  text: string
  agentId: string
  sessionKey: string
  sessionId: string
  sessionFile: string
  storeRef: StoreRef
  provider: string
  model: string
  contextTokens: number
  usage: TurnUsage
  lastCallUsage?: TurnUsage
  promptTokens?: number
  compactionCount: number
  compactionsThisRun: number
  aborted: boolean
  abortReason?: 'timeout' | 'interrupted'
  stopReason: string
  durationMs: number
  /** Wall time spent inside model HTTP calls (for the overhead benchmark). */
  modelMs: number
  toolCalls: number
}

function toolPolicy(state: OpenClawState, opts: AgentTurnOptions): ToolPolicy {
  const allow = (state.config as {tools?: {allow?: unknown}}).tools?.allow
  const list = Array.isArray(allow) ? allow.map((s) => String(s).toLowerCase()) : []
  const env = opts.env ?? process.env
  return {
    write: Boolean(opts.allowWrite) || list.includes('write') || env.CLAWKIT_ALLOW_WRITE === '1',
    exec: Boolean(opts.allowExec) || list.includes('exec') || env.CLAWKIT_ALLOW_EXEC === '1',
  }
}

/**
 * Import the SDK lazily. On Node 22+ Node's compile cache makes later imports cheaper: bin/run.js enables it in
 * clawkit's cache dir before anything else, so this call only takes effect when runAgentTurn is used as a library; on
 * Node 20 it does not exist and this is a plain dynamic import.
 */
async function loadSdk(env: Env): Promise<typeof import('./sdk.js')> {
  const mod = (await import('node:module')) as {enableCompileCache?: (dir?: string) => unknown}
  try {
    mod.enableCompileCache?.(path.join(clawkitDirs(env).cache, 'compile-cache'))
  } catch {
    // A cache that cannot be created only costs speed.
  }
  return importSdk()
}

export async function runAgentTurn(opts: AgentTurnOptions): Promise<AgentTurnResult> {
  const started = Date.now()
  const {state} = opts
  const env = opts.env ?? process.env
  const message = opts.message
  if (!message.trim()) throw new ClawkitError('Message (--message) is required', {code: 'E_NO_MESSAGE', exitCode: ExitCode.usage})
  // A mistyped --state-dir must not become a fresh state dir holding a paid turn with none of the history.
  state.requireStateDir()

  const selected = await selectSession(state, opts.selector)
  // Before the model is paid for or anything is written: a SQLite-era agent needs node:sqlite and a state dir no
  // OpenClaw gateway owns.
  state.assertWritable(selected.agentId)
  // Everything that can fail on bad input or a missing key fails here, before anything is written.
  const model = resolveModel(state.config, selected.agentId, opts.model, env)
  opts.onSession?.(selected)
  // Start loading the SDK now (its bundled chunk, ~60 ms): the load overlaps the store and lock I/O below.
  const sdk = loadSdk(env)
  sdk.catch(() => {})
  const policy = toolPolicy(state, opts)
  const workspaceDir = resolveWorkspaceDir(state.stateDir, state.config, selected.agentId, env)
  const store = state.storeFor(selected.ref)

  // Abort wiring: the timeout and Ctrl-C share one controller; the reason says which fired.
  const controller = new AbortController()
  let abortReason: 'timeout' | 'interrupted' | undefined
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_SECONDS * 1000
  const timer = timeoutMs > 0 ? setTimeout(() => {
    abortReason ??= 'timeout'
    controller.abort()
  }, timeoutMs) : undefined
  const onExternalAbort = () => {
    abortReason ??= 'interrupted'
    controller.abort()
  }
  if (opts.signal?.aborted) onExternalAbort()
  opts.signal?.addEventListener('abort', onExternalAbort)

  try {
    // 1. Index entry first, under the store lock, as OpenClaw does: concurrent turns on a new key agree on one id.
    let entry = await claimEntry(store, selected, opts.thinking)
    // 2. The transcript lock is held for the whole turn, so a concurrent turn waits and then continues from ours.
    // Whoever held it before us may have rotated the session (sessions reset, OpenClaw /new: file renamed, new
    // sessionId), so the entry is re-read once the lock is ours and the turn follows the rotation.
    for (let attempt = 0; ; attempt++) {
      const sessionId = entry.sessionId
      const transcript = store.transcriptOf(entry, selected.key)
      const thinking: ThinkingLevel = opts.thinking ?? normalizeThinkingLevel(typeof entry.thinkingLevel === 'string' ? entry.thinkingLevel : undefined) ?? 'off'
      // OpenClaw's rule for its session write lock: wait up to the acquire timeout (10 s, or
      // OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS), then fail naming the holder; a shorter --timeout ends it first.
      let locked = false
      const outcome = await store
        .withTranscript(
          transcript,
          async (tx): Promise<{result: AgentTurnResult} | {rotatedTo: FoundEntry}> => {
            locked = true
            const current = findEntryIn(await store.read(), selected.key)
            const rotated = current !== undefined && (current.entry.sessionId !== sessionId || store.transcriptOf(current.entry, selected.key).locator !== transcript.locator)
            if (rotated) {
              if (attempt + 1 >= MAX_ROTATION_RETRIES) {
                throw new ClawkitError(`Session ${selected.key} changed ${MAX_ROTATION_RETRIES} times while this turn waited for its transcript lock; the turn was not run.`, {
                  code: 'E_SESSION_ROTATING',
                  suggestions: ['Run the command again once other writers (sessions reset, OpenClaw) are done.'],
                })
              }
              return {rotatedTo: current}
            }
            return {result: await runLocked({sdk, opts, model, policy, workspaceDir, tx, transcript: transcript.locator, sessionId, thinking, selected, store, controller, getAbortReason: () => abortReason, started})}
          },
          {signal: controller.signal, onWait: opts.onLockWait && ((w) => opts.onLockWait?.({...w, timeoutMs: timeoutMs > 0 ? Math.min(w.timeoutMs, Math.max(0, timeoutMs - (Date.now() - started))) : w.timeoutMs}))},
        )
        .catch((error: unknown) => {
          // Ctrl-C or --timeout while another writer holds the session: nothing ran, nothing was written.
          if (locked || (error as {code?: string}).code !== 'E_LOCK_WAIT_ABORTED') throw error
          const timedOut = abortReason === 'timeout'
          throw new ClawkitError(`${timedOut ? 'Timed out' : 'Interrupted'} while waiting for another writer of ${selected.key}; the turn was not run and nothing was written.`, {
            code: 'E_LOCK_WAIT_ABORTED',
            // The caller aborts with the signal's name as the reason: SIGTERM exits 143 like a turn it interrupts.
            exitCode: timedOut ? ExitCode.timeout : opts.signal?.reason === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted,
          })
        })
      if ('result' in outcome) return outcome.result
      entry = {...outcome.rotatedTo.entry}
    }
  } finally {
    if (timer) clearTimeout(timer)
    opts.signal?.removeEventListener('abort', onExternalAbort)
  }
}

/**
 * The session's index entry as the turn starts: created for a new key (with a fresh id, or the one --session-id names),
 * pointed at the --session-id a caller asked for, and given the --thinking level. Returns a copy.
 */
async function claimEntry(store: SessionStore, selected: SelectedSession, thinking: ThinkingLevel | undefined): Promise<SessionEntry> {
  return store.update((data) => {
    const hit = findEntryIn(data, selected.key)
    const now = Date.now()
    if (hit) {
      const e = hit.entry
      if (selected.sessionId && e.sessionId !== selected.sessionId) {
        const file = store.newSessionFile(selected.sessionId, selected.key)
        refuseOwnedTranscript(store, data, selected.key, selected.sessionId, file)
        e.sessionId = selected.sessionId
        e.sessionFile = file
        e.updatedAt = now
      }
      if (thinking && e.thinkingLevel !== thinking) e.thinkingLevel = thinking
      return {...e}
    }
    const sessionId = selected.sessionId ?? randomUUID()
    const file = store.newSessionFile(sessionId, selected.key)
    if (selected.sessionId) refuseOwnedTranscript(store, data, selected.key, sessionId, file)
    const entry: SessionEntry = {sessionId, updatedAt: now, sessionStartedAt: now, sessionFile: file}
    if (thinking) entry.thinkingLevel = thinking
    data[selected.key] = entry
    return {...entry}
  })
}

/**
 * A --session-id is given a file named after it, but OpenClaw 2026.4.27 keeps a key's sessionFile on its FIRST id's name
 * across resets (and an idle rollover keeps appending to it under a new id): the id of an archived session can name
 * the live transcript of a key that has moved on to another id. Writing there would put this turn into that session
 * and send its history to the model, so it is refused, as the SQLite store refuses a window another key owns
 * (E_SQLITE_SESSION_OWNER). Keys sharing one id (a cron job's row and its run's) share its transcript, as in OpenClaw.
 */
function refuseOwnedTranscript(store: SessionStore, data: SessionStoreData, key: string, sessionId: string, file: string): void {
  const target = store.transcriptOf({sessionId, sessionFile: file}, key).locator
  const base = path.basename(target)
  for (const [k, e] of Object.entries(data)) {
    if (!e || typeof e !== 'object' || e.sessionId === sessionId || normalizeSessionKey(k) === key) continue
    // Only entries that could name the same file are resolved (a stat each): by their sessionFile's name or their id.
    const named = typeof e.sessionFile === 'string' && path.basename(e.sessionFile) === base
    if (!named && !(typeof e.sessionId === 'string' && base.startsWith(e.sessionId))) continue
    if (store.transcriptOf(e, k).locator !== target) continue
    throw new ClawkitError(`Session id ${sessionId} would write to ${base}, but ${base} is the transcript of ${normalizeSessionKey(k)} (session ${String(e.sessionId)}); nothing was written.`, {
      code: 'E_TRANSCRIPT_OWNER',
      exitCode: ExitCode.failure,
      suggestions: [`Pass a new --session-id, or --session-key ${normalizeSessionKey(k)} to continue that session; "clawkit sessions history ${sessionId}" shows an archived one.`],
    })
  }
}

/**
 * JSON.parse reads values nested hundreds of thousands deep, but JSON.stringify (every request body, every token
 * estimate) gives up after a few thousand levels. A transcript entry like that (tool-call arguments, say) would fail
 * the turn half-way with "Maximum call stack size exceeded"; it is named before anything is written or sent.
 */
function assertSendable(writer: TranscriptWriter, file: string, key: string): void {
  try {
    JSON.stringify(toApiMessages(toLlmMessages(writer.context().messages)))
    return
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
  }
  let id: string | undefined
  for (const e of writer.entries) {
    try {
      JSON.stringify(e)
    } catch {
      id = e.id
      break
    }
  }
  throw new ClawkitError(
    `Transcript ${file} holds an entry${id ? ` (id ${JSON.stringify(id)})` : ''} nested too deeply (thousands of levels) to be sent to the model as JSON. Nothing was sent or written. Remove that line from the transcript by hand, or start over with "clawkit sessions reset ${key}".`,
    {code: 'E_TRANSCRIPT_TOO_DEEP'},
  )
}

interface LockedArgs {
  sdk: Promise<typeof import('./sdk.js')>
  opts: AgentTurnOptions
  model: ResolvedModel
  policy: ToolPolicy
  workspaceDir: string
  /** The transcript, locked for the whole turn. */
  tx: LockedTranscript
  /** Its locator, as errors and the result show it. */
  transcript: string
  sessionId: string
  thinking: ThinkingLevel
  selected: Awaited<ReturnType<typeof selectSession>>
  store: SessionStore
  controller: AbortController
  getAbortReason: () => 'timeout' | 'interrupted' | undefined
  started: number
}

async function runLocked(a: LockedArgs): Promise<AgentTurnResult> {
  const {opts, model, policy, workspaceDir, transcript, sessionId, thinking, controller} = a
  const writer = await TranscriptWriter.open(a.tx, sessionId, workspaceDir)
  const before = writer.context()
  assertSendable(writer, transcript, a.selected.key)

  // Settings entries: always for a new file (as OpenClaw starts every transcript), else only on change.
  const settings: Array<{type: string; [k: string]: unknown}> = []
  if (writer.isNew || before.model?.provider !== model.provider || before.model?.modelId !== model.model) settings.push({type: 'model_change', provider: model.provider, modelId: model.model})
  if (writer.isNew || before.thinkingLevel !== thinking) settings.push({type: 'thinking_level_change', thinkingLevel: thinking})
  if (writer.isNew) settings.push({type: 'custom', customType: 'model-snapshot', data: {timestamp: Date.now(), provider: model.provider, modelApi: model.api, modelId: model.model}})
  try {
    await writer.append([...settings, {type: 'message', message: {role: 'user', content: [{type: 'text', text: opts.message}], timestamp: Date.now()}}])
  } catch (error) {
    // Nothing was sent or stored yet: the store's own error, with that said.
    if (!(error instanceof ClawkitError)) throw error
    throw new ClawkitError(`${error.message.replace(/\.?$/, '.')} The message was not sent to the model, and nothing of this turn was stored.`, {code: error.code, exitCode: error.exitCode, suggestions: error.suggestions, cause: error})
  }

  const client = await openModelClient(a.sdk, model, opts.env ?? process.env, controller.signal)
  const run = await runToolLoop({writer, client, model, policy, workspaceDir, thinking, signal: controller.signal, abortReason: a.getAbortReason, onText: opts.onText, onStatus: opts.onStatus})
  // A write failed after the model answered: what was stored stays (the transcript is consistent up to it), the rest
  // is saved outside the state dir, and the index is not touched (it would be another write to a store that just
  // refused one, and its counters would describe entries that are not there).
  if (writer.failure) throw notStored(a, writer, model, run, client.elapsedMs())

  // 3. Index update under the store lock with OpenClaw's token semantics, whatever happened above.
  const indexUpdate = a.store.update((data) => {
    const hit = findEntryIn(data, a.selected.key)
    const next = applyRunUsage(hit?.entry, {
      sessionId,
      sessionFile: transcript,
      model,
      aborted: run.aborted,
      usage: run.usage,
      lastCall: run.lastCall,
      postCompactionTokens: run.postCompactionTokens,
      costUsd: run.costUsd,
      compactions: run.compactions,
      now: Date.now(),
    })
    data[hit?.storedKey ?? a.selected.key] = next
    return next
  }, {onWait: opts.onLockWait})
  let result: SessionEntry | undefined
  let indexError: unknown
  try {
    result = await indexUpdate
  } catch (error) {
    if (run.unexpected || run.failure) throw run.unexpected ?? run.failure
    indexError = error
  }
  if (run.unexpected) throw run.unexpected
  if (run.failure) throw run.failure
  const turn: AgentTurnResult = {
    text: run.finalText,
    agentId: a.selected.agentId,
    sessionKey: a.selected.key,
    sessionId,
    sessionFile: transcript,
    storeRef: a.selected.ref,
    provider: model.provider,
    model: model.model,
    contextTokens: model.contextWindow,
    usage: run.usage,
    lastCallUsage: run.lastCall,
    promptTokens: promptTokensOf(run.lastCall, run.postCompactionTokens),
    compactionCount: typeof result?.compactionCount === 'number' ? result.compactionCount : run.compactions,
    compactionsThisRun: run.compactions,
    aborted: run.aborted,
    abortReason: run.aborted ? (a.getAbortReason() ?? 'interrupted') : undefined,
    stopReason: run.stopReason,
    durationMs: Date.now() - a.started,
    modelMs: client.elapsedMs(),
    toolCalls: run.toolCalls,
  }
  // The whole turn is in the transcript; only the index (its counters, model, updatedAt) is behind. The error says
  // which file failed and where the turn is, and carries the turn so that --json can still print the reply.
  if (indexError !== undefined) throw new TurnStoredError(turn, a.store.ref.path, indexError)
  return turn
}

function isMessageOf(e: {type: string}, role: string): boolean {
  return e.type === 'message' && (e as {message?: {role?: string}}).message?.role === role
}

/** The error for a turn whose entries could not all be stored: what is in the session, what is not and where it went. */
function notStored(a: LockedArgs, writer: TranscriptWriter, model: ResolvedModel, run: Awaited<ReturnType<typeof runToolLoop>>, modelMs: number): TurnNotStoredError {
  const failure = writer.failure!
  const cause = failure.error
  const base = cause instanceof ClawkitError ? cause : (fileError(cause, a.transcript, 'write') as Error)
  const lost = failure.unstored.filter((e) => e.type !== 'session')
  const file = saveUnstoredTurn(
    {agentId: a.selected.agentId, sessionKey: a.selected.key, sessionId: a.sessionId, transcript: a.transcript, parentId: failure.parentId, reason: base instanceof Error ? base.message : String(base)},
    failure.unstored,
    a.opts.env ?? process.env,
  )
  const userKept = writer.storedThisTurn.some((e) => isMessageOf(e, 'user'))
  const userLost = lost.some((e) => isMessageOf(e, 'user'))
  const replyLost = lost.some((e) => isMessageOf(e, 'assistant'))
  const kept = userKept ? `Your message is stored in ${a.transcript}` : `Nothing of this turn is stored in ${a.transcript}`
  const what = replyLost ? (userLost ? 'your message and the reply were not stored' : 'the reply was not stored') : `${lost.length} ${lost.length === 1 ? 'entry' : 'entries'} of this turn ${lost.length === 1 ? 'was' : 'were'} not stored`
  const turn: AgentTurnResult = {
    text: run.finalText,
    agentId: a.selected.agentId,
    sessionKey: a.selected.key,
    sessionId: a.sessionId,
    sessionFile: a.transcript,
    storeRef: a.selected.ref,
    provider: model.provider,
    model: model.model,
    contextTokens: model.contextWindow,
    usage: run.usage,
    lastCallUsage: run.lastCall,
    promptTokens: promptTokensOf(run.lastCall, run.postCompactionTokens),
    compactionCount: run.compactions,
    compactionsThisRun: run.compactions,
    aborted: run.aborted,
    abortReason: run.aborted ? (a.getAbortReason() ?? 'interrupted') : undefined,
    stopReason: run.stopReason,
    durationMs: Date.now() - a.started,
    modelMs,
    toolCalls: run.toolCalls,
  }
  const message = `${(base instanceof Error ? base.message : String(base)).replace(/\.?$/, '.')} ${kept}; ${what}: saved to ${file}.`
  return new TurnNotStoredError(turn, message, {
    code: base instanceof ClawkitError ? base.code : 'E_UNEXPECTED',
    exitCode: base instanceof ClawkitError ? base.exitCode : ExitCode.failure,
    cause,
    suggestions: [
      `${file} holds what was not stored (its first line says where it belonged)`,
      userKept ? 'the session continues from your message: the next turn, by clawkit or OpenClaw, picks up from there' : 'the session is as it was before this turn',
    ],
  })
}

/** The model answered (and the reply may have been shown) but the transcript refused part of the turn; see notStored. */
export class TurnNotStoredError extends ClawkitError {
  readonly turn: AgentTurnResult

  constructor(turn: AgentTurnResult, message: string, opts: {code: string; exitCode: number; cause: unknown; suggestions: string[]}) {
    super(message, opts)
    this.turn = turn
  }
}

/** The turn is stored in its transcript, but the index update after it failed (a full disk). */
export class TurnStoredError extends ClawkitError {
  readonly turn: AgentTurnResult

  constructor(turn: AgentTurnResult, storePath: string, cause: unknown) {
    const inner = describeCause(cause, storePath)
    super(`The turn is stored in ${turn.sessionFile}, but the session index could not be updated: ${inner.message}`, {
      code: inner.code,
      cause,
      suggestions: [`${inner.full ? 'free disk space; ' : ''}do not send the message again: the reply is stored, and the next turn brings ${storePath} up to date`],
    })
    this.turn = turn
  }
}

function describeCause(cause: unknown, storePath: string): {message: string; code: string; full: boolean} {
  const e = fileError(cause, storePath, 'write')
  const message = e instanceof Error ? e.message : String(e)
  const code = e instanceof ClawkitError ? e.code : 'E_UNEXPECTED'
  return {message, code, full: code === 'E_ENOSPC' || code === 'E_EDQUOT'}
}
