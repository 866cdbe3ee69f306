// Paging as git does it: long human output (and help) through $CLAWKIT_PAGER, $PAGER or less when stdout is a
// terminal and the text does not fit on the screen; never when piped, under --json or with --no-pager. The pager here
// is a script that records what it was given, how, and with which LESS, on a real pseudo-terminal (util-linux script).
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, runCli, tempDir, TWO_AGENTS} from '../support/cli.js'
import {hasScript, onTty} from '../support/tty.js'

/** A pager that writes its arguments, LESS, whether its stdout is the terminal and all its input to `record`. */
function fakePager(dir: string, name = 'fake-pager'): {bin: string; record: string} {
  const bin = path.join(dir, name)
  const record = path.join(dir, `${name}.out`)
  fs.writeFileSync(bin, `#!/bin/sh\ntty=no; test -t 1 && tty=yes\n{ echo "args:$*"; echo "LESS:\${LESS-unset}"; echo "tty:$tty"; cat; } > '${record}'\n`, {mode: 0o755})
  return {bin, record}
}

/** What the pager got: its header lines, then the text it was fed. */
function recorded(record: string): {args: string; less: string; tty: string; text: string} | undefined {
  if (!fs.existsSync(record)) return undefined
  const [args, less, tty, ...rest] = fs.readFileSync(record, 'utf8').split('\n')
  return {args: args.slice('args:'.length), less: less.slice('LESS:'.length), tty: tty.slice('tty:'.length), text: rest.join('\n')}
}

const HISTORY = ['sessions', 'history', 'main', '--limit', '50']

describe.skipIf(!hasScript)('paging on a terminal', () => {
  it('sessions history --limit 50 longer than the screen goes through $PAGER whole, with LESS=FRX when LESS is unset; the terminal gets nothing else', async () => {
    const state = copyFixture(TWO_AGENTS)
    const home = tempDir()
    const pager = fakePager(home)
    const env = baseEnv(home, {PAGER: pager.bin})
    const piped = await runCli([...HISTORY, '--state-dir', state], {env})
    expect(piped.stdout.split('\n').length).toBeGreaterThan(20)
    // Piped: never paged, even when long.
    expect(recorded(pager.record)).toBeUndefined()
    const r = await onTty(100, [...HISTORY, '--state-dir', state], env, {rows: 20})
    expect(r.code, r.out).toBe(0)
    const got = recorded(pager.record)!
    expect(got).toMatchObject({args: '', less: 'FRX', tty: 'yes'})
    expect(got.text).toBe(piped.stdout)
    expect(r.out).toBe('')
    // The user's own LESS is left as it is.
    fs.rmSync(pager.record)
    await onTty(100, [...HISTORY, '--state-dir', state], {...env, LESS: '-S'}, {rows: 20})
    expect(recorded(pager.record)!.less).toBe('-S')
  })

  it('output that fits on the screen is printed as it is; --no-pager, PAGER=cat, an empty CLAWKIT_PAGER and --json never start the pager', async () => {
    const state = copyFixture(TWO_AGENTS)
    const home = tempDir()
    const pager = fakePager(home)
    const env = baseEnv(home, {PAGER: pager.bin})
    const short = await onTty(100, ['sessions', 'history', 'main', '--limit', '1', '--state-dir', state], env, {rows: 40})
    expect(short.code, short.out).toBe(0)
    expect(short.out).toContain('Session agent:main:main')
    const cases: [string[], Record<string, string>][] = [
      [[...HISTORY, '--no-pager'], env],
      [HISTORY, {...env, PAGER: 'cat'}],
      [HISTORY, {...env, CLAWKIT_PAGER: ''}],
      [[...HISTORY, '--json'], env],
    ]
    for (const [args, e] of cases) {
      const r = await onTty(100, [...args, '--state-dir', state], e, {rows: 20})
      expect(r.code, `${args.join(' ')}: ${r.out}`).toBe(0)
      expect(r.out, args.join(' ')).toContain(args.includes('--json') ? '"key": "agent:main:main"' : 'Session agent:main:main')
    }
    expect(recorded(pager.record)).toBeUndefined()
  })

  it('CLAWKIT_PAGER beats PAGER; with neither, `less` is run; a pager that is not installed leaves the output printed as it is', async () => {
    const state = copyFixture(TWO_AGENTS)
    const home = tempDir()
    const ours = fakePager(home, 'ours')
    const theirs = fakePager(home, 'theirs')
    await onTty(100, [...HISTORY, '--state-dir', state], baseEnv(home, {PAGER: theirs.bin, CLAWKIT_PAGER: `${ours.bin} --flag`}), {rows: 20})
    expect(recorded(ours.record)!.args).toBe('--flag')
    expect(recorded(theirs.record)).toBeUndefined()
    // No pager named: `less` as found on PATH (here a recording one, first on PATH), as git runs it.
    const bin = path.join(home, 'bin')
    fs.mkdirSync(bin)
    const less = fakePager(bin, 'less')
    const r = await onTty(100, [...HISTORY, '--state-dir', state], baseEnv(home, {PATH: `${bin}:${process.env.PATH}`, PAGER: undefined}), {rows: 20})
    expect(r.code, r.out).toBe(0)
    expect(recorded(less.record)).toMatchObject({less: 'FRX', tty: 'yes'})
    const missing = await onTty(100, [...HISTORY, '--state-dir', state], baseEnv(home, {PAGER: path.join(home, 'no-such-pager')}), {rows: 20})
    expect(missing.code, missing.out).toBe(0)
    expect(missing.out).toContain('Session agent:main:main')
    expect(missing.out.split('\n').length).toBeGreaterThan(20)
  })

  it('help (--help, -h, the help command) and the other long outputs (list, search, usage, lineage, doctor) are paged too', async () => {
    const state = copyFixture(TWO_AGENTS)
    const home = tempDir()
    const pager = fakePager(home)
    const env = baseEnv(home, {PAGER: pager.bin})
    // oclif wraps help to the terminal's width: compared word for word.
    const words = (t: string | undefined) => t?.replace(/\s+/g, ' ').trim()
    const help = words((await runCli(['sessions', 'history', '--help'], {env})).stdout)
    expect(help).toContain('USAGE $ clawkit sessions history')
    for (const args of [['sessions', 'history', '--help'], ['sessions', 'history', '-h'], ['help', 'sessions', 'history']]) {
      const r = await onTty(100, args, env, {rows: 10})
      expect(r.code, r.out).toBe(0)
      expect(words(recorded(pager.record)?.text), args.join(' ')).toBe(help)
      fs.rmSync(pager.record)
    }
    const noPager = await onTty(100, ['sessions', 'history', '--help', '--no-pager'], env, {rows: 10})
    expect(noPager.out).toContain('USAGE')
    expect(recorded(pager.record)).toBeUndefined()
    for (const args of [['sessions', 'list', '--all-agents'], ['sessions', 'search', 'the', '--all-agents'], ['sessions', 'usage', '--all-agents'], ['sessions', 'lineage', 'main'], ['doctor']]) {
      const r = await onTty(100, [...args, '--state-dir', state], env, {rows: 4})
      expect(recorded(pager.record)?.text, `${args.join(' ')}: ${r.out}`).toMatch(/\S/)
      fs.rmSync(pager.record)
    }
  })
})
