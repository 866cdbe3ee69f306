// Byte-for-byte goldens of every read command on the real OpenClaw fixtures, recorded before the store refactor
// (issue 15) so that a change of behaviour there cannot pass unnoticed.
//
// The goldens live in test/goldens/<fixture>/<case>.txt. They are only ever rewritten on purpose:
//
//   UPDATE_GOLDENS=1 npx vitest run test/cli-goldens.test.ts
//
// and the diff is then reviewed like code. Without UPDATE_GOLDENS a missing golden fails the test (it is never
// recorded silently). Only what legitimately differs between two runs is normalised: the temp dir of the fixture
// copy, the relative ages and `ageMs` (they depend on the clock), the time in a dry-run's archive name, and the port
// of the gateway probe (a free port picked per run, so that no listener on 127.0.0.1 changes the outcome).
import fs from 'node:fs'
import path from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import {baseEnv, COMPACTION, copyFixture, ROOT, runCli, tempDir, TWO_AGENTS} from './support/cli.js'
import {freePort} from './support/net.js'

const GOLDENS = path.join(ROOT, 'test', 'goldens')
const UPDATE = process.env.UPDATE_GOLDENS === '1'

/** Every read command worth pinning, per fixture (the keys are the sessions each fixture holds). */
const CASES: Record<string, {keys: {key: string; agent?: string}[]}> = {
  [TWO_AGENTS]: {keys: [{key: 'agent:main:main'}, {key: 'agent:work:main', agent: 'work'}]},
  [COMPACTION]: {keys: [{key: 'agent:main:main'}, {key: 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001'}]},
}

function commandsFor(fixture: string): string[][] {
  const cmds: string[][] = [
    ['sessions', 'list'],
    ['sessions', 'list', '--json'],
    ['sessions', 'list', '--all-agents'],
    ['sessions', 'list', '--all-agents', '--json'],
    ['status'],
    ['status', '--json'],
    ['doctor'],
    ['doctor', '--json'],
  ]
  for (const {key, agent} of CASES[fixture].keys) {
    const a = agent ? ['--agent', agent] : []
    for (const limit of [[], ['--limit', '2']]) {
      cmds.push(['sessions', 'history', key, ...a, ...limit], ['sessions', 'history', key, ...a, '--json', ...limit], ['sessions', 'history', key, ...a, '--raw', ...limit], ['sessions', 'history', key, ...a, '--raw', '--json', ...limit])
    }
    cmds.push(['sessions', 'reset', key, ...a, '--dry-run'], ['sessions', 'reset', key, ...a, '--dry-run', '--json'])
  }
  return cmds
}

function caseName(args: string[]): string {
  return args.join(' ').replace(/^--/, '').replace(/[^a-z0-9.-]+/gi, '_').replace(/_+/g, '_')
}

const AGE = /(?:\d+[mhd] ago|just now)( *)/g

export function normalise(text: string, dirs: {state: string; home: string}, port: number): string {
  let out = text
  // Longest first: the state dir lives inside the temp dir, and the real path may differ from the given one.
  for (const [dir, name] of [
    [fs.realpathSync(dirs.state), '<STATE>'],
    [dirs.state, '<STATE>'],
    [fs.realpathSync(dirs.home), '<HOME>'],
    [dirs.home, '<HOME>'],
  ] as const) {
    out = out.split(dir).join(name)
  }
  // In a table the age sits in a fixed-width column: keep the column's width, whatever the age's length.
  out = out.replace(AGE, (m, spaces: string) => (spaces.length >= 2 ? '<age>'.padEnd(m.length) : `<age>${spaces}`))
  out = out.replace(/"(age|ageMs|lastActiveAgeMs)": \d+/g, '"$1": "<ms>"')
  out = out.replace(/\.reset\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z/g, '.reset.<time>')
  out = out.split(`:${port}`).join(':<port>').replace(new RegExp(`"port": ${port}\\b`, 'g'), '"port": "<port>"')
  // The catalog line depends on the runtime (none on Node 20, a file on Node 22.15+) and on the data dir, not on the store.
  out = out.replace(/^(Catalog\s+).*$/m, '$1<catalog>').replace(/"catalog": \{[^}]*\}/, '"catalog": "<catalog>"')
  return out
}

describe.each(Object.keys(CASES))('CLI goldens on %s (no behaviour change across the store refactor)', (fixture) => {
  let state: string
  let home: string
  let port: number
  beforeAll(async () => {
    home = tempDir()
    state = copyFixture(fixture, path.join(home, 'state'))
    port = await freePort()
  })

  it.each(commandsFor(fixture).map((args) => [caseName(args), args] as const))('%s', async (name, args) => {
    const env = baseEnv(home, {TZ: 'UTC', NO_COLOR: '1', FORCE_COLOR: undefined, COLUMNS: undefined, LINES: undefined, OPENCLAW_GATEWAY_PORT: String(port), LANG: 'C', LC_ALL: 'C'})
    const r = await runCli([...args, '--state-dir', state], {env, cwd: home})
    const actual = normalise(`$ clawkit ${args.join(' ')}\nexit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`, {state, home}, port)
    const file = path.join(GOLDENS, fixture, `${name}.txt`)
    if (UPDATE) {
      fs.mkdirSync(path.dirname(file), {recursive: true})
      fs.writeFileSync(file, actual)
      return
    }
    if (!fs.existsSync(file)) throw new Error(`No golden ${path.relative(ROOT, file)}: record it with UPDATE_GOLDENS=1 and review the diff.`)
    expect(actual).toBe(fs.readFileSync(file, 'utf8'))
  })
})
