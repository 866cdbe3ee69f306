// Every command, not a chosen few: a state dir the user named that does not exist is exit 2 with `State directory not
// found`, never an empty answer ("0 transcripts", "$0.0000"). The list of commands comes from the manifest, so a new
// command is covered the day it is added.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, json, jsonError, ROOT, runCli, tempDir} from '../support/cli.js'

/** What each command needs besides the state dir to get as far as reading it (a required argument or flag). */
const NEEDS: Record<string, string[]> = {
  agent: ['-m', 'hi'],
  'message:send': ['--channel', 'webhook', '-t', 'http://127.0.0.1:9/hook', '-m', 'hi'],
  'sessions:history': ['main'],
  'sessions:reset': ['main'],
  'sessions:archive': ['main'],
  'sessions:delete': ['agent:main:scratch'],
  'sessions:restore': ['main'],
  'sessions:lineage': ['main'],
  'sessions:export': ['main'],
  'sessions:search': ['hello'],
  // Port 9 (discard): were the state dir not checked first, the run would fail on the connection instead.
  sync: ['--to', 'postgres://nobody@127.0.0.1:9/fleet'],
}

/** oclif's own commands (no state dir) and doctor, whose job is to report a missing one (its `state-dir-missing`). */
const NOT_STATE_READERS = new Set(['help', 'autocomplete', 'doctor'])

function commandIds(): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {hidden?: boolean}>}
  return Object.entries(manifest.commands)
    .filter(([id, c]) => !c.hidden && !NOT_STATE_READERS.has(id))
    .map(([id]) => id)
}

describe('a named state dir that does not exist, for every command', () => {
  it('--state-dir: exit 2, E_STATE_DIR_NOT_FOUND naming the path, and nothing created (store export writes no --out)', async () => {
    const missing = path.join(tempDir(), 'nonexistent')
    const out = path.join(tempDir(), 'out')
    const env = baseEnv(tempDir())
    const ids = commandIds()
    expect(ids).toEqual(expect.arrayContaining(['sessions:search', 'sessions:usage', 'status', 'store:export', 'sync']))
    for (const id of ids) {
      // The two exports need --out (sessions export prints itself on stdout without it, so --json would be refused).
      const outFlag = id === 'store:export' ? ['--out', out] : id === 'sessions:export' ? ['--out', path.join(out, 'x.md')] : []
      const args = [...id.split(':'), ...(NEEDS[id] ?? []), ...outFlag, '--state-dir', missing, '--json']
      const r = await runCli(args, {env})
      expect(r.code, `${id}: ${r.stdout}${r.stderr}`).toBe(2)
      expect(jsonError(r), id).toMatchObject({code: 'E_STATE_DIR_NOT_FOUND', exitCode: 2})
      expect(jsonError(r).message, id).toContain(`State directory not found: ${missing}`)
    }
    expect(fs.existsSync(missing)).toBe(false)
    expect(fs.existsSync(out)).toBe(false)
  })

  it('sessions search and sessions usage through OPENCLAW_STATE_DIR: the error, not "No match ... in 0 transcripts" or a $0.0000 total', async () => {
    const missing = path.join(tempDir(), 'nonexistent')
    const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: missing})
    for (const args of [['sessions', 'search', 'hello'], ['sessions', 'usage']]) {
      const r = await runCli(args, {env})
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stdout, args.join(' ')).toBe('')
      expect(r.stderr).toContain(`State directory not found: ${missing} (from OPENCLAW_STATE_DIR)`)
    }
  })

  it('doctor reports it as its state-dir-missing finding (exit 4) instead: checking the state dir is its job', async () => {
    const missing = path.join(tempDir(), 'nonexistent')
    const r = await runCli(['doctor', '--state-dir', missing, '--json'], {env: baseEnv(tempDir())})
    expect(r.code).toBe(4)
    expect(json(r).findings.map((f) => f.id)).toContain('state-dir-missing')
  })
})
