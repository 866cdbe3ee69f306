// Test support: run the real built CLI as a child process, and lay out temp state dirs from the committed fixtures.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {inject} from 'vitest'
import type {SessionStoreData} from '../../src/store/types.js'
import type {AgentRunResult} from '../../src/commands/agent.js'
import type {DoctorResult} from '../../src/commands/doctor.js'
import type {MessageSendResult} from '../../src/commands/message/send.js'
import type {SessionsExportResult} from '../../src/commands/sessions/export.js'
import type {SessionsHistoryResult} from '../../src/commands/sessions/history.js'
import type {SessionsLineageResult} from '../../src/commands/sessions/lineage.js'
import type {SessionsListResult} from '../../src/commands/sessions/list.js'
import type {SessionsResetResult} from '../../src/commands/sessions/reset.js'
import type {SessionsSearchResult} from '../../src/commands/sessions/search.js'
import type {SessionsUsageResult} from '../../src/commands/sessions/usage.js'
import type {SyncResult} from '../../src/fleet/sync.js'
import type {StatusResult} from '../../src/commands/status.js'
import type {StoreExportResult} from '../../src/commands/store/export.js'
import type {StoreInfoResult} from '../../src/commands/store/info.js'
import type {StoreVerifyResult} from '../../src/commands/store/verify.js'
import type {ErrorEnvelope} from '../../src/error-report.js'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const BIN = path.join(ROOT, 'bin', 'run.js')
/** Real OpenClaw state dirs, committed with the repo (test/fixtures/README.md says where each came from). */
export const FIXTURES = path.join(ROOT, 'test', 'fixtures')
export const TWO_AGENTS = 'openclaw-2026.4.27-two-agents'
export const COMPACTION = 'openclaw-2026.4.27-compaction'

/**
 * A finished child process. `D` is the `--json` document its command prints on success, known when the args were a
 * literal that starts with the command (`runCli(['sessions', 'list', ...])`); `json(r)` then returns it typed.
 */
export interface RunResult<D = unknown> {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** Type only, never set: carries the document type from `runCli` to `json`. */
  readonly doc?: D
}

/** What `json` needs of a run: a spawnSync-based runner (strace) gives no signal. */
export type CliOutput<D = unknown> = Pick<RunResult<D>, 'code' | 'stdout' | 'stderr' | 'doc'>

/** The exported result type of the command `args` start with (the types scripts/schemas.js makes schemas of). */
export type DocOf<A> = A extends readonly ['sessions', 'list', ...unknown[]] ? SessionsListResult
  // Bare `sessions` (flags next) is `sessions list`, like `openclaw sessions`.
  : A extends readonly ['sessions', `--${string}`, ...unknown[]] ? SessionsListResult
  : A extends readonly ['sessions', 'history', ...unknown[]] ? SessionsHistoryResult
  // Its --dry-run prints a SessionsResetPlan instead: such a run names it, `json<SessionsResetPlan>(r)`.
  : A extends readonly ['sessions', 'reset', ...unknown[]] ? SessionsResetResult
  : A extends readonly ['sessions', 'lineage', ...unknown[]] ? SessionsLineageResult
  : A extends readonly ['sessions', 'export', ...unknown[]] ? SessionsExportResult
  : A extends readonly ['sessions', 'search', ...unknown[]] ? SessionsSearchResult
  : A extends readonly ['sessions', 'usage', ...unknown[]] ? SessionsUsageResult
  : A extends readonly ['message', 'send', ...unknown[]] ? MessageSendResult
  : A extends readonly ['store', 'info', ...unknown[]] ? StoreInfoResult
  : A extends readonly ['store', 'export', ...unknown[]] ? StoreExportResult
  : A extends readonly ['store', 'verify', ...unknown[]] ? StoreVerifyResult
  : A extends readonly ['agent', ...unknown[]] ? AgentRunResult
  : A extends readonly ['doctor', ...unknown[]] ? DoctorResult
  // With --store-url its document is FleetStatusResult instead: such a run names it.
  : A extends readonly ['status', ...unknown[]] ? StatusResult
  : A extends readonly ['sync', ...unknown[]] ? SyncResult
  : unknown

export interface RunOptions {
  env?: Record<string, string | undefined>
  input?: string
  cwd?: string
  timeoutMs?: number
}

const created: string[] = []

/** A scratch HOME so no test ever reads the developer's ~/.openclaw or clawkit settings. Removed after its test file. */
export function tempDir(prefix = 'clawkit-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  created.push(dir)
  return dir
}

/**
 * Removes the dirs tempDir made (test/support/setup.ts runs it after each test file), unless CLAWKIT_KEEP_TEST_DIRS=1.
 * Left behind, a full run leaves ~2 000 of them and their code caches (~0.6 MB each) in the temp dir.
 */
export function removeTempDirs(): void {
  if (process.env.CLAWKIT_KEEP_TEST_DIRS === '1') return
  for (const dir of created.splice(0)) {
    try {
      fs.rmSync(dir, {recursive: true, force: true, maxRetries: 3})
    } catch {
      // A detached child (the agent's exec tool) may still be writing there; the OS cleans the temp dir in the end.
    }
  }
}

/**
 * The code cache every CLI child shares (test-run.mjs): with a fresh one per HOME, each of the run's thousands of
 * children compiled the whole bundle and wrote a ~0.7 MB cache at exit, about a third of its CPU time. The tests of
 * the cache itself give each run a dir of its own (test/cli/load-bundle.test.ts).
 */
function sharedCacheDir(home: string): string {
  const run = inject('clawkitTestRun')
  return run ? path.join(run, 'cache') : path.join(home, '.cache', 'clawkit')
}

export function baseEnv(home: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue
    // PAGER, LESS and LV: the developer's pager settings must not decide what a test on a terminal sees.
    // NODE_EXTRA_CA_CERTS: Node 20 parses the named bundle at every start (~40 ms for a 220 KB system bundle, a quarter
    // of a CLI child's start); children talk only to servers on 127.0.0.1, without certificates of a public CA.
    if (k.startsWith('OPENCLAW_') || k.startsWith('CLAWKIT_') || k === 'NODE_ENV' || k.startsWith('VITEST') || k === 'DEBUG' || k === 'PAGER' || k === 'LESS' || k === 'LV' || k === 'NODE_EXTRA_CA_CERTS') continue
    env[k] = v
  }
  // PAGER=cat: output on a pseudo-terminal is never paged unless a test names a pager (a real less waits for a key).
  Object.assign(env, {HOME: home, NO_COLOR: '1', PAGER: 'cat', CLAWKIT_CONFIG_DIR: path.join(home, '.config', 'clawkit'), CLAWKIT_CACHE_DIR: sharedCacheDir(home), CLAWKIT_DATA_DIR: path.join(home, '.local', 'share', 'clawkit')})
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k]
    else env[k] = v
  }
  return env
}

export function runCli<const A extends readonly string[]>(args: A, opts: RunOptions = {}): Promise<RunResult<DocOf<A>>> {
  return runProcess<DocOf<A>>(process.execPath, [BIN, ...args], {cwd: opts.cwd ?? ROOT, env: opts.env ?? baseEnv(tempDir()), input: opts.input ?? '', timeoutMs: opts.timeoutMs ?? 30_000})
}

/**
 * Any child process with its output collected, killed after `timeoutMs`. Without `input` its stdin is closed from the
 * start (an interactive prompt then sees end of input at once).
 */
export function runProcess<D = unknown>(cmd: string, args: string[], opts: {env: Record<string, string | undefined>; cwd?: string; input?: string; timeoutMs?: number}): Promise<RunResult<D>> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {cwd: opts.cwd ?? ROOT, env: opts.env, stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout!.setEncoding('utf8').on('data', (d) => (stdout += d))
    child.stderr!.setEncoding('utf8').on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({code, signal, stdout, stderr})
    })
    if (opts.input !== undefined) child.stdin!.end(opts.input)
  })
}

/**
 * A runner that appends `extra` (a `--state-dir`, say) to every call's args and keeps the document type of the
 * command the args start with. `opts` may be a function, for an env made fresh per call.
 */
export function cliWith(extra: readonly string[], opts: RunOptions | (() => RunOptions) = {}) {
  return <const A extends readonly string[]>(args: A, more: RunOptions = {}): Promise<RunResult<DocOf<A>>> =>
    runCli([...args, ...extra] as readonly string[], {...(typeof opts === 'function' ? opts() : opts), ...more}) as Promise<RunResult<DocOf<A>>>
}

/**
 * Parse stdout as the single JSON document a --json run must print, typed as its command's result (see `DocOf`), or
 * as `T` when the caller names it (a run whose args were not a literal: then the document is `unknown` until named).
 */
export function json<D>(r: CliOutput<D>): D
export function json<T>(r: CliOutput<unknown>): T
export function json(r: CliOutput<unknown>): unknown {
  try {
    return JSON.parse(r.stdout)
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${r.code}):\n${r.stdout}\n--- stderr ---\n${r.stderr}`)
  }
}

/** The error of a failed --json run: the envelope every command prints (`ErrorEnvelope`, schemas/error.schema.json). */
export function jsonError(r: CliOutput<unknown>): ErrorEnvelope['error'] {
  return json<ErrorEnvelope>(r).error
}

/** Copy a fixture state dir into a fresh temp dir (fixtures are read-only and must never be modified). */
export function copyFixture(name: string, dest = path.join(tempDir(), 'state')): string {
  fs.cpSync(path.join(FIXTURES, name), dest, {recursive: true})
  makeWritable(dest)
  keepWorkspacesInside(dest)
  return dest
}

/** Where the fixtures' configs put the agents' workspaces (OpenClaw wrote them under /home/user; see the README). */
const FIXTURE_WORKSPACE = '/home/user/.openclaw/workspace'

/**
 * The copy's workspaces move inside it (`<copy>/workspace`, `<copy>/workspace-work`): a real OpenClaw run on a copy
 * (the interop suites) would otherwise create /home/user/.openclaw/workspace on the machine, and from then on every
 * test that reads the workspace (status's bootstrap line) would see that machine's leftovers.
 */
function keepWorkspacesInside(dest: string): void {
  const cfg = path.join(dest, 'openclaw.json')
  let text: string
  try {
    text = fs.readFileSync(cfg, 'utf8')
  } catch {
    return
  }
  if (text.includes(FIXTURE_WORKSPACE)) fs.writeFileSync(cfg, text.split(FIXTURE_WORKSPACE).join(path.join(dest, 'workspace')))
}

function makeWritable(p: string): void {
  const st = fs.statSync(p)
  fs.chmodSync(p, st.isDirectory() ? 0o700 : 0o600)
  if (st.isDirectory()) for (const name of fs.readdirSync(p)) makeWritable(path.join(p, name))
}

export function readJson<T = unknown>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T
}

/** A sessions.json read back, its rows typed as the store types them (SessionEntry: the fields clawkit reads). */
export function readIndexFile(file: string): SessionStoreData {
  return readJson<SessionStoreData>(file)
}

export function sessionsJsonPath(stateDir: string, agent = 'main'): string {
  return path.join(stateDir, 'agents', agent, 'sessions', 'sessions.json')
}

/** A generated state dir of `sessions` small sessions in one store: its `sessions list --json` is ~0.5 KB per session. */
export function bigState(sessions: number): string {
  const state = tempDir()
  const dir = path.join(state, 'agents', 'main', 'sessions')
  fs.mkdirSync(dir, {recursive: true})
  const store: Record<string, unknown> = {}
  for (let i = 0; i < sessions; i++) {
    store[`agent:main:telegram:direct:${i}`] = {sessionId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, updatedAt: 1_700_000_000_000 + i, model: 'claude-sonnet-4-5', modelProvider: 'anthropic', contextTokens: 200_000, totalTokens: i, label: 'x'.repeat(200)}
  }
  fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(store, null, 2))
  return state
}

export interface RunningCli {
  pid: number
  kill(signal: NodeJS.Signals): void
  stderr(): string
  /** Resolves when the process has exited and its output is closed; `at` is when (Date.now()). */
  exited: Promise<RunResult & {at: number}>
}

/** The real CLI started in the background, for tests that act while it runs (signals, releasing a lock it waits on). */
export function startCli(args: string[], opts: RunOptions = {}): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], {cwd: opts.cwd ?? ROOT, env: opts.env ?? baseEnv(tempDir()), stdio: ['pipe', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d))
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d))
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000)
  const exited = new Promise<RunResult & {at: number}>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({code, signal, stdout, stderr, at: Date.now()})
    })
  })
  child.stdin.end(opts.input ?? '')
  return {pid: child.pid!, kill: (signal) => child.kill(signal), stderr: () => stderr, exited}
}

/** Poll `check` every 20 ms until it is true; fail naming `what` after `ms` (a wide margin: CI machines are loaded). */
export async function waitUntil(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
