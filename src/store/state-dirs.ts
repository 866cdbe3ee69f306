// Finds every OpenClaw state dir on this machine (current, legacy, profiles, $OPENCLAW_STATE_DIR) to detect split state.
import fs from 'node:fs'
import path from 'node:path'

import {resolveHomeDir, resolveUserPath, type Env} from '../config/paths.js'

export type StateDirKind = 'default' | 'legacy' | 'profile' | 'env' | 'active'

export interface StateDirCandidate {
  path: string
  kind: StateDirKind
  active: boolean
  /** Agents with a sessions dir, or the legacy flat `sessions/` dir. */
  hasSessions: boolean
}

const MARKERS = ['agents', 'sessions', 'openclaw.json', 'clawdbot.json', 'moldbot.json']

/**
 * Whether a directory is recognisably an OpenClaw state dir: OpenClaw's config (or a legacy clawdbot/moldbot one), an
 * `agents/` directory, or the pre-multi-agent `sessions/sessions.json`. doctor repairs nothing anywhere else: a
 * mistaken OPENCLAW_STATE_DIR=/tmp must not turn /tmp into a 0700 directory.
 */
export function isOpenClawStateDir(dir: string): boolean {
  const is = (p: string, kind: 'file' | 'dir') => {
    try {
      const st = fs.statSync(path.join(dir, p))
      return kind === 'file' ? st.isFile() : st.isDirectory()
    } catch {
      return false
    }
  }
  return is('openclaw.json', 'file') || is('clawdbot.json', 'file') || is('moldbot.json', 'file') || is('agents', 'dir') || is(path.join('sessions', 'sessions.json'), 'file')
}

function real(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}

/** A directory that looks like OpenClaw state (an empty or unrelated dir is not counted). */
function looksLikeState(dir: string): boolean {
  try {
    if (!fs.statSync(dir).isDirectory()) return false
  } catch {
    return false
  }
  return MARKERS.some((m) => fs.existsSync(path.join(dir, m)))
}

function hasSessions(dir: string): boolean {
  if (fs.existsSync(path.join(dir, 'sessions'))) return true
  try {
    return fs.readdirSync(path.join(dir, 'agents')).some((a) => fs.existsSync(path.join(dir, 'agents', a, 'sessions')))
  } catch {
    return false
  }
}

export function findStateDirs(activeDir: string, env: Env): StateDirCandidate[] {
  const home = resolveHomeDir(env)
  const raw: {path: string; kind: StateDirKind}[] = [
    {path: path.join(home, '.openclaw'), kind: 'default'},
    {path: path.join(home, '.clawdbot'), kind: 'legacy'},
    {path: path.join(home, '.moldbot'), kind: 'legacy'},
  ]
  try {
    for (const name of fs.readdirSync(home)) if (/^\.openclaw-[a-z0-9_-]+$/i.test(name)) raw.push({path: path.join(home, name), kind: 'profile'})
  } catch {}
  const envDir = env.OPENCLAW_STATE_DIR?.trim()
  if (envDir) raw.push({path: resolveUserPath(envDir, env), kind: 'env'})
  raw.push({path: activeDir, kind: 'active'})
  const activeReal = real(activeDir)
  const seen = new Map<string, StateDirCandidate>()
  for (const c of raw) {
    const r = real(c.path)
    const isActive = r === activeReal
    if (!isActive && !looksLikeState(c.path)) continue
    if (seen.has(r)) {
      // The same directory reached twice (a legacy symlink left by migration): keep the first name.
      continue
    }
    seen.set(r, {path: c.path, kind: c.kind, active: isActive, hasSessions: hasSessions(c.path)})
  }
  return [...seen.values()]
}
