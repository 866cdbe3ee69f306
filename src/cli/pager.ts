// Long human output through the user's pager when stdout is a terminal, as git does: $CLAWKIT_PAGER, else $PAGER,
// else `less` with LESS=FRX when LESS is unset. Never under --json or when piped; --no-pager, an empty pager or `cat`
// turn it off, and a pager that cannot be started leaves the output printed as it is.

import {stripAnsi} from '../text/ansi.js'
import {displayWidth} from '../render/fit.js'

/** The pager command the environment asks for, or undefined for none (`cat` and an empty value mean none, as in git). */
export function pagerCommand(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const cmd = (env.CLAWKIT_PAGER ?? env.PAGER ?? 'less').trim()
  return cmd === '' || cmd === 'cat' ? undefined : cmd
}

/** Terminal lines `text` takes at `columns` (a long line wraps), counted up to `limit`. */
function screenLines(text: string, columns: number, limit: number): number {
  let n = 0
  for (const line of text.split('\n')) {
    n += Math.max(1, Math.ceil(displayWidth(stripAnsi(line)) / columns))
    if (n >= limit) break
  }
  return n
}

// A pager command holding any of these is run by the shell, as git runs one; a plain `less -S` is run directly, so
// that a missing program is an error clawkit sees (and falls back from), not the shell's "not found".
const SHELL_CHARS = /[|&;<>()$`\\"'*?[\]#~=%{}]/

/**
 * Writes `text` (human output, already rendered) to stdout: through the pager when stdout is a terminal, paging is
 * not turned off, and the text does not fit on one screen (what less -F would do, without starting less for a short
 * answer); else as it is. Resolves when the pager has quit.
 */
export async function writePaged(text: string, opts: {disabled?: boolean} = {}): Promise<void> {
  const out = process.stdout
  const cmd = opts.disabled || !out.isTTY ? undefined : pagerCommand()
  const rows = out.rows > 0 ? out.rows : 24
  if (!cmd || screenLines(text, out.columns > 0 ? out.columns : 80, rows) < rows) {
    out.write(text)
    return
  }
  if (!(await runPager(cmd, text))) out.write(text)
}

/** Runs the pager on `text`; false when it could not be started (nothing was shown), so the caller prints it. */
function runPager(cmd: string, text: string): Promise<boolean> {
  // Loaded here, not imported: every command imports this module, and node:child_process (with net and dgram) is ~2-5
  // ms of a start that pages nothing (BENCHMARKS.md, "A minified bundle, and two start-up designs that lost").
  const {spawn} = process.getBuiltinModule('node:child_process')
  const argv = cmd.split(/\s+/)
  const plain = argv.every((a) => !SHELL_CHARS.test(a))
  const env = {...process.env, LESS: process.env.LESS ?? 'FRX', LV: process.env.LV ?? '-c'}
  const child = plain
    ? spawn(argv[0], argv.slice(1), {env, stdio: ['pipe', 'inherit', 'inherit']})
    : spawn(process.platform === 'win32' ? cmd : 'sh', process.platform === 'win32' ? [] : ['-c', cmd], {env, stdio: ['pipe', 'inherit', 'inherit'], shell: process.platform === 'win32'})
  // Ctrl-C is the pager's (less stops a search with it); clawkit waits for the pager to quit, as git does.
  const ignore = () => {}
  process.on('SIGINT', ignore)
  return new Promise((resolve) => {
    let started = false
    child.once('spawn', () => {
      started = true
      // The reader quitting early (q in less) is a normal end, not a failure.
      child.stdin!.on('error', () => {})
      child.stdin!.end(text)
    })
    child.once('error', () => {
      process.off('SIGINT', ignore)
      if (!started) resolve(false)
    })
    child.once('close', (code) => {
      process.off('SIGINT', ignore)
      // 127: the shell found no such program; it has said so on stderr, and nothing was shown.
      resolve(started && !(code === 127 && !plain))
    })
  })
}
