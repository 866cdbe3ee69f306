// The JSON era's disk budget applied beside turns and clawkit's own sweeps (the review of issue 29's merge found both):
// an eviction or a removal that a turn made active since the plan keeps its entry, and so must keep its transcript
// (the plan had counted that file among the budget's or the unreferenced ones); and the space --sweep frees (.tmp,
// .bak, stale locks, which OpenClaw's own budget never counts as removable) is counted before any session is evicted.
// Real files in a temp state dir; the turn lands through the store's own lifecycle (deleteMany) just before it writes.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import {cleanupSessions} from '../../src/sessions/cleanup.js'
import {OpenClawState, openSessionStore} from '../../src/store/state.js'
import type {SessionLifecycle} from '../../src/store/lifecycle.js'
import {baseEnv, tempDir} from '../support/cli.js'

const DAY = 86_400_000
const sid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`

/** Three explicit sessions of `bytes` each, 3, 2 and 1 days old (`first`: the first one's key and age instead). */
function store(bytes: number, first?: {key: string; days: number}) {
  const root = tempDir()
  const state = path.join(root, 'state')
  const dir = path.join(state, 'agents', 'main', 'sessions')
  fs.mkdirSync(dir, {recursive: true})
  fs.writeFileSync(path.join(state, 'openclaw.json'), '{}')
  const now = Date.now()
  const index: Record<string, {sessionId: string; updatedAt: number; sessionFile: string}> = {}
  for (let i = 1; i <= 3; i++) {
    const id = sid(i)
    const at = now - (i === 1 && first ? first.days : 4 - i) * DAY
    const file = path.join(dir, `${id}.jsonl`)
    fs.writeFileSync(file, `${JSON.stringify({type: 'session', version: 3, id, timestamp: new Date(at).toISOString(), cwd: state})}\n${'x'.repeat(bytes)}\n`)
    fs.utimesSync(file, new Date(at), new Date(at))
    index[i === 1 && first ? first.key : `agent:main:explicit:k${i}`] = {sessionId: id, updatedAt: at, sessionFile: file}
  }
  fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(index, null, 2))
  return {root, state, dir, env: baseEnv(root, {OPENCLAW_STATE_DIR: state})}
}

/** The state, with a turn landing on every key a removal or an eviction is about to delete (after the plan, before the write). */
function withTurns(w: ReturnType<typeof store>): OpenClawState {
  return OpenClawState.open({
    stateDir: w.state,
    env: w.env,
    ignoreSettings: true,
    storeFactory: (ref) => {
      const s = openSessionStore(ref)
      const life = s.lifecycle!
      const deleteMany = life.deleteMany!.bind(life)
      const patched: SessionLifecycle = Object.assign(Object.create(Object.getPrototypeOf(life)), life, {
        deleteMany: async (items: Parameters<NonNullable<SessionLifecycle['deleteMany']>>[0], opts: Parameters<NonNullable<SessionLifecycle['deleteMany']>>[1]) => {
          const file = path.join(w.dir, 'sessions.json')
          const idx = JSON.parse(fs.readFileSync(file, 'utf8'))
          for (const it of items) {
            idx[it.key].updatedAt = Date.now() + 1000
            fs.appendFileSync(idx[it.key].sessionFile, `${JSON.stringify({type: 'message', message: {role: 'user', content: 'NEW TURN'}})}\n`)
          }
          fs.writeFileSync(file, JSON.stringify(idx, null, 2))
          return deleteMany(items, opts)
        },
      })
      Object.defineProperty(s, 'lifecycle', {get: () => patched})
      return s
    },
  })
}

/** Every entry's transcript is there and holds the turn that landed on it (when one did). */
function expectTranscriptsKept(w: ReturnType<typeof store>, turned: string[]): void {
  const idx = JSON.parse(fs.readFileSync(path.join(w.dir, 'sessions.json'), 'utf8')) as Record<string, {sessionFile: string}>
  for (const [k, e] of Object.entries(idx)) {
    expect(fs.existsSync(e.sessionFile), `${k}'s transcript`).toBe(true)
    if (turned.includes(k)) expect(fs.readFileSync(e.sessionFile, 'utf8'), k).toContain('NEW TURN')
  }
}

it('an eviction a turn made active since the plan keeps its entry and its transcript; the summary says what went', async () => {
  const w = store(10_000)
  const r = await cleanupSessions(withTurns(w), {dryRun: false, maxDiskBytes: 25_000, enforce: true})
  const s = r.stores[0]
  const skipped = s.skipped.map((x) => x.key)
  expect(skipped.length).toBeGreaterThan(0)
  expectTranscriptsKept(w, skipped)
  for (const f of s.files) expect(fs.existsSync(f.path), `${f.path} reported removed`).toBe(false)
  expect(s.diskBudget?.removedEntries).toBe(s.changes.filter((c) => c.action === 'evict-budget').length - skipped.length)
})

it('a removal a turn made active since the plan (a stale cron run) keeps its transcript too', async () => {
  const w = store(10_000, {key: 'agent:main:cron:nightly:run:r1', days: 40})
  const r = await cleanupSessions(withTurns(w), {dryRun: false, maxDiskBytes: 28_000, enforce: true})
  const s = r.stores[0]
  expect(s.skipped.map((x) => x.key)).toContain('agent:main:cron:nightly:run:r1')
  expectTranscriptsKept(w, s.skipped.map((x) => x.key))
})

it('--sweep: the space its leftovers free counts before any session is evicted', async () => {
  const w = store(2_000)
  const junk = path.join(w.dir, 'leftover.tmp')
  fs.writeFileSync(junk, 'y'.repeat(30_000))
  fs.utimesSync(junk, new Date(Date.now() - DAY), new Date(Date.now() - DAY))
  const st = OpenClawState.open({stateDir: w.state, env: w.env, ignoreSettings: true})
  const s = (await cleanupSessions(st, {dryRun: true, maxDiskBytes: 25_000, enforce: true, sweep: true})).stores[0]
  expect(s.files.map((f) => [path.basename(f.path), f.why])).toContainEqual(['leftover.tmp', 'tmp'])
  expect(s.changes.filter((c) => c.action === 'evict-budget')).toEqual([])
  // OpenClaw's figure before is kept; without --sweep the same store evicts (as OpenClaw 2026.4.27 would).
  expect(s.diskBudget?.overBudget).toBe(true)
  const plain = (await cleanupSessions(st, {dryRun: true, maxDiskBytes: 25_000, enforce: true})).stores[0]
  expect(plain.changes.filter((c) => c.action === 'evict-budget').length).toBeGreaterThan(0)
})
