// Tables on a real terminal for the CLI tests: util-linux `script` gives the CLI a pseudo-terminal of a set width.
import {spawn, spawnSync} from 'node:child_process'

import {expect} from 'vitest'

import {BIN, json, ROOT, runCli} from './cli.js'

export const hasScript = spawnSync('script', ['--version'], {encoding: 'utf8'}).status === 0
const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`

/** The CLI with stdout on a pseudo-terminal of `cols` columns (and `rows` lines, default 50); the terminal's \r\n become \n. */
export function onTty(cols: number, args: string[], env: Record<string, string>, opts: {rows?: number} = {}): Promise<{code: number | null; out: string}> {
  const cmd = `stty cols ${cols} rows ${opts.rows ?? 50}; ${[process.execPath, BIN, ...args].map(quote).join(' ')}`
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', cmd, '/dev/null'], {cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, out: out.replaceAll('\r\n', '\n')})
    })
  })
}

/**
 * A command that redraws a terminal (`--watch`) on a pseudo-terminal of `cols` x `rows`: its output so far, the frames
 * it drew (each starts with the cursor sent home), Ctrl-C typed on its terminal (resolves to its exit code), and a
 * stop that kills it whatever state it is in (call it in a finally). It is killed after 60 s in any case.
 */
export function watchOnTty(args: string[], env: Record<string, string>, opts: {cols: number; rows: number}) {
  const cmd = `stty cols ${opts.cols} rows ${opts.rows}; exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`
  const child = spawn('script', ['-qec', cmd, '/dev/null'], {cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe']})
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  return {
    out: () => out,
    frames: () => out.split(`${ESC}H`).slice(1),
    interrupt: () => {
      child.stdin.write('\u0003')
      return exited
    },
    stop: () => {
      clearTimeout(timer)
      child.kill('SIGKILL')
    },
  }
}

/** The terminal's control sequence introducer. */
export const ESC = '\u001B['

/** Width in code points (what the tables measure). */
export const visible = (s: string) => [...s].length

/** The column a header starts at in the header line, and the same offset must start a cell in every row. */
export function columnStart(lines: string[], header: string): number {
  const head = lines.find((l) => l.includes(header))!
  return head.indexOf(header)
}

/**
 * The lines of the first table whose header line holds `header` as a word: the header, then its rows up to a blank
 * line or the "Not shown: ..." note under a table that left columns out.
 */
export function tableLines(out: string, header: string): string[] {
  const lines = out.trimEnd().split('\n')
  const at = lines.findIndex((l) => l.split(/ +/).includes(header))
  const rest = lines.slice(at)
  const end = rest.findIndex((l, i) => i > 0 && (l.trim() === '' || l.startsWith('Not shown: ')))
  return end === -1 ? rest : rest.slice(0, end)
}

/** The Key cell of every row of the table whose header line holds `header`. */
export function keyCells(out: string, header: string): string[] {
  const table = tableLines(out, header)
  const keyAt = columnStart(table, 'Key')
  // Keys hold no spaces: the cell ends at the first one.
  return table.slice(1).map((row) => [...row].slice(keyAt).join('').split(' ')[0]).filter((c) => c.length > 0)
}

/** `sessions history <shown>` names exactly `key`. */
export async function expectResolves(shown: string, key: string, state: string, env: Record<string, string>): Promise<void> {
  const h = await runCli(['sessions', 'history', shown, '--json', '--state-dir', state], {env})
  expect(h.code, `${shown}: ${h.stdout}`).toBe(0)
  expect(json(h).key, shown).toBe(key)
}

