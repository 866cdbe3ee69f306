// Checks of the state dir as a whole: it exists, is OpenClaw's, is writable and closed, its config is sound, and no
// second state dir splits the history. (The legacy sessions dir is the file layout's: src/store/diagnostics.)
import fs from 'node:fs'

import {chmodPath, currentUid, modeOf, writable} from '../../store/diagnostics/index.js'
import {finding} from '../../store/diagnostics/finding.js'
import type {PlannedFinding} from '../../store/diagnostics/types.js'
import type {OpenClawState} from '../../store/state.js'
import {findStateDirs, isOpenClawStateDir} from '../../store/state-dirs.js'

/**
 * The state dir's own repairs act on the directory it names: a state dir that is a link (kept on another disk) is the
 * user's choice, unlike a link planted below it, which chmodPath refuses to follow.
 */
function stateDirItself(dir: string): string {
  return fs.realpathSync(dir)
}

export function checkStateDir(state: OpenClawState, out: PlannedFinding[]): boolean {
  const dir = state.stateDir
  let st: fs.Stats
  try {
    st = fs.statSync(dir)
  } catch {
    out.push(finding({id: 'state-dir-missing', severity: 'error', agentId: null, path: dir, message: `State directory missing (${dir}; chosen by ${state.stateDirReason}). Point --state-dir or OPENCLAW_STATE_DIR at the right directory, or run "openclaw setup" to create it.`}))
    return false
  }
  if (!st.isDirectory() || !isOpenClawStateDir(dir)) {
    out.push(finding({id: 'state-dir-unrecognized', severity: 'error', agentId: null, path: dir, message: `${dir} (chosen by ${state.stateDirReason}) is not an OpenClaw state dir: it has no openclaw.json, agents/ or legacy clawdbot.json. Doctor checked nothing in it and --fix changes nothing there. Point --state-dir or OPENCLAW_STATE_DIR at the directory OpenClaw uses.`}))
    return false
  }
  if (!writable(dir)) {
    out.push(finding({id: 'state-dir-not-writable', severity: 'error', agentId: null, path: dir, message: `State directory not writable (${dir}). clawkit and OpenClaw cannot save sessions. --fix adds owner write permission; if you do not own it, run: sudo chown -R $USER "${dir}".`, action: 'chmod u+rwx', repair: {kind: 'perm', run: () => chmodPath(stateDirItself(dir), (st.mode & 0o777) | 0o700)}}))
  }
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    out.push(finding({id: 'state-dir-permissions', severity: 'warn', agentId: null, path: dir, message: `State directory permissions are too open (${modeOf(st)}): other users can read sessions and credentials. --fix runs chmod 700.`, action: 'chmod 700', repair: {kind: 'perm', run: () => chmodPath(stateDirItself(dir), 0o700)}}))
  }
  const uid = currentUid()
  if (uid !== undefined && uid !== 0 && st.uid !== uid) {
    out.push(finding({id: 'wrong-owner', severity: 'warn', agentId: null, path: dir, message: `State directory is owned by uid ${st.uid}, not by you (uid ${uid}). Writes may fail or leave files others own. Run: sudo chown -R $USER "${dir}".`}))
  }
  if (state.configError) {
    out.push(finding({id: 'config-invalid', severity: 'error', agentId: null, path: state.configPath, message: `${state.configError.message} Doctor continued with an empty config, so configured agents and store paths were not applied.`}))
  }
  if (state.configExists && !state.configError) {
    try {
      const cst = fs.statSync(state.configPath)
      if (process.platform !== 'win32' && (cst.mode & 0o077) !== 0) {
        out.push(finding({id: 'config-permissions', severity: 'warn', agentId: null, path: state.configPath, message: `Config file is group/world readable (${modeOf(cst)}); it may hold API keys. --fix runs chmod 600.`, action: 'chmod 600', repair: {kind: 'perm', run: () => chmodPath(state.configPath, 0o600)}}))
      }
      if (uid !== undefined && uid !== 0 && cst.uid !== uid) {
        out.push(finding({id: 'wrong-owner', severity: 'warn', agentId: null, path: state.configPath, message: `Config file is owned by uid ${cst.uid}, not by you (uid ${uid}). Run: sudo chown $USER "${state.configPath}".`}))
      }
    } catch {}
  }
  return true
}

export function checkSplitState(state: OpenClawState, out: PlannedFinding[]): void {
  const dirs = findStateDirs(state.stateDir, state.env)
  const others = dirs.filter((d) => !d.active)
  if (others.length > 0) {
    const serious = others.some((d) => d.kind !== 'profile')
    const list = others.map((d) => `${d.path} (${d.kind}${d.hasSessions ? ', has sessions' : ''})`).join('; ')
    out.push(
      finding({
        id: 'split-state',
        severity: serious ? 'warn' : 'info',
        agentId: null,
        path: state.stateDir,
        message: `Multiple OpenClaw state directories exist: ${list}. Active: ${state.stateDir} (chosen by ${state.stateDirReason}). Sessions in the others are invisible here and can split history; ` +
          (serious ? 'merge them or set OPENCLAW_STATE_DIR so OpenClaw and clawkit use the same one.' : 'profile dirs are separate on purpose; pass --profile <name> to work on one.'),
        details: {active: state.stateDir, reason: state.stateDirReason, dirs},
      }),
    )
  }
}
