// Shared by the interop files that drive a real OpenClaw 2026.9.6 (SQLite era) beside clawkit: the child runner, the
// fixture copies OpenClaw may write into, the listing comparison and the reading of what the model was sent.
// Enabled only when CLAWKIT_INTEROP_OPENCLAW96 (2026.9.6's openclaw.mjs) and CLAWKIT_INTEROP_NODE (a Node 24) are set,
// as scripts/interop.sh does.
import fs from 'node:fs'
import path from 'node:path'

import JSON5 from 'json5'
import {expect} from 'vitest'

import {baseEnv, BIN, copyFixture, ROOT, type RunResult, runProcess, tempDir} from '../../support/cli.js'
import {openclawEnv} from './interop.js'

export const NODE = process.env.CLAWKIT_INTEROP_NODE
export const OPENCLAW = process.env.CLAWKIT_INTEROP_OPENCLAW96
export const enabled96 = Boolean(NODE && OPENCLAW && fs.existsSync(OPENCLAW) && fs.existsSync(NODE))

/** A child with its output collected; killed after `timeoutMs` (OpenClaw turns take seconds, minutes under load). */
export function run(cmd: string, args: string[], env: Record<string, string>, cwd: string, timeoutMs = 240_000): Promise<RunResult> {
  return runProcess(cmd, args, {env, cwd, timeoutMs})
}

/** `openclaw <args>` (2026.9.6) on the Node 24, with OPENCLAW_STATE_DIR and a scratch HOME. */
export function openclaw(args: string[], state: string, home: string, timeoutMs?: number): Promise<RunResult> {
  return run(NODE!, [OPENCLAW!, ...args], openclawEnv(home, state), home, timeoutMs)
}

/** OpenClaw prints logs around its JSON; take the one top-level document. */
export function docOf(r: RunResult, who: string): any {
  const start = r.stdout.indexOf('{')
  if (r.code !== 0 || start < 0) throw new Error(`${who} failed (exit ${r.code}):\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`)
  return JSON.parse(r.stdout.slice(start))
}

/** A fixture copy whose workspaces are inside it: OpenClaw creates them, and must not create /home/user/... */
export function stateCopy(fixture: string): string {
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

export {openclawEnv, shareCachedPluginRuntime} from './interop.js'

/** `openclaw sessions --json --limit all <args>` and `clawkit sessions list --json <args>` on the same state dir. */
export async function both(dir: string, args: string[]): Promise<{oc: any; ck: any}> {
  const home = tempDir()
  const env = openclawEnv(home, dir)
  const oc = docOf(await run(NODE!, [OPENCLAW!, 'sessions', '--json', '--limit', 'all', ...args], env, home), 'openclaw')
  const ck = docOf(await run(NODE!, [BIN, 'sessions', 'list', '--json', ...args, '--state-dir', dir], baseEnv(home), home), 'clawkit')
  return {oc, ck}
}

/** The documents agree: top-level fields (clawkit's default limit is all) and every row, field by field, in order. */
export function expectSame(oc: any, ck: any): void {
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

const textOf = (m: any): string => (typeof m.content === 'string' ? m.content : (m.content ?? []).filter((b: any) => b.type === 'text').map((b: any) => b.text).join(' '))

/** A message text without OpenClaw's rendering (time prefix, bootstrap notice); see sentLines. */
export const cleanSent = (t: string): string => t.replace(/^\[[A-Z][a-z]{2} \d{4}-\d\d-\d\d \d\d:\d\d [A-Z]+\] /, '').replace(/^\[Bootstrap pending\]\n[\s\S]*?\n\n/, '').replace(/^\[[A-Z][a-z]{2} \d{4}-\d\d-\d\d \d\d:\d\d [A-Z]+\] /, '')

/**
 * What the model was sent in one Messages request body, as "role: text" lines. OpenClaw 2026.9.6 prefixes each user
 * message it sends with the time ("[Thu 2026-11-26 13:19 UTC] ") and its own turn with a "[Bootstrap pending]" notice
 * while the workspace's BOOTSTRAP.md is unfinished: both are its rendering, not stored text, so they are cut.
 */
export function sentLines(body: any): string[] {
  // Its per-turn runtime context (active exec sessions, subagents) travels as one more user message: not history.
  return body.messages.map((m: any) => `${m.role}: ${cleanSent(textOf(m))}`).filter((l: string) => !l.startsWith('user: <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>'))
}

/** Every event of a session, in seq order, decoded (zstd ones too), read by a Node 24 child. */
export async function events(db: string, sessionId: string): Promise<{seq: number; event: any}[]> {
  const script = `
    const {openAgentDb, eventText} = await import(${JSON.stringify(path.join(ROOT, 'dist/store/sqlite/driver.js'))})
    const h = openAgentDb(process.argv[1])
    const rows = h.db.prepare('SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? ORDER BY seq').all(process.argv[2])
    process.stdout.write(JSON.stringify(rows.map((r) => ({seq: r.seq, event: JSON.parse(eventText(r).text)}))))`
  const r = await run(NODE!, ['--input-type=module', '-e', script, db, sessionId], baseEnv(tempDir()), ROOT, 60_000)
  if (r.code !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout)
}

/** One unbroken parentId chain over the events after the header (each event's parent is the one before it). */
export function expectOneChain(evs: {seq: number; event: any}[]): void {
  const body = evs.filter((e) => e.event.type !== 'session')
  expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i))
  for (let i = 1; i < body.length; i++) expect(body[i].event.parentId, `seq ${body[i].seq} (${body[i].event.type})`).toBe(body[i - 1].event.id)
}
