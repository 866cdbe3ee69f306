#!/usr/bin/env node
// Writes oclif.manifest.json (every command's help, flags and args, which oclif reads at every start instead of the
// commands themselves) from the bundle the build just made, as `oclif manifest` does, with two differences:
// - the bundle loads a command only when it runs (src/cli/cli.ts), so its commands are loaded first: oclif's discovery
//   then finds each in the bundle's COMMANDS (the same module: oclif requires the file this script required);
// - the command ids are sorted, so that the same code gives the same bytes everywhere (oclif keeps its listing's
//   order) and the committed copy can be checked against the build (scripts/check-manifest.js).
import fs from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
// Through load-bundle, as bin/run.js loads it (the file is a wrapped script, not a module), without a code cache.
const {loadBundle} = await import('../dist/cli/load-bundle.js')
const cli = loadBundle(path.join(root, 'dist', 'cli.cjs'), undefined).exports
await cli.loadCommands()
const {Plugin} = require('@oclif/core')
const plugin = new Plugin({errorOnManifestCreate: true, ignoreManifest: true, respectNoCacheDefault: true, root, type: 'core', isRoot: true})
await plugin.load()
const manifest = plugin.manifest
const ids = Object.keys(manifest.commands)
if (ids.length !== cli.COMMAND_IDS.length) throw new Error(`manifest: ${ids.length} commands found, the bundle has ${cli.COMMAND_IDS.length}`)
const sorted = {}
for (const id of ids.sort()) sorted[id] = manifest.commands[id]
const file = path.join(root, 'oclif.manifest.json')
fs.writeFileSync(file, `${JSON.stringify({...manifest, commands: sorted}, null, 2)}\n`)
console.log(`manifest: ${ids.length} commands written to ${file}`)
