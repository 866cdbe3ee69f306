// A turn waiting on the transcript lock while another writer rotates the session (sessions reset, OpenClaw /new).
import {randomUUID} from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {json, sessionsJsonPath} from '../../support/cli.js'
import {holdLockInChild as holdLock, killLockHolders} from '../../support/locks.js'
import {agentEnvs, expectLinearChain, providerConfig, sessionFile, store, transcriptLines, userTexts} from './setup.js'

const make = agentEnvs()
afterEach(killLockHolders)

describe('session rotated while the turn waits for the transcript lock', () => {
  it('reset-style rotation (transcript renamed to .reset.<ts>, new sessionId/sessionFile, header-only file) under a held lock: the turn lands in the new session and its counters are written', async () => {
    const a = await make({config: (url) => providerConfig(url)})
    expect((await a.run(['agent', '--agent', 'main', '-m', 'first turn'])).code).toBe(0)
    const oldFile = sessionFile(a.state, 'agent:main:main')
    const oldId = store(a.state)['agent:main:main'].sessionId
    const holder = await holdLock(oldFile)

    // --thinking makes the turn's first store update visible: once it is on disk the turn has fixed its path.
    const turn = a.run(['agent', '--agent', 'main', '-m', 'second turn', '--thinking', 'low', '--json'], {timeoutMs: 30_000})
    for (let i = 0; i < 1000 && store(a.state)['agent:main:main'].thinkingLevel !== 'low'; i++) await new Promise((r) => setTimeout(r, 10))
    expect(store(a.state)['agent:main:main'].thinkingLevel).toBe('low')

    // What `clawkit sessions reset` / OpenClaw /new do while holding the transcript lock.
    const archived = `${oldFile}.reset.2026-11-25T23-00-00.000Z`
    fs.renameSync(oldFile, archived)
    const newId = randomUUID()
    const newFile = path.join(path.dirname(oldFile), `${newId}.jsonl`)
    const data = store(a.state)
    Object.assign(data['agent:main:main'], {sessionId: newId, sessionFile: newFile, updatedAt: Date.now()})
    for (const k of ['inputTokens', 'outputTokens', 'totalTokens', 'estimatedCostUsd']) delete data['agent:main:main'][k]
    const tmp = `${sessionsJsonPath(a.state)}.${randomUUID()}.tmp`
    fs.writeFileSync(tmp, JSON.stringify(data, null, 2), {mode: 0o600})
    fs.renameSync(tmp, sessionsJsonPath(a.state))
    fs.writeFileSync(newFile, `${JSON.stringify({type: 'session', version: 3, id: newId, timestamp: new Date().toISOString(), cwd: a.workspace})}\n`, {mode: 0o600})
    await holder.release()

    const r = await turn
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).meta.agentMeta).toMatchObject({sessionId: newId, sessionFile: newFile})
    // The old path was not recreated; the archive holds only the first turn.
    expect(fs.existsSync(oldFile)).toBe(false)
    expect(transcriptLines(archived).filter((l) => l.type === 'message' && l.message.role === 'user').map((l) => l.message.content[0].text)).toEqual(['first turn'])
    // The turn continued the rotated (empty) session: the model saw no old history.
    expect(userTexts(a.mock.messageRequests().at(-1)!.body)).toEqual(['second turn'])
    const lines = transcriptLines(newFile)
    expect(lines[0]).toMatchObject({type: 'session', id: newId})
    expect(lines.filter((l) => l.type === 'session')).toHaveLength(1)
    expect(lines.filter((l) => l.type === 'message').map((l) => l.message.role)).toEqual(['user', 'assistant'])
    expectLinearChain(lines)
    const e = store(a.state)['agent:main:main']
    expect(e).toMatchObject({sessionId: newId, sessionFile: newFile, totalTokensFresh: true, thinkingLevel: 'low'})
    expect(e.inputTokens).toBe(a.mock.messageRequests().at(-1)!.inputTokens)
    expect(e.totalTokens).toBeGreaterThan(0)
    expect(e.estimatedCostUsd).toBeGreaterThan(0)
    expect(oldId).not.toBe(newId)
    expect(fs.existsSync(`${newFile}.lock`)).toBe(false)
    expect(fs.existsSync(`${oldFile}.lock`)).toBe(false)
  })
})

describe('--timeout while another writer holds the session', () => {
  it('stops waiting for the transcript lock at the timeout: exit 124, the model is never called, nothing is written', async () => {
    const a = await make({config: (url) => providerConfig(url)})
    const first = await a.run(['agent', '--agent', 'main', '-m', 'first'])
    expect(first.code, first.stderr).toBe(0)
    const file = sessionFile(a.state, 'agent:main:main')
    const before = fs.readFileSync(file)
    const holder = await holdLock(file)
    const requests = a.mock.messageRequests().length
    const r = await a.run(['agent', '--agent', 'main', '-m', 'second', '--timeout', '1'])
    expect(r.code).toBe(124)
    expect(r.stderr).toContain('Timed out while waiting for another writer of agent:main:main')
    expect(a.mock.messageRequests().length).toBe(requests)
    expect(fs.readFileSync(file).equals(before)).toBe(true)
    await holder.release()
  })
})
