// The pre-multi-agent session dir (`<stateDir>/sessions/`): a JSON-era layout left over from before agents, whose
// files belong to no agent store. A check of the state dir as a whole, but one that knows the file layout.
import fs from 'node:fs'
import path from 'node:path'

import type {OpenClawState} from '../../state.js'
import {finding} from '../finding.js'
import type {PlannedFinding} from '../types.js'

export function checkLegacySessionsDir(state: OpenClawState, out: PlannedFinding[]): void {
  const legacy = path.join(state.stateDir, 'sessions')
  const legacyStore = path.join(legacy, 'sessions.json')
  let legacyFiles: string[] = []
  try {
    legacyFiles = fs.readdirSync(legacy).filter((n) => n === 'sessions.json' || n.endsWith('.jsonl'))
  } catch {}
  if (legacyFiles.length > 0) {
    out.push(
      finding({
        id: 'legacy-sessions-dir',
        severity: 'warn',
        agentId: null,
        path: legacy,
        message: `Legacy pre-multi-agent session dir ${legacy} holds ${legacyFiles.length} file(s)${fs.existsSync(legacyStore) ? ' including sessions.json' : ''}; they are not part of any agent store. Run "openclaw doctor" to migrate them into agents/${state.defaultAgentId}/sessions (clawkit does not move them).`,
      }),
    )
  }
}
