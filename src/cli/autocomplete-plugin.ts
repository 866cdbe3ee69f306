// Runs a command of @oclif/plugin-autocomplete from the installed package, loaded only when one of its commands runs.
//
// Why not as an oclif plugin: oclif locates every configured plugin at every start (resolves the package through
// node_modules, matches dependency names with minimatch, reads its package.json and manifest), ~6-9 ms of each command
// (BENCHMARKS.md). Why not bundled: its modules would then be initialized at every start instead, ejs included
// (~3-5 ms). So src/commands/autocomplete/* declare the plugin's commands with the same metadata (a test compares the
// two) and hand over to the plugin's own implementation here. The package exports only its (empty) main module, so the
// command files are found next to it.
import type {Command, Config} from '@oclif/core'
import {createRequire} from 'node:module'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

/** `index`, `create` or `script`: the file under the plugin's lib/commands/autocomplete/. */
export type AutocompleteCommand = 'create' | 'index' | 'script'

function autocompletePluginFile(config: Pick<Config, 'root'>, name: AutocompleteCommand): string {
  const main = createRequire(path.join(config.root, 'package.json')).resolve('@oclif/plugin-autocomplete')
  return path.join(path.dirname(main), 'commands', 'autocomplete', `${name}.js`)
}

export async function runAutocompleteCommand(name: AutocompleteCommand, argv: string[], config: Config): Promise<void> {
  const before = new Set(process.stdout.listeners('error'))
  const {default: Impl} = (await import(pathToFileURL(autocompletePluginFile(config, name)).href)) as {default: Command.Class}
  // The plugin brings its own copy of @oclif/core, which adds the stdout listener that rethrows a write error (a full
  // disk) as an uncaught exception; bin/run.js's own listener reports it instead (src/cli/boot.ts guardOutput).
  for (const listener of process.stdout.listeners('error')) if (!before.has(listener)) process.stdout.off('error', listener as (...a: unknown[]) => void)
  await Impl.run(argv, config)
}
