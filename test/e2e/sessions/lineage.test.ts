// `sessions lineage` and `sessions history --include-archived` through the real CLI on a JSON-era fixture copy whose main
// session was reset twice by clawkit's own `sessions reset` (test/support/reset-twice.ts says why clawkit-made data).
import fs from 'node:fs'
import path from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import type {SessionsHistoryResult} from '../../../src/commands/sessions/history.js'
import type {SessionsLineageResult} from '../../../src/commands/sessions/lineage.js'
import {json, jsonError, TWO_AGENTS} from '../../support/cli.js'
import {type AgentEnv, providerConfig, setup} from '../agent/setup.js'
import {MAIN, messageTexts, resetTwice, transcriptOfId} from '../../support/reset-twice.js'

const FIRST = '0caed29d-8df6-4457-a9cd-00bb9d2b22e3'

let a: AgentEnv
let ids: string[]
/** Every message text of the three sessions, oldest first. */
let texts: string[]

describe('sessions lineage and history --include-archived (JSON era, a key reset twice)', () => {
  beforeAll(async () => {
    a = await setup({fixture: TWO_AGENTS, config: (url) => providerConfig(url)})
    ids = await resetTwice(a)
    texts = ids.flatMap((id) => messageTexts(transcriptOfId(a.state, id)))
    return () => a.mock.close()
  }, 60_000)

  it('lineage shows the three sessions oldest first: two .reset. archives and the live one, with counts, tokens and how each ended', async () => {
    expect(ids[0]).toBe(FIRST)
    const r = await a.run(['sessions', 'lineage', 'main', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const l = json<SessionsLineageResult>(r)
    expect(l.key).toBe(MAIN)
    expect(l.sessions.map((s) => [s.sessionId, s.where, s.ended])).toEqual([
      [ids[0], 'reset-archive', 'reset'],
      [ids[1], 'reset-archive', 'reset'],
      [ids[2], 'live', 'current'],
    ])
    expect(l.sessions[0].transcript).toMatch(/\.jsonl\.reset\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z$/)
    // Each of the two later sessions holds one turn: the user's words and the echo.
    expect(l.sessions.slice(1).map((s) => s.messages)).toEqual([2, 2])
    expect(l.sessions[0].messages).toBeGreaterThan(2)
    for (const s of l.sessions) {
      expect(s.usage.input).toBeGreaterThan(0)
      expect(s.usage.costUsd).toBeGreaterThan(0)
      expect(Date.parse(s.firstMessageAt!)).toBeLessThanOrEqual(Date.parse(s.lastMessageAt!))
    }
    // Oldest first: each session starts after the previous one ended.
    expect(Date.parse(l.sessions[1].firstMessageAt!)).toBeGreaterThanOrEqual(Date.parse(l.sessions[0].endedAt!))
    const text = await a.run(['sessions', 'lineage', MAIN])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain('Lineage of agent:main:main: 3 sessions, oldest first')
    expect(text.stdout.match(/\.reset\. archive/g)).toHaveLength(2)
    expect(text.stdout).toContain('still current')
  })

  it('lineage of the other key, of a sessionId, of a missing key: only its own sessions; the current one by id; not found', async () => {
    const other = json<SessionsLineageResult>(await a.run(['sessions', 'lineage', ids[2], '--json']))
    expect(other.sessions).toHaveLength(3)
    const work = json<SessionsLineageResult>(await a.run(['sessions', 'lineage', 'main', '--agent', 'work', '--json']))
    expect(work.sessions.map((s) => s.where)).toEqual(['live'])
    const missing = await a.run(['sessions', 'lineage', 'agent:main:nope', '--json'])
    expect(missing.code).toBe(1)
    expect(jsonError(missing).code).toBe('E_SESSION_NOT_FOUND')
  })

  it('history --include-archived shows every message of the three sessions in order, with two boundaries', async () => {
    const r = await a.run(['sessions', 'history', 'main', '--include-archived', '--limit', '1000', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const h = json<SessionsHistoryResult>(r)
    expect(h.truncated).toBe(false)
    expect(h.sessions!.map((s) => s.sessionId)).toEqual(ids)
    expect(h.entries.filter((e) => e.type === 'message' && e.text).map((e) => e.text)).toEqual(texts)
    const text = await a.run(['sessions', 'history', 'main', '--include-archived', '--limit', '1000'])
    expect(text.stdout.match(/^\u2550{4} reset .*: session .* \u2550{4}$/gm)).toHaveLength(2)
    for (const t of ['second session words', 'third session words']) expect(text.stdout).toContain(t)
  })

  it('history --include-archived --limit counts from the end across sessions and opens no older session than it needs', async () => {
    const h = json<SessionsHistoryResult>(await a.run(['sessions', 'history', 'main', '--include-archived', '--limit', '3', '--json']))
    expect(h.truncated).toBe(true)
    // The last three messages: the second session's echo, then the third session's turn.
    expect(h.entries.filter((e) => e.type === 'message').map((e) => e.text)).toEqual(texts.slice(-3))
    expect(h.sessions!.map((s) => s.sessionId)).toEqual([ids[1], ids[2]])
    expect(h.sessions![1].start).toBeGreaterThan(0)
    const raw = await a.run(['sessions', 'history', 'main', '--include-archived', '--limit', '3', '--raw'])
    expect(raw.stdout.split('\n').filter(Boolean).filter((l) => JSON.parse(l).type === 'message')).toHaveLength(3)
  })
})

describe('a reset event inside one transcript (the SQLite era\'s gateway /new), on a hand-made JSON-era transcript', () => {
  it('lineage splits the session into two parts at the event; history shows the boundary; export marks it', async () => {
    const e = await setup({fixture: TWO_AGENTS})
    try {
      const file = path.join(e.state, 'agents', 'work', 'sessions', '704f285c-af26-493e-ab33-9383ab17a8c0.jsonl')
      const after = [
        {type: 'reset', id: 'r0000001', parentId: 'e26c543b', timestamp: '2026-11-26T08:00:00.000Z', reason: 'new'},
        {type: 'message', id: 'm0000001', parentId: 'r0000001', timestamp: '2026-11-26T08:00:01.000Z', message: {role: 'user', content: 'after the reset event', timestamp: 1}},
      ]
      fs.appendFileSync(file, after.map((l) => `${JSON.stringify(l)}\n`).join(''))
      const l = json<SessionsLineageResult>(await e.run(['sessions', 'lineage', 'main', '--agent', 'work', '--json']))
      expect(l.sessions.map((s) => [s.sessionId, s.part, s.ended, s.messages])).toEqual([
        ['704f285c-af26-493e-ab33-9383ab17a8c0', 1, 'reset-event', 2],
        ['704f285c-af26-493e-ab33-9383ab17a8c0', 2, 'current', 1],
      ])
      expect(l.sessions[0]).toMatchObject({endedAt: '2026-11-26T08:00:00.000Z', resetReason: 'new'})
      const h = await e.run(['sessions', 'history', 'main', '--agent', 'work'])
      expect(h.stdout).toMatch(/\u2550{4} reset \(new\): the model context starts again here \u2550{4}\n.*user: after the reset event/)
      const md = await e.run(['sessions', 'export', 'main', '--agent', 'work'])
      expect(md.stdout).toContain('**Reset (new) \u00b7 ')
    } finally {
      await e.mock.close()
    }
  })
})
