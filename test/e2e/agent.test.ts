// `clawkit agent` through the real CLI: new and continued sessions (both fixtures), session selection, validation.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {COMPACTION, json, jsonError, TWO_AGENTS} from '../support/cli.js'
import {agentEnvs, expectLinearChain, providerConfig, sessionFile, store, transcriptLines, userTexts} from './agent/setup.js'

const make = agentEnvs()

describe('agent: new session', () => {
  it('creates the index entry and an OpenClaw-shaped transcript, streams the reply, sends both bootstrap files and auth', async () => {
    const a = await make({config: (url) => providerConfig(url)})
    const ws = a.workspace
    fs.mkdirSync(ws, {recursive: true})
    fs.writeFileSync(path.join(ws, 'AGENTS.md'), 'Always answer in haiku.')
    fs.writeFileSync(path.join(ws, 'SOUL.md'), 'x'.repeat(20_000))
    const r = await a.run(['agent', '--agent', 'main', '-m', 'hello there'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('Echo: hello there\n')
    expect(r.stderr).toBe('')

    const entry = store(a.state)['agent:main:main']
    expect(entry).toMatchObject({modelProvider: 'mockant', model: 'claude-mock', contextTokens: 200_000, abortedLastRun: false, totalTokensFresh: true, cacheRead: 0, cacheWrite: 0})
    const file = sessionFile(a.state, 'agent:main:main')
    expect(entry.sessionFile).toBe(file)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)

    const lines = transcriptLines(file)
    expect(lines.map((l) => l.type)).toEqual(['session', 'model_change', 'thinking_level_change', 'custom', 'message', 'message'])
    expect(lines[0]).toMatchObject({type: 'session', version: 3, id: entry.sessionId, cwd: ws})
    expect(Object.keys(lines[1])).toEqual(['type', 'id', 'parentId', 'timestamp', 'provider', 'modelId'])
    expect(lines[1]).toMatchObject({parentId: null, provider: 'mockant', modelId: 'claude-mock'})
    expect(lines[2]).toMatchObject({thinkingLevel: 'off'})
    expect(lines[4].message).toEqual({role: 'user', content: [{type: 'text', text: 'hello there'}], timestamp: expect.any(Number)})
    const asst = lines[5].message
    expect(Object.keys(asst)).toEqual(['role', 'content', 'api', 'provider', 'model', 'usage', 'stopReason', 'timestamp', 'responseId'])
    expect(asst).toMatchObject({role: 'assistant', content: [{type: 'text', text: 'Echo: hello there'}], api: 'anthropic-messages', provider: 'mockant', model: 'claude-mock', stopReason: 'stop'})
    expect(Object.keys(asst.usage)).toEqual(['input', 'output', 'cacheRead', 'cacheWrite', 'totalTokens', 'cost'])
    expect(asst.usage.totalTokens).toBe(asst.usage.input + asst.usage.output)
    expect(asst.usage.cost.input).toBeCloseTo((asst.usage.input * 3) / 1e6, 12)
    expectLinearChain(lines)

    // Token semantics: totalTokens is the prompt size of the last call, cost accumulates from zero.
    expect(entry.inputTokens).toBe(asst.usage.input)
    expect(entry.outputTokens).toBe(asst.usage.output)
    expect(entry.totalTokens).toBe(asst.usage.input)
    expect(entry.estimatedCostUsd).toBeCloseTo(asst.usage.cost.total, 9)

    const req = a.mock.messageRequests()[0]
    expect(req.headers.authorization).toBe('Bearer test-key')
    expect(req.body.stream).toBe(true)
    const system = req.body.system.map((b: any) => b.text).join('')
    expect(system).toContain('Always answer in haiku.')
    // SOUL.md is capped at 12 000 characters, as OpenClaw injects bootstrap files.
    expect(system).toContain('characters truncated')
    expect(system.length).toBeLessThan(14_000)
    expect(req.body.tools.map((t: any) => t.name)).toEqual(['read', 'ls'])
  })

  it('--json prints the OpenClaw local-run document and nothing else', async () => {
    const a = await make()
    const r = await a.run(['agent', '--agent', 'main', '-m', 'hi', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    const entry = store(a.state)['agent:main:main']
    expect(doc.payloads).toEqual([{text: 'Echo: hi', mediaUrl: null}])
    expect(doc.meta).toMatchObject({aborted: false, stopReason: 'stop', agentMeta: {sessionId: entry.sessionId, sessionKey: 'agent:main:main', sessionFile: entry.sessionFile, provider: 'anthropic', model: 'claude-opus-4-6', contextTokens: 200_000, compactionCount: 0, promptTokens: entry.totalTokens}})
    expect(doc.meta.agentMeta.usage).toEqual({input: entry.inputTokens, output: entry.outputTokens, cacheRead: 0, cacheWrite: 0, total: Number(entry.inputTokens) + Number(entry.outputTokens)})
    expect(doc.meta.durationMs).toBeGreaterThan(0)
  })

  it('models.providers in openclaw.json supplies endpoint and key when the env has none', async () => {
    const a = await make({envKey: false, config: (url) => providerConfig(url)})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'via config'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('Echo: via config\n')
    expect(a.mock.messageRequests()[0].headers.authorization).toBe('Bearer sk-config')
  })

  it('prices in openclaw.json that are negative or not finite count as none: the stored cost and estimatedCostUsd stay finite and never below 0', async () => {
    const a = await make({
      config: (url) => {
        const cfg = providerConfig(url) as any
        // JSON has no Infinity: 1e400 parses to it, as a hand-edited config would give it.
        cfg.models.providers.mockant.models[0].cost = {input: -3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}
        return cfg
      },
    })
    const cfgPath = path.join(a.state, 'openclaw.json')
    fs.writeFileSync(cfgPath, fs.readFileSync(cfgPath, 'utf8').replace('"output": 15', '"output": 1e400'))
    const r = await a.run(['agent', '--agent', 'main', '-m', 'bad prices'])
    expect(r.code, r.stderr).toBe(0)
    const asst = transcriptLines(sessionFile(a.state, 'agent:main:main')).at(-1).message
    expect(asst.usage.cost).toEqual({input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0})
    expect(store(a.state)['agent:main:main'].estimatedCostUsd).toBe(0)
  })
})

describe('agent: continuing OpenClaw sessions', () => {
  it('two-agents main: the request replays the prior turns in order with tool calls paired, and the turn chains onto the leaf', async () => {
    const a = await make({fixture: TWO_AGENTS})
    const file = sessionFile(a.state, 'agent:main:main')
    const before = fs.readFileSync(file, 'utf8')
    const oldEntry = store(a.state)['agent:main:main']
    const r = await a.run(['agent', '--agent', 'main', '-m', 'and now?'])
    expect(r.code, r.stderr).toBe(0)

    const body = a.mock.messageRequests()[0].body
    const shape = body.messages.map((m: any) => `${m.role}:${m.content.map((b: any) => b.type).join('+')}`)
    expect(shape).toEqual(['user:text', 'assistant:text', 'user:text', 'assistant:tool_use', 'user:tool_result', 'assistant:text', 'user:text', 'assistant:tool_use', 'user:tool_result', 'assistant:text', 'user:text'])
    const uses = body.messages.flatMap((m: any) => m.content.filter((b: any) => b.type === 'tool_use'))
    expect(uses.map((u: any) => [u.id, u.name, u.input])).toEqual([
      ['toolu_a63512626452464aa994', 'read', {path: '/home/user/.openclaw/workspace/AGENTS.md'}],
      ['toolu_aa9df3345abf49c2b8cb', 'exec', {command: 'echo hi from exec'}],
    ])
    const results = body.messages.flatMap((m: any) => m.content.filter((b: any) => b.type === 'tool_result'))
    expect(results.map((b: any) => b.tool_use_id)).toEqual(uses.map((u: any) => u.id))
    expect(results[1].content[0].text).toBe('hi from exec')
    expect(userTexts(body).at(-1)).toBe('and now?')
    // Prior user turns in file order.
    const priorUsers = transcriptLines(file).filter((l) => l.type === 'message' && l.message.role === 'user').map((l) => l.message.content[0].text)
    expect(userTexts(body)).toEqual(priorUsers)

    const after = fs.readFileSync(file, 'utf8')
    expect(after.startsWith(before)).toBe(true)
    const added = transcriptLines(file).slice(before.trim().split('\n').length)
    // Same model and thinking level as the transcript: no settings entries, just the turn.
    expect(added.map((l) => l.message?.role)).toEqual(['user', 'assistant'])
    expect(added[0].parentId).toBe('327d8c1f')
    expectLinearChain(transcriptLines(file))

    const entry = store(a.state)['agent:main:main']
    // Untouched fields survive; cost accumulates; per-run counters are replaced.
    expect(entry.skillsSnapshot).toEqual(oldEntry.skillsSnapshot)
    expect(entry.systemPromptReport).toEqual(oldEntry.systemPromptReport)
    expect(entry.sessionStartedAt).toBe(oldEntry.sessionStartedAt)
    expect(entry.sessionFile).toBe(file)
    const asst = added[1].message
    expect(entry.inputTokens).toBe(asst.usage.input)
    expect(entry.estimatedCostUsd).toBeCloseTo(oldEntry.estimatedCostUsd + asst.usage.cost.total, 9)
    expect(entry.updatedAt).toBeGreaterThan(oldEntry.updatedAt)
    expect(entry.lastInteractionAt).toBe(entry.updatedAt)
    expect(entry.agentHarnessId).toBe('pi')
  })

  it('two-agents work agent: --agent work continues agent:work:main in its own store', async () => {
    const a = await make({fixture: TWO_AGENTS})
    const r = await a.run(['agent', '--agent', 'work', '-m', 'work item', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).meta.agentMeta).toMatchObject({sessionKey: 'agent:work:main', sessionId: '704f285c-af26-493e-ab33-9383ab17a8c0', agentId: 'work'})
    expect(userTexts(a.mock.messageRequests()[0].body)).toHaveLength(2)
    const lines = transcriptLines(sessionFile(a.state, 'agent:work:main', 'work'))
    expect(lines.at(-1).message.content[0].text).toBe('Echo: work item')
  })

  it('compaction fixture: the summary goes first, then the kept messages, then the new prompt', async () => {
    const a = await make({fixture: COMPACTION})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'after compaction'])
    expect(r.code, r.stderr).toBe(0)
    const body = a.mock.messageRequests()[0].body
    const first = body.messages[0]
    expect(first.role).toBe('user')
    expect(first.content[0].text).toMatch(/^The conversation history before this point was compacted into the following summary:\n\n<summary>\n## Decisions/)
    // firstKeptEntryId is the first entry, so every earlier turn is still sent after the summary, in order.
    const lines = transcriptLines(sessionFile(a.state, 'agent:main:main'))
    const fileUsers = lines.filter((l) => l.type === 'message' && l.message.role === 'user').map((l) => l.message.content[0].text)
    expect(userTexts(body).slice(1)).toEqual(fileUsers)
    expect(body.messages.at(-1).content.at(-1).text).toBe('after compaction')
    expect(store(a.state)['agent:main:main'].compactionCheckpoints).toHaveLength(1)
  })

  it('--session-id finds the explicit fixture session; an unknown id creates agent:<agent>:explicit:<id>', async () => {
    const a = await make({fixture: COMPACTION})
    let r = await a.run(['agent', '--session-id', '0a1b2c3d-0000-4000-8000-000000000001', '-m', 'explicit', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).meta.agentMeta.sessionKey).toBe('agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001')
    expect(userTexts(a.mock.messageRequests()[0].body)).toHaveLength(2)

    r = await a.run(['agent', '--session-id', 'my-run-7', '-m', 'fresh', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).meta.agentMeta).toMatchObject({sessionKey: 'agent:main:explicit:my-run-7', sessionId: 'my-run-7'})
    expect(store(a.state)['agent:main:explicit:my-run-7'].sessionId).toBe('my-run-7')
    expect(fs.existsSync(path.join(a.state, 'agents/main/sessions/my-run-7.jsonl'))).toBe(true)
  })

  it('--to uses agent main\'s main session; --session-key takes an explicit key', async () => {
    const a = await make({fixture: TWO_AGENTS})
    let r = await a.run(['agent', '--to', '+15555550123', '-m', 'sms', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).meta.agentMeta.sessionKey).toBe('agent:main:main')
    r = await a.run(['agent', '--to', 'group:Team-42', '-m', 'to a group', '--json'])
    expect(json(r).meta.agentMeta.sessionKey).toBe('agent:main:group:team-42')
    r = await a.run(['agent', '--session-key', 'agent:work:hooks:nightly', '-m', 'hook', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).meta.agentMeta).toMatchObject({sessionKey: 'agent:work:hooks:nightly', agentId: 'work'})
    expect(store(a.state, 'work')['agent:work:hooks:nightly']).toBeDefined()
  })
})

describe('agent: --to with session.scope "global"', () => {
  it('scope global: --to (a number or a group) uses the literal key `global` in agent main\'s store, not agent:main:main', async () => {
    const a = await make({config: (url) => providerConfig(url, {}, {session: {scope: 'global'}})})
    let r = await a.run(['agent', '--to', '+15555550123', '-m', 'sms', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).meta.agentMeta.sessionKey).toBe('global')
    r = await a.run(['agent', '--to', 'group:Team-42', '-m', 'to a group', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).meta.agentMeta.sessionKey).toBe('global')
    const s = store(a.state)
    expect(Object.keys(s)).toEqual(['global'])
    const lines = transcriptLines(sessionFile(a.state, 'global'))
    expect(lines.filter((l) => l.type === 'message' && l.message.role === 'user').map((l) => l.message.content[0].text)).toEqual(['sms', 'to a group'])
  })
})

describe('agent: --model', () => {
  it('switching model on a continued session appends model_change and updates the index', async () => {
    const a = await make({fixture: TWO_AGENTS})
    const file = sessionFile(a.state, 'agent:main:main')
    const n = transcriptLines(file).length
    const r = await a.run(['agent', '--agent', 'main', '-m', 'switch', '--model', 'anthropic/claude-haiku-4-5', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(a.mock.messageRequests()[0].body.model).toBe('claude-haiku-4-5')
    const added = transcriptLines(file).slice(n)
    expect(added.map((l) => l.type)).toEqual(['model_change', 'message', 'message'])
    expect(added[0]).toMatchObject({provider: 'anthropic', modelId: 'claude-haiku-4-5'})
    expect(added[2].message).toMatchObject({provider: 'anthropic', model: 'claude-haiku-4-5'})
    expect(store(a.state)['agent:main:main']).toMatchObject({modelProvider: 'anthropic', model: 'claude-haiku-4-5', contextTokens: 200_000})
    // A bare model id found in models.providers picks that provider.
    const r2 = await a.run(['agent', '--agent', 'main', '-m', 'back', '--model', 'claude-mock', '--json'])
    expect(json(r2).meta.agentMeta).toMatchObject({provider: 'mockant', model: 'claude-mock'})
  })
})

describe('agent: validation errors (nothing written)', () => {
  it('no selector, unknown agent, bad thinking level, bad timeout, missing message', async () => {
    const a = await make()
    const cases: Array<[string[], number, RegExp]> = [
      [['--to', ' ', '-m', 'x'], 2, /--to is empty/],
      [['--agent', 'ghost', '-m', 'x'], 2, /Unknown agent id "ghost"/],
      [['--agent', 'main', '-m', 'x', '--thinking', 'galaxy'], 2, /Invalid thinking level\. Use one of: off, minimal, low, medium, high\./],
      [['--agent', 'main', '-m', 'x', '--timeout', '-3'], 2, /--timeout must be a non-negative integer/],
      [['--agent', 'main', '-m', '   '], 2, /Message \(--message\) is required/],
      [['--agent', 'main', '--session-id', '../../etc', '-m', 'x'], 2, /Invalid session ID/],
      [['--agent', 'main', '--session-key', 'agent:work:x', '-m', 'x'], 2, /belongs to agent "work", not "main"/],
      [['--session-key', 'has space', '-m', 'x'], 2, /Invalid session key/],
      [['--agent', 'main', '-m', 'x', '--message-file', '/etc/hostname'], 2, /either --message or --message-file, not both/],
    ]
    for (const [args, code, re] of cases) {
      const r = await a.run(['agent', ...args])
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code)
      expect(r.stderr).toMatch(re)
    }
    expect(fs.existsSync(path.join(a.state, 'agents'))).toBe(false)
    expect(a.mock.requests).toHaveLength(0)
  })

  it('missing API key: a clear error before anything is written', async () => {
    const a = await make({envKey: false})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'hello'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/No API key for provider "anthropic"\. Set ANTHROPIC_API_KEY/)
    expect(fs.existsSync(path.join(a.state, 'agents'))).toBe(false)
    const j = await a.run(['agent', '--agent', 'main', '-m', 'hello', '--json'])
    expect(jsonError(j)).toMatchObject({code: 'E_NO_API_KEY', exitCode: 1})
  })

  it('--message-file reads UTF-8 text; a file over 4 MiB is refused', async () => {
    const a = await make()
    const msg = path.join(a.home, 'prompt.txt')
    fs.writeFileSync(msg, 'from a file ✓')
    let r = await a.run(['agent', '--agent', 'main', '--message-file', msg])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('Echo: from a file ✓\n')
    fs.writeFileSync(msg, Buffer.alloc(4 * 1024 * 1024 + 1, 97))
    r = await a.run(['agent', '--agent', 'main', '--message-file', msg])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/limit is 4 MiB/)
  })
})
