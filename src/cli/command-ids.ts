// The commands' oclif ids and aliases, and which command a command line names: in a module of its own so that start-up
// (boot.ts, which picks the command's code cache before the bundle is loaded) and the bundle (cli.ts) read one list.

/** Every command's oclif id (`:` between the words). cli.ts's loaders are typed by it: a command missing there fails to compile. */
export const COMMAND_IDS = [
  'agent',
  'autocomplete',
  'autocomplete:create',
  'autocomplete:script',
  'help',
  'doctor',
  'index',
  'mcp',
  'message:send',
  'sessions',
  'sessions:export',
  'sessions:history',
  'sessions:lineage',
  'sessions:list',
  'sessions:archive',
  'sessions:cleanup',
  'sessions:delete',
  'sessions:reset',
  'sessions:restore',
  'sessions:search',
  'sessions:usage',
  'status',
  'store:export',
  'store:info',
  'store:verify',
  'sync',
  'undo',
] as const

export type CommandId = (typeof COMMAND_IDS)[number]

/**
 * The commands' aliases (a command's static `aliases`, which oclif reads from the manifest) and the command each runs:
 * an alias in the arguments loads that command. test/cli/cli.test.ts keeps this equal to the manifest's.
 */
export const COMMAND_ALIASES: Readonly<Record<string, CommandId>> = {'sessions:tail': 'sessions:history'}

const IDS: ReadonlySet<string> = new Set(COMMAND_IDS)

/** The command id `name` (an id or an alias) runs, if it names one. */
export function commandNamed(name: string): CommandId | undefined {
  return IDS.has(name) ? (name as CommandId) : Object.hasOwn(COMMAND_ALIASES, name) ? COMMAND_ALIASES[name] : undefined
}

/**
 * The command oclif will run for `argv`, as it finds one: the longest run of the words before any flag (three at most)
 * that is a command id or an alias of one, with that name as written (`sessions:tail` for the alias); none for help or
 * the version alone (oclif shows those from the manifest).
 */
export function commandOf(argv: readonly string[]): {name: string; id: CommandId} | undefined {
  const words: string[] = []
  for (const a of argv) {
    if (a.startsWith('-') || words.length === 3) break
    words.push(a)
  }
  for (let k = words.length; k >= 1; k--) {
    const name = words.slice(0, k).join(':')
    const id = commandNamed(name)
    if (id !== undefined) return {name, id}
  }
  return undefined
}
