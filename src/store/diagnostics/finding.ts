// How every doctor check builds a finding: one constructor, so `fixable` always follows from whether a repair exists.
import type {FindingId, PlannedFinding, Repair, Severity} from './types.js'

/** What a check knows about one finding; `fixable` and `fixed` are derived. */
export interface FindingInit {
  id: FindingId
  severity: Severity
  /** null for the state dir as a whole. */
  agentId: string | null
  path: string
  message: string
  /** What `--fix` does; left out when there is no repair. */
  action?: string
  key?: string
  details?: Record<string, unknown>
  repair?: Repair
}

/**
 * A finding, not yet repaired. The optional fields keep the order the caller gives them in, and undefined ones are
 * left out: that order is the key order of the `--json` document, which scripts and goldens compare byte for byte.
 */
export function finding({id, severity, agentId, path, message, ...optional}: FindingInit): PlannedFinding {
  const f: PlannedFinding = {id, severity, agentId, path, message, fixable: Boolean(optional.repair), fixed: false}
  for (const [name, value] of Object.entries(optional)) if (value !== undefined) (f as unknown as Record<string, unknown>)[name] = value
  return f
}
