// Resolves the OpenClaw state directory, home and config file exactly as OpenClaw 2026.4.x does (store-format.md §1.1).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {UsageError} from '../errors.js'

export type Env = Record<string, string | undefined>

export interface StateDirOptions {
  /** clawkit's own `--state-dir`; beats everything. */
  stateDir?: string
  /** `--profile <name>`; `--dev` is the profile `dev`. */
  profile?: string
  dev?: boolean
  env?: Env
}

export type StateDirSource = 'flag' | 'env' | 'profile' | 'default' | 'legacy' | 'default-missing'

export interface ResolvedStateDir {
  stateDir: string
  source: StateDirSource
  /** A sentence for `status`: why this directory was chosen. */
  reason: string
  profile?: string
}

const LEGACY_STATE_DIRS = ['.clawdbot']
const PROFILE_RE = /^[a-z0-9_-]+$/i

function envValue(env: Env, name: string): string | undefined {
  const v = env[name]?.trim()
  if (!v || v === 'undefined' || v === 'null') return undefined
  return v
}

/** OpenClaw's effective home: OPENCLAW_HOME > HOME > USERPROFILE > os.homedir() > cwd. */
export function resolveHomeDir(env: Env = process.env): string {
  const osHome = envValue(env, 'HOME') ?? envValue(env, 'USERPROFILE') ?? safeHomedir() ?? process.cwd()
  const oc = envValue(env, 'OPENCLAW_HOME')
  if (oc) {
    if (oc === '~') return path.resolve(safeHomedir() ?? osHome)
    if (oc.startsWith('~/')) return path.resolve(safeHomedir() ?? osHome, oc.slice(2))
    return path.resolve(oc)
  }
  return path.resolve(osHome)
}

function safeHomedir(): string | undefined {
  try {
    return os.homedir() || undefined
  } catch {
    return undefined
  }
}

/** Expand a leading `~` against the effective home and make the path absolute. */
export function resolveUserPath(p: string, env: Env = process.env): string {
  const trimmed = p.trim()
  if (trimmed === '~') return resolveHomeDir(env)
  if (trimmed.startsWith('~/')) return path.resolve(resolveHomeDir(env), trimmed.slice(2))
  return path.resolve(trimmed)
}

export function validateProfile(profile: string): string {
  if (!PROFILE_RE.test(profile)) throw new UsageError('Invalid --profile (use letters, numbers, "_", "-" only)', 'E_BAD_PROFILE')
  return profile
}

export function resolveStateDir(opts: StateDirOptions = {}): ResolvedStateDir {
  const env = opts.env ?? process.env
  if (opts.stateDir !== undefined && opts.stateDir.trim() !== '') {
    return {stateDir: resolveUserPath(opts.stateDir, env), source: 'flag', reason: '--state-dir flag'}
  }

  if (opts.dev && opts.profile) throw new UsageError('Cannot combine --dev with --profile', 'E_BAD_PROFILE')
  const profile = opts.dev ? 'dev' : opts.profile
  const explicit = envValue(env, 'OPENCLAW_STATE_DIR')
  // OpenClaw's profile only fills OPENCLAW_STATE_DIR when it is unset, so the env var still wins.
  if (explicit) return {stateDir: resolveUserPath(explicit, env), source: 'env', reason: 'OPENCLAW_STATE_DIR'}

  const home = resolveHomeDir(env)
  const envProfile = envValue(env, 'OPENCLAW_PROFILE')
  const activeProfile = profile ?? envProfile
  if (activeProfile) {
    validateProfile(activeProfile)
    const dir = activeProfile.toLowerCase() === 'default' ? '.openclaw' : `.openclaw-${activeProfile}`
    const why = profile ? (opts.dev ? '--dev' : `--profile ${profile}`) : `OPENCLAW_PROFILE=${envProfile}`
    return {stateDir: path.join(home, dir), source: 'profile', reason: why, profile: activeProfile}
  }

  const newDir = path.join(home, '.openclaw')
  if (envValue(env, 'OPENCLAW_TEST_FAST') === '1') return {stateDir: newDir, source: 'default', reason: '~/.openclaw (OPENCLAW_TEST_FAST)'}
  if (fs.existsSync(newDir)) return {stateDir: newDir, source: 'default', reason: '~/.openclaw exists'}
  for (const legacy of LEGACY_STATE_DIRS) {
    const dir = path.join(home, legacy)
    if (fs.existsSync(dir)) return {stateDir: dir, source: 'legacy', reason: `legacy ~/${legacy} (no ~/.openclaw)`}
  }
  return {stateDir: newDir, source: 'default-missing', reason: '~/.openclaw (does not exist yet)'}
}

/** OPENCLAW_CONFIG_PATH, else the first existing of openclaw.json / clawdbot.json in the state dir. */
export function resolveConfigPath(stateDir: string, env: Env = process.env): string {
  const explicit = envValue(env, 'OPENCLAW_CONFIG_PATH')
  if (explicit) return resolveUserPath(explicit, env)
  const primary = path.join(stateDir, 'openclaw.json')
  if (fs.existsSync(primary)) return primary
  const legacy = path.join(stateDir, 'clawdbot.json')
  if (fs.existsSync(legacy)) return legacy
  return primary
}
