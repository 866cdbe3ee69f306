// Every error as the user is told it: one line, an exit code and at most a hint, secrets echoed by a server redacted
// and the commands it suggests in the run's own state dir context; oclif's parse errors in clawkit's words. Shared by
// the front ends that report errors: the CLI shell (cli/base-command.ts) and the MCP server (mcp/server.ts).
import {Errors} from '@oclif/core'

import {ClawkitError, ExitCode, FileSystemError, isErrnoError, syscallAction} from './errors.js'
import {closest} from './suggest.js'
import {stripAnsi} from './text/ansi.js'
import {withHintContext} from './text/hint-context.js'
import {redactDeep} from './text/redact.js'

/** The `--json` error document: `{"error": {code, message, exitCode, suggestions?}}` on stdout. */
export interface ErrorEnvelope {
  error: {code: string; message: string; exitCode: number; suggestions?: string[]}
}

/** What a failure is reported with, besides the error itself: the command that ran and the flags it takes. */
export interface ErrorContext {
  commandId?: string
  flagNames?: string[]
  /** The command's hint for stray arguments (BaseCommand.strayArgumentsHint). */
  argumentsHint?: (args: string[]) => string
}

/**
 * Every error clawkit reports (stderr line, --json envelope, deliveryError) is described here, so this is where
 * secrets echoed by a server are taken out (text/redact.ts), whoever produced the text.
 */
export function describeError(err: unknown, ctx: ErrorContext = {}): ErrorEnvelope['error'] {
  const info = describeErrorRaw(err, ctx)
  // A command the message or hint suggests keeps the user's --state-dir, --profile or --dev.
  const inContext = {...info, message: withHintContext(info.message), ...(info.suggestions ? {suggestions: info.suggestions.map(withHintContext)} : {})}
  return redactDeep(inContext)
}

function describeErrorRaw(err: unknown, ctx: ErrorContext): ErrorEnvelope['error'] {
  if (err instanceof ClawkitError) {
    return {code: err.code, message: err.message, exitCode: err.exitCode, ...(err.suggestions ? {suggestions: err.suggestions} : {})}
  }
  const e = err as Error & {code?: string; oclif?: {exit?: number | false}; flags?: string[]; syscall?: string; path?: string}
  if (e instanceof Errors.CLIError) return describeUsageError(e, ctx)
  // A file-system error nothing caught on the way up: it still names its file when Node recorded one.
  if (isErrnoError(e) && typeof e.path === 'string') {
    const dest = (e as {dest?: unknown}).dest
    return describeError(new FileSystemError(typeof dest === 'string' ? `${e.path} to ${dest}` : e.path, syscallAction(e.syscall), e))
  }
  const code = typeof e?.code === 'string' ? `E_${e.code}` : 'E_UNEXPECTED'
  return {code, message: e?.message ?? String(err), exitCode: ExitCode.failure}
}

/** The words a user types for a command id (`sessions:list` is `sessions list`). */
export function commandWords(id: string): string {
  return id.replaceAll(':', ' ')
}

/**
 * oclif's parse and lookup errors, in clawkit's form: one line (oclif's span several and end with "See more help with
 * --help"), a did-you-mean where a flag is close to one the command takes, and exit 2 (usage).
 */
function describeUsageError(e: Errors.CLIError & {code?: string; flags?: string[]}, ctx: ErrorContext): ErrorEnvelope['error'] {
  const exitCode = typeof e.oclif?.exit === 'number' && e.oclif.exit !== 1 ? e.oclif.exit : ExitCode.usage
  const help = ctx.commandId ? `run "clawkit ${commandWords(ctx.commandId)} --help" for its flags and arguments` : 'run "clawkit --help" for the commands'
  const where = ctx.commandId ? ` for "clawkit ${commandWords(ctx.commandId)}"` : ''
  if (Array.isArray(e.flags) && e.flags.length > 0) {
    const known = (ctx.flagNames ?? []).map((n) => `--${n}`)
    const first = e.flags[0].split('=')[0]
    const near = first.startsWith('--') ? closest(first, known) : undefined
    return {
      code: 'E_UNKNOWN_FLAG',
      message: `Unknown flag${e.flags.length === 1 ? '' : 's'} ${e.flags.join(', ')}${where}.`,
      exitCode,
      suggestions: [near ? `did you mean ${near}? Or ${help}.` : `${help}.`],
    }
  }
  const stray = (e as {args?: unknown}).args
  if (Array.isArray(stray) && /^Unexpected arguments?: /.test(e.message)) return unexpectedArguments(ctx.commandId, stray.map(String), ctx.argumentsHint)
  const lines = stripAnsi(e.message)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && l !== 'See more help with --help' && !/^The following errors? occurred:$/.test(l) && !/^(Note:|Alternatively,)/.test(l))
  // oclif names a missing flag without its dashes ("Missing required flag target").
  const message = lines.join('; ').replace(/\s+/g, ' ').replace(/^(Missing required flag) (?!-)(\S+)/, '$1 --$2')
  return {code: typeof e.code === 'string' ? e.code : 'E_USAGE', message, exitCode, suggestions: [`${help}.`]}
}

/**
 * Words a command does not take, in oclif's own words (`Unexpected argument: extra`), whether its parser found them
 * after the command's flags or the command lookup met them right after its name (`sessions list extra`, which oclif
 * takes for an unknown command "sessions list extra"): one report for both, with the command's own hint if it has one.
 */
export function unexpectedArguments(commandId: string | undefined, args: string[], hint?: (args: string[]) => string): ErrorEnvelope['error'] {
  const help = commandId ? `run "clawkit ${commandWords(commandId)} --help" for its flags and arguments.` : 'run "clawkit --help" for the commands.'
  return {
    code: 'E_USAGE',
    message: `Unexpected argument${args.length === 1 ? '' : 's'}: ${args.join(', ')}`,
    exitCode: ExitCode.usage,
    suggestions: [hint ? hint(args) : help],
  }
}
