// Test support: run the real built CLI as a child process, and lay out temp state dirs from the committed fixtures.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const BIN = path.join(ROOT, 'bin', 'run.js')
/** Real OpenClaw state dirs, committed with the repo (test/fixtures/README.md says where each came from). */
export const FIXTURES = path.join(ROOT, 'test', 'fixtures')
export const TWO_AGENTS = 'openclaw-2026.4.27-two-agents'
export const COMPACTION = 'openclaw-2026.4.27-compaction'

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

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

export function baseEnv(home: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue
    if (k.startsWith('OPENCLAW_') || k.startsWith('CLAWKIT_') || k === 'NODE_ENV' || k.startsWith('VITEST') || k === 'DEBUG') continue
    env[k] = v
  }
  Object.assign(env, {HOME: home, NO_COLOR: '1', CLAWKIT_CONFIG_DIR: path.join(home, '.config', 'clawkit'), CLAWKIT_CACHE_DIR: path.join(home, '.cache', 'clawkit'), CLAWKIT_DATA_DIR: path.join(home, '.local', 'share', 'clawkit')})
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k]
    else env[k] = v
  }
  return env
}

export function runCli(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return runProcess(process.execPath, [BIN, ...args], {cwd: opts.cwd ?? ROOT, env: opts.env ?? baseEnv(tempDir()), input: opts.input ?? '', timeoutMs: opts.timeoutMs ?? 30_000})
}

/**
 * Any child process with its output collected, killed after `timeoutMs`. Without `input` its stdin is closed from the
 * start (an interactive prompt then sees end of input at once).
 */
export function runProcess(cmd: string, args: string[], opts: {env: Record<string, string | undefined>; cwd?: string; input?: string; timeoutMs?: number}): Promise<RunResult> {
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

/** Parse stdout as the single JSON document a --json run must print. */
export function json<T = any>(r: RunResult): T {
  try {
    return JSON.parse(r.stdout) as T
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${r.code}):\n${r.stdout}\n--- stderr ---\n${r.stderr}`)
  }
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

export function readJson<T = any>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T
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
