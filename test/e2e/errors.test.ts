// Every error, whoever raises it (oclif's lookup and parser, or clawkit), is one line plus at most one hint, and the
// JSON envelope on stdout under --json.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {copyFixture, json, jsonError, ROOT, runCli, TWO_AGENTS} from '../support/cli.js'

/** The commands as oclif knows them (the committed manifest): id, hidden, args, flags with their one-letter forms. */
const MANIFEST = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {hidden?: boolean; args: Record<string, unknown>; flags: Record<string, {char?: string}>}>
}

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

describe('stray arguments', () => {
  it('a word after a command that takes none is "Unexpected argument", not an unknown command, for every such command', async () => {
    const ids = Object.keys(MANIFEST.commands)
    // Leaf commands without arguments: oclif's lookup joins the stray word into the command id.
    const leaves = ids.filter((id) => !MANIFEST.commands[id].hidden && Object.keys(MANIFEST.commands[id].args).length === 0 && !ids.some((o) => o.startsWith(`${id}:`)))
    expect(leaves).toEqual(expect.arrayContaining(['sessions:list', 'status', 'doctor', 'agent', 'store:info']))
    for (const id of leaves) {
      const words = id.split(':')
      const r = await runCli([...words, 'extra-arg'])
      expect(r.code, id).toBe(2)
      expect(r.stdout, id).toBe('')
      const lines = expectOneLineError(r.stderr)
      expect(lines[0], id).toBe('Error: Unexpected argument: extra-arg')
      if (id !== 'agent') expect(lines[1], id).toBe(`  hint: run "clawkit ${words.join(' ')} --help" for its flags and arguments.`)
    }
  })

  it('flags before or after the stray words change nothing; several are named together; --json gives the envelope', async () => {
    const after = await runCli(['sessions', 'list', 'a', 'b', '--limit', '3'])
    expect(after.stderr).toBe('Error: Unexpected arguments: a, b\n  hint: run "clawkit sessions list --help" for its flags and arguments.\n')
    // After a flag, oclif's parser finds the word itself: the same words.
    const before = await runCli(['sessions', 'list', '--limit', '3', 'a', 'b'])
    expect(before.stderr).toBe(after.stderr)
    for (const args of [['sessions', 'list', 'extra-arg', '--json'], ['sessions', 'list', '--json', 'extra-arg'], ['sessions', 'history', 'main', 'extra-arg', '--json']]) {
      const r = await runCli(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(jsonError(r), args.join(' ')).toMatchObject({code: 'E_USAGE', exitCode: 2, message: 'Unexpected argument: extra-arg'})
    }
  })

  it('agent without -m (or -m without quotes) says the message goes in -m, with the command that sends what was typed', async () => {
    const hint = (m: string) => `  hint: the message is one argument of -m, in quotes: clawkit agent -m "${m}"`
    const cases: [string[], string, string][] = [
      [['agent', 'hello'], 'Unexpected argument: hello', hint('hello')],
      [['agent', 'hello', 'world'], 'Unexpected arguments: hello, world', hint('hello world')],
      [['agent', '-m', 'hello', 'world'], 'Unexpected argument: world', hint('hello world')],
      [['agent', '--agent', 'main', 'hello'], 'Unexpected argument: hello', hint('hello')],
    ]
    for (const [args, error, h] of cases) {
      const r = await runCli(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr, args.join(' ')).toBe(`Error: ${error}\n${h}\n`)
    }
  })

  it('a word after a topic command that has subcommands is still a misspelt subcommand', async () => {
    const r = await runCli(['sessions', 'lst'])
    expect(expectOneLineError(r.stderr)).toEqual(['Error: Unknown command "sessions lst".', '  hint: did you mean "clawkit sessions list"? Run "clawkit --help" for the commands.'])
  })
})

describe('-h', () => {
  it('is --help, as git, gh and rg users expect: for a command, a topic command, a subcommand, among flags; no command gives -h another meaning', async () => {
    for (const [id, c] of Object.entries(MANIFEST.commands)) {
      for (const [name, flag] of Object.entries(c.flags)) expect(flag.char, `${id} --${name}`).not.toBe('h')
    }
    // oclif takes -h (package.json additionalHelpFlags) before it looks the command up, as it takes --help: one sample of
    // each shape (a command, a topic's command, a subcommand with an argument, one with a one-letter flag) stands for all.
    for (const words of [['status'], ['sessions'], ['sessions', 'history'], ['agent']]) {
      const [short, long] = await Promise.all([runCli([...words, '-h']), runCli([...words, '--help'])])
      expect(short.code, words.join(' ')).toBe(0)
      expect(short.stderr, words.join(' ')).toBe('')
      expect(short.stdout, words.join(' ')).toBe(long.stdout)
      expect(short.stdout, words.join(' ')).toContain(`$ clawkit ${words.join(' ')} `)
    }
    const root = await runCli(['-h'])
    expect(root.code).toBe(0)
    expect(root.stdout).toBe((await runCli(['--help'])).stdout)
    // Among a command's flags, as --help is.
    expect((await runCli(['sessions', 'list', '--limit', '3', '-h'])).stdout).toBe((await runCli(['sessions', 'list', '--help'])).stdout)
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
