// Concurrent writers through the real CLI on one session: resets of the same key serialize under the locks, and
// `doctor --fix` running beside them repairs nothing that a writer is changing.
import fs from 'node:fs'
import path from 'node:path'
import {isDeepStrictEqual} from 'node:util'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {DoctorResult} from '../../src/commands/doctor.js'
import type {MessageSendResult} from '../../src/commands/message/send.js'
import type {SessionsResetResult} from '../../src/commands/sessions/reset.js'
import {baseEnv, copyFixture, json, jsonError, readIndexFile, ROOT, runCli, type RunResult, sessionsJsonPath, tempDir, TWO_AGENTS} from '../support/cli.js'
import {channelEnv, startFakeChannels} from '../support/fake-channels.js'
import {type MockAnthropic, startMockAnthropic} from '../support/mock-anthropic.js'
import {intFromEnv, Rng, seedFromEnv} from './support/prng.js'
import {acquireLock} from '../../src/store/lock.js'
import {checkStoreInvariants} from './support/store-invariants.js'

describe('concurrent CLI writers on one session', () => {
  it('8 concurrent resets of the same key serialize: the ids form one chain, every old transcript is archived once', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const original = readIndexFile(sessionsJsonPath(state))['agent:main:main'].sessionId
    const runs = await Promise.all(Array.from({length: 8}, () => runCli(['sessions', 'reset', 'agent:main:main', '--json', '--state-dir', state], {env})))
    expect(runs.map((r) => r.code)).toEqual(Array(8).fill(0))
    const docs = runs.map((r) => json(r))
    // Serialized resets: each one started from the id the previous one created, so previous->new is a single chain.
    const next = new Map(docs.map((d) => [d.previousSessionId, d.sessionId]))
    expect(next.size).toBe(8)
    const chain = [original]
    while (next.has(chain[chain.length - 1])) chain.push(next.get(chain[chain.length - 1])!)
    expect(chain).toHaveLength(9)
    expect(readIndexFile(sessionsJsonPath(state))['agent:main:main'].sessionId).toBe(chain.at(-1))
    // Every transcript that existed was archived exactly once, and no lock or temp file is left.
    const dir = path.join(state, 'agents', 'main', 'sessions')
    const archives = fs.readdirSync(dir).filter((n) => n.includes('.jsonl.reset.'))
    expect(archives.map((n) => n.split('.jsonl.reset.')[0]).sort()).toEqual(chain.slice(0, -1).sort())
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.lock') || n.endsWith('.tmp'))).toEqual([])
  })
})

// Issue 14 item 2: `doctor --fix` as one of the writers. In parallel on one store: 10 resets of main, 6 agent turns on
// main (mock model) and 3 `doctor --fix --yes`. Doctor used to plan its repairs from one scan and apply them later,
// re-checking too little: it re-attached transcripts that a reset was about to archive (phantom explicit rows) and
// archived main's live transcript as `.deleted.`. Each run checks the invariants in support/store-invariants.ts.
describe('doctor --fix among concurrent writers', () => {
  // npm test one run; npm run test:deep two; RELIABILITY.md's 25 with CLAWKIT_CONCURRENCY_RUNS=25.
  const runs = intFromEnv('CLAWKIT_CONCURRENCY_RUNS', 1)
  const seed = seedFromEnv(20261126)
  // 0 gives the baseline the issue compares against: the same load without doctor.
  const doctors = intFromEnv('CLAWKIT_CONCURRENCY_DOCTORS', 3)
  let mock: MockAnthropic
  beforeAll(async () => {
    mock = await startMockAnthropic({delayMs: 30})
  })
  afterAll(async () => {
    await mock.close()
  })

  it(`${runs} run(s) of 10 resets + 6 agent turns + ${doctors} doctor --fix on one store: 0 lost, 0 phantom rows, no live transcript archived`, {timeout: 60_000 + runs * 60_000}, async () => {
    const rng = new Rng(seed)
    const totals = {runs: 0, lost: 0, phantom: 0, deletedLive: 0, dangling: 0, problems: 0, doctorFixed: new Map<string, number>(), wallMs: 0}
    const failures: string[] = []
    for (let run = 0; run < runs; run++) {
      const state = copyFixture(TWO_AGENTS)
      const storeFile = sessionsJsonPath(state)
      const sessionsDir = path.dirname(storeFile)
      const before = readIndexFile(storeFile)
      const original = before['agent:main:main'].sessionId
      const env = baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url})
      const cli = (args: string[]) => runCli([...args, '--json', '--state-dir', state], {env, timeoutMs: 120_000})
      const jobs: {kind: 'reset' | 'agent' | 'doctor'; i: number}[] = [
        ...Array.from({length: 10}, (_, i) => ({kind: 'reset' as const, i})),
        ...Array.from({length: 6}, (_, i) => ({kind: 'agent' as const, i})),
        ...Array.from({length: doctors}, (_, i) => ({kind: 'doctor' as const, i})),
      ]
      const started = Date.now()
      const results = await Promise.all(
        jobs.map(async (job) => {
          // Seeded stagger: the interleavings differ from run to run, and a run replays from its seed.
          await new Promise((r) => setTimeout(r, rng.int(0, 400)))
          const args = job.kind === 'reset' ? ['sessions', 'reset', 'agent:main:main'] : job.kind === 'agent' ? ['agent', '--agent', 'main', '-m', `run ${run} turn ${job.i}`] : ['doctor', '--fix', '--yes']
          return {job, r: await cli(args)}
        }),
      )
      totals.wallMs += Date.now() - started
      totals.runs++
      const problems: string[] = []
      for (const {job, r} of results) {
        const ok = job.kind === 'doctor' ? [0, 3, 4].includes(r.code ?? -1) : r.code === 0
        if (!ok) {
          let why = (r.stderr || r.stdout).trim().split('\n')[0]
          try {
            why = jsonError(r).message
          } catch {}
          problems.push(`${job.kind} ${job.i} exited ${r.code ?? r.signal}: ${why}`)
        }
        let doc: Partial<DoctorResult>
        try {
          doc = json<DoctorResult>(r)
        } catch {
          problems.push(`${job.kind} ${job.i}: stdout is not JSON`)
          continue
        }
        if (job.kind === 'doctor') for (const f of doc.findings ?? []) if (f.fixed) totals.doctorFixed.set(f.id, (totals.doctorFixed.get(f.id) ?? 0) + 1)
      }
      // The resets serialize into one chain from the fixture's id to the row's id.
      const next = new Map(results.filter(({job, r}) => job.kind === 'reset' && r.code === 0).map(({r}) => [json<SessionsResetResult>(r).previousSessionId, json<SessionsResetResult>(r).sessionId]))
      const chain = [original]
      while (next.has(chain[chain.length - 1])) chain.push(next.get(chain[chain.length - 1])!)
      if (chain.length !== 11) problems.push(`reset chain has ${chain.length - 1} links, not 10`)
      const index = readIndexFile(storeFile)
      if (index['agent:main:main']?.sessionId !== chain.at(-1)) problems.push(`main row holds ${index['agent:main:main']?.sessionId}, not the last reset's ${chain.at(-1)}`)
      // Every turn's prompt and reply are in a transcript of main (live, or archived by a later reset).
      const texts = fs
        .readdirSync(sessionsDir)
        .filter((n) => /\.jsonl(\.(reset|deleted)\..*)?$/.test(n) && !n.includes('trajectory'))
        .map((n) => fs.readFileSync(path.join(sessionsDir, n), 'utf8'))
        .join('\n')
      for (let i = 0; i < 6; i++) if (!texts.includes(`Echo: run ${run} turn ${i}`)) problems.push(`turn ${i} lost`)
      const inv = checkStoreInvariants(sessionsDir, {before})
      // No transcript is empty and unreferenced at the end of a clean run, so no archive of any kind is due.
      const deleted = fs.readdirSync(sessionsDir).filter((n) => n.includes('.deleted.'))
      if (deleted.length > 0) problems.push(`.deleted. archives: ${deleted.join(', ')}`)
      problems.push(...inv.problems)
      totals.lost += inv.lost.length
      totals.phantom += inv.phantom.length
      totals.deletedLive += inv.deletedLive.length
      totals.dangling += inv.dangling.length
      // Afterwards doctor --fix converges: no fixable finding is left open.
      const after = await runCli(['doctor', '--fix', '--yes', '--json', '--state-dir', state], {env})
      const open = json(after).findings.filter((f) => f.fixable && !f.fixed)
      if (open.length > 0) problems.push(`doctor --fix left ${open.map((f) => f.id).join(', ')}`)
      if (problems.length > 0) {
        totals.problems++
        failures.push(`run ${run} (seed ${seed}): ${problems.join(' | ')}`)
      }
    }
    const fixed = [...totals.doctorFixed].map(([id, n]) => `${id} ${n}`).join(', ')
    const summary = `doctor among writers: ${totals.runs} runs (seed ${seed}), failed runs ${totals.problems}, lost rows ${totals.lost}, phantom rows ${totals.phantom}, live transcripts archived ${totals.deletedLive}, rows without transcript ${totals.dangling}, doctor fixed: ${fixed || 'nothing'}, wall ${totals.wallMs} ms`
    console.log(summary)
    fs.mkdirSync(path.join(ROOT, 'test-results'), {recursive: true})
    fs.writeFileSync(path.join(ROOT, 'test-results', 'concurrency-doctor.json'), JSON.stringify({summary, ...totals, doctorFixed: Object.fromEntries(totals.doctorFixed), failures}, null, 2))
    expect(failures).toEqual([])
  })
})

// The two halves of the fix through the real CLI (the reset half also without processes or timing in
// test/store/reset-rounds.test.ts, since the CLI race below assumes the reset starts within 500 ms): a reset holds the lock of the transcript
// it rotates from before its index write until its archive rename, and doctor decides about an unreferenced
// transcript only while holding that same lock.
describe('doctor and reset agree on the transcript lock', () => {
  function midReset(state: string): {sessionsDir: string; oldFile: string; newId: string} {
    // A reset between its index write and its archive rename: the row points at a new header-only transcript, the old
    // transcript (with messages) is still under its old name.
    const storeFile = sessionsJsonPath(state)
    const sessionsDir = path.dirname(storeFile)
    const index = readIndexFile(storeFile)
    const oldFile = path.join(sessionsDir, `${index['agent:main:main'].sessionId}.jsonl`)
    const newId = '11111111-2222-4333-8444-555555555555'
    index['agent:main:main'] = {...index['agent:main:main'], sessionId: newId, sessionFile: path.join(sessionsDir, `${newId}.jsonl`), totalTokens: 0, inputTokens: 0, outputTokens: 0, totalTokensFresh: true}
    fs.writeFileSync(storeFile, JSON.stringify(index, null, 2))
    fs.writeFileSync(path.join(sessionsDir, `${newId}.jsonl`), `${JSON.stringify({type: 'session', version: 3, id: newId, timestamp: new Date().toISOString(), cwd: state})}\n`, {mode: 0o600})
    return {sessionsDir, oldFile, newId}
  }

  it('doctor --fix does not re-attach a transcript whose lock a rotating writer holds, nor once that writer archived it (no phantom explicit row)', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const {oldFile} = midReset(state)
    const before = Object.keys(readIndexFile(sessionsJsonPath(state)))
    const lock = await acquireLock(oldFile)
    let released = false
    try {
      const r = await runCli(['doctor', '--fix', '--yes', '--json', '--state-dir', state], {env})
      const orphan = json(r).findings.find((f) => f.id === 'orphan-transcript' && f.path === oldFile)!
      expect(orphan, r.stdout).toBeDefined()
      expect(orphan.fixed).toBe(false)
      expect(orphan.repairError).toMatch(/locked by another writer/)
      expect(Object.keys(readIndexFile(sessionsJsonPath(state)))).toEqual(before)
      // The writer finishes: the old transcript becomes a .reset. archive, then its lock is released.
      fs.renameSync(oldFile, `${oldFile}.reset.2026-11-26T00-00-00.000Z`)
      await lock.release()
      released = true
    } finally {
      if (!released) await lock.release()
    }
    const again = await runCli(['doctor', '--fix', '--yes', '--json', '--state-dir', state], {env})
    expect(json(again).findings.filter((f) => f.id.startsWith('orphan-transcript'))).toEqual([])
    expect(Object.keys(readIndexFile(sessionsJsonPath(state)))).toEqual(before)
  })

  it('a message send mirror that waited for a transcript a reset then archived follows the rotation (it does not recreate the old file)', async () => {
    const fake = await startFakeChannels()
    try {
      const state = copyFixture(TWO_AGENTS)
      const env = baseEnv(tempDir(), channelEnv(fake))
      const storeFile = sessionsJsonPath(state)
      const before = readIndexFile(storeFile)['agent:main:main']
      const oldFile = path.join(path.dirname(storeFile), `${before.sessionId}.jsonl`)
      const lock = await acquireLock(oldFile)
      let released = false
      let send: Promise<RunResult<MessageSendResult>>
      try {
        send = runCli(['message', 'send', '--channel', 'telegram', '-t', '123456789', '-m', 'mirrored across a reset', '--json', '--state-dir', state], {env})
        // The mirror merges its row first, then waits for the transcript lock.
        const until = Date.now() + 15_000
        while (isDeepStrictEqual(readIndexFile(storeFile)['agent:main:main'], before) && Date.now() < until) await new Promise((r) => setTimeout(r, 25))
        const {newId} = midReset(state)
        fs.renameSync(oldFile, `${oldFile}.reset.2026-11-26T00-00-00.000Z`)
        await lock.release()
        released = true
        const r = await send
        expect(r.code, r.stderr).toBe(0)
        expect(fs.existsSync(oldFile)).toBe(false)
        const newText = fs.readFileSync(path.join(path.dirname(storeFile), `${newId}.jsonl`), 'utf8')
        expect(newText).toContain('mirrored across a reset')
        expect(json(r).payload.mirrored!.sessionId).toBe(newId)
      } finally {
        if (!released) await lock.release()
      }
    } finally {
      await fake.close()
    }
  })

  it('a reset whose session was rotated while it waited rotates the new transcript only once it holds that transcript\'s lock', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const storeFile = sessionsJsonPath(state)
    const oldFile = path.join(path.dirname(storeFile), `${readIndexFile(storeFile)['agent:main:main'].sessionId}.jsonl`)
    // The reset starts while the old transcript is locked, so it resolves and waits for that file.
    const oldLock = await acquireLock(oldFile)
    const reset = runCli(['sessions', 'reset', 'agent:main:main', '--json', '--state-dir', state], {env})
    await new Promise((r) => setTimeout(r, 500))
    // Meanwhile another writer rotates the session and keeps the new transcript locked (an agent turn on it).
    const {newId} = midReset(state)
    fs.renameSync(oldFile, `${oldFile}.reset.2026-11-26T00-00-00.000Z`)
    const newFile = path.join(path.dirname(storeFile), `${newId}.jsonl`)
    const newLock = await acquireLock(newFile)
    await oldLock.release()
    try {
      // While the new transcript is locked, the reset must not rotate it: the row still names it.
      const until = Date.now() + 2000
      while (Date.now() < until) {
        expect(readIndexFile(storeFile)['agent:main:main'].sessionId).toBe(newId)
        await new Promise((r) => setTimeout(r, 50))
      }
    } finally {
      await newLock.release()
    }
    const r = await reset
    // Under --json a failure's envelope is on stdout.
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const doc = json(r)
    expect(doc.previousSessionId).toBe(newId)
    expect(doc.archivedTranscript).toMatch(new RegExp(`${newId}\\.jsonl\\.reset\\.`))
    expect(readIndexFile(storeFile)['agent:main:main'].sessionId).toBe(doc.sessionId)
  })
})
