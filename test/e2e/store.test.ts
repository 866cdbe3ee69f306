// `clawkit store` where no node:sqlite is needed (JSON-era state dirs, usage errors), and the one-line refusal of a Node
// without node:sqlite when a command meets a SQLite store. The SQLite side is in store.sqlite.test.ts.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, type DocOf, json, runCli, type RunResult, tempDir, TWO_AGENTS} from '../support/cli.js'
import {IMPORTED_96, SQLITE_OK} from '../support/sqlite.js'

const store = <const A extends readonly string[]>(args: A, state: string) => runCli(['store', ...args, '--state-dir', state] as readonly string[], {env: baseEnv(tempDir())}) as Promise<RunResult<DocOf<readonly ['store', ...A]>>>

describe('store on a JSON-era state dir', () => {
  it('info: both agents are in the JSON era, with no database, and their legacy files listed', async () => {
    const state = copyFixture(TWO_AGENTS)
    const r = await store(['info', '--json'], state)
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    for (const a of doc.agents) {
      expect(a).toMatchObject({era: 'json', db: null, dbError: null, legacyLeftovers: [], importArchive: null, migrationRuns: []})
      expect(a.legacyFiles[0]).toBe(path.join(state, 'agents', a.agentId, 'sessions', 'sessions.json'))
    }
    expect(doc.migrationRuns).toEqual([])
  })

  it('export with no SQLite store to export: exit 66 (nothing to work on), one line naming the agents, and nothing written', async () => {
    const state = copyFixture(TWO_AGENTS)
    const out = path.join(tempDir(), 'new', 'out')
    const r = await store(['export', '--out', out], state)
    expect(r.code).toBe(66)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^Error: Nothing to export from .*: no SQLite store \(main, work: JSON era, already in the form an export writes\)\. Nothing was written\./)
    expect(r.stderr.trim().split('\n')).toHaveLength(2)
    // Not even the config, nor the parent directories --out named: a run that exported nothing leaves nothing.
    expect(fs.existsSync(path.dirname(out))).toBe(false)
    const j = await store(['export', '--out', out, '--agent', 'work', '--json'], state)
    expect(j.code).toBe(66)
    expect(JSON.parse(j.stdout).error).toMatchObject({code: 'E_NOTHING_TO_EXPORT', exitCode: 66})
    expect(JSON.parse(j.stdout).error.message).toContain('(work: JSON era')
  })

  it('verify on a state dir OpenClaw never imported: one line, exit 66 (nothing to verify), not 1 (a failure)', async () => {
    const r = await store(['verify'], copyFixture(TWO_AGENTS))
    expect(r.code).toBe(66)
    expect(r.stderr).toMatch(/^Error: Nothing to verify in .*: no import archive/)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('export --agent with --all-agents is a usage error (exit 2), and --out is required', async () => {
    const state = copyFixture(TWO_AGENTS)
    expect((await store(['export', '--out', path.join(tempDir(), 'o'), '--agent', 'main', '--all-agents'], state)).code).toBe(2)
    const r = await store(['export'], state)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/Missing required flag --out/)
  })
})

describe.skipIf(SQLITE_OK)('store on a Node without node:sqlite', () => {
  for (const args of [['info'], ['export', '--out', 'OUT'], ['verify']]) {
    it(`store ${args[0]} on a SQLite-era state dir: one line naming Node 22.15, exit 1, nothing written`, async () => {
      const state = copyFixture(IMPORTED_96)
      const out = path.join(tempDir(), 'out')
      const r = await store(args.map((a) => (a === 'OUT' ? out : a)), state)
      expect(r.code).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/^Error: .*needs Node 22\.15 or later/)
      expect(r.stderr.trim().split('\n')).toHaveLength(2)
      expect(fs.existsSync(out)).toBe(false)
    })
  }
})
