// Hostile-input harness: a sandbox (home, state dir, cwd) per case, the commands to run on it, and the oracle every
// run must pass. To cover a new command, add a row to HOSTILE_COMMANDS.
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import JSON5 from 'json5'

import {type DeepPosition, deepJsonText, type SpecialKind, type SpecialPosition} from './arbitraries.js'
import {baseEnv, copyFixture, type RunResult, runCli, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {diffSnapshots, isEmptyDiff, snapshot} from '../../support/state-files.js'

export interface Sandbox {
  root: string
  home: string
  cwd: string
  stateDir: string
  env: Record<string, string>
}

/** home/, cwd/ and state/ (a copy of the two-agents fixture) under one temp root, so one snapshot sees every write. */
export function makeSandbox(): Sandbox {
  const root = tempDir('clawkit-hostile-')
  const home = path.join(root, 'home')
  const cwd = path.join(root, 'cwd')
  fs.mkdirSync(home)
  fs.mkdirSync(cwd)
  const stateDir = copyFixture(TWO_AGENTS, path.join(root, 'state'))
  // clawkit's own code cache (the run's shared one, test/support/cli.ts) lives outside the snapshot: not a write this guards.
  return {root, home, cwd, stateDir, env: baseEnv(home)}
}

export interface HostileCommand {
  name: string
  args: (sb: Sandbox) => string[]
  /** Read commands must leave every byte of the sandbox as it was. */
  readOnly: boolean
  json: boolean
  /** Extra checks on a successful run (the "correct result" half of the oracle). */
  checkSuccess?: (r: RunResult, sb: Sandbox) => string[]
  /** Exit codes that mean "ran and reported" (default [0]; doctor also exits 3 and 4 with a full report). */
  successCodes?: number[]
  /** Extra environment for this command (a function when it names servers the test file starts). */
  env?: Record<string, string> | (() => Record<string, string>)
}

function listCheck(r: RunResult, sb: Sandbox): string[] {
  const doc = JSON.parse(r.stdout)
  // The store the command says it read (openclaw.json's session.store can move it); a missing store lists nothing.
  const store = typeof doc.path === 'string' ? doc.path : path.join(sb.stateDir, 'agents', 'main', 'sessions', 'sessions.json')
  // A leading BOM is read past (docs/compatibility.md, "Files, locks and safety").
  const index = fs.existsSync(store) ? JSON.parse(fs.readFileSync(store, 'utf8').replace(/^\uFEFF/, '')) : {}
  const want = Object.entries(index).filter(([, e]) => e && typeof e === 'object' && !Array.isArray(e)).length
  const problems: string[] = []
  if (doc.count !== want) problems.push(`count ${doc.count}, but sessions.json has ${want} object entries`)
  if (!Array.isArray(doc.sessions) || doc.sessions.some((s: {key?: unknown}) => typeof s.key !== 'string')) problems.push('rows without keys')
  return problems
}

export const HOSTILE_COMMANDS: HostileCommand[] = [
  {name: 'sessions list', args: (sb) => ['sessions', 'list', '--state-dir', sb.stateDir], readOnly: true, json: false},
  {name: 'sessions list --json', args: (sb) => ['sessions', 'list', '--json', '--state-dir', sb.stateDir], readOnly: true, json: true, checkSuccess: listCheck},
  {name: 'sessions list --all-agents --json', args: (sb) => ['sessions', 'list', '--all-agents', '--json', '--state-dir', sb.stateDir], readOnly: true, json: true},
  {name: 'sessions history', args: (sb) => ['sessions', 'history', 'main', '--state-dir', sb.stateDir], readOnly: true, json: false},
  {
    name: 'sessions history --json',
    args: (sb) => ['sessions', 'history', 'main', '--json', '--limit', '5', '--state-dir', sb.stateDir],
    readOnly: true,
    json: true,
    checkSuccess: (r) => {
      const doc = JSON.parse(r.stdout)
      return Array.isArray(doc.entries) && doc.entries.filter((e: {type: string}) => ['message', 'compaction', 'branch_summary', 'custom_message'].includes(e.type)).length <= 5 ? [] : ['history returned more messages than --limit']
    },
  },
  {name: 'sessions history --raw', args: (sb) => ['sessions', 'history', 'main', '--raw', '--state-dir', sb.stateDir], readOnly: true, json: false},
  {name: 'sessions reset --json', args: (sb) => ['sessions', 'reset', 'main', '--json', '--state-dir', sb.stateDir], readOnly: false, json: true},
  {name: 'status', args: (sb) => ['status', '--state-dir', sb.stateDir], readOnly: true, json: false},
  {name: 'status --json --all', args: (sb) => ['status', '--json', '--all', '--state-dir', sb.stateDir], readOnly: true, json: true},
  {name: 'doctor', args: (sb) => ['doctor', '--state-dir', sb.stateDir], readOnly: true, json: false, successCodes: [0, 3, 4]},
  {name: 'doctor --json', args: (sb) => ['doctor', '--json', '--state-dir', sb.stateDir], readOnly: true, json: true, successCodes: [0, 3, 4]},
  {
    name: 'message send --dry-run --json',
    args: (sb) => ['message', 'send', '--channel', 'telegram', '-t', '12345', '-m', 'hi', '--dry-run', '--json', '--state-dir', sb.stateDir],
    readOnly: true,
    json: true,
    env: {TELEGRAM_BOT_TOKEN: '123:hostile-test-token', TELEGRAM_API_BASE: 'http://127.0.0.1:9'},
  },
  // The two writers that talk to a remote API: hostile-input.test.ts starts a mock Messages API and a fake webhook and
  // exports their URLs through these variables before any case runs.
  {
    name: 'agent -m --json',
    args: (sb) => ['agent', '--agent', 'main', '-m', 'hostile check', '--json', '--state-dir', sb.stateDir],
    readOnly: false,
    json: true,
    env: () => ({ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: process.env.CLAWKIT_HOSTILE_ANTHROPIC_URL ?? 'http://127.0.0.1:9'}),
  },
  {
    name: 'message send (webhook) --json',
    args: (sb) => ['message', 'send', '--channel', 'webhook', '-t', process.env.CLAWKIT_HOSTILE_WEBHOOK_URL ?? 'http://127.0.0.1:9/hook', '-m', 'hostile check', '--json', '--state-dir', sb.stateDir],
    readOnly: false,
    json: true,
  },
]

/**
 * Whether a sandbox-relative path is clawkit's own data dir (CLAWKIT_DATA_DIR of test/support/cli.ts's baseEnv: home/
 * .local/share/clawkit) or one of the directories above it that creating it makes: a writer's journal (issue 29) and the
 * local catalog live there, the one place besides the state dir a command may write.
 */
export function isClawkitDataPath(rel: string): boolean {
  return /^home\/\.local(?:\/share(?:\/clawkit(?:\/.*)?)?)?$/s.test(rel.split(path.sep).join('/'))
}

/** A V8 stack frame line, as printed by an uncaught error. */
const STACK_RE = /^\s+at (?:.+ \()?(?:file:\/\/|node:|\/).+:\d+:\d+\)?$/m
/**
 * What human output must never carry raw: C0 controls but newline and tab, DEL and C1 controls, and invisible
 * characters that reorder or hide text (bidi controls, zero-width and other format characters, line separators).
 */
// eslint-disable-next-line no-control-regex
export const UNSAFE_RE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\p{Cf}\p{Zl}\p{Zp}]/u

/** Messages that mean a TypeError escaped from our code rather than a deliberate error. */
const CRASH_MESSAGE_RE = /Cannot read propert|is not a function|is not iterable|Cannot convert|Maximum call stack|\[object Object\]|undefined is not/

/** The oracle: a correct result or one clear error line, exit 0/1/2, no stack trace, and reads modify nothing. */
export async function runHostile(cmd: HostileCommand, sb: Sandbox, opts: {timeoutMs?: number} = {}): Promise<{result: RunResult; problems: string[]}> {
  const before = snapshot(sb.root)
  const extra = typeof cmd.env === 'function' ? cmd.env() : cmd.env
  const result = await runCli(cmd.args(sb), {env: {...sb.env, ...extra}, cwd: sb.cwd, timeoutMs: opts.timeoutMs ?? 60_000})
  const after = snapshot(sb.root)
  const problems: string[] = []
  const {code, signal, stdout, stderr} = result
  if (signal) problems.push(`killed by ${signal}`)
  const successCodes = cmd.successCodes ?? [0]
  const success = code !== null && successCodes.includes(code)
  if (!success && code !== 1 && code !== 2) problems.push(`exit code ${code}`)
  if (STACK_RE.test(stderr) || STACK_RE.test(stdout)) problems.push('stack trace printed without DEBUG')
  if (!success) {
    if (cmd.json) {
      let doc: {error?: {code?: string; message?: string; exitCode?: number}} | undefined
      try {
        doc = JSON.parse(stdout)
      } catch {
        problems.push('--json error is not one JSON document on stdout')
      }
      if (doc && (!doc.error || doc.error.exitCode !== code || typeof doc.error.message !== 'string')) problems.push('--json error envelope missing or wrong exitCode')
      if (doc?.error?.code === 'E_UNEXPECTED' || CRASH_MESSAGE_RE.test(doc?.error?.message ?? '')) problems.push(`unexpected error: ${doc?.error?.message}`)
    } else {
      const lines = stderr.trimEnd().split('\n')
      if (!lines[0].startsWith('Error: ')) problems.push(`stderr does not start with "Error: ": ${lines[0].slice(0, 200)}`)
      if (lines.slice(1).some((l) => !l.startsWith('  hint: '))) problems.push(`error is more than one line (plus hints): ${stderr.slice(0, 300)}`)
      if (CRASH_MESSAGE_RE.test(lines[0])) problems.push(`unexpected error: ${lines[0].slice(0, 300)}`)
      if (UNSAFE_RE.test(stderr)) problems.push(`control or invisible characters in the error (terminal injection): ${JSON.stringify(stderr.slice(0, 200))}`)
    }
  } else {
    if (cmd.json) {
      try {
        JSON.parse(stdout)
      } catch {
        problems.push('--json output is not one JSON document')
      }
    }
    // Human output shows keys and transcript text: no control character, bidi control or zero-width character may reach
    // the terminal (--raw excepted: it promises the stored bytes).
    if (!cmd.json && !cmd.name.includes('--raw') && UNSAFE_RE.test(stdout)) problems.push(`control or invisible characters in human output: ${JSON.stringify(stdout.match(new RegExp(`.{0,20}${UNSAFE_RE.source}.{0,20}`, 'u'))?.[0])}`)
    if (problems.length === 0 && cmd.checkSuccess) problems.push(...cmd.checkSuccess(result, sb))
  }
  const diff = diffSnapshots(before, after)
  if ((cmd.readOnly || !success) && !isEmptyDiff(diff)) problems.push(`${cmd.readOnly ? 'read command' : 'failed write'} changed files: ${JSON.stringify(diff)}`)
  if (!cmd.readOnly && success) {
    const outside = [...diff.added, ...diff.changed, ...diff.removed].filter((p) => !p.startsWith(`state${path.sep}`) && !isClawkitDataPath(p))
    if (outside.length > 0) problems.push(`${cmd.name} wrote outside the state dir and clawkit's data dir: ${outside.join(', ')}`)
  }
  return {result, problems}
}

// ---------------------------------------------------------------------------------------------------------------
// Special files and deep nesting

const mainSessions = (sb: Sandbox) => path.join(sb.stateDir, 'agents', 'main', 'sessions')

function mainTranscript(sb: Sandbox): string {
  const id = JSON.parse(fs.readFileSync(path.join(mainSessions(sb), 'sessions.json'), 'utf8'))['agent:main:main'].sessionId
  return path.join(mainSessions(sb), `${id}.jsonl`)
}

function editConfig(sb: Sandbox, edit: (c: any) => void): void {
  const file = path.join(sb.stateDir, 'openclaw.json')
  const config = JSON5.parse(fs.readFileSync(file, 'utf8'))
  edit(config)
  fs.writeFileSync(file, JSON.stringify(config, null, 2))
}

/** The agent's workspace inside the sandbox (the fixture's is under /home/user), with the file the mock asks to read. */
export const HOSTILE_READ_FILE = 'notes.txt'
function sandboxWorkspace(sb: Sandbox): string {
  const ws = path.join(sb.root, 'workspace')
  fs.mkdirSync(ws, {recursive: true})
  fs.writeFileSync(path.join(ws, HOSTILE_READ_FILE), 'one\ntwo\n')
  editConfig(sb, (c) => {
    c.agents.defaults.workspace = ws
  })
  return ws
}

/** Put `kind` where `position` says, replacing what is there. Returns the planted path. */
export function plantSpecial(sb: Sandbox, position: SpecialPosition, kind: SpecialKind): string {
  let target: string
  switch (position) {
    case 'openclaw.json': {
      target = path.join(sb.stateDir, 'openclaw.json')
      break
    }
    case 'session.store': {
      target = path.join(sb.root, 'special-store')
      editConfig(sb, (c) => {
        c.session = {store: target}
      })
      break
    }
    case 'sessions.json': {
      target = path.join(mainSessions(sb), 'sessions.json')
      break
    }
    case 'sessions.json.lock': {
      target = path.join(mainSessions(sb), 'sessions.json.lock')
      break
    }
    case 'transcript': {
      target = mainTranscript(sb)
      break
    }
    case 'transcript lock': {
      target = `${mainTranscript(sb)}.lock`
      break
    }
    case 'workspace file': {
      target = path.join(sandboxWorkspace(sb), HOSTILE_READ_FILE)
      break
    }
    case 'workspace bootstrap file': {
      target = path.join(sandboxWorkspace(sb), 'AGENTS.md')
      break
    }
  }
  fs.rmSync(target, {recursive: true, force: true})
  // Named so that it is neither a lock nor a transcript itself.
  const beside = path.join(path.dirname(target), `special-${path.basename(target).replaceAll(".", "-")}`)
  const mkfifo = (p: string) => {
    // Node has no mkfifo; coreutils has.
    if (spawnSync('mkfifo', [p]).status !== 0) throw new Error(`mkfifo ${p} failed`)
  }
  switch (kind) {
    case 'fifo': {
      mkfifo(target)
      break
    }
    case 'directory': {
      fs.mkdirSync(target)
      break
    }
    case 'symlink to /dev/zero': {
      fs.symlinkSync('/dev/zero', target)
      break
    }
    case 'symlink to /dev/null': {
      fs.symlinkSync('/dev/null', target)
      break
    }
    case 'symlink to fifo': {
      mkfifo(beside)
      fs.symlinkSync(path.basename(beside), target)
      break
    }
    case 'symlink to directory': {
      fs.mkdirSync(beside)
      fs.symlinkSync(path.basename(beside), target)
      break
    }
  }
  return target
}

/** Lock files (and lock scratch files) under the state dir, except `planted`. */
export function locksLeft(sb: Sandbox, planted?: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, {withFileTypes: true})) {
      const p = path.join(dir, d.name)
      if (p === planted) continue
      if (d.isDirectory()) walk(p)
      else if (/\.lock($|\.)/.test(d.name)) out.push(p)
    }
  }
  walk(sb.stateDir)
  return out
}

/** JSON nested `depth` deep where `position` says. */
export function plantDeep(sb: Sandbox, position: DeepPosition, depth: number, shape: 'array' | 'object'): void {
  const deep = deepJsonText(depth, shape)
  const index = path.join(mainSessions(sb), 'sessions.json')
  switch (position) {
    case 'sessions.json row': {
      const text = fs.readFileSync(index, 'utf8').replace(/\n}\s*$/, `,\n  "agent:main:deep": {\n    "sessionId": "deep1",\n    "updatedAt": 1,\n    "x": ${deep}\n  }\n}`)
      fs.writeFileSync(index, text)
      break
    }
    case 'sessions.json top level': {
      fs.writeFileSync(index, `{"agent:main:main": ${deep}}`)
      break
    }
    case 'transcript line': {
      const file = mainTranscript(sb)
      const leaf = JSON.parse(fs.readFileSync(file, 'utf8').trimEnd().split('\n').at(-1)!).id
      fs.appendFileSync(file, `{"type":"message","id":"deepdeep","parentId":${JSON.stringify(leaf)},"timestamp":"2026-11-25T22:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"deep","x":${deep}}],"timestamp":1}}\n`)
      break
    }
    case 'transcript tool-call arguments': {
      const file = mainTranscript(sb)
      const leaf = JSON.parse(fs.readFileSync(file, 'utf8').trimEnd().split('\n').at(-1)!).id
      fs.appendFileSync(file, `{"type":"message","id":"deepdeep","parentId":${JSON.stringify(leaf)},"timestamp":"2026-11-25T22:00:00.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_deep","name":"read","arguments":{"path":${deep}}}],"stopReason":"toolUse","timestamp":1}}\n`)
      break
    }
    case 'openclaw.json': {
      editConfig(sb, () => {})
      const file = path.join(sb.stateDir, 'openclaw.json')
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^\{/, `{"deep": ${deep},`))
      break
    }
  }
}
