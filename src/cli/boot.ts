// What bin/run.js does after its engines check: point the compile caches at clawkit's cache dir, load the bundle, run.
//
// Why a module of its own, bundled into one CommonJS file (dist/boot.cjs): every `node:` built-in an ES module imports
// gets an ES facade whose exports are all read once (fs's lazy getters load the streams modules), and env-paths would be
// resolved through its package exports map at every start. Bundled as CommonJS with env-paths inlined, that cost went
// away: ~10 ms of every start (BENCHMARKS.md). bin/run.js is CommonJS too, for the same reason.
import fs from 'node:fs'
import module from 'node:module'
import path from 'node:path'

import {ExitCode} from '../errors.js'
import {clawkitDirs} from '../settings.js'
import {commandOf} from './command-ids.js'
import {loadBundle, privateDir} from './load-bundle.js'

interface Cli {
  execute(opts: {dir: string}): Promise<unknown>
  ranCommand(): string | undefined
}

/** Runs the CLI bundle `bundle` (dist/cli.cjs) of the package at `root` (the directory holding its package.json). */
export async function run(root: string, bundle: string): Promise<void> {
  // oclif's own engines check loads semver on every start (~11 ms); bin/run.js has done the check already.
  const ownEngineCheck = process.env.OCLIF_DISABLE_ENGINE_WARNING === undefined
  if (ownEngineCheck) process.env.OCLIF_DISABLE_ENGINE_WARNING = '1'
  // This entry always runs the bundle: without this, NODE_ENV=development or test in a checkout makes oclif map
  // dist/cli.cjs back to src/cli/cli.ts through tsx, mixing two copies of @oclif/core. bin/dev.js is the way to run sources.
  const g = globalThis as {oclif?: Record<string, unknown>}
  g.oclif = {...g.oclif, enableAutoTranspile: false}

  // Compiled code is cached in clawkit's own cache dir, never in the shared temp dir Node would pick by default: the
  // bundle by load-bundle (which says why), and on Node 22+ what else is loaded (the vendor files, the autocomplete
  // plugin) by Node's compile cache. A cache dir that cannot be used only costs speed.
  let cacheRoot: string | undefined
  try {
    cacheRoot = clawkitDirs().cache
  } catch {}
  const enableCompileCache = (module as {enableCompileCache?: (dir: string) => unknown}).enableCompileCache
  if (cacheRoot && enableCompileCache) {
    const dir = path.join(cacheRoot, 'compile-cache')
    try {
      fs.mkdirSync(dir, {recursive: true, mode: 0o700})
      if (privateDir(dir)) enableCompileCache(dir)
    } catch {}
  }
  // The cache is the command's (load-bundle says why), under the name the arguments give it (an alias keeps its own).
  const named = commandOf(process.argv.slice(2))
  const ranName = (): string | undefined => (named !== undefined && cli.ranCommand() === named.id ? named.name : undefined)
  const {exports: cli} = loadBundle<Cli>(bundle, cacheRoot && path.join(cacheRoot, 'code-cache'), {name: named?.name, ranName})
  const output = guardOutput()
  // Only for the load: the agent's exec tool must not inherit it.
  if (ownEngineCheck) delete process.env.OCLIF_DISABLE_ENGINE_WARNING
  await cli.execute({dir: root})
  await exitOnceFlushed(() => reportOutputFailure(output.error, cli.ranCommand()))
}

/**
 * Keeps a failed stdout (a full disk, /dev/full, an I/O error) from killing the command half-way. oclif's module,
 * once loaded, rethrows every stdout error but EPIPE from its listener: an uncaught exception with a V8 stack trace,
 * raised at the first write, so that `agent` lost the reply it had paid for and `sessions reset` reported a failure
 * after it had reset. The error is recorded instead, later writes go nowhere, the command finishes its work, and
 * reportOutputFailure says so at the end. EPIPE (the reader went away, as `| head` does) stays silent, as before.
 */
function guardOutput(): {error?: NodeJS.ErrnoException} {
  const state: {error?: NodeJS.ErrnoException} = {}
  process.stdout.removeAllListeners('error')
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') state.error ??= error
  })
  // A failed stderr leaves nowhere to report anything; it must not turn into a crash either.
  process.stderr.on('error', () => {})
  return state
}

/**
 * One line on stderr for output that could not be written, and exit 74 (EX_IOERR of sysexits.h) when the command
 * itself succeeded: a script can then tell "done, but the output is lost" from a failure (1) or a usage error (2).
 * Any other code the command set stays, since it says more than 74 could: doctor's 3/4 (findings remain), agent's
 * 124/130/143 (timed out, interrupted), a failed delivery's 1.
 */
function reportOutputFailure(error: NodeJS.ErrnoException | undefined, ranCommand: string | undefined): void {
  if (!error) return
  const code = process.exitCode === undefined ? 0 : Number(process.exitCode)
  const what = ranCommand ? `"clawkit ${ranCommand.replaceAll(':', ' ')}"` : 'the command'
  const why = `${error.code ? `${error.code}: ` : ''}${String(error.message).replace(/^[A-Z]+: /, '').replace(/, write$/, '')}`
  const lines =
    code === 0
      ? [`Error: ${what} completed, but its output could not be written to stdout (${why}).`, '  hint: its work is done and kept; free space on that device or send the output elsewhere to see it.']
      : ranCommand
        ? [`Error: ${what} ended with exit code ${code}, and its output could not be written to stdout (${why}).`, '  hint: the exit code is the command\'s own; free space on that device or send the output elsewhere to see its report.']
        : [`Error: the command failed (exit ${code}), and its output could not be written to stdout (${why}).`, '  hint: free space on that device or send the output elsewhere, and run it again to see why it failed.']
  process.stderr.write(`${lines.join('\n')}\n`)
  if (code === 0) process.exitCode = ExitCode.outputFailed
}

/**
 * Ends the process once the command is done and its output is out, instead of letting Node wind down by itself, which
 * first frees the V8 heap page by page: up to ~14 ms after a 10k-session list or status (BENCHMARKS.md). Every command
 * awaits its own work; what can still be pending is output (oclif's execute does not wait for stdout, and a pipe is
 * written asynchronously on POSIX) and callbacks queued in the last moments (process.emitWarning prints on the next
 * tick), so both are let through first. process.exit keeps process.exitCode and still runs 'exit' listeners (the lock
 * release, the code cache write).
 */
async function exitOnceFlushed(beforeExit: () => void): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve))
  await flushed(process.stdout)
  // After stdout's last write has failed or gone out (and its error event, queued behind the write's callback, has
  // fired): only then is it known whether the output was lost.
  await new Promise((resolve) => setImmediate(resolve))
  beforeExit()
  await flushed(process.stderr)
  process.exit()
}

/** Resolves once everything written to `stream` so far is out, or can no longer be (its reader went away). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve()
  // An empty write's callback runs after every earlier write has been handed over, or with the error that ended them.
  return new Promise((resolve) => stream.write('', () => resolve()))
}
