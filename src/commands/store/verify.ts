// `clawkit store verify`: after OpenClaw's JSON-to-SQLite import, compare what it archived with what the database holds.
import {BaseCommand} from '../../cli/base-command.js'
import {ExitCode} from '../../errors.js'
import {renderVerify} from '../../render/store/verify.js'
import {type StoreVerifyResult, verifyImport} from '../../store/bridge/verify.js'

export type {EventDiffs, EventRef, StoreVerifyResult, VerifiedStore, VerifiedTranscript} from '../../store/bridge/verify.js'

export default class StoreVerify extends BaseCommand<typeof StoreVerify> {
  static override summary = 'Check an imported state dir: every archived legacy transcript against the events in SQLite'
  static override description =
    'For each transcript "openclaw doctor --fix" imported (its run manifests and agents/*/session-sqlite-import-archive/), compares the archived JSONL with the ' +
    'session\'s events: counts, a sha256 of the canonical JSON of the events, and every missing, extra or different event. The archived sessions.json is checked ' +
    'against the session nodes (keys and sessionIds). Events appended by later turns are counted, not reported. Exit 0 when nothing differs, 5 when anything does, 66 when there is nothing to verify (no import in this state dir). Read-only.'
  static override examples = ['<%= config.bin %> store verify', '<%= config.bin %> store verify --json']

  async run(): Promise<StoreVerifyResult> {
    const state = this.openState({tolerateConfigError: true})
    state.requireStateDir()
    const result = verifyImport(state)
    this.out(renderVerify(result))
    if (!result.ok) process.exitCode = ExitCode.storeDifferences
    return result
  }
}
