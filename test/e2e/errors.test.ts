// Every error, whoever raises it (oclif's lookup and parser, or clawkit), is one line plus at most one hint, and the
// JSON envelope on stdout under --json.
import {describe, expect, it} from 'vitest'

import {copyFixture, json, jsonError, runCli, TWO_AGENTS} from '../support/cli.js'

/** stderr is `Error: ...` and at most one `  hint: ...` line, nothing else (no usage block, no stack). */
function expectOneLineError(stderr: string): string[] {
  const lines = stderr.trimEnd().split('\n')
  expect(lines[0]).toMatch(/^Error: \S/)
  expect(lines.length).toBeLessThanOrEqual(2)
  if (lines[1] !== undefined) expect(lines[1]).toMatch(/^ {2}hint: \S/)
  return lines
}

describe('unknown commands', () => {
  it('a typo in a subcommand names the command as typed (space-separated) and suggests the nearest one', async () => {
    const r = await runCli(['sessions', 'lsit'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    const lines = expectOneLineError(r.stderr)
    expect(lines[0]).toBe('Error: Unknown command "sessions lsit".')
    expect(lines[1]).toContain('did you mean "clawkit sessions list"?')
    expect(r.stderr).not.toContain('sessions:lsit')
  })

  it('a typo in the topic, and a lone subcommand name, find their command too', async () => {
    expect((await runCli(['session', 'list'])).stderr).toContain('did you mean "clawkit sessions list"?')
    expect((await runCli(['histroy'])).stderr).toContain('did you mean "clawkit sessions history"?')
    expect((await runCli(['help', 'doctr'])).stderr).toContain('did you mean "clawkit doctor"?')
  })

  it('a name close to nothing gets no guess, only the way to the command list', async () => {
    const r = await runCli(['nosuchcmd'])
    expect(r.code).toBe(2)
    const lines = expectOneLineError(r.stderr)
    expect(lines[1]).not.toContain('did you mean')
    expect(lines[1]).toContain('clawkit --help')
  })

  it('under --json (flag or CLAWKIT_CONTENT_TYPE) the envelope is on stdout, for a typo and for a name close to nothing', async () => {
    for (const args of [['doctr', '--json'], ['nosuchcmd', '--json']]) {
      const r = await runCli(args)
      expect(r.code).toBe(2)
      expect(r.stderr).toBe('')
      const error = jsonError(r)
      expect(error).toMatchObject({code: 'E_UNKNOWN_COMMAND', exitCode: 2})
      expect(error.message).toBe(`Unknown command "${args[0]}".`)
    }
    expect(jsonError(await runCli(['doctr', '--json'])).suggestions![0]).toContain('did you mean "clawkit doctor"?')
    const env = await runCli(['doctr'], {env: {...process.env, HOME: '/nonexistent', CLAWKIT_CONTENT_TYPE: 'json'}})
    expect(jsonError(env).code).toBe('E_UNKNOWN_COMMAND')
  })
})

describe('unknown flags', () => {
  it('print one line and a did-you-mean of the closest flag, not 22 lines of usage', async () => {
    const state = copyFixture(TWO_AGENTS)
    for (const [flag, near] of [
      ['--all-agent', '--all-agents'],
      ['--jsn', '--json'],
      ['--stat-dir', '--state-dir'],
    ]) {
      const r = await runCli(['sessions', 'list', flag, '--state-dir', state])
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      const lines = expectOneLineError(r.stderr)
      expect(lines[0]).toBe(`Error: Unknown flag ${flag} for "clawkit sessions list".`)
      expect(lines[1]).toContain(`did you mean ${near}?`)
    }
  })

  it('under --json the unknown flag is an envelope on stdout with exit 2', async () => {
    const r = await runCli(['sessions', 'history', 'main', '--lmit', '3', '--json'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('')
    expect(jsonError(r)).toMatchObject({code: 'E_UNKNOWN_FLAG', exitCode: 2, message: 'Unknown flag --lmit for "clawkit sessions history".'})
    expect(jsonError(r).suggestions![0]).toContain('did you mean --limit?')
  })
})

describe('flag validation is clawkit\'s in every command', () => {
  it('--limit 0 is reported in the same words, code and exit code by `sessions list` and `sessions history`', async () => {
    const state = copyFixture(TWO_AGENTS)
    const list = await runCli(['sessions', 'list', '--limit', '0', '--state-dir', state])
    const history = await runCli(['sessions', 'history', 'main', '--limit', '0', '--state-dir', state])
    for (const r of [list, history]) {
      expect(r.code).toBe(2)
      expectOneLineError(r.stderr)
      expect(r.stderr).toMatch(/^Error: --limit must be a positive integer(?: or "all")?, for example --limit \d+\.\n$/)
    }
    const listError = jsonError(await runCli(['sessions', 'list', '--limit', '0', '--json', '--state-dir', state]))
    const historyError = jsonError(await runCli(['sessions', 'history', 'main', '--limit', 'x', '--json', '--state-dir', state]))
    expect(listError).toMatchObject({code: 'E_BAD_LIMIT', exitCode: 2})
    expect(historyError).toMatchObject({code: 'E_BAD_LIMIT', exitCode: 2})
  })

  it('history still takes a valid --limit', async () => {
    const state = copyFixture(TWO_AGENTS)
    const r = await runCli(['sessions', 'history', 'main', '--limit', '1', '--json', '--state-dir', state])
    expect(r.code).toBe(0)
    expect(json(r).limit).toBe(1)
  })
})

describe('every error is one line plus at most one hint', () => {
  it('oclif\'s parse errors (missing flag, missing value, extra argument, bad option) and clawkit\'s own', async () => {
    const state = copyFixture(TWO_AGENTS)
    const cases: string[][] = [
      ['message', 'send', '-m', 'hi'],
      ['agent', '--timeout'],
      ['sessions', 'history', 'a', 'b'],
      ['autocomplete', 'fish'],
      ['sessions', 'history', 'agent:main:nope', '--state-dir', state],
      ['sessions', 'list', '--agent', 'x', '--all-agents', '--state-dir', state],
      ['--jsn'],
    ]
    for (const args of cases) {
      const r = await runCli(args)
      expect(r.code, args.join(' ')).not.toBe(0)
      expect(r.stdout, args.join(' ')).toBe('')
      expectOneLineError(r.stderr)
      expect(r.stderr).not.toMatch(/USAGE|See more help|\n\s+at /)
    }
    expect((await runCli(cases[0])).stderr).toContain('Error: Missing required flag --target')
    expect((await runCli(['--jsn'])).stderr).toContain('Error: Unknown flag --jsn before any command.')
  })

  it('and under --json each of them is one envelope on stdout with the exit code of the text run', async () => {
    for (const args of [
      ['message', 'send', '-m', 'hi', '--json'],
      ['agent', '--json', '--timeout'],
      ['sessions', 'history', 'a', 'b', '--json'],
    ]) {
      const r = await runCli(args)
      expect(r.code).toBe(2)
      expect(jsonError(r).exitCode).toBe(2)
      expect(jsonError(r).message).not.toContain('\n')
    }
  })
})
