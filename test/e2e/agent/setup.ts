// Shared setup for agent tests: a mock Anthropic server, a scratch HOME, and helpers to read what a turn wrote.
import fs from 'node:fs'
import path from 'node:path'

import {afterEach} from 'vitest'

import {baseEnv, cliWith, copyFixture, type DocOf, type RunOptions, type RunResult, sessionsJsonPath, tempDir} from '../../support/cli.js'
import {readIndex} from '../../support/state-files.js'
import {type MockAnthropic, type MockOptions, startMockAnthropic} from '../../support/mock-anthropic.js'

export interface AgentEnv {
  mock: MockAnthropic
  state: string
  home: string
  env: Record<string, string>
  /** The default agent's workspace when openclaw.json names none: OpenClaw's ~/.openclaw/workspace under HOME. */
  workspace: string
  run<const A extends readonly string[]>(args: A, opts?: RunOptions): Promise<RunResult<DocOf<A>>>
}

export interface SetupOptions {
  fixture?: string
  config?: (mockUrl: string) => unknown
  mock?: MockOptions
  envKey?: boolean
}

/** Call once per test file: returns `setup` that also closes every mock it started after each test. */
export function agentEnvs(): (opts?: SetupOptions) => Promise<AgentEnv> {
  let envs: AgentEnv[] = []
  afterEach(async () => {
    await Promise.all(envs.map((e) => e.mock.close()))
    envs = []
  })
  return async (opts = {}) => {
    const e = await setup(opts)
    envs.push(e)
    return e
  }
}

/** A state dir (a fixture copy, or a fresh dir with an optional openclaw.json) and a mock the CLI is pointed at. */
export async function setup(opts: SetupOptions = {}): Promise<AgentEnv> {
  const mock = await startMockAnthropic(opts.mock)
  const home = tempDir()
  let state: string
  if (opts.fixture) state = copyFixture(opts.fixture)
  else {
    state = path.join(home, 'state')
    fs.mkdirSync(state, {mode: 0o700})
  }
  if (opts.config !== undefined) fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify(opts.config(mock.url), null, 2))
  const env = baseEnv(home, opts.envKey === false ? {ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, ANTHROPIC_AUTH_TOKEN: undefined} : {ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_AUTH_TOKEN: undefined})
  return {mock, state, home, env, workspace: path.join(home, '.openclaw', 'workspace'), run: cliWith(['--state-dir', state], {env})}
}

export {readIndex as store, transcriptLines} from '../../support/state-files.js'

/** The transcript a turn writes for `key`: `<sessionId>.jsonl` in the agent's sessions dir. */
export function sessionFile(state: string, key: string, agent = 'main'): string {
  const e = readIndex(state, agent)[key]
  return path.join(path.dirname(sessionsJsonPath(state, agent)), `${e.sessionId}.jsonl`)
}

/** Every entry's parentId is the id of the entry on the line before it (a linear, unbroken chain). */
export function expectLinearChain(lines: any[]): void {
  const entries = lines.filter((l) => l.type !== 'session')
  for (let i = 1; i < entries.length; i++) {
    if (entries[i].parentId !== entries[i - 1].id) throw new Error(`chain broken at entry ${i}: parentId ${entries[i].parentId} != ${entries[i - 1].id}`)
  }
}

export function userTexts(body: any): string[] {
  return body.messages.filter((m: any) => m.role === 'user').flatMap((m: any) => m.content.filter((b: any) => b.type === 'text').map((b: any) => b.text))
}

/** A fresh-state openclaw.json whose provider points at the mock (no env needed). */
export function providerConfig(url: string, model: {contextWindow?: number; maxTokens?: number} = {}, extra: Record<string, unknown> = {}) {
  return {
    agents: {defaults: {model: {primary: 'mockant/claude-mock'}}},
    models: {providers: {mockant: {baseUrl: url, apiKey: 'sk-config', api: 'anthropic-messages', models: [{id: 'claude-mock', contextWindow: model.contextWindow ?? 200_000, maxTokens: model.maxTokens ?? 4096, cost: {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}}]}}},
    ...extra,
  }
}
