import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, COMPACTION, copyFixture, json, runCli, tempDir, TWO_AGENTS} from '../../support/cli.js'

const MAIN_TWO = '0caed29d-8df6-4457-a9cd-00bb9d2b22e3'

interface Msg {
  role: 'user' | 'assistant' | 'toolResult'
  text: string
  timestamp?: string
}

/**
 * A state dir with one session `key` whose transcript is OpenClaw's preamble (header, model_change,
 * thinking_level_change, a custom snapshot) followed by `messages`, each a message entry with a linear parentId chain.
 */
function sessionState(messages: Msg[], key = 'agent:main:main', sessionId = '11111111-2222-4333-8444-555555555555'): {state: string; file: string} {
  const state = tempDir()
  const dir = path.join(state, 'agents', 'main', 'sessions')
  fs.mkdirSync(dir, {recursive: true})
  const file = path.join(dir, `${sessionId}.jsonl`)
  const lines: unknown[] = [{type: 'session', version: 3, id: sessionId, timestamp: '2026-11-25T21:31:01.326Z', cwd: '/w'}]
  const pre = [
    {type: 'model_change', provider: 'anthropic', modelId: 'claude-x'},
    {type: 'thinking_level_change', thinkingLevel: 'off'},
    {type: 'custom', customType: 'model-snapshot', data: {}},
  ]
  let parentId: string | null = null
  let n = 0
  const nextId = () => (++n).toString(16).padStart(8, '0')
  for (const p of pre) {
    const id = nextId()
    lines.push({...p, id, parentId, timestamp: '2026-11-25T21:31:01.338Z'})
    parentId = id
  }
  for (const m of messages) {
    const id = nextId()
    const message =
      m.role === 'toolResult'
        ? {role: 'toolResult', toolCallId: 'toolu_1', toolName: 'exec', content: [{type: 'text', text: m.text}], isError: false}
        : {role: m.role, content: [{type: 'text', text: m.text}], ...(m.role === 'assistant' ? {provider: 'anthropic', model: 'claude-x', stopReason: 'stop'} : {})}
    lines.push({type: 'message', id, parentId, timestamp: m.timestamp ?? '2026-11-25T21:32:00.000Z', message})
    parentId = id
  }
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify({[key]: {sessionId, updatedAt: Date.now(), sessionFile: file}}, null, 2))
  return {state, file}
}

const turns = (n: number): Msg[] => Array.from({length: n}, (_, i) => ({role: i % 2 === 0 ? 'user' : 'assistant', text: `message ${i + 1}`}))

describe('sessions history', () => {
  it('compaction fixture: the summary is shown and marked, in --json and in human output', async () => {
    const state = copyFixture(COMPACTION)
    const env = baseEnv(tempDir())
    const doc = json(await runCli(['sessions', 'history', 'agent:main:main', '--limit', '3', '--json', '--state-dir', state], {env}))
    const compaction = doc.entries.find((e) => e.type === 'compaction')
    expect(compaction).toMatchObject({id: '57531180', firstKeptEntryId: 'cedc43ce', tokensBefore: 24455})
    expect(compaction!.summary).toContain('## Decisions')
    expect(doc.entries.filter((e) => e.type === 'message' || e.type === 'compaction')).toHaveLength(3)
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
    const calls = byId.entries.flatMap((e) => e.toolCalls ?? [])
    expect(calls).toEqual([
      {id: 'toolu_a63512626452464aa994', name: 'read', arguments: {path: '/home/user/.openclaw/workspace/AGENTS.md'}},
      {id: 'toolu_aa9df3345abf49c2b8cb', name: 'exec', arguments: {command: 'echo hi from exec'}},
    ])
    const results = byId.entries.filter((e) => e.role === 'toolResult')
    expect(results.map((r) => r.toolResult)).toEqual([
      {toolCallId: 'toolu_a63512626452464aa994', toolName: 'read', isError: false},
      {toolCallId: 'toolu_aa9df3345abf49c2b8cb', toolName: 'exec', isError: false},
    ])
    expect(byId.truncated).toBe(false)
    expect(byId.entries[0].type).toBe('message')
    const assistant = byId.entries.find((e) => e.role === 'assistant')
    expect((assistant!.usage as {totalTokens: number}).totalTokens).toBeGreaterThan(0)
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
    expect(doc.entries.at(-1)!.id).toBe('327d8c1f')
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

  it('--limit equal to the number of messages hides nothing: no "earlier messages" line, truncated false (preamble entries are not messages)', async () => {
    const env = baseEnv(tempDir())
    const two = sessionState(turns(2))
    const human = await runCli(['sessions', 'history', 'main', '--limit', '2', '--state-dir', two.state], {env})
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toContain('message 1')
    expect(human.stdout).not.toContain('earlier messages not shown')
    const ten = sessionState(turns(10))
    for (const [limit, truncated] of [[9, true], [10, false], [11, false]] as const) {
      const doc = json(await runCli(['sessions', 'history', 'main', '--limit', String(limit), '--json', '--state-dir', ten.state], {env}))
      expect(doc.truncated, `--limit ${limit}`).toBe(truncated)
      expect(doc.entries.filter((e) => e.type === 'message')).toHaveLength(Math.min(limit, 10))
    }
    const nine = await runCli(['sessions', 'history', 'main', '--limit', '9', '--state-dir', ten.state], {env})
    expect(nine.stdout).toContain('earlier messages not shown')
    // Entries whose "type" is not their first field are parsed to find out what they are.
    const reordered = fs.readFileSync(ten.file, 'utf8').trimEnd().split('\n').map((l, i) => {
      if (i === 0) return l
      const {type, ...rest} = JSON.parse(l)
      return JSON.stringify({...rest, type})
    })
    fs.writeFileSync(ten.file, `${reordered.join('\n')}\n`)
    for (const [limit, truncated] of [[9, true], [10, false]] as const) {
      const doc = json(await runCli(['sessions', 'history', 'main', '--limit', String(limit), '--json', '--state-dir', ten.state], {env}))
      expect(doc.truncated, `reordered, --limit ${limit}`).toBe(truncated)
    }
  })

  it('times are local with their UTC offset, in the zone TZ names (a half-hour zone, a DST zone in winter, UTC); --json keeps the stored ISO time', async () => {
    const {state} = sessionState([{role: 'user', text: 'when', timestamp: '2026-11-25T21:31:01.000Z'}])
    const cases: [string, string][] = [
      ['Asia/Kolkata', '[2026-11-26 03:01:01 +05:30] user: when'],
      ['America/New_York', '[2026-11-25 16:31:01 -05:00] user: when'],
      ['UTC', '[2026-11-25 21:31:01 +00:00] user: when'],
    ]
    for (const [tz, line] of cases) {
      const r = await runCli(['sessions', 'history', 'main', '--state-dir', state], {env: baseEnv(tempDir(), {TZ: tz})})
      expect(r.stdout, tz).toContain(line)
      const doc = json(await runCli(['sessions', 'history', 'main', '--json', '--state-dir', state], {env: baseEnv(tempDir(), {TZ: tz})}))
      expect(doc.entries[0].timestamp, tz).toBe('2026-11-25T21:31:01.000Z')
    }
  })

  it('multi-line user messages and tool results are indented under their role and time line; one-line bodies stay on it', async () => {
    const {state} = sessionState([
      {role: 'user', text: 'first line\nsecond line\n\nfourth line'},
      {role: 'assistant', text: 'one line reply'},
      {role: 'toolResult', text: 'out 1\nout 2'},
    ])
    const r = await runCli(['sessions', 'history', 'main', '--state-dir', state], {env: baseEnv(tempDir(), {TZ: 'UTC'})})
    expect(r.code, r.stderr).toBe(0)
    const t = '[2026-11-25 21:32:00 +00:00]'
    expect(r.stdout).toContain(`${t} user:\n    first line\n    second line\n\n    fourth line\n`)
    expect(r.stdout).toContain(`${t} assistant (anthropic/claude-x): one line reply\n`)
    expect(r.stdout).toContain(`${t} tool result exec (ok):\n    out 1\n    out 2\n`)
    // Nothing but the two header lines starts at column 0 without a time.
    for (const line of r.stdout.trimEnd().split('\n').slice(2)) expect(line, line).toMatch(/^(\[|    |$)/)
  })

  it('--offset pages back: --limit 3 --offset 3 is the three before the last three, and the pages meet without a gap or an overlap', async () => {
    const {state} = sessionState(turns(8))
    const env = baseEnv(tempDir())
    const page = (...args: string[]) => runCli(['sessions', 'history', 'main', '--json', '--state-dir', state, ...args], {env}).then((r) => json(r))
    const texts = (d: {entries: {type: string; text?: string}[]}) => d.entries.filter((e) => e.type === 'message').map((e) => e.text)
    const newest = await page('--limit', '3')
    const before = await page('--limit', '3', '--offset', '3')
    const first = await page('--limit', '3', '--offset', '6')
    expect([texts(first), texts(before), texts(newest)]).toEqual([['message 1', 'message 2'], ['message 3', 'message 4', 'message 5'], ['message 6', 'message 7', 'message 8']])
    expect([first.truncated, before.truncated, newest.truncated]).toEqual([false, true, true])
    expect(before).toMatchObject({limit: 3, offset: 3})
    expect(newest).not.toHaveProperty('offset')
    expect(texts(await page('--offset', '8'))).toEqual([])
    const human = await runCli(['sessions', 'history', 'main', '--limit', '1', '--offset', '1', '--state-dir', state], {env})
    expect(human.stdout.trimEnd().split('\n').slice(-2).map((l) => l.replace(/^\[[^\]]+\] /, ''))).toEqual(['user: message 7', '\u2026 the 1 newest message(s) after these not shown (--offset 1)'])
    const bad = await runCli(['sessions', 'history', 'main', '--offset', '-1', '--json', '--state-dir', state], {env})
    expect(json<{error: {code: string}}>(bad).error.code).toBe('E_BAD_OFFSET')
  })

  it('a session with no messages (just reset: header only) prints "no messages yet"', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const reset = await runCli(['sessions', 'reset', 'main', '--state-dir', state], {env})
    expect(reset.code, reset.stderr).toBe(0)
    const r = await runCli(['sessions', 'history', 'main', '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trimEnd().split('\n')).toEqual([expect.stringContaining('Session agent:main:main'), expect.stringContaining('Transcript: '), 'no messages yet'])
    const preambleOnly = sessionState([])
    const p = await runCli(['sessions', 'history', 'main', '--state-dir', preambleOnly.state], {env})
    expect(p.stdout).toContain('no messages yet')
    expect(p.stdout).not.toContain('earlier messages')
  })

  it('bidi controls, zero-width and other invisible characters (U+202E, U+2066, U+200B, U+2028, U+FEFF) in keys and text are shown as <U+XXXX>; --json keeps them', async () => {
    const key = 'agent:main:evil\u202Eexe.txt\u200B'
    const text = 'pay \u2066alice\u2069 now\u200B\u2028done\uFEFF and \u001b[31m'
    const {state} = sessionState([{role: 'user', text}], key)
    const env = baseEnv(tempDir())
    const r = await runCli(['sessions', 'history', key, '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Session agent:main:evil<U+202E>exe.txt<U+200B> (')
    expect(r.stdout).toContain('pay <U+2066>alice<U+2069> now<U+200B><U+2028>done<U+FEFF> and \\u001b[31m')
    expect(r.stdout).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u2028\u2029\uFEFF\u001b]/)
    const doc = json(await runCli(['sessions', 'history', key, '--json', '--state-dir', state], {env}))
    expect(doc.key).toBe(key)
    expect(doc.entries[0].text).toBe(text)
    // A second row whose transcript is missing, so doctor names a key of this kind in a finding.
    const index = JSON.parse(fs.readFileSync(path.join(state, 'agents', 'main', 'sessions', 'sessions.json'), 'utf8'))
    index['agent:main:evil\u202Eexe.txt\u200B:gone'] = {sessionId: '99999999-2222-4333-8444-555555555555', updatedAt: 1}
    fs.writeFileSync(path.join(state, 'agents', 'main', 'sessions', 'sessions.json'), JSON.stringify(index, null, 2))
    for (const cmd of [['sessions', 'list'], ['status'], ['doctor'], ['sessions', 'reset', key]]) {
      const out = await runCli([...cmd, '--state-dir', state], {env})
      expect(out.stdout + out.stderr, cmd.join(' ')).toContain('evil<U+202E>exe.txt<U+200B>')
      expect(out.stdout + out.stderr, cmd.join(' ')).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u2028\u2029\uFEFF]/)
    }
    const listJson = json(await runCli(['sessions', 'list', '--json', '--state-dir', state], {env}))
    expect(listJson.sessions[0].key).toBe(key)
  })
})
