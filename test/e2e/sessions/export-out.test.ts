// Where `sessions export --out` cannot write: the error names the file asked for and why (a directory that does not
// exist, a path through a file), says nothing was written, and never names the temp file the export is staged in.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, jsonError, runCli, tempDir, TWO_AGENTS} from '../../support/cli.js'

const run = (state: string, args: string[]) => runCli(['sessions', 'export', 'main', ...args, '--state-dir', state], {env: baseEnv(tempDir())})

describe('sessions export --out into a place that cannot hold it', () => {
  it('a directory that does not exist: exit 2, "the directory ... does not exist", for a write, without the temp file', async () => {
    const state = copyFixture(TWO_AGENTS)
    const parent = path.join(tempDir(), 'nodir')
    const out = path.join(parent, 'x.md')
    const r = await run(state, ['--out', out])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe(`Error: Cannot write ${out}: the directory ${parent} does not exist. Nothing was written.`)
    expect(r.stderr).not.toMatch(/\.tmp|Cannot read/)
    expect(jsonError(await run(state, ['--out', out, '--json']))).toMatchObject({code: 'E_OUT_DIR_MISSING', exitCode: 2})
    expect(fs.existsSync(parent)).toBe(false)
  })

  it('--out naming a directory (trailing /) that does not exist, for one file per session: the same error for that directory', async () => {
    const state = copyFixture(TWO_AGENTS)
    const dir = path.join(tempDir(), 'nodir')
    const r = await run(state, ['--format', 'jsonl', '--include-archived', '--out', `${dir}/`])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe(`Error: Cannot write ${dir}/: the directory ${dir}/ does not exist. Nothing was written.`)
    expect(r.stderr).not.toMatch(/\.tmp|Cannot link/)
  })

  it('a path through a file: exit 2, "... is not a directory"', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = path.join(tempDir(), 'plain')
    fs.writeFileSync(file, 'x')
    const r = await run(state, ['--out', path.join(file, 'x.md')])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe(`Error: Cannot write ${path.join(file, 'x.md')}: ${file} is not a directory. Nothing was written.`)
  })

  it('a path inside the state dir (a live transcript with --force, through a link to the state dir, a new file in it): exit 2, E_EXPORT_OUT_INSIDE, every byte of the state dir unchanged', async () => {
    const state = copyFixture(TWO_AGENTS)
    const sessions = path.join(state, 'agents', 'main', 'sessions')
    const live = path.join(sessions, fs.readdirSync(sessions).find((n) => n.endsWith('.jsonl'))!)
    const before = fs.readFileSync(live)
    const link = path.join(tempDir(), 'link-to-state')
    fs.symlinkSync(state, link)
    const names = () => fs.readdirSync(sessions).sort()
    const listed = names()
    for (const [out, extra] of [[live, ['--format', 'jsonl', '--force']], [path.join(link, 'agents', 'main', 'sessions', 'x.md'), []], [path.join(state, 'export.md'), []]] as const) {
      const r = await run(state, ['--out', out, ...extra, '--json'])
      expect(r.code, out).toBe(2)
      expect(jsonError(r)).toMatchObject({code: 'E_EXPORT_OUT_INSIDE'})
    }
    expect(fs.readFileSync(live).equals(before)).toBe(true)
    expect(names()).toEqual(listed)
    expect(fs.existsSync(path.join(state, 'export.md'))).toBe(false)
  })
})
