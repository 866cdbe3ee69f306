// The executable's entry: every command under its oclif id plus oclif's `execute`, which scripts/bundle.js turns
// into one file so that start-up loads one module instead of about two hundred (BENCHMARKS.md, "Start-up").
import {commands as helpCommands} from '@oclif/plugin-help'

import Agent from './commands/agent.js'
import Autocomplete from './commands/autocomplete/index.js'
import AutocompleteCreate from './commands/autocomplete/create.js'
import AutocompleteScript from './commands/autocomplete/script.js'
import Doctor from './commands/doctor.js'
import MessageSend from './commands/message/send.js'
import Sessions from './commands/sessions/index.js'
import SessionsHistory from './commands/sessions/history.js'
import SessionsList from './commands/sessions/list.js'
import SessionsReset from './commands/sessions/reset.js'
import Status from './commands/status.js'

import type {Command} from '@oclif/core'

export {execute} from '@oclif/core'
export {ranCommand} from './base-command.js'

/**
 * oclif's `explicit` command discovery reads this map (package.json `oclif.commands.identifier`). `help` and
 * `autocomplete` are the commands of @oclif/plugin-help (which exports them for this) and @oclif/plugin-autocomplete
 * (src/autocomplete-plugin.ts), listed here rather than configured as oclif plugins, which oclif would locate and read
 * at every start (~6-9 ms of every command, BENCHMARKS.md).
 */
export const COMMANDS: Record<string, Command.Class> = {
  agent: Agent,
  autocomplete: Autocomplete,
  'autocomplete:create': AutocompleteCreate,
  'autocomplete:script': AutocompleteScript,
  help: helpCommands.help,
  doctor: Doctor,
  'message:send': MessageSend,
  sessions: Sessions,
  'sessions:history': SessionsHistory,
  'sessions:list': SessionsList,
  'sessions:reset': SessionsReset,
  status: Status,
}
