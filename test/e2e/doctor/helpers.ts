// Helpers for doctor tests: run doctor on a state dir, and prove that no transcript line was lost by a repair.
import fs from 'node:fs'
import path from 'node:path'

import type {DoctorResult} from '../../../src/commands/doctor.js'
import {baseEnv, copyFixture, json, runCli, tempDir} from '../../support/cli.js'
import {sha256} from '../../support/state-files.js'

export async function doctor(state: string, flags: string[] = [], env?: Record<string, string>) {
  const r = await runCli(['doctor', '--json', '--state-dir', state, ...flags], {env: env ?? baseEnv(tempDir())})
  return {r, doc: json(r)}
}

export function ids(doc: DoctorResult, opts: {open?: boolean} = {}): string[] {
  return doc.findings.filter((f) => !opts.open || !f.fixed).map((f) => f.id).sort()
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name)
    const st = fs.lstatSync(p)
    if (st.isDirectory()) walk(p, out)
    else if (st.isFile()) out.push(p)
  }
  return out
}

function lineHashes(file: string): string[] {
  const buf = fs.readFileSync(file)
  const out: string[] = []
  let start = 0
  while (start < buf.length) {
    let end = buf.indexOf(0x0a, start)
    if (end < 0) end = buf.length
    if (end > start) out.push(sha256(buf.subarray(start, end)))
    start = end + 1
  }
  return out
}

/** Hash every line of every transcript-like file (`*.jsonl*`) under the agents dir. */
export function transcriptLineHashes(state: string): Map<string, string> {
  const map = new Map<string, string>()
  const agents = path.join(state, 'agents')
  if (!fs.existsSync(agents)) return map
  for (const f of walk(agents)) {
    if (!path.basename(f).includes('.jsonl')) continue
    for (const h of lineHashes(f)) map.set(h, f)
  }
  return map
}

/** Every line hashed before must still exist in some file under agents/ (live, .bak.* or .deleted.*). */
export function expectNoLineLost(before: Map<string, string>, state: string): string[] {
  const after = new Set<string>()
  for (const f of walk(path.join(state, 'agents'))) for (const h of lineHashes(f)) after.add(h)
  return [...before].filter(([h]) => !after.has(h)).map(([, f]) => f)
}

export function sessionsDir(state: string, agent = 'main'): string {
  return path.join(state, 'agents', agent, 'sessions')
}

export function transcriptOf(state: string, agent: string, sessionId: string): string {
  return path.join(sessionsDir(state, agent), `${sessionId}.jsonl`)
}

export const MAIN_ID = '0caed29d-8df6-4457-a9cd-00bb9d2b22e3'
export const WORK_ID = '704f285c-af26-493e-ab33-9383ab17a8c0'
export const COMPACT_MAIN_ID = 'f1ea83b9-e3d9-43c8-b4e4-5d101bf3ee2f'
export const EXPLICIT_ID = '0a1b2c3d-0000-4000-8000-000000000001'
export const EXPLICIT_KEY = `agent:main:explicit:${EXPLICIT_ID}`

/** Point every sessionFile at the local copy so the fixture is healthy; tests then add one damage at a time. */
export function localizeSessionFiles(state: string): void {
  for (const agent of fs.readdirSync(path.join(state, 'agents'))) {
    const file = path.join(sessionsDir(state, agent), 'sessions.json')
    if (!fs.existsSync(file)) continue
    const data = JSON.parse(fs.readFileSync(file, 'utf8'))
    for (const e of Object.values<any>(data)) if (typeof e.sessionFile === 'string') e.sessionFile = path.join(sessionsDir(state, agent), path.basename(e.sessionFile))
    fs.writeFileSync(file, JSON.stringify(data, null, 2))
  }
}

/** A copy of a fixture (at `dest` when given) with every sessionFile pointing at its local copy: a healthy store. */
export function healthy(fixture: string, dest?: string): string {
  const state = copyFixture(fixture, dest)
  localizeSessionFiles(state)
  return state
}
