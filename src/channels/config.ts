// Channel configuration: which channels are configured, and each account's token and API base URL (openclaw.json or env).
import {readRegularFileSync} from '../os/safe-open.js'

import {normalizeAccountId} from '../config/agent-id.js'
import type {OpenClawConfig} from '../config/config.js'
import type {Env} from '../config/paths.js'
import {resolveUserPath} from '../config/paths.js'
import {ClawkitError, UsageError} from '../errors.js'
import {registerSecrets} from '../text/redact.js'
import {CHANNEL_LABELS, type ChannelAccount, type ChannelId, OPENCLAW_CHANNELS, SUPPORTED_CHANNELS} from './types.js'

const TOKEN_KEY: Record<ChannelId, string | undefined> = {telegram: 'botToken', discord: 'token', slack: 'botToken', webhook: 'token'}
const TOKEN_ENV: Record<ChannelId, string | undefined> = {telegram: 'TELEGRAM_BOT_TOKEN', discord: 'DISCORD_BOT_TOKEN', slack: 'SLACK_BOT_TOKEN', webhook: undefined}
const BASE_ENV: Record<ChannelId, string | undefined> = {telegram: 'TELEGRAM_API_BASE', discord: 'DISCORD_API_BASE', slack: 'SLACK_API_BASE', webhook: undefined}
export const DEFAULT_API_BASE: Record<ChannelId, string> = {
  telegram: 'https://api.telegram.org',
  discord: 'https://discord.com/api/v10',
  slack: 'https://slack.com/api',
  webhook: '',
}

type Obj = Record<string, unknown>

function obj(v: unknown): Obj | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined
}

export function channelSection(config: OpenClawConfig, channel: string): Obj | undefined {
  return obj(obj(config.channels)?.[channel])
}

/** A channel counts as configured when its section exists and is not disabled, or its token env var is set. */
export function isChannelConfigured(config: OpenClawConfig, channel: ChannelId, env: Env): boolean {
  const section = channelSection(config, channel)
  if (section && section.enabled !== false) return true
  const envName = TOKEN_ENV[channel]
  return Boolean(envName && str(env[envName]))
}

export function listConfiguredChannels(config: OpenClawConfig, env: Env): ChannelId[] {
  return SUPPORTED_CHANNELS.filter((c) => isChannelConfigured(config, c, env))
}

/** OpenClaw's channel selection: explicit must be known; otherwise exactly one configured channel is used. */
export function selectChannel(config: OpenClawConfig, env: Env, explicit?: string): ChannelId {
  const raw = explicit?.trim().toLowerCase()
  if (raw) {
    if ((SUPPORTED_CHANNELS as readonly string[]).includes(raw)) return raw as ChannelId
    if ((OPENCLAW_CHANNELS as readonly string[]).includes(raw) || channelSection(config, raw)) {
      // Bad input like an unknown channel (exit 2): nothing about the environment would make clawkit send there.
      throw new UsageError(`Channel is unavailable: ${raw}`, 'E_CHANNEL_UNAVAILABLE', [`clawkit delivers directly to ${SUPPORTED_CHANNELS.join(', ')}; use "openclaw message send" (through the gateway) for ${raw}`])
    }
    throw new UsageError(`Unknown channel: ${explicit}`, 'E_UNKNOWN_CHANNEL', [`channels: ${SUPPORTED_CHANNELS.join(', ')}`])
  }
  const configured = listConfiguredChannels(config, env)
  if (configured.length === 0) {
    throw new UsageError('Channel is required (no configured channels detected).', 'E_CHANNEL_REQUIRED', ['pass --channel, and set the channel token in openclaw.json (channels.<channel>) or the environment'])
  }
  if (configured.length > 1) throw new UsageError(`Channel is required when multiple channels are configured: ${configured.join(', ')}`, 'E_CHANNEL_REQUIRED')
  return configured[0]
}

function readTokenFile(file: string, env: Env, channel: ChannelId): string | undefined {
  try {
    // Regular files only, and small: a FIFO would block this synchronous read for good.
    return str(readRegularFileSync(resolveUserPath(file, env), {what: 'Token file', maxBytes: 64 * 1024}).toString('utf8'))
  } catch (error) {
    throw new ClawkitError(`${CHANNEL_LABELS[channel]} tokenFile cannot be read: ${(error as Error).message}`, {code: 'E_CHANNEL_CONFIG'})
  }
}

/** Token and base URL for one account: accounts.<id> overrides the channel's top level; env fills the default account. */
/** Stands in for a missing token in a --dry-run preview, so a channel can be previewed before it is set up. */
export const PLACEHOLDER_TOKEN = '<token missing>'

export function resolveChannelAccount(config: OpenClawConfig, env: Env, channel: ChannelId, account?: string, opts: {dryRun?: boolean} = {}): ChannelAccount {
  const accountId = normalizeAccountId(account)
  const section = channelSection(config, channel) ?? {}
  const accounts = obj(section.accounts)
  const acct = accounts ? obj(accounts[accountId]) : undefined
  if (account && accountId !== 'default' && !acct) {
    throw new UsageError(`Unknown ${CHANNEL_LABELS[channel]} account "${account}": no channels.${channel}.accounts.${accountId} in openclaw.json`, 'E_UNKNOWN_ACCOUNT')
  }
  const key = TOKEN_KEY[channel]!
  let token: string | undefined
  let tokenSource: string | undefined
  for (const [src, s] of [[`channels.${channel}.accounts.${accountId}`, acct], [`channels.${channel}`, section]] as const) {
    if (!s) continue
    const t = str(s[key])
    if (t) {
      token = t
      tokenSource = `${src}.${key}`
      break
    }
    const f = str(s.tokenFile)
    if (f) {
      token = readTokenFile(f, env, channel)
      tokenSource = `${src}.tokenFile`
      break
    }
  }
  const envName = TOKEN_ENV[channel]
  if (!token && envName && accountId === 'default' && str(env[envName])) {
    token = str(env[envName])
    tokenSource = envName
  }
  // A token read from a tokenFile is in no config value: tell the redaction of error output about it.
  registerSecrets([token])
  const baseEnv = BASE_ENV[channel]
  const baseUrl = (str(baseEnv ? env[baseEnv] : undefined) ?? str(acct?.apiBaseUrl) ?? str(section.apiBaseUrl) ?? DEFAULT_API_BASE[channel]).replace(/\/+$/, '')
  const headers = obj(section.headers) ? Object.fromEntries(Object.entries(obj(section.headers)!).filter(([, v]) => typeof v === 'string')) as Record<string, string> : undefined
  if (!token && channel !== 'webhook') {
    const message = `${CHANNEL_LABELS[channel]} token missing for account "${accountId}"`
    const hint = `set channels.${channel}.${key} in openclaw.json${envName ? ` or ${envName} in the environment` : ''}`
    if (opts.dryRun) return {channel, accountId, token: PLACEHOLDER_TOKEN, baseUrl, headers, tokenMissing: `${message}: the preview uses a placeholder; ${hint} before sending`}
    throw new ClawkitError(message, {code: 'E_CHANNEL_TOKEN_MISSING', suggestions: [hint]})
  }
  return {channel, accountId, token, tokenSource, baseUrl, headers}
}
