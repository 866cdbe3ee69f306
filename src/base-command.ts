// The one base command: --json via oclif, global state-dir flags, exit codes, and error envelopes for every command.
import {Command, Errors, Flags, type Interfaces} from '@oclif/core'

import {ClawkitError, ExitCode} from './errors.js'
import {printable, printableLines} from './render/safe.js'
import {OpenClawState} from './store/state.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** The `--json` error document: `{"error": {code, message, exitCode, suggestions?}}` on stdout. */
export interface ErrorEnvelope {
  error: {code: string; message: string; exitCode: number; suggestions?: string[]}
}

let ranCommandId: string | undefined

/**
 * The id of the command this process ran to its end without an error, else undefined. bin/run.js's code cache lists
 * the commands whose code it holds by it; a run that stopped early (a bad flag) ran too little of that code to count.
 */
export function ranCommand(): string | undefined {
  return ranCommandId
}

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true

  static override baseFlags = {
    'state-dir': Flags.string({
      description: 'OpenClaw state directory (default: $OPENCLAW_STATE_DIR, the profile dir, or ~/.openclaw)',
      helpGroup: 'GLOBAL',
    }),
    profile: Flags.string({description: 'use the OpenClaw profile state dir ~/.openclaw-<name>', helpGroup: 'GLOBAL'}),
    dev: Flags.boolean({description: 'use the OpenClaw dev profile (~/.openclaw-dev)', helpGroup: 'GLOBAL'}),
  }

  protected flags!: BaseFlags<T>
  protected args!: BaseArgs<T>

  public override async init(): Promise<void> {
    await super.init()
    const {args, flags} = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as BaseFlags<T>
    this.args = args as BaseArgs<T>
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    if (!err) ranCommandId = this.id
    return super.finally(err)
  }

  /** Resolve the OpenClaw state dir and config from the global flags. */
  protected openState(opts: {tolerateConfigError?: boolean} = {}): OpenClawState {
    const f = this.flags as {'state-dir'?: string; profile?: string; dev?: boolean}
    return OpenClawState.open({stateDir: f['state-dir'], profile: f.profile, dev: f.dev, tolerateConfigError: opts.tolerateConfigError})
  }

  /**
   * Human output only: suppressed under --json so stdout stays one JSON document. The text quotes keys, ids and
   * targets from files and flags, so control and invisible characters (bidi overrides, zero-width) are made visible.
   */
  protected out(text: string): void {
    if (!this.jsonEnabled()) process.stdout.write(printableLines(text.endsWith('\n') ? text : `${text}\n`))
  }

  /**
   * Plain `JSON.stringify(..., null, 2)` plus one newline, written straight to stdout. oclif's default runs the
   * document through a regex colorizer that costs ~1 s on a 10k-session list and would put ANSI codes into
   * what scripts parse whenever a theme is configured. The newline is a write of its own: appended to the text it
   * would copy a 5 MB document once more.
   */
  override logJson(json: unknown): void {
    // `?? 'null'`: JSON.stringify(undefined) is undefined, and a script must still get a JSON document.
    process.stdout.write(JSON.stringify(json, null, 2) ?? 'null')
    process.stdout.write('\n')
  }

  protected override toErrorJson(err: unknown): ErrorEnvelope {
    return {error: describeError(err)}
  }

  /**
   * One place for failures: domain errors print `Error: <message>` (plus hints) on stderr and exit with their code;
   * parse errors keep oclif's usage output and exit 2. Under --json the envelope goes to stdout with the same code
   * (this also fixes core 4's "every JSON error exits 1", oclif-notes section 3.3). Stack traces only with DEBUG.
   */
  protected override async catch(err: Error & {code?: string; oclif?: {exit?: false | number}}): Promise<unknown> {
    const info = describeError(err)
    if (err.code === 'EEXIT') {
      process.exitCode = typeof err.oclif?.exit === 'number' ? err.oclif.exit : 0
      return
    }
    process.exitCode = info.exitCode
    if (this.jsonEnabled()) {
      this.logJson(this.toErrorJson(err))
      return
    }
    if (err instanceof ClawkitError || !(err instanceof Errors.CLIError)) {
      // Messages quote ids and file names from hostile input: escaped so the error stays one line and inert.
      const lines = [`Error: ${printable(info.message)}`]
      for (const s of info.suggestions ?? []) lines.push(`  hint: ${printable(s)}`)
      if (process.env.DEBUG && err.stack) lines.push(err.stack)
      process.stderr.write(`${lines.join('\n')}\n`)
      return
    }
    return super.catch(err)
  }
}

export function describeError(err: unknown): ErrorEnvelope['error'] {
  if (err instanceof ClawkitError) {
    return {code: err.code, message: err.message, exitCode: err.exitCode, ...(err.suggestions ? {suggestions: err.suggestions} : {})}
  }
  const e = err as Error & {code?: string; oclif?: {exit?: number | false}}
  if (e instanceof Errors.CLIError) {
    // Flag and argument parse errors are usage errors.
    const exit = typeof e.oclif?.exit === 'number' ? e.oclif.exit : ExitCode.usage
    return {code: typeof e.code === 'string' ? e.code : 'E_USAGE', message: stripAnsi(e.message), exitCode: exit}
  }
  const code = typeof e?.code === 'string' ? `E_${e.code}` : 'E_UNEXPECTED'
  return {code, message: e?.message ?? String(err), exitCode: ExitCode.failure}
}

function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001B\[[0-9;]*m/g, '')
}
