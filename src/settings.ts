// clawkit's own settings (never OpenClaw state): `<config dir>/config.json` in the env-paths location for "clawkit".
import fs from 'node:fs'
import path from 'node:path'

import envPaths from 'env-paths'

import {ClawkitError} from './errors.js'
import {stripBom} from './text/bom.js'
import {clause} from './text/sentence.js'

export interface ClawkitSettings {
  /** Default state dir when neither --state-dir, OPENCLAW_STATE_DIR nor a profile is given. */
  stateDir?: string
  /** Default agent for commands that take --agent. */
  agent?: string
  /** The fleet's PostgreSQL (`clawkit sync`, `--store-url`), when neither the flag nor CLAWKIT_STORE_URL gives one. */
  storeUrl?: string
  /**
   * How long the journal keeps a change (`30d`, `12h`; a bare number is days; `0`: until the next journaled change).
   * Older entries are pruned when the next change is journaled, or by `clawkit undo --prune`. Default 30 days.
   */
  journalRetention?: string
  /** Spend limits `sessions usage --check` (and --max-cost) checks: exit code 7 when one is passed. */
  budgets?: ClawkitBudget[]
}

/** One spend limit of the settings: `{"maxCostUsd": 20, "per": "day", "agent": "main", "model": "anthropic/claude-opus-4"}`. */
export interface ClawkitBudget {
  maxCostUsd: number
  per: 'day' | 'week' | 'month'
  agent?: string
  model?: string
}

/** The settings' `budgets`, each checked; a wrong one is an error naming it (a limit quietly ignored would never fire). */
function readBudgets(v: unknown): ClawkitBudget[] {
  if (!Array.isArray(v)) throw new Error('"budgets" must be a list of {maxCostUsd, per, agent?, model?}')
  return v.map((b, i) => {
    const at = `budgets[${i}]`
    if (!b || typeof b !== 'object' || Array.isArray(b)) throw new Error(`${at} must be an object {maxCostUsd, per, agent?, model?}`)
    const {maxCostUsd, per, agent, model} = b as Record<string, unknown>
    if (typeof maxCostUsd !== 'number' || !Number.isFinite(maxCostUsd) || maxCostUsd <= 0) throw new Error(`${at}.maxCostUsd must be a positive number of dollars`)
    if (per !== 'day' && per !== 'week' && per !== 'month') throw new Error(`${at}.per must be "day", "week" or "month"`)
    if (agent !== undefined && (typeof agent !== 'string' || !agent.trim())) throw new Error(`${at}.agent must be an agent id`)
    if (model !== undefined && (typeof model !== 'string' || !model.trim())) throw new Error(`${at}.model must be a model ("provider/model" or a model id)`)
    return {maxCostUsd, per, ...(agent ? {agent: agent as string} : {}), ...(model ? {model: (model as string).trim()} : {})}
  })
}

export interface ClawkitDirs {
  config: string
  cache: string
  data: string
}

/** env-paths dirs for clawkit; CLAWKIT_CONFIG_DIR / CLAWKIT_CACHE_DIR / CLAWKIT_DATA_DIR override (as oclif does). */
export function clawkitDirs(env: Record<string, string | undefined> = process.env): ClawkitDirs {
  const p = envPaths('clawkit', {suffix: ''})
  return {
    config: env.CLAWKIT_CONFIG_DIR || p.config,
    cache: env.CLAWKIT_CACHE_DIR || p.cache,
    data: env.CLAWKIT_DATA_DIR || p.data,
  }
}

export function settingsPath(env: Record<string, string | undefined> = process.env): string {
  return path.join(clawkitDirs(env).config, 'config.json')
}

export function loadSettings(env: Record<string, string | undefined> = process.env): ClawkitSettings {
  const file = settingsPath(env)
  let text: string
  try {
    // Never a FIFO or device: a synchronous read of one would block the CLI (and its signal handlers) for good. The
    // boot bundle loads this file, so src/os/safe-open.ts is not imported here.
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
    try {
      const st = fs.fstatSync(fd)
      if (!st.isFile() || st.size > 1024 * 1024) return {}
      text = fs.readFileSync(fd, 'utf8')
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return {}
  }
  try {
    // A leading BOM (Windows editors) is not an error; OpenClaw's JSON5 config loader reads past one too.
    const v = JSON.parse(stripBom(text))
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('expected an object')
    const out: ClawkitSettings = {}
    if (typeof v.stateDir === 'string' && v.stateDir.trim()) out.stateDir = v.stateDir
    if (typeof v.agent === 'string' && v.agent.trim()) out.agent = v.agent
    if (typeof v.storeUrl === 'string' && v.storeUrl.trim()) out.storeUrl = v.storeUrl.trim()
    if ((typeof v.journalRetention === 'string' && v.journalRetention.trim()) || typeof v.journalRetention === 'number') out.journalRetention = String(v.journalRetention).trim()
    if (v.budgets !== undefined) out.budgets = readBudgets(v.budgets)
    return out
  } catch (error) {
    throw new ClawkitError(`clawkit settings ${file} are invalid: ${clause((error as Error).message)}. Fix or delete the file.`, {code: 'E_SETTINGS_INVALID'})
  }
}
