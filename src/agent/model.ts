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
import {closest} from '../suggest.js'
import {modelPrice} from '../util/values.js'

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
 * Anthropic models OpenClaw's built-in catalogue (pi-ai's generated model list) knows without any models.providers
 * entry. A model outside it must be declared in openclaw.json (models.providers.anthropic.models), as OpenClaw itself
 * answers "Unknown model" for anything its registry does not hold.
 */
export const ANTHROPIC_CATALOG: readonly string[] = [
  'claude-opus-4-6',
  'claude-sonnet-4-6',
  'claude-opus-4-5',
  'claude-opus-4-5-20251101',
  'claude-haiku-4-5',
  'claude-haiku-4-5-20251001',
  'claude-sonnet-4-5',
  'claude-sonnet-4-5-20250929',
  'claude-opus-4-1',
  'claude-opus-4-1-20250805',
  'claude-opus-4-0',
  'claude-opus-4-20250514',
  'claude-sonnet-4-0',
  'claude-sonnet-4-20250514',
  'claude-3-7-sonnet-latest',
  'claude-3-7-sonnet-20250219',
  'claude-3-5-haiku-latest',
  'claude-3-5-haiku-20241022',
  'claude-3-5-sonnet-20241022',
  'claude-3-haiku-20240307',
]

export interface ModelChoice {
  provider: string
  model: string
  /** Where the ref came from, for messages. */
  source: 'flag' | 'config' | 'default'
  def?: ReturnType<typeof findModelDefinition>
}

/**
 * The model a turn of this agent uses: `--model` (`provider/model`, or a bare id looked up in models.providers), then
 * the agent's primary model, then anthropic/claude-opus-4-6. One function for `agent` and for `status`, so what status
 * shows is what a turn would use. No validation here; see checkModelChoice.
 */
export function chooseModel(config: OpenClawConfig, agentId: string, flagModel?: string): ModelChoice {
  const flag = flagModel?.trim()
  const configured = resolveAgentModelRef(config, agentId)
  const source: ModelChoice['source'] = flag ? 'flag' : configured ? 'config' : 'default'
  const ref = parseModelRef(flag || configured || `${DEFAULT_PROVIDER}/${DEFAULT_MODEL}`)
  const model = ref.model ?? DEFAULT_MODEL
  const def = findModelDefinition(config, model, ref.provider)
  return {provider: ref.provider ?? def?.provider ?? DEFAULT_PROVIDER, model, source, def}
}

/**
 * Reject a provider or model OpenClaw would not know, before anything is written or sent (a typo in --model must not
 * reach the API or the transcript). Known: a models.providers entry, and its `models` list when it has one; the
 * built-in `anthropic` provider with ANTHROPIC_CATALOG plus whatever models.providers.anthropic.models adds.
 * A provider nobody configured cannot be called from any source. A model id is checked against those lists only when
 * it comes from --model: one the operator configured in openclaw.json may be newer than clawkit's list (OpenClaw
 * resolves it through its own registry), and the API itself then says whether it exists.
 */
export function checkModelChoice(config: OpenClawConfig, c: ModelChoice): void {
  const where = c.source === 'flag' ? '--model' : c.source === 'config' ? 'the agent\'s configured model' : 'the default model'
  const ref = `${c.provider}/${c.model}`
  const providers = config.models?.providers && typeof config.models.providers === 'object' ? config.models.providers : {}
  const providerConfig = Object.hasOwn(providers, c.provider) ? providers[c.provider] : undefined
  if (!providerConfig && c.provider !== DEFAULT_PROVIDER) {
    const known = [DEFAULT_PROVIDER, ...Object.keys(providers).filter((p) => p !== DEFAULT_PROVIDER)]
    throw new ClawkitError(`Unknown provider "${c.provider}" in ${where} (${ref}). Known providers: ${known.join(', ')}.`, {
      code: 'E_UNKNOWN_MODEL',
      exitCode: ExitCode.usage,
      suggestions: ['Use --model anthropic/<model>, or add the provider to models.providers in openclaw.json.'],
    })
  }
  if (c.def || c.source !== 'flag') return
  const listed = Array.isArray(providerConfig?.models) ? providerConfig.models.map((m) => m?.id).filter((id): id is string => typeof id === 'string') : []
  const known = c.provider === DEFAULT_PROVIDER ? [...ANTHROPIC_CATALOG, ...listed] : listed
  if (known.includes(c.model)) return
  const near = closest(c.model, known)
  throw new ClawkitError(`Unknown model "${ref}" in ${where}.${near ? ` Did you mean ${c.provider}/${near}?` : ''}`, {
    code: 'E_UNKNOWN_MODEL',
    exitCode: ExitCode.usage,
    suggestions: [known.length > 0 ? `Models of ${c.provider}: ${known.slice(0, 8).join(', ')}${known.length > 8 ? ', …' : ''}; declare others in models.providers.${c.provider}.models in openclaw.json.` : `Declare it in models.providers.${c.provider}.models in openclaw.json.`],
  })
}

/**
 * Resolve the model for a turn (chooseModel, checked by checkModelChoice). The environment (ANTHROPIC_API_KEY,
 * ANTHROPIC_BASE_URL) wins over the provider entry, so one shell can redirect any config.
 */
export function resolveModel(config: OpenClawConfig, agentId: string, flagModel: string | undefined, env: Env): ResolvedModel {
  const choice = chooseModel(config, agentId, flagModel)
  checkModelChoice(config, choice)
  const {provider, model: modelId, def} = choice
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
  // The same price rule as sessions usage's estimates: a negative or non-finite price in openclaw.json counts as none,
  // so no transcript records a negative or infinite cost (usage would then skip it as a bad value).
  const p = (n: number, price?: number) => round((n * modelPrice(price)) / 1_000_000)
  const c = {input: p(u.input, cost?.input), output: p(u.output, cost?.output), cacheRead: p(u.cacheRead, cost?.cacheRead), cacheWrite: p(u.cacheWrite, cost?.cacheWrite), total: 0}
  c.total = round(c.input + c.output + c.cacheRead + c.cacheWrite)
  return c
}

function round(n: number): number {
  return Math.round(n * 1e12) / 1e12
}
