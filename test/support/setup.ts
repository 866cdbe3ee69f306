// Runs in every test file (vitest.config.ts setupFiles): removes the temp dirs the file made, once it is done; and with
// CLAWKIT_TEST_CPU_LOG set, appends the file's CPU seconds to that log (docs/development.md, "Where the suite's time goes").
import fs from 'node:fs'

import {afterAll, expect} from 'vitest'

import {removeTempDirs} from './cli.js'

/**
 * This process's user and system CPU and those of its children that have ended (/proc/self/stat fields 14-17, in clock
 * ticks): each test file runs in a process of its own (vitest's forks pool), so the difference over the file is what
 * the file cost, its CLI children included. Linux only; elsewhere undefined.
 */
function cpuTicks(): number[] | undefined {
  try {
    return fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ').slice(11, 15).map(Number)
  } catch {
    return undefined
  }
}

/** USER_HZ, which Linux fixes at 100 for /proc whatever the kernel's own tick. */
const TICKS_PER_SECOND = 100
const cpuLog = process.env.CLAWKIT_TEST_CPU_LOG
const start = cpuLog ? {ticks: cpuTicks(), at: Date.now()} : undefined

afterAll(() => {
  removeTempDirs()
  if (!cpuLog || !start?.ticks) return
  const end = cpuTicks()
  if (!end) return
  // One line per file: its path, then user, system, children's user, children's system (seconds) and wall seconds.
  const seconds = end.map((v, i) => ((v - start.ticks![i]) / TICKS_PER_SECOND).toFixed(2))
  fs.appendFileSync(cpuLog, `${expect.getState().testPath} ${seconds.join(' ')} ${((Date.now() - start.at) / 1000).toFixed(1)}\n`)
})
