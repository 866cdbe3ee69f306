// Types of doctor's results: the stable `--json` contract of `clawkit doctor` (docs/doctor.md). The findings' own types
// belong to the store backends' diagnostics (src/store/diagnostics/types.ts).
import type {DoctorAgentSummary, Finding} from '../store/diagnostics/types.js'

export * from '../store/diagnostics/types.js'

/** The `clawkit doctor --json` document. */
export interface DoctorResult {
  /** True when no error or warning remains (info findings do not count). */
  ok: boolean
  stateDir: string
  stateDirReason: string
  configPath: string
  agents: DoctorAgentSummary[]
  findings: Finding[]
  /** How many findings this run repaired. */
  fixed: number
  dryRun: boolean
  repair: boolean
  /** Present (true) when the repair prompt was declined: nothing was changed. */
  cancelled?: true
  /**
   * With --fix: the journal entry of the repairs (`clawkit undo <id>` puts the files back); null when nothing was
   * repaired or with --no-journal. Absent without --fix.
   */
  journal?: string | null
  /** Remaining (unfixed) findings by severity. */
  counts: {error: number; warn: number; info: number}
  /** The exit code the command uses (0 healthy, 3 warnings remain, 4 errors remain). */
  exitCode: number
}

export interface DoctorOptions {
  agent?: string
  repair?: boolean
  dryRun?: boolean
  /** Read every transcript whole, whatever its size (default: big files get a header + tail read). */
  deep?: boolean
  /** Asked once before repairs start; false cancels them. */
  confirm?: (plan: Finding[]) => Promise<boolean>
  now?: () => number
  /** Repair without journaling (clawkit undo cannot reverse it). */
  noJournal?: boolean
}
