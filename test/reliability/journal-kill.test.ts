// Kill -9 trials of the journal's promise (issue 29), JSON era: each change (reset, delete, restore, cleanup, doctor
// --fix) is SIGKILLed at every point between two durable records of its journal (after step n is recorded, before
// the entry is marked done), and each undo after every step it replays; then `clawkit undo` (run again after an
// interrupted undo) must give the state dir back byte for byte. The kill points are the journal's own
// (CLAWKIT_TEST_KILL_AT, src/store/journal.ts killPoint), so every trial is deterministic and no point is skipped.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, COMPACTION, copyFixture, runCli, tempDir} from '../support/cli.js'
import {mixedJsonStore} from '../support/cleanup-store.js'
import {deepOr} from '../support/deep.js'
import {hashTree} from '../support/state-hash.js'

const KEY = 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001'

interface Case {
  name: string
  make(): string
  /** Commands run before the change (not killed), e.g. the delete a restore brings back. */
  prepare?: string[][]
  change: string[]
  /** Kill points of its own, besides each record and the finish (doctor's: its repairs made, their snapshot still open). */
  points?: string[]
  /** Kill points of its undo's own, besides each replayed step. */
  undoPoints?: string[]
}

function mixed(): string {
  const state = tempDir()
  fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify({agents: {defaults: {workspace: path.join(state, 'workspace')}}}))
  mixedJsonStore(state, Date.now())
  return state
}

function withRepairs(): string {
  const state = copyFixture(COMPACTION)
  const dir = path.join(state, 'agents/main/sessions')
  const t = fs.readdirSync(dir).find((n) => n.endsWith('.jsonl') && !n.includes('checkpoint') && !n.includes('trajectory'))!
  fs.chmodSync(path.join(dir, t), 0o644)
  // A torn last line: its repair leaves a file of its own (<transcript>.bak.<ts>), which undo must take away.
  fs.appendFileSync(path.join(dir, t), '{"type":"message","id":"deadbeef","parentId":"x","message":{"role":"user","content":"half a li')
  fs.writeFileSync(path.join(dir, 'sessions.json.lock'), JSON.stringify({pid: 999_999_999, createdAt: new Date(0).toISOString()}))
  return state
}

const CASES: Case[] = [
  {name: 'sessions reset', make: () => copyFixture(COMPACTION), change: ['sessions', 'reset', KEY]},
  {name: 'sessions delete', make: () => copyFixture(COMPACTION), change: ['sessions', 'delete', KEY]},
  {name: 'sessions restore', make: () => copyFixture(COMPACTION), prepare: [['sessions', 'delete', KEY, '--no-journal']], change: ['sessions', 'restore', KEY]},
  // Its removals' transcripts are archived in one batch (one journal step): killed between two of its renames, and its
  // undo killed between two of the renames back.
  {name: 'sessions cleanup', make: mixed, change: ['sessions', 'cleanup', '--yes'], points: ['moved:1', 'moved:2'], undoPoints: ['renamed:1', 'renamed:2']},
  {name: 'doctor --fix', make: withRepairs, change: ['doctor', '--fix', '--yes'], points: ['snapshot:1']},
]

/** Every file's hash and mode, lock files included. */
function tree(dir: string): Record<string, string> {
  const hashes = hashTree(dir, {exclude: /^$/})
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, {withFileTypes: true})) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) out[path.relative(dir, p)] = `${hashes[path.relative(dir, p)] ?? fs.readFileSync(p).toString('base64')} ${(fs.statSync(p).mode & 0o777).toString(8)}`
    }
  }
  walk(dir)
  return out
}

/**
 * The tree after a trial, less the lock files the killed process left that were not there before: a lock of a dead
 * pid is OpenClaw's stale lock, reclaimed by the next writer of either tool, and no content.
 */
function settled(dir: string, before: Record<string, string>): Record<string, string> {
  const now = tree(dir)
  for (const p of Object.keys(now)) {
    if (!p.endsWith('.lock') || p in before) continue
    const pid = (JSON.parse(fs.readFileSync(path.join(dir, p), 'utf8')) as {pid?: number}).pid
    let alive = false
    try {
      process.kill(pid!, 0)
      alive = true
    } catch {}
    if (!alive) delete now[p]
  }
  return now
}

async function trial(c: Case, kill: {change?: string; undo?: string}) {
  const state = c.make()
  const env = baseEnv(tempDir())
  const cli = (args: string[], killAt?: string) => runCli([...args, '--state-dir', state], {env: killAt ? {...env, CLAWKIT_TEST_KILL_AT: killAt} : env})
  for (const p of c.prepare ?? []) expect((await cli(p)).code).toBe(0)
  const before = tree(state)
  const r = await cli(c.change, kill.change)
  const stepsDir = () => {
    const root = path.join(env.CLAWKIT_DATA_DIR, 'journal')
    const ids = fs.existsSync(root) ? fs.readdirSync(root).filter((n) => /^\d{8}-/.test(n)).sort() : []
    return ids.length ? fs.readdirSync(path.join(root, ids[0], 'steps')).length : 0
  }
  return {state, env, cli, before, r, steps: stepsDir()}
}

describe('kill -9 in the middle of a journaled change, and of its undo (JSON era)', () => {
  // npm test: reset, and cleanup, whose step is a batch of renames with kill points inside it; npm run test:deep every
  // change.
  for (const c of deepOr(CASES, ['sessions reset', 'sessions cleanup'])) {
    it(`${c.name}: killed after each step and before it is marked done, undo gives every byte back`, async () => {
      const {steps} = await trial(c, {})
      expect(steps).toBeGreaterThan(0)
      for (const point of [...Array.from({length: steps}, (_, i) => `record:${i + 1}`), ...(c.points ?? []), `finish:${c.change[0] === 'doctor' ? 'doctor-fix' : c.change[1]}`]) {
        const t = await trial(c, {change: point})
        expect(t.r.code, `${point}: the change was killed`).not.toBe(0)
        const u = await t.cli(['undo', '--json'])
        expect(u.code, `${point}: ${u.stderr}`).toBe(0)
        expect(settled(t.state, t.before), point).toEqual(t.before)
      }
    })

    it(`${c.name}: undo killed after each step it replays, undo run again gives every byte back`, async () => {
      const {steps} = await trial(c, {})
      for (const point of [...Array.from({length: steps}, (_, i) => `replay:${i + 1}`), ...(c.undoPoints ?? [])]) {
        const t = await trial(c, {})
        expect(t.r.code, t.r.stderr).toBe(0)
        const killed = await t.cli(['undo'], point)
        expect(killed.code, point).not.toBe(0)
        const u = await t.cli(['undo', '--json'])
        expect(u.code, `${point}: ${u.stderr}`).toBe(0)
        expect(settled(t.state, t.before), point).toEqual(t.before)
      }
    })
  }
})
