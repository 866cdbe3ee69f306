import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, json, readIndexFile, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {writeLiveLock} from '../../support/locks.js'

describe('sessions reset', () => {
  it('round trip: new UUID, transcript archived as .reset.<ts>, metadata kept, counters cleared, history empty', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const file = sessionsJsonPath(state, 'work')
    const before = readIndexFile(file)['agent:work:main']
    const oldTranscript = path.join(state, 'agents', 'work', 'sessions', `${before.sessionId}.jsonl`)
    const oldBytes = fs.readFileSync(oldTranscript)
    const r = await runCli(['sessions', 'reset', 'agent:work:main', '--json', '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    expect(doc).toMatchObject({key: 'agent:work:main', agentId: 'work', previousSessionId: before.sessionId})
    expect(doc.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(doc.archivedTranscript).toMatch(new RegExp(`${before.sessionId}\\.jsonl\\.reset\\.\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}Z$`))
    expect(fs.readFileSync(doc.archivedTranscript!).equals(oldBytes)).toBe(true)
    expect(fs.existsSync(oldTranscript)).toBe(false)
    const after = readIndexFile(file)['agent:work:main']
    expect(after).toMatchObject({sessionId: doc.sessionId, sessionFile: path.join(state, 'agents', 'work', 'sessions', `${doc.sessionId}.jsonl`), inputTokens: 0, outputTokens: 0, totalTokens: 0, totalTokensFresh: true, abortedLastRun: false})
    expect(after).not.toHaveProperty('estimatedCostUsd')
    for (const kept of ['skillsSnapshot', 'systemPromptReport', 'model', 'modelProvider', 'contextTokens', 'agentHarnessId']) expect(after[kept]).toEqual(before[kept])
    expect(after.updatedAt).toBeGreaterThanOrEqual(before.updatedAt)
    const hist = json(await runCli(['sessions', 'history', 'agent:work:main', '--json', '--state-dir', state], {env}))
    // A header-only transcript for the new id (0600), as OpenClaw's gateway reset writes one.
    expect(hist).toMatchObject({sessionId: doc.sessionId, transcriptExists: true, entries: []})
    expect(JSON.parse(fs.readFileSync(String(after.sessionFile), 'utf8'))).toMatchObject({type: 'session', version: 3, id: doc.sessionId})
    expect(fs.statSync(String(after.sessionFile)).mode & 0o777).toBe(0o600)
    const list = json(await runCli(['sessions', 'list', '--agent', 'work', '--json', '--state-dir', state], {env}))
    expect(list.sessions[0]).toMatchObject({sessionId: doc.sessionId, totalTokens: 0})
    // Zero tokens read as 0 (as OpenClaw 2026.9 prints them), in the list and in status alike, not 0.0k.
    const table = await runCli(['sessions', 'list', '--agent', 'work', '--state-dir', state], {env})
    expect(table.stdout).toMatch(/^direct agent:work:main +(just now|\S+ ago) +\S+ +0\/200k \(0%\) /m)
    const status = await runCli(['status', '--state-dir', state], {env})
    expect(status.stdout).toMatch(/^agent:work:main +direct .* 0\/200k \(0%\)/m)
    expect(`${table.stdout}${status.stdout}`).not.toContain('0.0k')
  })

  it('8 concurrent resets of different keys all land (store lock)', async () => {
    const state = tempDir()
    const file = sessionsJsonPath(state)
    const store: Record<string, unknown> = {}
    for (let i = 0; i < 8; i++) store[`agent:main:k${i}`] = {sessionId: `s${i}`, updatedAt: 1, label: `L${i}`}
    fs.mkdirSync(path.dirname(file), {recursive: true})
    fs.writeFileSync(file, JSON.stringify(store, null, 2))
    const env = baseEnv(tempDir())
    const results = await Promise.all(Array.from({length: 8}, (_, i) => runCli(['sessions', 'reset', `agent:main:k${i}`, '--json', '--state-dir', state], {env})))
    expect(results.map((r) => r.code)).toEqual(Array(8).fill(0))
    const after = readIndexFile(file)
    for (let i = 0; i < 8; i++) {
      expect(after[`agent:main:k${i}`].sessionId).toBe(json(results[i]).sessionId)
      expect(after[`agent:main:k${i}`].label).toBe(`L${i}`)
    }
  })

  it('a live store lock makes reset fail with the lock message; a dead-pid lock is reclaimed', async () => {
    const state = copyFixture(TWO_AGENTS)
    const lock = `${sessionsJsonPath(state)}.lock`
    const env = baseEnv(tempDir(), {OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS: '300'})
    // Our own test runner is a live process that holds nothing: a perfect live holder.
    writeLiveLock(lock)
    const live = await runCli(['sessions', 'reset', 'main', '--state-dir', state], {env})
    expect(live.code).toBe(1)
    expect(live.stderr).toContain(`session file locked (timeout 300ms): pid=${process.pid}`)
    fs.writeFileSync(lock, JSON.stringify({pid: 999_999_999, createdAt: new Date().toISOString()}, null, 2))
    const dead = await runCli(['sessions', 'reset', 'main', '--state-dir', state], {env})
    expect(dead.code, dead.stderr).toBe(0)
    expect(fs.existsSync(lock)).toBe(false)
  })
})
