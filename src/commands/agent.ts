// `clawkit agent -m "..."`: one agent turn in an OpenClaw session, reply streamed to stdout.
import {Flags} from '@oclif/core'

import {keptInSession, ModelCallError} from '../agent/api-errors.js'
import {toAgentRunResult, readMessageInput, type AgentRunResult} from '../agent/output.js'
import {describeDefaultSession} from '../agent/session-select.js'
import {parseThinkingFlag} from '../agent/thinking.js'
import {DEFAULT_TIMEOUT_SECONDS, runAgentTurn, TurnNotStoredError, TurnStoredError} from '../agent/turn.js'
import {BaseCommand} from '../cli/base-command.js'
import {describeError} from '../error-report.js'
import {ExitCode, UsageError} from '../errors.js'
import {refusedStoreUrlFlag, refuseReplicaWrite} from '../fleet/flags.js'
import {createLineEscaper, printable} from '../render/safe.js'
import {createSpinner} from '../render/spinner.js'
import {settingsPath} from '../settings.js'
import {withHintContext} from '../text/hint-context.js'

export type {AgentRunResult} from '../agent/output.js'

export default class Agent extends BaseCommand<typeof Agent> {
  static override summary = 'Run one agent turn and store it in the OpenClaw session'
  static override description =
    'Sends the message to the model (Anthropic Messages API), runs tools, streams the reply to stdout and appends the turn to the session transcript exactly as OpenClaw does, so either tool can continue the conversation. Exit codes: 0 ok, 1 runtime failure, 2 usage error, 74 turn stored but stdout could not be written, 124 timeout, 130 interrupted (SIGINT), 143 terminated (SIGTERM).'
  static override examples = [
    '<%= config.bin %> agent -m "hello"',
    '<%= config.bin %> agent --agent main -m "What is on my calendar?"',
    '<%= config.bin %> agent --session-id 1234 -m "continue" --json',
    '<%= config.bin %> agent --to +15555550123 --thinking low --message-file prompt.txt',
    '<%= config.bin %> agent --agent main -m "Post the nightly summary" --deliver --channel telegram --reply-to -1001234567890',
  ]
  /**
   * `agent hello` forgot -m; `agent -m hello world` forgot the quotes: either way the hint shows the one command that
   * sends what was typed.
   */
  static override strayArgumentsHint = (args: string[], argv: readonly string[]): string => {
    const at = argv.findIndex((a) => a === '-m' || a === '--message')
    const words = at >= 0 && argv[at + 1] !== undefined ? [argv[at + 1], ...args] : args
    return `the message is one argument of -m, in quotes: clawkit agent -m "${words.join(' ')}"`
  }

  static override flags = {
    'store-url': refusedStoreUrlFlag,
    message: Flags.string({char: 'm', description: 'message to send', helpValue: '<text>'}),
    'message-file': Flags.string({description: 'read the message from a UTF-8 file (max 4 MiB)', helpValue: '<path>'}),
    to: Flags.string({char: 't', description: 'recipient number (E.164); selects the main session of agent "main"', helpValue: '<E.164>'}),
    'session-id': Flags.string({description: 'explicit session id (found in any agent store, else agent:<agent|main>:explicit:<id>)', helpValue: '<id>'}),
    'session-key': Flags.string({description: 'explicit session key', helpValue: '<key>'}),
    agent: Flags.string({description: 'agent id; uses that agent\'s main session (with no selector at all: clawkit\'s "agent" setting, else the default agent)', helpValue: '<id>'}),
    model: Flags.string({description: 'model (provider/model or a model id from openclaw.json)', helpValue: '<id>'}),
    thinking: Flags.string({description: 'thinking level: off|minimal|low|medium|high', helpValue: '<level>'}),
    timeout: Flags.string({description: `seconds before the turn is aborted (default ${DEFAULT_TIMEOUT_SECONDS}; 0 = none)`, helpValue: '<seconds>'}),
    'allow-write': Flags.boolean({description: 'enable the write tool (also: openclaw.json tools.allow ["write"])'}),
    'allow-exec': Flags.boolean({description: 'enable the exec tool (also: openclaw.json tools.allow ["exec"])'}),
    deliver: Flags.boolean({description: 'send the final reply to a chat channel (the session\'s last route unless --channel/--reply-to say otherwise)'}),
    channel: Flags.string({description: 'delivery channel: telegram|discord|slack|webhook, or "last" (default: the session\'s last channel)', helpValue: '<channel>'}),
    'reply-channel': Flags.string({description: 'delivery channel override (beats --channel)', helpValue: '<channel>'}),
    'reply-to': Flags.string({description: 'delivery target (default: --to, else the session\'s last target)', helpValue: '<target>'}),
    'reply-account': Flags.string({description: 'delivery account id (channels.<channel>.accounts.<id>)', helpValue: '<id>'}),
  }

  async run(): Promise<AgentRunResult> {
    refuseReplicaWrite(this.flags, 'clawkit agent -m ...')
    const f = this.flags
    const message = await readMessageInput(f.message, f['message-file'])
    const thinking = f.thinking === undefined ? undefined : parseThinkingFlag(f.thinking)
    let timeoutMs: number | undefined
    if (f.timeout !== undefined) {
      if (!/^\d+$/.test(f.timeout.trim())) throw new UsageError('--timeout must be a non-negative integer (seconds; 0 means no timeout)', 'E_BAD_TIMEOUT')
      timeoutMs = Number(f.timeout.trim()) * 1000
    }
    const state = this.openState()
    const json = this.jsonEnabled()
    const controller = new AbortController()
    // First Ctrl-C (or SIGTERM): abort the request and persist what was received. A second one: leave at once (the
    // lock module's exit hook still removes our locks).
    let interrupts = 0
    let signalExit: number = ExitCode.interrupted
    const onSignal = (sig: NodeJS.Signals) => {
      signalExit = sig === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted
      if (++interrupts > 1) process.exit(signalExit)
      controller.abort(sig)
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    const spinner = json ? undefined : await createSpinner('Waiting for agent reply…')
    // Each model call of a tool loop streams its own text; a line break keeps them from running together.
    let streamed = false
    let atLineStart = true
    let newCall = false
    const reply = createLineEscaper()
    // The session the turn runs in, once chosen: a failed model call's error names it (the message is kept there).
    let sessionKey: string | undefined
    try {
      let stored: {code: string; message: string; exitCode: number; suggestions?: string[]} | undefined
      let notStored = false
      const result = await runAgentTurn({
        state,
        message,
        selector: {to: f.to, sessionId: f['session-id'], sessionKey: f['session-key'], agent: f.agent},
        model: f.model,
        thinking,
        timeoutMs,
        allowWrite: f['allow-write'],
        allowExec: f['allow-exec'],
        signal: controller.signal,
        onSession: (sel) => {
          sessionKey = sel.key
          // Only a selector-less run says which session it picked; stderr, so --json stdout stays one document.
          const note = describeDefaultSession(sel, sel.defaultReason === 'clawkit-settings' ? settingsPath(state.env) : undefined)
          if (note) process.stderr.write(`${note}\n`)
        },
        onStatus: (s) => {
          if (s === 'waiting') newCall = true
          if (s === 'waiting' || s === 'compacting') spinner?.start()
          else spinner?.stop()
        },
        onLockWait: ({lockPath, holderPid, timeoutMs, database}) => {
          spinner?.stop()
          const limit = `Giving up after ${Number((timeoutMs / 1000).toFixed(1))} s.`
          if (database) process.stderr.write(`Waiting for another writer of ${lockPath} (OpenClaw maintenance or another tool holds its write lock) to store this turn. ${limit}\n`)
          else process.stderr.write(`Waiting for ${holderPid === undefined ? 'another process' : `pid ${holderPid}`} (an OpenClaw run or another clawkit) to finish with this session; its lock is ${lockPath}. ${limit}\n`)
        },
        onText: json
          ? undefined
          : (d) => {
              spinner?.stop()
              if (newCall && !atLineStart) process.stdout.write(`${reply.end()}\n`)
              newCall = false
              streamed = true
              // The reply is untrusted text: escape sequences and bidi or zero-width characters are made visible.
              process.stdout.write(reply.push(d))
              atLineStart = d.endsWith('\n')
            },
      }).catch((error: unknown) => {
        if (error instanceof ModelCallError && sessionKey !== undefined) throw keptInSession(error, sessionKey)
        // The turn is in the transcript but the index update failed, or the transcript refused part of the turn (saved
        // outside the state dir): either way the reply is still the user's, in --json too.
        if (!(error instanceof TurnStoredError || error instanceof TurnNotStoredError)) throw error
        notStored = error instanceof TurnNotStoredError
        stored = describeError(error)
        return error.turn
      })
      spinner?.stop()
      if (!json) {
        if (streamed && !atLineStart) process.stdout.write(`${reply.end()}\n`)
        else if (!result.text && !result.aborted) this.out('No reply from agent.')
      }
      if (result.aborted) {
        process.exitCode = result.abortReason === 'timeout' ? ExitCode.timeout : signalExit
        const what = result.abortReason === 'timeout' ? 'timed out' : 'was interrupted'
        const kept = result.text ? 'the partial reply was kept' : 'no reply had arrived; your message was kept'
        // OpenClaw delivers completed payloads only; a --deliver user must still hear that nothing went out.
        if (!json) process.stderr.write(`Error: agent turn ${what}; ${kept} in ${result.sessionFile}.${f.deliver ? ' The reply was not delivered.' : ''}\n`)
      }
      const doc = toAgentRunResult(result)
      if (f.deliver && result.aborted) doc.deliveryError = {code: 'E_NOT_DELIVERED', message: `The reply was not delivered: the turn ${result.abortReason === 'timeout' ? 'timed out' : 'was interrupted'}, and only a completed turn is delivered.`}
      if (stored) {
        // No delivery: with the index in an unknown state, the route (lastChannel, sendPolicy, the mirror's session)
        // cannot be trusted, and the user must be told that nothing was sent rather than find out from the chat.
        if (f.deliver && !result.aborted) {
          const notSent = 'The reply was not delivered.'
          const why = notStored ? 'the turn could not be stored in its session' : 'the session index is in an unknown state'
          stored = {...stored, message: `${stored.message} ${notSent}`, suggestions: [...(stored.suggestions ?? []), withHintContext(`it was not delivered because ${why}: once "clawkit doctor" is clean, send it with "clawkit message send" if it is still wanted`)]}
          doc.deliveryError = {code: 'E_NOT_DELIVERED', message: `${notSent} ${notStored ? 'The turn could not be stored in its session' : 'The turn is stored, but the session index could not be updated'}, so no delivery was attempted.`}
        }
        doc.error = stored
        process.exitCode = stored.exitCode
        if (!json) {
          process.stderr.write(`Error: ${printable(stored.message)}\n${stored.suggestions?.length ? `  hint: ${printable(stored.suggestions.join('; '))}\n` : ''}`)
        }
        return doc
      }
      // Delivery happens only after the turn is safely persisted, and never for an aborted turn (OpenClaw delivers
      // completed payloads only). A failed delivery keeps the turn and exits 1, with the reason in the document.
      if (f.deliver && !result.aborted) {
        const {deliverAgentReply} = await import('../channels/agent-delivery.js')
        try {
          doc.delivery = await deliverAgentReply({
            state,
            agentId: result.agentId,
            sessionKey: result.sessionKey,
            text: result.text.trimEnd(),
            channel: f['reply-channel'] ?? f.channel,
            replyTo: f['reply-to'] ?? f.to,
            accountId: f['reply-account'],
          })
          if (!json) {
            process.stderr.write(`Delivered via ${doc.delivery.channel} to ${printable(doc.delivery.to)}. Message ID: ${printable(String(doc.delivery.result.messageId))}\n`)
            if (doc.delivery.mirrorError) process.stderr.write(`Warning: the reply was delivered, but its copy could not be written: ${printable(doc.delivery.mirrorError.message)}\n`)
          }
        } catch (error) {
          const info = describeError(error)
          doc.deliveryError = {code: info.code, message: info.message}
          process.exitCode = 1
          if (!json) process.stderr.write(`Error: ${printable(info.message)}\n`)
        }
      }
      return doc
    } finally {
      spinner?.stop()
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
  }
}
