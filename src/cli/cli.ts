// The executable's entry: every command under its oclif id plus oclif's `execute`, which scripts/bundle.js turns
// into one file so that start-up loads one module instead of about two hundred (BENCHMARKS.md, "Start-up").
import {commands as helpCommands} from '@oclif/plugin-help'
import {Errors, run, type Command} from '@oclif/core'

import {type BaseCommand, jsonRequested, reportError} from './base-command.js'
import {ExitCode} from '../errors.js'
import {closest} from '../suggest.js'
import {COMMAND_IDS, type CommandId, commandOf} from './command-ids.js'
import {writePaged} from './pager.js'
import {commandWords, describeError, unexpectedArguments} from '../error-report.js'

export {ranCommand} from './base-command.js'

/**
 * Each command's module, imported when that command runs. In the bundle a module imported so is a function run on
 * demand, so a start initializes oclif and the one command it runs (its store, its renderer), not every command's code:
 * the agent loop, the fleet replica, the MCP server, cleanup and its journal (BENCHMARKS.md, "Commands loaded on
 * demand"). `help` and `autocomplete` are the commands of @oclif/plugin-help (which exports them for this) and
 * @oclif/plugin-autocomplete (src/cli/autocomplete-plugin.ts), listed here rather than configured as oclif plugins,
 * which oclif would locate and read at every start (~6-9 ms of every command, BENCHMARKS.md).
 */
const LOADERS: Record<CommandId, () => Promise<{default: Command.Class}>> = {
  agent: () => import('../commands/agent.js'),
  autocomplete: () => import('../commands/autocomplete/index.js'),
  'autocomplete:create': () => import('../commands/autocomplete/create.js'),
  'autocomplete:script': () => import('../commands/autocomplete/script.js'),
  help: async () => ({default: helpCommands.help}),
  doctor: () => import('../commands/doctor.js'),
  index: () => import('../commands/index/index.js'),
  mcp: () => import('../commands/mcp.js'),
  'message:send': () => import('../commands/message/send.js'),
  sessions: () => import('../commands/sessions/index.js'),
  'sessions:export': () => import('../commands/sessions/export.js'),
  'sessions:history': () => import('../commands/sessions/history.js'),
  'sessions:lineage': () => import('../commands/sessions/lineage.js'),
  'sessions:list': () => import('../commands/sessions/list.js'),
  'sessions:archive': () => import('../commands/sessions/archive.js'),
  'sessions:cleanup': () => import('../commands/sessions/cleanup.js'),
  'sessions:delete': () => import('../commands/sessions/delete.js'),
  'sessions:reset': () => import('../commands/sessions/reset.js'),
  'sessions:restore': () => import('../commands/sessions/restore.js'),
  'sessions:search': () => import('../commands/sessions/search.js'),
  'sessions:usage': () => import('../commands/sessions/usage.js'),
  status: () => import('../commands/status.js'),
  'store:export': () => import('../commands/store/export.js'),
  'store:info': () => import('../commands/store/info.js'),
  'store:verify': () => import('../commands/store/verify.js'),
  sync: () => import('../commands/sync.js'),
  undo: () => import('../commands/undo.js'),
}

export {COMMAND_ALIASES, COMMAND_IDS} from './command-ids.js'

/**
 * oclif's `explicit` command discovery reads this map (package.json `oclif.commands.identifier`) when it runs a command,
 * and its help and flags come from oclif.manifest.json: it holds the commands loaded so far. `execute` loads the one its
 * arguments name before oclif looks; loadCommands() all of them, for what lists them (the manifest, bin/dev.js through
 * src/cli/all-commands.ts, an unknown command's nearest match).
 */
export const COMMANDS: Record<string, Command.Class> = {}

/** Loads commands into COMMANDS (all of them by default) and returns it. */
export async function loadCommands(ids: readonly CommandId[] = COMMAND_IDS): Promise<Record<string, Command.Class>> {
  for (const id of ids) COMMANDS[id] ??= (await LOADERS[id]()).default
  return COMMANDS
}

/**
 * oclif's `execute`, with clawkit's error report instead of oclif's: what fails before a command runs (an unknown
 * command) or outside BaseCommand (help, autocomplete) is one line plus a hint, or the JSON envelope under --json.
 * bin/run.js flushes the output and exits afterwards (src/cli/boot.ts).
 */
export async function execute(opts: {dir: string; args?: string[]}): Promise<void> {
  const argv = opts.args ?? process.argv.slice(2)
  const named = commandOf(argv)
  await loadCommands(named ? [named.id] : [])
  // Help is long (a command's flags fill a screen) and printed by oclif in pieces: held, then paged as a whole.
  const help = process.stdout.isTTY && !argv.includes('--no-pager') && !jsonRequested(argv) && helpRequested(argv) ? holdStdout() : undefined
  try {
    await run(argv, opts.dir)
  } catch (error) {
    help?.release(false)
    const e = error as Error & {code?: string; oclif?: {exit?: number | false}}
    if (e?.code === 'EEXIT') {
      process.exitCode = typeof e.oclif?.exit === 'number' ? e.oclif.exit : 0
      return
    }
    // oclif's "command x not found", and plugin-help's "Command x not found." for `clawkit help x`.
    const unknown = e instanceof Errors.CLIError ? /^command (\S+) not found\.?$/i.exec(e.message) : null
    // The nearest command and a stray argument's hint are told from every command's class.
    if (unknown) await loadCommands()
    reportError(unknown ? (strayArguments(argv) ?? unknownCommand(argv, unknown[1])) : describeError(error), error, jsonRequested(argv))
  }
  if (help) await writePaged(help.release(true))
}

/**
 * Whether oclif will show help for `argv`, as its own run decides (main.js helpAddition, then a topic that is no
 * command): no arguments, --help or -h before any `--`, the help command, or a topic alone (`clawkit store`).
 */
function helpRequested(argv: readonly string[]): boolean {
  if (argv.length === 0 || argv[0] === 'help') return true
  const end = argv.indexOf('--')
  if ((end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h')) return true
  const words = argv.filter((a) => !a.startsWith('-'))
  return words.length === 1 && !Object.hasOwn(LOADERS, words[0]) && COMMAND_IDS.some((id) => id.startsWith(`${words[0]}:`))
}

/**
 * Holds what is written to stdout until `release`: the held text is returned (true), or written out at once (false,
 * on an error, so that nothing is lost before the error's own lines).
 */
function holdStdout(): {release(keep: boolean): string} {
  const write = process.stdout.write
  const chunks: string[] = []
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
    const done = rest.find((x): x is () => void => typeof x === 'function')
    if (done) process.nextTick(done)
    return true
  }) as typeof process.stdout.write
  let released = false
  return {
    release(keep: boolean): string {
      if (released) return ''
      released = true
      process.stdout.write = write
      const text = chunks.join('')
      if (keep) return text
      if (text) process.stdout.write(text)
      return ''
    },
  }
}

/**
 * Words typed after a command that has no subcommands and takes no arguments there: oclif joins every word before the
 * first flag into the command id (`sessions list extra` looks up "sessions:list:extra"), so what is a stray argument
 * reaches here as an unknown command. Reported as the command's parser reports one found after its flags.
 */
function strayArguments(argv: readonly string[]): ReturnType<typeof describeError> | undefined {
  if (argv[0] === 'help') return undefined
  const words: string[] = []
  for (const a of argv) {
    if (a === '--' || a.startsWith('-') || a.includes('=')) break
    words.push(a)
  }
  for (let k = words.length - 1; k >= 1; k--) {
    const id = words.slice(0, k).join(':')
    const command = COMMANDS[id]
    if (!command) continue
    // `sessions extra`: sessions has subcommands, so the word is more likely one of them, misspelt.
    if (COMMAND_IDS.some((other) => other.startsWith(`${id}:`))) return undefined
    const hint = (command as typeof BaseCommand).strayArgumentsHint
    return unexpectedArguments(id, words.slice(k), hint && ((args) => hint(args, argv.slice(k))))
  }
  return undefined
}

/**
 * An unknown command, named as typed (`sessions lsit`, not oclif's `sessions:lsit`), with the visible command nearest
 * to it: the typed words are compared with the commands of as many words, and a lone word also with subcommands.
 */
function unknownCommand(argv: readonly string[], id: string): ReturnType<typeof describeError> {
  const words: string[] = []
  for (const a of argv[0] === 'help' ? argv.slice(1) : argv) {
    if (a.startsWith('-') || words.length === 2) break
    words.push(a)
  }
  // No words: a flag came first (`clawkit --jsn`), and oclif took it for the command.
  if (words.length === 0) return {code: 'E_USAGE', message: `Unknown flag ${id} before any command.`, exitCode: ExitCode.usage, suggestions: ['run "clawkit --help" for the commands and the flags every command takes.']}
  const typed = words.join(' ')
  const visible = Object.entries(COMMANDS)
    .filter(([, c]) => !c.hidden)
    .map(([id]) => commandWords(id))
  let near = closest(typed, visible.filter((v) => v.split(' ').length === words.length))
  if (!near && words.length === 1) near = visible.find((v) => v.split(' ').length === 2 && v.split(' ')[1] === closest(typed, visible.map((x) => x.split(' ')[1] ?? '')))
  return {
    code: 'E_UNKNOWN_COMMAND',
    message: `Unknown command "${typed}".`,
    exitCode: ExitCode.usage,
    suggestions: [near ? `did you mean "clawkit ${near}"? Run "clawkit --help" for the commands.` : 'run "clawkit --help" for the commands.'],
  }
}
