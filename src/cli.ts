// The executable's entry: every command under its oclif id plus oclif's `execute`, which scripts/bundle.js turns
// into one file so that start-up loads one module instead of about two hundred (BENCHMARKS.md, "Start-up").
import Agent from './commands/agent.js'
import Doctor from './commands/doctor.js'
import MessageSend from './commands/message/send.js'
import Sessions from './commands/sessions/index.js'
import SessionsHistory from './commands/sessions/history.js'
import SessionsList from './commands/sessions/list.js'
import SessionsReset from './commands/sessions/reset.js'
import Status from './commands/status.js'

export {execute} from '@oclif/core'
export {ranCommand} from './base-command.js'

/** oclif's `explicit` command discovery reads this map (package.json `oclif.commands.identifier`). */
export const COMMANDS = {
  agent: Agent,
  doctor: Doctor,
  'message:send': MessageSend,
  sessions: Sessions,
  'sessions:history': SessionsHistory,
  'sessions:list': SessionsList,
  'sessions:reset': SessionsReset,
  status: Status,
}
