// The one base command: --json via oclif, global state-dir flags, exit codes, and error envelopes for every command.
import {Command, Flags, type Interfaces} from '@oclif/core'

import type {CommandCatalog} from '../catalog/index.js'
import {describeError, type ErrorEnvelope} from '../error-report.js'
import {UsageError} from '../errors.js'
import {checkStoreUrl, requireStoreUrlFor} from '../fleet/flags.js'
import {type FleetHostState, FleetState} from '../fleet/state.js'
import {printable, printableLines} from '../render/safe.js'
import {OpenClawState} from '../store/state.js'
import {setHintContext} from '../text/hint-context.js'
import {redactText} from '../text/redact.js'
import {writeJsonDocument} from './json-document.js'
import {writePaged} from './pager.js'

/**
 * The flag of the commands whose human output can be long (history, lineage, search, usage, list, doctor), which page
 * it on a terminal (src/cli/pager.ts).
 */
export const pagerFlags = {
  'no-pager': Flags.boolean({description: 'print long output as it is; on a terminal it is otherwise paged through $CLAWKIT_PAGER, $PAGER or less'}),
}

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** The fleet flags of the read commands (fleet/flags.ts), as the base command reads them. */
type FleetReadFlags = {'store-url'?: string; host?: string; 'all-hosts'?: boolean}


let ranCommandId: string | undefined

/**
 * The id of the command this process ran to its end without an error, else undefined. bin/run.js keeps a code cache
 * per command by it; a run that stopped early (a bad flag) ran too little of that code to write its command's cache.
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

  /**
   * A hint for words the command does not take as arguments, given them and the command's argv (after its name), for
   * commands where a stray word has a likely cause (`agent hello` forgot -m). Default: the command's --help.
   */
  static strayArgumentsHint?: (args: string[], argv: readonly string[]) => string

  protected flags!: BaseFlags<T>
  protected args!: BaseArgs<T>

  /**
   * Set by a command whose --json output is a stream of one-line documents (`sessions history --follow`): its error
   * envelope is then one line too, so a reader taking the stream line by line can parse it.
   */
  protected jsonLines = false

  /** Every positional argument, in order (a command with `strict = false` takes any number: `sessions delete a b c`). */
  protected positionals: string[] = []

  public override async init(): Promise<void> {
    await super.init()
    const {args, flags, argv} = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as BaseFlags<T>
    this.args = args as BaseArgs<T>
    this.positionals = (argv as unknown[]).map(String)
    // The commands hints suggest act on the state dir this run was given (hint-context.ts).
    setHintContext(flags as {'state-dir'?: string; profile?: string; dev?: boolean})
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    if (!err) ranCommandId = this.id
    // SQLite-era stores keep one connection each for the command; it ends here, success or not.
    for (const c of this.catalogs.splice(0)) c.close()
    for (const s of this.states.splice(0)) s.close()
    for (const f of this.fleets.splice(0)) await f.close()
    return super.finally(err)
  }

  private readonly states: OpenClawState[] = []

  /**
   * Resolve the OpenClaw state dir and config from the global flags. A state dir the user named must exist, for every
   * command (exit 2, E_STATE_DIR_NOT_FOUND): a typo must not read as "no sessions" or "$0.0000". Only doctor, whose job
   * is to report it, passes `allowMissing`.
   */
  protected openState(opts: {tolerateConfigError?: boolean; allowMissing?: boolean} = {}): OpenClawState {
    const f = this.flags as {'state-dir'?: string; profile?: string; dev?: boolean}
    const state = OpenClawState.open({stateDir: f['state-dir'], profile: f.profile, dev: f.dev, tolerateConfigError: opts.tolerateConfigError})
    this.states.push(state)
    if (!opts.allowMissing) state.requireStateDir()
    return state
  }

  private readonly fleets: FleetState[] = []

  private readonly catalogs: CommandCatalog[] = []

  /**
   * The local catalog of the state (src/catalog/), opened on first use and closed with the command. Its notices (why it
   * cannot be used) go to stderr, never stdout; its first build shows its progress on a terminal's stderr.
   */
  protected async catalog(state: OpenClawState): Promise<CommandCatalog> {
    const c = await this.unlistedCatalog(state)
    this.catalogs.push(c)
    return c
  }

  /** catalog() for a caller that closes it itself (the MCP server: one per tool call). */
  protected async unlistedCatalog(state: OpenClawState): Promise<CommandCatalog> {
    // Loaded here only: commands that never touch the catalog start without its code.
    const [{CommandCatalog}, {catalogProgressLine}, {wrapHanging}] = await Promise.all([import('../catalog/index.js'), import('../render/catalog-progress.js'), import('../render/fit.js')])
    const progress = catalogProgressLine()
    const c = new CommandCatalog(
      state,
      (line) => {
        progress?.done()
        // On a terminal the notice wraps to its width, as every other line of prose does.
        const width = process.stderr.isTTY ? (process.stderr.columns ?? 0) : 0
        process.stderr.write(`${(width > 20 ? wrapHanging('', '  ', line, width) : [line]).join('\n')}\n`)
      },
      progress ? {onProgress: (p) => progress.onProgress(p), onDone: () => progress.done()} : {},
    )
    return c
  }

  /**
   * The fleet replica named by --store-url, connected for the command (closed at its end). A state dir flag beside it
   * would be ignored, so it is refused: the user meant one or the other.
   */
  private async openFleet(url: string): Promise<FleetState> {
    const f = this.flags as {'state-dir'?: string; profile?: string; dev?: boolean}
    const local = f['state-dir'] !== undefined ? '--state-dir' : f.profile !== undefined ? '--profile' : f.dev ? '--dev' : undefined
    if (local) throw new UsageError(`--store-url reads the fleet replica; ${local} names a local state dir: give one or the other`, 'E_FLAG_CONFLICT')
    const fleet = await FleetState.open(checkStoreUrl(url))
    this.fleets.push(fleet)
    return fleet
  }

  /**
   * The fleet replica a read command was pointed at with --store-url, connected; undefined for the local store. The
   * fleet flags are checked first (--host or --all-hosts without --store-url is a usage error).
   */
  protected async fleetFromFlags(): Promise<FleetState | undefined> {
    const f = this.flags as FleetReadFlags
    requireStoreUrlFor(f)
    return f['store-url'] ? this.openFleet(f['store-url']) : undefined
  }

  /** With --store-url: the hosts a fleet-wide read covers (--host, else every host that has synced). */
  protected async fleetHostsFromFlags(): Promise<{host: string; state: FleetHostState}[] | undefined> {
    const fleet = await this.fleetFromFlags()
    const f = this.flags as FleetReadFlags
    return fleet?.select({host: f.host, allHosts: f['all-hosts']}).map((state) => ({host: state.host, state}))
  }

  /** With --store-url: the one host a single-session read means (--host, the only host, else where `target` resolves). */
  protected async fleetHostFor(target: string): Promise<FleetHostState | undefined> {
    const fleet = await this.fleetFromFlags()
    if (!fleet) return undefined
    const f = this.flags as FleetReadFlags & {agent?: string}
    return (await import('../fleet/pick.js')).pickHost(fleet, {host: f.host, agent: f.agent}, target)
  }

  /** A warning on stderr, one line, under --json too (stdout keeps its one document; logs go to stderr). */
  protected warnLine(text: string): void {
    process.stderr.write(printableLines(`Warning: ${text}\n`))
  }

  /**
   * Human output only: suppressed under --json so stdout stays one JSON document. The text quotes keys, ids and
   * targets from files and flags, so control and invisible characters (bidi overrides, zero-width) are made visible.
   */
  protected out(text: string): void {
    if (!this.jsonEnabled()) process.stdout.write(printableLines(text.endsWith('\n') ? text : `${text}\n`))
  }

  /**
   * Human output that can be long (already rendered and terminal-safe): through the pager when stdout is a terminal and
   * the text does not fit on the screen, unless --no-pager; as it is otherwise. Nothing under --json.
   */
  protected async page(text: string): Promise<void> {
    if (!this.jsonEnabled()) await writePaged(text, {disabled: (this.flags as {'no-pager'?: boolean})['no-pager']})
  }

  /**
   * Exactly `JSON.stringify(..., null, 2)` plus one newline, written straight to stdout, a large list in pieces
   * (src/cli/json-document.ts). oclif's default runs the document through a regex colorizer that costs ~1 s on a
   * 10k-session list and would put ANSI codes into what scripts parse whenever a theme is configured. Once stdout has
   * failed (boot.ts reports it), the pieces left are not written.
   */
  override logJson(json: unknown): void {
    const out = process.stdout
    writeJsonDocument(json, (text) => {
      if (!out.destroyed) out.write(text)
    })
    if (!out.destroyed) out.write('\n')
  }

  protected override toErrorJson(err: unknown): ErrorEnvelope {
    return {error: describeError(err)}
  }

  /**
   * One place for failures: every error is `Error: <message>` on stderr plus at most one `  hint:` line, with the
   * command's exit code; parse errors included (oclif would print its usage block). Under --json the envelope goes to
   * stdout with the same code (this also fixes core 4's "every JSON error exits 1", oclif-notes section 3.3). Stack
   * traces only with DEBUG.
   */
  protected override async catch(err: Error & {code?: string; oclif?: {exit?: false | number}}): Promise<unknown> {
    if (err.code === 'EEXIT') {
      process.exitCode = typeof err.oclif?.exit === 'number' ? err.oclif.exit : 0
      return
    }
    const ctor = this.ctor as typeof BaseCommand
    const flags = {...ctor.baseFlags, ...this.ctor.flags, ...(this.ctor.enableJsonFlag ? {json: {}} : {})}
    const argumentsHint = ctor.strayArgumentsHint && ((args: string[]) => ctor.strayArgumentsHint!(args, this.argv))
    const info = describeError(err, {commandId: this.id, flagNames: Object.keys(flags), argumentsHint})
    reportError(info, err, this.jsonEnabled(), this.jsonLines)
  }
}

/** Whether argv asks for --json (before any `--`), or CLAWKIT_CONTENT_TYPE=json does, as oclif's jsonEnabled decides. */
export function jsonRequested(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.CLAWKIT_CONTENT_TYPE?.toLowerCase() === 'json') return true
  const end = argv.indexOf('--')
  const at = argv.indexOf('--json')
  return at !== -1 && (end === -1 || at < end)
}

/**
 * Prints a described failure and sets the exit code: the envelope on stdout under --json (on one line with `oneLine`),
 * else one `Error:` line and at most one `  hint:` line on stderr (several suggestions share it).
 */
export function reportError(info: ErrorEnvelope['error'], err: unknown, json: boolean, oneLine = false): void {
  process.exitCode = info.exitCode
  if (json) {
    process.stdout.write(`${JSON.stringify({error: info} satisfies ErrorEnvelope, null, oneLine ? undefined : 2)}\n`)
    return
  }
  // Messages quote ids and file names from hostile input: escaped so the error stays one line and inert.
  const lines = [`Error: ${printable(info.message)}`]
  if (info.suggestions?.length) lines.push(`  hint: ${printable(info.suggestions.join('; '))}`)
  const stack = (err as Error | undefined)?.stack
  if (process.env.DEBUG && stack) lines.push(redactText(stack))
  process.stderr.write(`${lines.join('\n')}\n`)
}
