// Which model a turn talks to and how: provider, endpoint, key, window, output cap and prices, from flags, env and openclaw.json.
import {
  findModelDefinition,
  type ModelDefinition,
  type OpenClawConfig,
  parseModelRef,
  resolveAgentModelRef,
  DEFAULT_CONTEXT_TOKENS,
} from '../config/config.js'
import type {Env} from '../config/paths.js'
import {ClawkitError, ExitCode} from '../errors.js'

/** OpenClaw's built-in default (src/agents/defaults.ts) when neither --model nor the agent config names one. */
export const DEFAULT_PROVIDER = 'anthropic'
export const DEFAULT_MODEL = 'claude-opus-4-6'
export const DEFAULT_MAX_TOKENS = 8192
export const ANTHROPIC_API = 'anthropic-messages'

export interface ResolvedModel {
  provider: string
  model: string
  api: typeof ANTHROPIC_API
  baseURL?: string
  apiKey: string
  contextWindow: number
  maxTokens: number
  cost?: ModelDefinition['cost']
  /** Where the key came from, for messages (never the key itself). */
  keySource: 'env' | 'config'
}

export class MissingApiKeyError extends ClawkitError {
  constructor(provider: string) {
    super(`No API key for provider "${provider}". Set ANTHROPIC_API_KEY, or add models.providers.${provider}.apiKey to openclaw.json.`, {
      code: 'E_NO_API_KEY',
      exitCode: ExitCode.failure,
      suggestions: ['export ANTHROPIC_API_KEY=sk-ant-...'],
    })
  }
}

/**
 * Resolve the model for a turn. Precedence: `--model` (`provider/model` or a bare id looked up in
 * models.providers), then the agent's primary model, then anthropic/claude-opus-4-6. The environment
 * (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL) wins over the provider entry, so one shell can redirect any config.
 */
export function resolveModel(config: OpenClawConfig, agentId: string, flagModel: string | undefined, env: Env): ResolvedModel {
  const ref = parseModelRef(flagModel?.trim() || resolveAgentModelRef(config, agentId) || `${DEFAULT_PROVIDER}/${DEFAULT_MODEL}`)
  const modelId = ref.model ?? DEFAULT_MODEL
  const def = findModelDefinition(config, modelId, ref.provider)
  const provider = ref.provider ?? def?.provider ?? DEFAULT_PROVIDER
  const providerConfig = def?.providerConfig ?? config.models?.providers?.[provider]
  const api = providerConfig?.api
  if (api && api !== ANTHROPIC_API) {
    throw new ClawkitError(`Provider "${provider}" uses api "${api}"; clawkit agent speaks only "${ANTHROPIC_API}".`, {
      code: 'E_UNSUPPORTED_PROVIDER',
      exitCode: ExitCode.usage,
      suggestions: ['Pick an Anthropic model with --model <provider/model>.'],
    })
  }
  const envKey = env.ANTHROPIC_API_KEY?.trim()
  const configKey = typeof providerConfig?.apiKey === 'string' ? providerConfig.apiKey.trim() : ''
  const apiKey = envKey || configKey
  if (!apiKey) throw new MissingApiKeyError(provider)
  const baseURL = env.ANTHROPIC_BASE_URL?.trim() || (typeof providerConfig?.baseUrl === 'string' ? providerConfig.baseUrl : undefined)
  const catalogWindow = def?.model.contextWindow ?? def?.model.contextTokens
  let contextWindow = typeof catalogWindow === 'number' && catalogWindow > 0 ? catalogWindow : DEFAULT_CONTEXT_TOKENS
  // agents.defaults.contextTokens can only lower the window (OpenClaw's context-window guard).
  const cap = config.agents?.defaults?.contextTokens
  if (typeof cap === 'number' && cap > 0 && cap < contextWindow) contextWindow = cap
  const maxTokens = typeof def?.model.maxTokens === 'number' && def.model.maxTokens > 0 ? def.model.maxTokens : DEFAULT_MAX_TOKENS
  return {provider, model: modelId, api: ANTHROPIC_API, baseURL, apiKey, contextWindow, maxTokens, cost: def?.model.cost, keySource: envKey ? 'env' : 'config'}
}

/** Cost of one call in USD from per-million-token prices (OpenClaw's usage.cost). */
export function costOf(cost: ResolvedModel['cost'], u: {input: number; output: number; cacheRead: number; cacheWrite: number}) {
  const p = (n: number, price?: number) => round((n * (price ?? 0)) / 1_000_000)
  const c = {input: p(u.input, cost?.input), output: p(u.output, cost?.output), cacheRead: p(u.cacheRead, cost?.cacheRead), cacheWrite: p(u.cacheWrite, cost?.cacheWrite), total: 0}
  c.total = round(c.input + c.output + c.cacheRead + c.cacheWrite)
  return c
}

function round(n: number): number {
  return Math.round(n * 1e12) / 1e12
}
