// `clawkit sessions` with no subcommand lists, as `openclaw sessions` does: the list command under a second id.
import SessionsList from './list.js'

export default class Sessions extends SessionsList {
  static override summary = 'List sessions (same as "sessions list")'
  static override description = SessionsList.description
  static override examples = ['<%= config.bin %> sessions', '<%= config.bin %> sessions --json --active 30']
}
