// Doctor's checks: turn a state dir and its store scans into findings, each with the repair `--fix` would run. Each
// group of checks lives in its own module under checks/; this one gathers them, in the order their findings appear.
import fs from 'node:fs'

import type {OpenClawState} from '../store/state.js'
import {type CheckOptions, currentUid, type StoreContext} from './checks/context.js'
import {checkEntries} from './checks/entries.js'
import {checkIndexFile} from './checks/index-file.js'
import {checkLocks, checkLockScratch} from './checks/locks.js'
import {checkStorePermissions} from './checks/modes.js'
import {checkSqlite} from './checks/sqlite-routing.js'
import type {StoreScan} from './scan.js'
import type {PlannedFinding} from './types.js'

export {type CheckOptions, hasNoTurns} from './checks/context.js'
export {checkSplitState, checkStateDir} from './checks/state-dir.js'

export async function checkStore(state: OpenClawState, scan: StoreScan, opts: CheckOptions, out: PlannedFinding[]): Promise<void> {
  const uid = currentUid()
  let ownerUid: number | undefined
  if (uid !== undefined) {
    // root checks against the state dir's owner: files root created inside a user's state dir are the usual mistake.
    if (uid !== 0) ownerUid = uid
    else {
      try {
        ownerUid = fs.statSync(state.stateDir).uid
      } catch {}
    }
  }
  const c: StoreContext = {state, scan, opts, out, uid, ownerUid}
  // This order is the order of the findings in doctor's output, which scripts and goldens compare: keep it.
  checkStorePermissions(c)
  checkSqlite(c)
  checkLocks(c)
  checkLockScratch(c)
  checkIndexFile(c)
  await checkEntries(c)
}
