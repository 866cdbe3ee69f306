// Agent turns under stress through the real CLI: context guard, API failures, aborts, lock serialization, thinking.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import type {AgentRunResult} from '../../../src/agent/output.js'
import {BIN, json, jsonError, ROOT, runCli, startCli, TWO_AGENTS, waitUntil} from '../../support/cli.js'
import {type AgentEnv, agentEnvs, expectLinearChain, providerConfig, sessionFile, store, transcriptLines, userTexts} from './setup.js'

const make = agentEnvs()

function transcriptLinesSafe(a: AgentEnv): any[] {
  try {
    return transcriptLines(sessionFile(a.state, 'agent:main:main'))
  } catch {
    return []
  }
}

const PREFIX = 'The conversation history before this point was compacted into the following summary:'

describe('context guard', () => {
  it('400 prompt-too-long -> compaction entry written, compactionCount bumped, and the retried request is smaller', async () => {
    const a = await make({config: (url) => providerConfig(url, {contextWindow: 8000})})
    const words = (n: number, tag: string) => `${tag} ${'lorem ipsum dolor '.repeat(n)}`.trim()
    for (const tag of ['first', 'second', 'third']) {
      const r = await a.run(['agent', '--agent', 'main', '-m', words(110, tag)])
      expect(r.code, r.stderr).toBe(0)
    }
    const file = sessionFile(a.state, 'agent:main:main')
    const before = fs.readFileSync(file, 'utf8')
    const seeded = a.mock.messageRequests().length
    a.mock.push({kind: 'overflow'}, {kind: 'text', text: '## Goal\nKeep chatting.\n\n## Next Steps\n1. Answer.'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'fourth question', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).meta.agentMeta.compactionCount).toBe(1)

    const reqs = a.mock.messageRequests().slice(seeded)
    expect(reqs).toHaveLength(3)
    const [overflowed, summary, retried] = reqs
    expect(summary.body.system).toMatch(/context summarization assistant/)
    expect(summary.body.messages[0].content[0].text).toContain('<conversation>\n[User]: first lorem')
    expect(retried.inputTokens).toBeLessThan(overflowed.inputTokens)
    expect(retried.body.messages[0].content[0].text.startsWith(PREFIX)).toBe(true)
    expect(retried.body.messages[0].content[0].text).toContain('Keep chatting.')
    expect(userTexts(retried.body).some((t) => t.startsWith('first'))).toBe(false)
    expect(userTexts(retried.body).at(-1)).toBe('fourth question')

    const after = fs.readFileSync(file, 'utf8')
    expect(after.startsWith(before)).toBe(true)
    const lines = transcriptLines(file)
    expectLinearChain(lines)
    const compaction = lines.find((l) => l.type === 'compaction')
    expect(Object.keys(compaction)).toEqual(['type', 'id', 'parentId', 'timestamp', 'summary', 'firstKeptEntryId', 'tokensBefore', 'details', 'fromHook'])
    expect(compaction).toMatchObject({summary: expect.stringContaining('## Goal'), tokensBefore: expect.any(Number), fromHook: false})
    const kept = lines.find((l) => l.id === compaction.firstKeptEntryId)
    expect(kept.type).toBe('message')
    expect(['user', 'assistant']).toContain(kept.message.role)
    expect(store(a.state)['agent:main:main'].compactionCount).toBe(1)
  })

  it('token accounting after an overflow compaction: the summary call is not lastCallUsage nor in inputTokens/outputTokens, only in the cost', async () => {
    const a = await make({config: (url) => providerConfig(url, {contextWindow: 8000})})
    const words = (n: number, tag: string) => `${tag} ${'lorem ipsum dolor '.repeat(n)}`.trim()
    for (const tag of ['first', 'second', 'third']) expect((await a.run(['agent', '--agent', 'main', '-m', words(110, tag)])).code).toBe(0)
    const costBefore = store(a.state)['agent:main:main'].estimatedCostUsd
    const seeded = a.mock.messageRequests().length
    a.mock.push({kind: 'overflow'}, {kind: 'text', text: '## Goal\nKeep chatting.'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'fourth question', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const [, summary, retried] = a.mock.messageRequests().slice(seeded)
    expect(summary.body.system).toMatch(/context summarization assistant/)
    const e = store(a.state)['agent:main:main']
    // Only the retried call counts: its prompt is totalTokens and its input is the run's whole inputTokens.
    expect(e).toMatchObject({compactionCount: 1, inputTokens: retried.inputTokens, totalTokens: retried.inputTokens, totalTokensFresh: true})
    expect(json(r).meta.agentMeta.lastCallUsage!.input).toBe(retried.inputTokens)
    // The summary still costs money: input at $3/M on top of the retried call's cost.
    const retriedCost = (Number(retried.inputTokens) * 3 + Number(e.outputTokens) * 15) / 1e6
    expect(Number(e.estimatedCostUsd) - Number(costBefore)).toBeGreaterThan(retriedCost + (summary.inputTokens * 3) / 1e6 - 1e-9)
  })

  it('a turn that compacts and then fails (no later call succeeds) records the post-compaction estimate as a fresh totalTokens and clears the old counters', async () => {
    const a = await make({config: (url) => providerConfig(url, {contextWindow: 8000})})
    const words = (n: number, tag: string) => `${tag} ${'lorem ipsum dolor '.repeat(n)}`.trim()
    for (const tag of ['first', 'second', 'third']) expect((await a.run(['agent', '--agent', 'main', '-m', words(110, tag)])).code).toBe(0)
    const before = store(a.state)['agent:main:main']
    const seeded = a.mock.messageRequests().length
    a.mock.push({kind: 'overflow'}, {kind: 'text', text: '## Goal\nKeep chatting.'})
    for (let i = 0; i < 3; i++) a.mock.push({kind: 'error', status: 500, type: 'api_error', message: 'down after compaction', headers: {'retry-after-ms': '0'}})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'fourth question', '--json'])
    expect(r.code).toBe(1)
    const [overflowed, summary] = a.mock.messageRequests().slice(seeded)
    const e = store(a.state)['agent:main:main']
    expect(e.compactionCount).toBe(1)
    expect(e.totalTokensFresh).toBe(true)
    // The estimate of the compacted context: positive, and below the prompt that overflowed.
    expect(e.totalTokens).toBeGreaterThan(0)
    expect(e.totalTokens).toBeLessThan(overflowed.inputTokens)
    expect(e.totalTokens).not.toBe(summary.inputTokens)
    expect(e.inputTokens).toBeUndefined()
    expect(e.outputTokens).toBeUndefined()
    expect(e.estimatedCostUsd).toBeGreaterThan(Number(before.estimatedCostUsd))
  })

  it('pre-call guard: past window minus reserve, the turn compacts before calling (no 400 needed)', async () => {
    const summarize = (body: any) => (typeof body.system === 'string' && body.system.includes('summarization') ? {kind: 'text' as const, text: '## Goal\nShort summary.'} : {kind: 'text' as const, text: 'ok'})
    const a = await make({config: (url) => providerConfig(url, {contextWindow: 4000}), mock: {fallback: summarize}})
    let turns = 0
    while (turns < 8 && !transcriptLinesSafe(a).some((l) => l.type === 'compaction')) {
      const r = await a.run(['agent', '--agent', 'main', '-m', `turn ${turns} ${'words and more words '.repeat(60)}`])
      expect(r.code, r.stderr).toBe(0)
      turns++
    }
    const lines = transcriptLinesSafe(a)
    const compaction = lines.find((l) => l.type === 'compaction')
    expect(compaction, 'a compaction entry').toBeDefined()
    expect(compaction.summary).toBe('## Goal\nShort summary.')
    // One call per turn plus exactly one summary call: nothing was rejected and retried.
    expect(a.mock.messageRequests()).toHaveLength(turns + 1)
    const last = a.mock.messageRequests().at(-1)!
    expect(last.body.messages[0].content[0].text.startsWith(PREFIX)).toBe(true)
    expect(store(a.state)['agent:main:main'].compactionCount).toBe(1)
    expectLinearChain(lines)
  })

  it('the summary call failing (500 after retries) fails the turn cleanly: no compaction entry, error recorded', async () => {
    const a = await make({fixture: TWO_AGENTS, config: (url) => providerConfig(url, {contextWindow: 2000})})
    const file = sessionFile(a.state, 'agent:main:main')
    const before = fs.readFileSync(file, 'utf8')
    for (let i = 0; i < 3; i++) a.mock.push({kind: 'error', status: 500, type: 'api_error', message: 'summarizer down', headers: {'retry-after-ms': '0'}})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'needs compaction', '--json'])
    expect(r.code).toBe(1)
    expect(jsonError(r)).toMatchObject({code: 'E_API_UNAVAILABLE', message: expect.stringContaining('summarizer down')})
    // The guard compacted first: the failing calls were summary requests.
    expect(a.mock.messageRequests()[0].body.system).toMatch(/context summarization assistant/)
    const after = fs.readFileSync(file, 'utf8')
    expect(after.startsWith(before)).toBe(true)
    const lines = transcriptLines(file)
    expect(lines.some((l) => l.type === 'compaction')).toBe(false)
    expect(lines.at(-1).message).toMatchObject({role: 'assistant', stopReason: 'error'})
    expect(lines.at(-2).message).toMatchObject({role: 'user', content: [{text: 'needs compaction'}]})
    expectLinearChain(lines)
  })

  it('oversized tool results are shortened in the request first, before any compaction', async () => {
    const a = await make({config: (url) => providerConfig(url)})
    const ws = a.workspace
    fs.mkdirSync(ws, {recursive: true})
    fs.writeFileSync(path.join(ws, 'big.txt'), 'b'.repeat(40_000))
    a.mock.push({kind: 'toolUse', calls: [{name: 'read', input: {path: 'big.txt'}}]}, {kind: 'overflow'}, {kind: 'text', text: 'read it'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'read big.txt'])
    expect(r.code, r.stderr).toBe(0)
    const [, overflowed, retried] = a.mock.messageRequests()
    const resultText = (req: any) => req.body.messages.at(-1).content[0].content[0].text
    expect(resultText(overflowed)).toHaveLength(40_000)
    expect(resultText(retried).length).toBeLessThan(2500)
    expect(resultText(retried)).toMatch(/Tool result truncated/)
    // The transcript keeps the full result; only the request was shortened.
    const tr = transcriptLines(sessionFile(a.state, 'agent:main:main')).find((l) => l.message?.role === 'toolResult')
    expect(tr.message.content[0].text).toHaveLength(40_000)
    expect(transcriptLines(sessionFile(a.state, 'agent:main:main')).some((l) => l.type === 'compaction')).toBe(false)
  })

  it('overflow that compaction cannot fix: exit 1 E_CONTEXT_OVERFLOW, earlier transcript intact, error recorded', async () => {
    const a = await make({fixture: TWO_AGENTS, mock: {contextWindow: 50}})
    const file = sessionFile(a.state, 'agent:main:main')
    const before = fs.readFileSync(file, 'utf8')
    const r = await a.run(['agent', '--agent', 'main', '-m', 'too big', '--json'])
    expect(r.code).toBe(1)
    expect(jsonError(r)).toMatchObject({code: 'E_CONTEXT_OVERFLOW', exitCode: 1})
    expect(jsonError(r).message).toMatch(/prompt is too long/)
    const after = fs.readFileSync(file, 'utf8')
    expect(after.startsWith(before)).toBe(true)
    const added = transcriptLines(file).slice(before.trim().split('\n').length)
    expect(added.map((l) => l.message?.role ?? l.type)).toEqual(['user', 'assistant'])
    expect(added[1].message).toMatchObject({stopReason: 'error', errorMessage: expect.stringMatching(/Context overflow/)})
    expectLinearChain(transcriptLines(file))
  })
})

describe('API failures', () => {
  it('429 then success: the SDK retries and the turn completes', async () => {
    const a = await make()
    a.mock.push({kind: 'error', status: 429, type: 'rate_limit_error', message: 'Number of requests exceeded', headers: {'retry-after-ms': '0'}})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'retry me'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('Echo: retry me\n')
    expect(a.mock.messageRequests().map((q) => q.headers['x-stainless-retry-count'])).toEqual(['0', '1'])
    expect(a.mock.messageRequests()[0].headers['accept-encoding']).toBeUndefined()
  })

  it('persistent 500: clear error after the retries, exit 1, the user message is kept with an error reply', async () => {
    const a = await make()
    for (let i = 0; i < 3; i++) a.mock.push({kind: 'error', status: 500, type: 'api_error', message: 'Internal server error', headers: {'retry-after-ms': '0'}})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'will fail'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^Error: The model API failed \(500 api_error\) and retries did not help: Internal server error/)
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(a.mock.messageRequests()).toHaveLength(3)
    const lines = transcriptLines(sessionFile(a.state, 'agent:main:main'))
    const msgs = lines.filter((l) => l.type === 'message').map((l) => l.message)
    expect(msgs.map((m) => [m.role, m.stopReason])).toEqual([['user', undefined], ['assistant', 'error']])
    expect(store(a.state)['agent:main:main'].abortedLastRun).toBe(false)
  })

  it('in-stream error event (overloaded mid-stream): exit 1 with the API message', async () => {
    const a = await make()
    a.mock.push({kind: 'sseError', type: 'overloaded_error', message: 'Overloaded'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'x', '--json'])
    expect(r.code).toBe(1)
    expect(jsonError(r).message).toMatch(/Overloaded/)
  })

  it('unreachable API (a closed port): exit 1, E_API_CONNECTION naming the base URL, after the SDK retries', async () => {
    const a = await make()
    const closed = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const {port} = srv.address() as net.AddressInfo
        srv.close(() => resolve(port))
      })
    })
    const url = `http://127.0.0.1:${closed}`
    const r = await runCli(['agent', '--agent', 'main', '-m', 'x', '--json', '--state-dir', a.state], {env: {...a.env, ANTHROPIC_BASE_URL: url}})
    expect(r.code, r.stderr).toBe(1)
    // The bundle renames classes (APIConnectionError2); the check relies on names kept by esbuild's keepNames.
    expect(jsonError(r)).toMatchObject({code: 'E_API_CONNECTION', exitCode: 1})
    expect(jsonError(r).message).toContain(`Could not reach the model API at ${url}`)
  })

  it('rejected key (401): exit 1 naming the key settings', async () => {
    const a = await make()
    a.mock.push({kind: 'error', status: 401, type: 'authentication_error', message: 'invalid x-api-key'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'x'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/rejected the key \(401 authentication_error\): invalid x-api-key/)
    expect(r.stderr).toMatch(/hint: .*Check ANTHROPIC_API_KEY/)
  })
})

describe('aborts', () => {
  it('timeout: exit 124, what was received is kept as an aborted message, abortedLastRun set; the next turn skips it', async () => {
    const a = await make()
    a.mock.push({kind: 'stall', text: 'partial answer'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'slow one', '--timeout', '2'])
    expect(r.code).toBe(124)
    expect(r.stderr).toMatch(/^Error: agent turn timed out; the partial reply was kept in /)
    const file = sessionFile(a.state, 'agent:main:main')
    const last = transcriptLines(file).at(-1).message
    expect(last).toMatchObject({role: 'assistant', stopReason: 'aborted', errorMessage: 'Request timed out.'})
    // The stall sends its text at once; whatever reached stdout before the timeout is exactly what was stored.
    const stored = last.content.map((b: any) => b.text).join('')
    expect(r.stdout.trim()).toBe(stored)
    expect(store(a.state)['agent:main:main'].abortedLastRun).toBe(true)

    const next = await a.run(['agent', '--agent', 'main', '-m', 'again', '--json'])
    expect(next.code, next.stderr).toBe(0)
    const body = a.mock.messageRequests().at(-1)!.body
    expect(JSON.stringify(body.messages)).not.toContain('partial answer')
    expect(userTexts(body)).toEqual(['slow one', 'again'])
    expect(store(a.state)['agent:main:main'].abortedLastRun).toBe(false)
    expectLinearChain(transcriptLines(file))
  })

  it('--json timeout still prints the run document with aborted: true', async () => {
    const a = await make()
    a.mock.push({kind: 'stall', text: 'half'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'slow', '--timeout', '1', '--json'])
    expect(r.code).toBe(124)
    const doc = json(r)
    expect(doc.meta).toMatchObject({aborted: true, stopReason: 'aborted'})
    const stored = transcriptLines(sessionFile(a.state, 'agent:main:main')).at(-1).message.content.map((b: any) => b.text).join('')
    expect(doc.payloads).toEqual(stored ? [{text: stored, mediaUrl: null}] : [])
  })

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: exit %i, what was received is kept with the OpenClaw errorMessage "Request was aborted" (no trailing period), abortedLastRun set, lock released', async (signal, exitCode) => {
    const a = await make()
    a.mock.push({kind: 'stall', text: 'interrupted text'})
    const child = spawn(process.execPath, [BIN, 'agent', '--agent', 'main', '-m', 'stop me', '--state-dir', a.state], {cwd: ROOT, env: a.env, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d))
    const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    for (let i = 0; i < 400 && !stdout.includes('interrupted text'); i++) await new Promise((r) => setTimeout(r, 25))
    const file = sessionFile(a.state, 'agent:main:main')
    // Mid-turn the transcript lock is held by the turn's process (OpenClaw's payload format).
    expect(JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8')).pid).toBe(child.pid)
    child.kill(signal)
    expect(await exit).toBe(exitCode)
    expect(transcriptLines(file).at(-1).message).toMatchObject({stopReason: 'aborted', errorMessage: 'Request was aborted', content: [{text: 'interrupted text'}]})
    expect(store(a.state)['agent:main:main'].abortedLastRun).toBe(true)
    expect(fs.existsSync(`${file}.lock`)).toBe(false)
  })
})

describe('built-in fetch (CLAWKIT_BUILTIN_FETCH=1, as with HTTP(S)_PROXY set)', () => {
  it('a turn, a 429 retry and a timeout abort behave the same as with the node:http fetch', async () => {
    const a = await make()
    const env = {...a.env, CLAWKIT_BUILTIN_FETCH: '1'}
    a.mock.push({kind: 'error', status: 429, type: 'rate_limit_error', message: 'slow down', headers: {'retry-after-ms': '0'}})
    let r = await runCli(['agent', '--agent', 'main', '-m', 'builtin', '--state-dir', a.state], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('Echo: builtin\n')
    expect(a.mock.messageRequests().map((q) => q.headers['x-stainless-retry-count'])).toEqual(['0', '1'])
    // undici announces compression support; the node:http fetch asks for identity. This tells the paths apart.
    expect(a.mock.messageRequests()[0].headers['accept-encoding']).toMatch(/gzip/)
    a.mock.push({kind: 'stall', text: 'partial'})
    r = await runCli(['agent', '--agent', 'main', '-m', 'slow', '--timeout', '1', '--state-dir', a.state], {env})
    expect(r.code).toBe(124)
    expect(transcriptLines(sessionFile(a.state, 'agent:main:main')).at(-1).message).toMatchObject({stopReason: 'aborted', errorMessage: 'Request timed out.'})
  })
})

describe('concurrency', () => {
  it('two concurrent turns on one session serialize on the transcript lock: both turns present, chain intact', async () => {
    const a = await make({fixture: TWO_AGENTS, mock: {delayMs: 400}})
    const file = sessionFile(a.state, 'agent:main:main')
    const before = transcriptLines(file).length
    const [r1, r2] = await Promise.all([a.run(['agent', '--agent', 'main', '-m', 'alpha']), a.run(['agent', '--agent', 'main', '-m', 'beta'])])
    expect(r1.code, r1.stderr).toBe(0)
    expect(r2.code, r2.stderr).toBe(0)
    const lines = transcriptLines(file)
    expectLinearChain(lines)
    const added = lines.slice(before).map((l) => [l.message.role, l.message.content[0].text])
    const order = added[0][1] === 'alpha' ? ['alpha', 'beta'] : ['beta', 'alpha']
    expect(added).toEqual([
      ['user', order[0]],
      ['assistant', `Echo: ${order[0]}`],
      ['user', order[1]],
      ['assistant', `Echo: ${order[1]}`],
    ])
    // The second turn saw the first one's exchange.
    const second = a.mock.messageRequests()[1].body
    expect(userTexts(second).slice(-2)).toEqual(order)
    const [r1first, r2first] = a.mock.messageRequests()
    expect(r2first.receivedAt).toBeGreaterThanOrEqual(r1first.finishedAt!)
  })
})

describe('a transcript that refuses the reply', () => {
  it('the transcript stops being writable while the model answers: exit 1, the error says the message is stored and where the unstored reply was saved; nothing is chained onto it', async () => {
    const a = await make({fixture: TWO_AGENTS, mock: {delayMs: 1500}})
    const file = sessionFile(a.state, 'agent:main:main')
    const turn = startCli(['agent', '--agent', 'main', '-m', 'refused reply', '--json', '--state-dir', a.state], {env: a.env})
    await waitUntil(() => a.mock.messageRequests().length > 0, 'the turn to call the model')
    // The message is in the file by now; the file then moves away and a directory takes its name.
    fs.renameSync(file, `${file}.moved`)
    fs.mkdirSync(file)
    const r = await turn.exited
    expect(r.code, r.stdout + r.stderr).toBe(1)
    const doc = json<AgentRunResult>(r)
    expect(doc.payloads.map((p) => p.text).join('')).toBe('Echo: refused reply')
    expect(doc.error?.message).toMatch(/Your message is stored in .*; the reply was not stored: saved to \S+\.ndjson\.$/)
    const saved = /saved to (\S+\.ndjson)/.exec(doc.error!.message)![1]
    expect(saved.startsWith(path.join(a.home, '.local', 'share', 'clawkit', 'unstored'))).toBe(true)
    const [head, ...entries] = fs.readFileSync(saved, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    const kept = transcriptLines(`${file}.moved`)
    expect(kept.at(-1).message).toMatchObject({role: 'user', content: [{type: 'text', text: 'refused reply'}]})
    expect(head).toMatchObject({type: 'clawkit-unstored-turn', sessionKey: 'agent:main:main', parentId: kept.at(-1).id})
    expect(entries.map((e) => [e.parentId, e.message.role])).toEqual([[kept.at(-1).id, 'assistant']])
  })
})

describe('concurrency on a new session', () => {
  it('two first turns on a key with no entry agree on one session id: one header, both turns, chain intact', async () => {
    const a = await make({mock: {delayMs: 300}})
    const [r1, r2] = await Promise.all([a.run(['agent', '--agent', 'main', '-m', 'one', '--json']), a.run(['agent', '--agent', 'main', '-m', 'two', '--json'])])
    expect(r1.code, r1.stderr).toBe(0)
    expect(r2.code, r2.stderr).toBe(0)
    expect(json(r1).meta.agentMeta.sessionId).toBe(json(r2).meta.agentMeta.sessionId)
    expect(Object.keys(store(a.state))).toEqual(['agent:main:main'])
    const lines = transcriptLines(sessionFile(a.state, 'agent:main:main'))
    expect(lines.filter((l) => l.type === 'session')).toHaveLength(1)
    expect(lines.filter((l) => l.type === 'message').map((l) => l.message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expectLinearChain(lines)
  })
})

describe('thinking', () => {
  it('--thinking high sends a budget, stores thinking blocks with their signature, and persists the level', async () => {
    const a = await make({fixture: TWO_AGENTS})
    a.mock.push({kind: 'text', thinking: 'Let me think.', text: 'Thought about it.'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'think', '--thinking', 'ultrathink'])
    expect(r.code, r.stderr).toBe(0)
    const req = a.mock.messageRequests()[0].body
    expect(req.thinking).toEqual({type: 'enabled', budget_tokens: 16_384})
    expect(req.max_tokens).toBeGreaterThan(16_384)
    const lines = transcriptLines(sessionFile(a.state, 'agent:main:main'))
    const tl = lines.filter((l) => l.type === 'thinking_level_change').at(-1)
    expect(tl.thinkingLevel).toBe('high')
    const asst = lines.at(-1).message
    expect(asst.content[0]).toMatchObject({type: 'thinking', thinking: 'Let me think.', thinkingSignature: expect.stringMatching(/^sig_/)})
    expect(store(a.state)['agent:main:main'].thinkingLevel).toBe('high')
    // The next turn inherits the level and replays the signed thinking block.
    const r2 = await a.run(['agent', '--agent', 'main', '-m', 'again'])
    expect(r2.code, r2.stderr).toBe(0)
    const next = a.mock.messageRequests()[1].body
    expect(next.thinking).toEqual({type: 'enabled', budget_tokens: 16_384})
    expect(next.messages.at(-2).content[0]).toMatchObject({type: 'thinking', thinking: 'Let me think.'})
  })
})
