// Test support: `clawkit sessions history --follow` as a running child, its stdout taken line by line as it arrives.
import {type ChildProcess, spawn} from 'node:child_process'

import fs from 'node:fs'

import type {ValidateFunction} from 'ajv'

import {schemaFile} from '../../scripts/schemas.js'
import type {SessionsFollowLine} from '../../src/commands/sessions/history.js'
import {BIN, ROOT} from './cli.js'
import {ajv, validator} from './schema-check.js'

/** A line of stdout and when it arrived (ms, performance.now()). */
export interface Arrived {
  text: string
  at: number
}

export interface Follower {
  child: ChildProcess
  lines: Arrived[]
  stderr(): string
  /** The parsed --json lines so far. */
  docs(): SessionsFollowLine[]
  /** Resolves with the first line (index) at or after `from` that `match` accepts; rejects after `timeoutMs`. */
  waitFor(match: (text: string) => boolean, opts?: {from?: number; timeoutMs?: number}): Promise<number>
  /** Resolves when the child exits. */
  exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>
  /** Signals the child (if still running) and waits for its exit. */
  stop(signal?: NodeJS.Signals): Promise<{code: number | null; signal: NodeJS.Signals | null}>
}

const running = new Set<ChildProcess>()
process.on('exit', () => {
  for (const c of running) c.kill('SIGKILL')
})

/** Starts `clawkit <args>` (args after `bin/run.js`); its own node is this process's. */
export function startFollow(args: string[], env: Record<string, string>): Follower {
  const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe']})
  running.add(child)
  const lines: Arrived[] = []
  let partial = ''
  let err = ''
  const waiters = new Set<() => void>()
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    const at = performance.now()
    const parts = (partial + d).split('\n')
    partial = parts.pop()!
    for (const text of parts) lines.push({text, at})
    for (const w of waiters) w()
  })
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d))
  const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) =>
    child.on('close', (code, signal) => {
      running.delete(child)
      if (partial) lines.push({text: partial, at: performance.now()})
      for (const w of waiters) w()
      resolve({code, signal})
    }),
  )
  let done = false
  void exited.then(() => (done = true))
  return {
    child,
    lines,
    stderr: () => err,
    docs: () => lines.map((l) => JSON.parse(l.text) as SessionsFollowLine),
    waitFor(match, opts = {}) {
      const timeoutMs = opts.timeoutMs ?? 20_000
      return new Promise((resolve, reject) => {
        const check = () => {
          for (let i = opts.from ?? 0; i < lines.length; i++) {
            if (match(lines[i].text)) {
              cleanup()
              resolve(i)
              return true
            }
          }
          if (done) {
            cleanup()
            reject(new Error(`the follow ended before the line came:\n${lines.map((l) => l.text).join('\n')}\n--- stderr ---\n${err}`))
            return true
          }
          return false
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(new Error(`no such line after ${timeoutMs} ms:\n${lines.map((l) => l.text).join('\n')}\n--- stderr ---\n${err}`))
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          waiters.delete(check)
        }
        if (!check()) waiters.add(check)
      })
    },
    exited,
    async stop(signal = 'SIGINT') {
      if (!done) child.kill(signal)
      return exited
    },
  }
}

/** Every --json line validates against schemas/sessions-follow.schema.json, and each entry against history's HistoryEntry. */
export function expectValidFollowLines(f: Follower): SessionsFollowLine[] {
  const validate = validator('sessions-follow')
  if (!entryValidator) {
    const history = JSON.parse(fs.readFileSync(schemaFile('sessions-history'), 'utf8')) as {$schema: string; definitions: Record<string, unknown>}
    entryValidator = ajv.compile({$schema: history.$schema, definitions: history.definitions, $ref: '#/definitions/HistoryEntry'})
  }
  const entry = entryValidator
  const docs = f.docs()
  for (const [i, d] of docs.entries()) {
    if (!validate(d)) throw new Error(`line ${i + 1} does not match schemas/sessions-follow.schema.json: ${ajv.errorsText(validate.errors)}\n${f.lines[i].text}`)
    if (d.kind === 'entry' && !entry(d.entry)) throw new Error(`line ${i + 1}'s entry is not sessions-history's HistoryEntry: ${ajv.errorsText(entry.errors)}`)
  }
  return docs
}
let entryValidator: ValidateFunction | undefined
