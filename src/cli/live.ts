// What a command that runs until stopped shares (`sessions history --follow`, `status --watch`): Ctrl-C and SIGTERM
// end it with the shell's codes (130, 143), a reader that goes away (`| head`) ends it quietly, and its output waits for
// a slow reader instead of piling up in memory.
import {ExitCode} from '../errors.js'

export interface LiveRun {
  /** Aborted by SIGINT, SIGTERM, or stdout's reader going away. */
  signal: AbortSignal
  /** Writes to stdout, resolved once the text is handed over (a full pipe is waited for). */
  write(text: string): Promise<void>
  /** Removes the handlers; sets the exit code of a signal (130, 143). */
  done(): void
}

export function startLive(): LiveRun {
  const controller = new AbortController()
  let exitCode: number | undefined
  const onSignal = (sig: NodeJS.Signals) => {
    // A second Ctrl-C while the first is being wound down leaves at once.
    if (controller.signal.aborted) process.exit(sig === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted)
    exitCode = sig === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted
    controller.abort(sig)
  }
  // boot.ts records any other stdout failure and reports it at exit (74); either way there is no one to write to.
  const onStdoutError = () => controller.abort('stdout')
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  process.stdout.on('error', onStdoutError)
  return {
    signal: controller.signal,
    write: (text) =>
      new Promise<void>((resolve) => {
        if (controller.signal.aborted || process.stdout.destroyed) return resolve()
        if (process.stdout.write(text)) return resolve()
        const go = () => {
          process.stdout.off('drain', go)
          controller.signal.removeEventListener('abort', go)
          resolve()
        }
        process.stdout.on('drain', go)
        controller.signal.addEventListener('abort', go)
      }),
    done: () => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      process.stdout.off('error', onStdoutError)
      if (exitCode !== undefined) process.exitCode = exitCode
    },
  }
}
