// Side by side with a real OpenClaw 2026.9.6 on SQLite-era stores: `clawkit sessions list --json` prints the rows
// `openclaw sessions --json --limit all` prints, field by field and in the same order (ageMs aside), on copies of both
// fixtures and on a database with rows of every kind. Skipped unless CLAWKIT_INTEROP_OPENCLAW96 (the 2026.9.6 entry
// point) and CLAWKIT_INTEROP_NODE (a Node 24) are set, as scripts/interop.sh does for interop.test.ts.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import JSON5 from 'json5'
import {describe, expect, it} from 'vitest'

import {baseEnv, BIN, copyFixture, ROOT, type RunResult, tempDir} from '../support/cli.js'
import {IMPORTED_96, NATIVE_96} from '../support/sqlite.js'
import {dbPath} from '../support/sqlite-expect.js'

const NODE = process.env.CLAWKIT_INTEROP_NODE
const OPENCLAW = process.env.CLAWKIT_INTEROP_OPENCLAW96
const enabled = Boolean(NODE && OPENCLAW && fs.existsSync(OPENCLAW) && fs.existsSync(NODE))

function run(cmd: string[], env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const c = spawn(NODE!, cmd, {env, cwd: env.HOME, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    c.stdout.setEncoding('utf8').on('data', (d) => (stdout += d))
    c.stderr.setEncoding('utf8').on('data', (d) => (stderr += d))
    const timer = setTimeout(() => c.kill('SIGKILL'), 180_000)
    c.on('error', reject)
    c.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({code, signal, stdout, stderr})
    })
  })
}

/** OpenClaw prints logs around its JSON; take the one top-level document. */
function docOf(r: RunResult, who: string): any {
  const start = r.stdout.indexOf('{')
  if (r.code !== 0 || start < 0) throw new Error(`${who} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`)
  return JSON.parse(r.stdout.slice(start))
}

/** A fixture copy whose workspaces are inside it: OpenClaw creates them, and must not create /home/user/... */
function state(fixture: string): string {
  const dir = copyFixture(fixture)
  const cfgPath = path.join(dir, 'openclaw.json')
  const cfg = JSON5.parse(fs.readFileSync(cfgPath, 'utf8'))
  const ws = (name: string) => path.join(dir, name)
  if (cfg.agents?.defaults?.workspace) cfg.agents.defaults.workspace = ws('workspace')
  for (const [id, e] of Object.entries<any>(cfg.agents?.entries ?? {})) if (e.workspace) e.workspace = ws(`workspace-${id}`)
  for (const e of cfg.agents?.list ?? []) if (e.workspace) e.workspace = ws(`workspace-${e.id}`)
  fs.writeFileSync(cfgPath, JSON.stringify(cfg, null, 2))
  return dir
}

async function both(dir: string, args: string[]): Promise<{oc: any; ck: any}> {
  const home = tempDir()
  const env = {...baseEnv(home), OPENCLAW_STATE_DIR: dir, NO_COLOR: '1'}
  const oc = docOf(await run([OPENCLAW!, 'sessions', '--json', '--limit', 'all', ...args], env), 'openclaw')
  const ck = docOf(await run([BIN, 'sessions', 'list', '--json', ...args, '--state-dir', dir], baseEnv(home)), 'clawkit')
  return {oc, ck}
}

/** The documents agree: top-level fields (clawkit's default limit is all) and every row, field by field, in order. */
function expectSame(oc: any, ck: any): void {
  for (const k of ['path', 'stores', 'allAgents', 'count', 'totalCount', 'limitApplied', 'hasMore', 'activeMinutes']) expect(ck[k], k).toEqual(oc[k])
  expect(ck.sessions.length).toBe(oc.sessions.length)
  for (const [i, row] of oc.sessions.entries()) {
    const {ageMs: a, ...want} = row
    const {ageMs: b, ...got} = ck.sessions[i]
    expect(Object.keys(got), want.key).toEqual(Object.keys(want))
    expect(got, want.key).toEqual(want)
    expect(typeof b).toBe(typeof a)
  }
}

describe.skipIf(!enabled)('interop with OpenClaw 2026.9.6: sessions list on SQLite-era stores', () => {
  for (const [fixture, cases] of [
    [NATIVE_96, [[], ['--all-agents'], ['--limit', '1']]],
    [IMPORTED_96, [['--all-agents'], ['--agent', 'work'], ['--all-agents', '--active', '600'], ['--all-agents', '--limit', '1']]],
  ] as const) {
    for (const args of cases) {
      it(`${fixture} ${args.join(' ') || '(default agent)'}: the same rows and counts`, async () => {
        const dir = state(fixture)
        const {oc, ck} = await both(dir, [...args])
        expect(oc.sessions.length).toBeGreaterThan(0)
        expectSame(oc, ck)
      })
    }
  }

  it('rows of every kind (cron, spawn-child, group, owner, visibility, runtime override, fork) and skipped rows', async () => {
    const dir = state(NATIVE_96)
    // Written with the Node 24 runtime (this process may be Node 20, without node:sqlite).
    const script = `import(${JSON.stringify(path.join(ROOT, 'test', 'support', 'sqlite-expect.ts'))}).then((m) => m.addVarietyRows(${JSON.stringify(dbPath(dir, 'main'))}, 'main', ${Date.now() - 60_000}))`
    const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs')
    const w = await run([tsx, '-e', script], baseEnv(tempDir()))
    expect(w.code, w.stderr).toBe(0)
    const {oc, ck} = await both(dir, [])
    expect(oc.sessions.map((r: any) => r.kind).sort()).toEqual(['cron', 'direct', 'direct', 'direct', 'group', 'spawn-child'])
    expectSame(oc, ck)
  })
})
