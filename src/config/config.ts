// Loads openclaw.json (JSON5) and answers the questions the store needs: agents, default agent, store paths, models.
import fs from 'node:fs'
import path from 'node:path'

import JSON5 from 'json5'

import {ClawkitError} from '../errors.js'
import {FileTooLargeError, NotRegularFileError, readRegularFileSync} from '../os/safe-open.js'
import {clause} from '../text/sentence.js'
import {DEFAULT_AGENT_ID, isSafeAgentDirName, normalizeAgentId} from './agent-id.js'
import {type Env, resolveConfigPath, resolveHomeDir, resolveUserPath} from './paths.js'

export const DEFAULT_CONTEXT_TOKENS = 200_000

export interface ModelDefinition {
  id: string
  name?: string
  contextWindow?: number
  contextTokens?: number
  maxTokens?: number
  cost?: {input?: number; output?: number; cacheRead?: number; cacheWrite?: number}
  [k: string]: unknown
}

export interface ProviderConfig {
  baseUrl?: string
  apiKey?: string
  api?: string
  models?: ModelDefinition[]
  [k: string]: unknown
}

export interface AgentConfig {
  id: string
  default?: boolean
  workspace?: string
  model?: string | {primary?: string; fallbacks?: string[]}
  [k: string]: unknown
}

/** The parts of openclaw.json that clawkit reads. Everything else is kept as unknown. */
export interface OpenClawConfig {
  agents?: {
    defaults?: {model?: string | {primary?: string}; workspace?: string; contextTokens?: number; [k: string]: unknown}
    list?: AgentConfig[]
  }
  session?: {store?: string; scope?: string; dmScope?: string; mainKey?: string; [k: string]: unknown}
  models?: {providers?: Record<string, ProviderConfig>; [k: string]: unknown}
  channels?: Record<string, unknown>
  gateway?: {port?: number; [k: string]: unknown}
  [k: string]: unknown
}

export class ConfigError extends ClawkitError {
  readonly path: string
  constructor(file: string, detail: string) {
    super(`Config invalid: ${file}: ${clause(detail)}. Fix the file (it is JSON5) or point OPENCLAW_CONFIG_PATH elsewhere.`, {code: 'E_CONFIG_INVALID'})
    this.path = file
  }
}

export interface LoadedConfig {
  path: string
  exists: boolean
  config: OpenClawConfig
}

/** openclaw.json is a few KiB; anything near this is not a config (a device, a log written to the wrong name). */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024

export function loadConfig(stateDir: string, env: Env = process.env): LoadedConfig {
  const file = resolveConfigPath(stateDir, env)
  let text: string
  try {
    // A FIFO here would block the synchronous read (and with it every signal handler) for good.
    text = readRegularFileSync(file, {what: 'Config', maxBytes: MAX_CONFIG_BYTES}).toString('utf8')
  } catch (error) {
    // ENOTDIR: a parent is a file (a state dir given as a file), so there is no config there either.
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return {path: file, exists: false, config: {}}
    if (error instanceof NotRegularFileError) throw new ConfigError(file, `it is ${error.kind}, not a regular file`)
    if (error instanceof FileTooLargeError) throw new ConfigError(file, `it is over ${MAX_CONFIG_BYTES / (1024 * 1024)} MiB, far larger than any config`)
    throw new ConfigError(file, (error as Error).message)
  }
  let parsed: unknown
  try {
    parsed = JSON5.parse(text)
  } catch (error) {
    // JSON5's parser recurses: thousands of nested brackets exhaust the stack.
    if (error instanceof RangeError) throw new ConfigError(file, 'it is nested too deeply to parse')
    throw new ConfigError(file, (error as Error).message.replace(/^JSON5: /, ''))
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(file, 'the top level must be an object')
  return {path: file, exists: true, config: parsed as OpenClawConfig}
}

function agentList(config: OpenClawConfig): AgentConfig[] {
  const list = config.agents?.list
  if (!Array.isArray(list)) return []
  return list.filter((a): a is AgentConfig => Boolean(a) && typeof a === 'object' && typeof (a as AgentConfig).id === 'string')
}

/** OpenClaw: the agent marked default, else the first listed, else `main`. */
export function resolveDefaultAgentId(config: OpenClawConfig): string {
  const list = agentList(config)
  const marked = list.find((a) => a.default === true)
  if (marked) return normalizeAgentId(marked.id)
  if (list.length > 0) return normalizeAgentId(list[0].id)
  return DEFAULT_AGENT_ID
}

/** Configured agent ids (normalized, de-duplicated); `[main]` when none are listed. */
export function listConfiguredAgentIds(config: OpenClawConfig): string[] {
  const ids = agentList(config).map((a) => normalizeAgentId(a.id))
  const unique = [...new Set(ids)]
  return unique.length > 0 ? unique : [resolveDefaultAgentId(config)]
}

export function findAgentConfig(config: OpenClawConfig, agentId: string): AgentConfig | undefined {
  return agentList(config).find((a) => normalizeAgentId(a.id) === agentId)
}

/** Agents found on disk: directories under `<stateDir>/agents` whose name is a valid agent id. */
export function listAgentIdsOnDisk(stateDir: string): string[] {
  let names: fs.Dirent[]
  try {
    names = fs.readdirSync(path.join(stateDir, 'agents'), {withFileTypes: true})
  } catch {
    return []
  }
  return names
    .filter((d) => d.isDirectory() && isSafeAgentDirName(d.name) && d.name === d.name.toLowerCase())
    .map((d) => d.name)
    .sort()
}

/** Configured agents first (in config order), then any others found on disk. */
export function listAllAgentIds(stateDir: string, config: OpenClawConfig): string[] {
  const configured = listConfiguredAgentIds(config)
  const extra = listAgentIdsOnDisk(stateDir).filter((id) => !configured.includes(id))
  return [...configured, ...extra]
}

/** Split `provider/model` as OpenClaw's model refs are written. */
export function parseModelRef(ref: string | undefined): {provider?: string; model?: string} {
  if (!ref) return {}
  const trimmed = ref.trim()
  const slash = trimmed.indexOf('/')
  if (slash <= 0) return {model: trimmed || undefined}
  return {provider: trimmed.slice(0, slash), model: trimmed.slice(slash + 1) || undefined}
}

function modelRefOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (value && typeof value === 'object' && typeof (value as {primary?: unknown}).primary === 'string') return (value as {primary: string}).primary
  return undefined
}

/** The agent's primary model ref (agent entry, else agents.defaults). */
export function resolveAgentModelRef(config: OpenClawConfig, agentId: string): string | undefined {
  return modelRefOf(findAgentConfig(config, agentId)?.model) ?? modelRefOf(config.agents?.defaults?.model)
}

/** Find a model definition in models.providers, optionally constrained to a provider. */
export function findModelDefinition(config: OpenClawConfig, model: string | undefined, provider?: string): {provider: string; model: ModelDefinition; providerConfig: ProviderConfig} | undefined {
  if (!model) return undefined
  const providers = config.models?.providers
  if (!providers || typeof providers !== 'object') return undefined
  for (const [name, p] of Object.entries(providers)) {
    if (provider && name !== provider) continue
    const models = Array.isArray(p?.models) ? p.models : []
    const hit = models.find((m) => m && m.id === model)
    if (hit) return {provider: name, model: hit, providerConfig: p}
  }
  return undefined
}

/** The context window OpenClaw would report for a model: catalog contextWindow/contextTokens. */
export function lookupContextWindow(config: OpenClawConfig, model: string | undefined, provider?: string): number | undefined {
  const def = findModelDefinition(config, model, provider)?.model ?? (provider ? findModelDefinition(config, model)?.model : undefined)
  const v = def?.contextWindow ?? def?.contextTokens
  return typeof v === 'number' && v > 0 ? v : undefined
}

/**
 * The agent workspace exactly as OpenClaw 2026.4.27 resolves it (resolveAgentWorkspaceDir): the agent's own
 * `workspace`; for the default agent `agents.defaults.workspace`, else `~/.openclaw/workspace` (or
 * `~/.openclaw/workspace-<profile>` under OPENCLAW_PROFILE) whatever the state dir is; for other agents
 * `<defaults.workspace>/<id>`, else `<stateDir>/workspace-<id>`.
 */
export function resolveWorkspaceDir(stateDir: string, config: OpenClawConfig, agentId: string, env: Env = process.env): string {
  const id = normalizeAgentId(agentId)
  const own = findAgentConfig(config, id)?.workspace
  if (typeof own === 'string' && own.trim()) return resolveUserPath(own, env)
  const fallback = typeof config.agents?.defaults?.workspace === 'string' ? config.agents.defaults.workspace.trim() : ''
  if (id === resolveDefaultAgentId(config)) {
    if (fallback) return resolveUserPath(fallback, env)
    const profile = env.OPENCLAW_PROFILE?.trim()
    return path.join(resolveHomeDir(env), '.openclaw', profile && profile.toLowerCase() !== 'default' ? `workspace-${profile}` : 'workspace')
  }
  if (fallback) return path.join(resolveUserPath(fallback, env), id)
  return path.join(stateDir, `workspace-${id}`)
}
