// The bridge between the eras against real OpenClaw: `clawkit store export` of a 2026.9.6 SQLite store is a JSON-era
// state dir that OpenClaw 2026.4.27 lists and continues; and 2026.9.6's own import of such an export verifies clean.
// Skipped unless the interop installs are given (scripts/interop.sh; see RELIABILITY.md):
//   CLAWKIT_INTEROP_NODE       a Node 24 binary (runs OpenClaw and, for node:sqlite, clawkit)
//   CLAWKIT_INTEROP_OPENCLAW   openclaw.mjs of openclaw@2026.4.27
//   CLAWKIT_INTEROP_OPENCLAW96 openclaw.mjs of openclaw@2026.9.6 (the import chain only)
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, BIN, copyFixture, ROOT, type RunResult, runProcess, tempDir} from '../support/cli.js'
import {IMPORTED_96, NATIVE_96} from '../support/sqlite.js'
import {openclawEnv, shareCachedPluginRuntime, startMockProcess} from './support/interop.js'

const NODE = process.env.CLAWKIT_INTEROP_NODE
const OPENCLAW = process.env.CLAWKIT_INTEROP_OPENCLAW
const OPENCLAW96 = process.env.CLAWKIT_INTEROP_OPENCLAW96
const enabled = Boolean(NODE && OPENCLAW && fs.existsSync(OPENCLAW))
const enabled96 = Boolean(NODE && OPENCLAW96 && fs.existsSync(OPENCLAW96))

function run(bin: string, args: string[], env: Record<string, string>, cwd: string): Promise<RunResult> {
  return runProcess(NODE!, [bin, ...args], {env, cwd, timeoutMs: 300_000})
}

const openclaw = (entry: string, args: string[], stateDir: string, home: string) => run(entry, args, openclawEnv(home, stateDir), home)
/** clawkit on the interop Node 24: the export reads node:sqlite, which the test runner's Node may lack. */
const clawkit = (args: string[], home: string) => run(BIN, args, baseEnv(home), ROOT)

function openclawJson(r: RunResult): any {
  const start = r.stdout.indexOf('{')
  if (r.code !== 0 || start < 0) throw new Error(`openclaw failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`)
  return JSON.parse(r.stdout.slice(start))
}

function clawkitJson(r: RunResult): any {
  if (r.code !== 0) throw new Error(`clawkit failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`)
  return JSON.parse(r.stdout)
}

/** What 2026.4.27 must list for each exported entry: the same key, sessionId and token figures. */
function expectedRows(out: string, agents: string[]): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = []
  for (const agent of agents) {
    const index = JSON.parse(fs.readFileSync(path.join(out, 'agents', agent, 'sessions', 'sessions.json'), 'utf8'))
    for (const [key, e] of Object.entries<any>(index)) rows.push({key, sessionId: e.sessionId, inputTokens: e.inputTokens, outputTokens: e.outputTokens, totalTokens: e.totalTokens})
  }
  return rows.sort((a, b) => String(a.key).localeCompare(String(b.key)))
}

const listed = (doc: {sessions: any[]}) =>
  doc.sessions.map((s) => ({key: s.key, sessionId: s.sessionId, inputTokens: s.inputTokens, outputTokens: s.outputTokens, totalTokens: s.totalTokens})).sort((a, b) => a.key.localeCompare(b.key))

const AGENTS: Record<string, string[]> = {[NATIVE_96]: ['main'], [IMPORTED_96]: ['main', 'work']}

describe.skipIf(!enabled)('store export: real OpenClaw 2026.4.27 on the exported JSON-era state dir', () => {
  for (const fixture of [NATIVE_96, IMPORTED_96]) {
    it(`${fixture}: 2026.4.27 lists the export with the same keys, sessionIds and token figures as the database entries, and so does clawkit`, async () => {
      const home = tempDir()
      const out = path.join(tempDir(), 'export')
      const doc = clawkitJson(await clawkit(['store', 'export', '--out', out, '--json', '--state-dir', copyFixture(fixture)], home))
      if (fixture === IMPORTED_96) expect(doc.configChanges).toContain('agents.entries rewritten as agents.list')
      const expected = expectedRows(out, AGENTS[fixture])
      expect(expected.length).toBeGreaterThan(0)
      const oc = openclawJson(await openclaw(OPENCLAW!, ['sessions', '--all-agents', '--json'], out, home))
      expect(listed(oc)).toEqual(expected)
      const ck = clawkitJson(await clawkit(['sessions', 'list', '--all-agents', '--json', '--state-dir', out], home))
      expect(listed(ck)).toEqual(expected)
    }, 300_000)
  }

  it('2026.4.27 continues an exported session with agent --local: the model gets the exported history, the new turn chains onto the last exported entry', async () => {
    const home = tempDir()
    const out = path.join(tempDir(), 'export')
    const requests = path.join(home, 'requests.jsonl')
    clawkitJson(await clawkit(['store', 'export', '--out', out, '--json', '--state-dir', copyFixture(NATIVE_96)], home))
    const {mock, port} = await startMockProcess(requests)
    try {
      const cfgPath = path.join(out, 'openclaw.json')
      const cfg = JSON.parse(fs.readFileSync(cfgPath, 'utf8'))
      cfg.models.providers.mockant.baseUrl = `http://127.0.0.1:${port}`
      fs.writeFileSync(cfgPath, JSON.stringify(cfg, null, 2))
      shareCachedPluginRuntime(out)
      const sid = 'c0ffee00-0000-4000-8000-000000000096'
      const file = path.join(out, 'agents', 'main', 'sessions', `${sid}.jsonl`)
      const before = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      const userTexts = before.filter((e) => e.type === 'message' && e.message.role === 'user').map((e) => (typeof e.message.content === 'string' ? e.message.content : e.message.content.map((b: any) => b.text ?? '').join(' ')))
      expect(userTexts.length).toBeGreaterThan(0)
      const turn = await openclaw(OPENCLAW!, ['agent', '--local', '--session-id', sid, '-m', 'continued by 2026.4.27', '--json'], out, home)
      expect(turn.code, turn.stderr.slice(-2000)).toBe(0)
      const sent = JSON.stringify(JSON.parse(fs.readFileSync(requests, 'utf8').trim().split('\n').at(-1)!).body.messages)
      let at = -1
      for (const t of [...userTexts, 'continued by 2026.4.27']) {
        const i = sent.indexOf(JSON.stringify(t).slice(1, -1), at + 1)
        expect(i, `"${t}" after the earlier history`).toBeGreaterThan(at)
        at = i
      }
      const after = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      expect(after.slice(0, before.length)).toEqual(before)
      const added = after.slice(before.length)
      expect(added.length).toBeGreaterThan(0)
      const ids = new Set(after.map((e) => e.id))
      expect(added.filter((e) => e.parentId !== null && !ids.has(e.parentId))).toEqual([])
      expect(added.some((e) => e.parentId === before.at(-1).id)).toBe(true)
      const oc = openclawJson(await openclaw(OPENCLAW!, ['sessions', '--all-agents', '--json'], out, home))
      expect(oc.sessions.find((s: {key: string}) => s.key === `agent:main:explicit:${sid}`)).toMatchObject({sessionId: sid})
    } finally {
      mock.kill()
    }
  }, 600_000)
})

describe.skipIf(!enabled96)('store verify: export, import by real OpenClaw 2026.9.6 (doctor --fix), verify', () => {
  for (const fixture of [NATIVE_96, IMPORTED_96]) {
    it(`${fixture} exported, imported by 2026.9.6 doctor --fix --non-interactive, verifies with 0 differences`, async () => {
      const home = tempDir()
      const out = path.join(tempDir(), 'export')
      const exported = clawkitJson(await clawkit(['store', 'export', '--out', out, '--json', '--state-dir', copyFixture(fixture)], home))
      const doctor = await openclaw(OPENCLAW96!, ['doctor', '--fix', '--non-interactive'], out, home)
      expect(doctor.code, doctor.stdout.slice(-2000) + doctor.stderr.slice(-2000)).toBe(0)
      for (const agent of AGENTS[fixture]) expect(fs.existsSync(path.join(out, 'agents', agent, 'agent', 'openclaw-agent.sqlite'))).toBe(true)
      const r = await clawkit(['store', 'verify', '--json', '--state-dir', out], home)
      expect(r.code, r.stdout).toBe(0)
      const doc = JSON.parse(r.stdout)
      expect(doc).toMatchObject({ok: true, differences: 0})
      expect(doc.runs.map((x: {status: string}) => x.status)).toEqual(['completed'])
      const sessions = exported.agents.flatMap((a: {sessions: any[]}) => a.sessions)
      expect(doc.transcripts.map((t: {sessionId: string}) => t.sessionId).sort()).toEqual(sessions.map((s: {sessionId: string}) => s.sessionId).sort())
      for (const t of doc.transcripts) {
        const events = sessions.find((s: {sessionId: string}) => s.sessionId === t.sessionId).transcript.events
        expect(t).toMatchObject({status: 'ok', archiveEvents: events, dbEvents: events, pairedEvents: events})
      }
      expect(doc.stores.map((x: {agentId: string; status: string}) => `${x.agentId} ${x.status}`).sort()).toEqual(AGENTS[fixture].map((a) => `${a} ok`))
    }, 600_000)
  }
})
