// Every command loaded, for what reads oclif's command list from the module itself rather than from oclif.manifest.json:
// bin/dev.js (oclif in development mode) points its command discovery here. The bundle's entry (cli.ts) loads a command
// only when it runs, and is never this module: tsc alone compiles it (an ES module, so it can wait for the loads).
import {loadCommands} from './cli.js'

export const COMMANDS = await loadCommands()
