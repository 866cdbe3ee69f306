// `status --watch`: on a terminal (util-linux `script` gives it a pseudo-terminal) the screen is redrawn in place when a
// store changes, the session that changed marked; Ctrl-C typed on that terminal leaves the alternate screen with the
// last frame printed and exits 130. Anywhere else it is refused.
import fs from 'node:fs'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, jsonError, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {freePort} from '../../support/net.js'
import {ESC, hasScript, watchOnTty} from '../../support/tty.js'

describe('status --watch', () => {
  it('is refused where it cannot redraw a screen: stdout not a terminal (exit 2, E_NOT_A_TERMINAL), with --json, with --store-url', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const piped = await runCli(['status', '--watch', '--state-dir', state], {env})
    expect(piped.code).toBe(2)
    expect(piped.stderr).toBe('Error: --watch redraws the screen of a terminal, and stdout is not one\n  hint: for a record over time, run "clawkit status --json --state-dir ' + state + '" at intervals instead\n')
    expect(jsonError(await runCli(['status', '--watch', '--json', '--state-dir', state], {env}))).toMatchObject({code: 'E_FLAG_CONFLICT', exitCode: 2})
    expect(jsonError(await runCli(['status', '--watch', '--json', '--store-url', 'postgres://nobody@127.0.0.1:1/fleet'], {env})).code).toBe('E_FLAG_CONFLICT')
  })

  it.skipIf(!hasScript)('on a terminal: redrawn in place when an index changes, the changed session marked; Ctrl-C leaves the last frame and exits 130', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir(), {OPENCLAW_GATEWAY_PORT: String(await freePort())})
    const {out, frames, interrupt, stop} = watchOnTty(['status', '--watch', '--state-dir', state], env, {cols: 110, rows: 50})
    try {
      await expect.poll(() => frames().length, {timeout: 20_000}).toBeGreaterThanOrEqual(1)
      expect(out().startsWith(`${ESC}?1049h${ESC}?25l`)).toBe(true)
      expect(frames()[0]).toContain('clawkit status')
      // The fixture's own age grows day by day: any whole days.
      expect(frames()[0]).toMatch(/agent:work:main +direct +\d+d ago/)
      // A gateway's turn: the index rewritten with the session's new updatedAt.
      const file = sessionsJsonPath(state, 'work')
      const index = JSON.parse(fs.readFileSync(file, 'utf8'))
      index['agent:work:main'].updatedAt = Date.now()
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(index, null, 2))
      fs.renameSync(`${file}.tmp`, file)
      await expect.poll(() => frames().at(-1) ?? '', {timeout: 20_000}).toMatch(/agent:work:main +direct +\u25CF just now/)
      const frame = frames().at(-1)!
      // Each line cleared to its end, then the rest of the screen: nothing of a longer earlier frame is left.
      expect(frame.split('\r\n').every((l, i, all) => l.endsWith(`${ESC}K`) || (i === all.length - 1 && l.includes(`${ESC}K${ESC}J`)))).toBe(true)
      expect(frame).not.toMatch(/agent:main:main +direct +\u25CF/)
      expect(await interrupt()).toBe(130)
    } finally {
      stop()
    }
    const after = out().slice(out().lastIndexOf(`${ESC}?1049l`) + `${ESC}?1049l`.length)
    expect(out()).toContain(`${ESC}?25h${ESC}?1049l`)
    expect(after).toContain('clawkit status')
    expect(after).toMatch(/agent:work:main/)
  }, 90_000)
})
