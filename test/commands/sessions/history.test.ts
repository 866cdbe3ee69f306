import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, COMPACTION, copyFixture, json, runCli, tempDir, TWO_AGENTS} from '../../support/cli.js'

const MAIN_TWO = '0caed29d-8df6-4457-a9cd-00bb9d2b22e3'

describe('sessions history', () => {
  it('compaction fixture: the summary is shown and marked, in --json and in human output', async () => {
    const state = copyFixture(COMPACTION)
    const env = baseEnv(tempDir())
    const doc = json(await runCli(['sessions', 'history', 'agent:main:main', '--limit', '3', '--json', '--state-dir', state], {env}))
    const compaction = doc.entries.find((e: any) => e.type === 'compaction')
    expect(compaction).toMatchObject({id: '57531180', firstKeptEntryId: 'cedc43ce', tokensBefore: 24455})
    expect(compaction.summary).toContain('## Decisions')
    expect(doc.entries.filter((e: any) => e.type === 'message' || e.type === 'compaction')).toHaveLength(3)
    expect(doc.truncated).toBe(true)
    expect(doc.sessionFileLocation).toBe('relocated')
    const human = await runCli(['sessions', 'history', '--session', 'agent:main:main', '--limit', '3', '--state-dir', state], {env})
    expect(human.code).toBe(0)
    expect(human.stdout).toContain('── compaction (24455 tokens before) ──')
    expect(human.stdout).toContain('## Decisions')
  })

  it('parses tool calls with names and arguments and tool results, by key or by sessionId', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const byId = json(await runCli(['sessions', 'history', MAIN_TWO, '--limit', '50', '--json', '--state-dir', state], {env}))
    expect(byId.key).toBe('agent:main:main')
    const calls = byId.entries.flatMap((e: any) => e.toolCalls ?? [])
    expect(calls).toEqual([
      {id: 'toolu_a63512626452464aa994', name: 'read', arguments: {path: '/home/user/.openclaw/workspace/AGENTS.md'}},
      {id: 'toolu_aa9df3345abf49c2b8cb', name: 'exec', arguments: {command: 'echo hi from exec'}},
    ])
    const results = byId.entries.filter((e: any) => e.role === 'toolResult')
    expect(results.map((r: any) => r.toolResult)).toEqual([
      {toolCallId: 'toolu_a63512626452464aa994', toolName: 'read', isError: false},
      {toolCallId: 'toolu_aa9df3345abf49c2b8cb', toolName: 'exec', isError: false},
    ])
    expect(byId.truncated).toBe(false)
    expect(byId.entries[0].type).toBe('message')
    const assistant = byId.entries.find((e: any) => e.role === 'assistant')
    expect(assistant.usage.totalTokens).toBeGreaterThan(0)
    const byKey = json(await runCli(['sessions', 'history', 'main', '--limit', '50', '--json', '--state-dir', state], {env}))
    expect(byKey.entries).toEqual(byId.entries)
    const human = await runCli(['sessions', 'history', 'main', '--state-dir', state], {env})
    expect(human.stdout).toContain('→ exec {"command":"echo hi from exec"}')
    expect(human.stdout).toContain('tool result exec (ok): hi from exec')
  })

  it('--raw prints the stored JSONL lines verbatim', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = path.join(state, 'agents', 'main', 'sessions', `${MAIN_TWO}.jsonl`)
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n')
    const r = await runCli(['sessions', 'history', 'main', '--raw', '--limit', '2', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code).toBe(0)
    // The last two messages and the custom entry after them.
    expect(r.stdout).toBe(`${lines.slice(-3).join('\n')}\n`)
  })

  it('torn last line is tolerated and reported', async () => {
    const state = copyFixture(TWO_AGENTS)
    fs.appendFileSync(path.join(state, 'agents', 'main', 'sessions', `${MAIN_TWO}.jsonl`), '{"type":"message","id":"ff')
    const doc = json(await runCli(['sessions', 'history', 'main', '--json', '--state-dir', state], {env: baseEnv(tempDir())}))
    expect(doc.badLines).toEqual([expect.objectContaining({reason: 'torn'})])
    expect(doc.entries.at(-1).id).toBe('327d8c1f')
  })

  it('unknown key or id: clear error, exit code 1', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    for (const target of ['agent:main:nope', 'no-such-id']) {
      const r = await runCli(['sessions', 'history', target, '--state-dir', state], {env})
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(`Error: Session not found: ${target}`)
    }
    const bad = await runCli(['sessions', 'history', '../../etc/passwd', '--state-dir', state], {env})
    expect(bad.code).toBe(2)
    const missing = await runCli(['sessions', 'history', '--state-dir', state], {env})
    expect(missing.code).toBe(2)
  })
})
