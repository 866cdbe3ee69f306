// Agent tools through the real CLI: round trips, workspace confinement, enablement switches, the loop bound.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {json} from '../../support/cli.js'

import {type AgentEnv, agentEnvs, expectLinearChain, providerConfig, sessionFile, transcriptLines} from './setup.js'

const newEnv = agentEnvs()
async function make(extra: Record<string, unknown> = {}): Promise<AgentEnv & {ws: string}> {
  const e = await newEnv({config: (url) => providerConfig(url, {}, extra)})
  const ws = e.workspace
  fs.mkdirSync(ws, {recursive: true})
  fs.writeFileSync(path.join(ws, 'notes.txt'), 'line one\nline two\n')
  return {...e, ws}
}

function toolResults(file: string): any[] {
  return transcriptLines(file)
    .filter((l) => l.type === 'message' && l.message.role === 'toolResult')
    .map((l) => l.message)
}

describe('agent tools', () => {
  it('read round trip: toolCall persisted, toolResult persisted, result sent back as tool_result, final reply printed', async () => {
    const a = await make()
    a.mock.push({kind: 'toolUse', calls: [{name: 'read', input: {path: 'notes.txt'}, id: 'toolu_read1'}]}, {kind: 'text', text: 'The notes have two lines.'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'what is in notes?', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    expect(doc.payloads).toEqual([{text: 'The notes have two lines.', mediaUrl: null}])
    const file = sessionFile(a.state, 'agent:main:main')
    const lines = transcriptLines(file)
    const msgs = lines.filter((l) => l.type === 'message').map((l) => l.message)
    expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant'])
    expect(msgs[1]).toMatchObject({stopReason: 'toolUse', content: [{type: 'toolCall', id: 'toolu_read1', name: 'read', arguments: {path: 'notes.txt'}}]})
    expect(Object.keys(msgs[2])).toEqual(['role', 'toolCallId', 'toolName', 'content', 'isError', 'timestamp'])
    expect(msgs[2]).toMatchObject({toolCallId: 'toolu_read1', toolName: 'read', isError: false, content: [{type: 'text', text: 'line one\nline two\n'}]})
    expectLinearChain(lines)
    const second = a.mock.messageRequests()[1].body.messages
    expect(second.at(-2).content[0]).toMatchObject({type: 'tool_use', id: 'toolu_read1'})
    expect(second.at(-1).content[0]).toMatchObject({type: 'tool_result', tool_use_id: 'toolu_read1', is_error: false, content: [{type: 'text', text: 'line one\nline two\n'}]})
    // Usage of both calls is summed for the run.
    const calls = msgs.filter((m) => m.role === 'assistant')
    expect(doc.meta.agentMeta.usage.input).toBe(calls[0].usage.input + calls[1].usage.input)
    // The store library's own reader (sessions history) reads what the turn wrote.
    const h = await a.run(['sessions', 'history', 'agent:main:main', '--json'])
    expect(h.code, h.stderr).toBe(0)
    expect(json(h).entries.filter((e: any) => e.type === 'message').map((e: any) => e.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant'])
  })

  it('human output: the text of each model call in a tool loop is streamed on its own line', async () => {
    const a = await make()
    a.mock.push({kind: 'toolUse', text: 'Let me look.', calls: [{name: 'ls', input: {}}]}, {kind: 'text', text: 'There is notes.txt.'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'what is here?'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('Let me look.\nThere is notes.txt.\n')
    const ls = transcriptLines(sessionFile(a.state, 'agent:main:main')).find((l) => l.message?.role === 'toolResult')
    expect(ls.message.content[0].text).toBe('notes.txt')
  })

  it('read outside the workspace is refused as a tool error: "..", absolute paths elsewhere, and symlinks pointing out', async () => {
    const a = await make()
    const secret = path.join(a.home, 'secret.txt')
    fs.writeFileSync(secret, 'TOP-SECRET')
    fs.symlinkSync(secret, path.join(a.ws, 'link.txt'))
    fs.symlinkSync(a.home, path.join(a.ws, 'homedir'))
    a.mock.push(
      {kind: 'toolUse', calls: [
        {name: 'read', input: {path: '../../secret.txt'}},
        {name: 'read', input: {path: secret}},
        {name: 'read', input: {path: 'link.txt'}},
        {name: 'ls', input: {path: 'homedir'}},
        {name: 'read', input: {path: path.join(a.ws, 'notes.txt')}},
      ]},
      {kind: 'text', text: 'done'},
    )
    const r = await a.run(['agent', '--agent', 'main', '-m', 'try to escape'])
    expect(r.code, r.stderr).toBe(0)
    const results = toolResults(sessionFile(a.state, 'agent:main:main'))
    expect(results.map((m) => m.isError)).toEqual([true, true, true, true, false])
    for (const m of results.slice(0, 4)) expect(m.content[0].text).toMatch(/outside the workspace/)
    expect(JSON.stringify(a.mock.messageRequests()[1].body)).not.toContain('TOP-SECRET')
    expect(results[4].content[0].text).toContain('line one')
  })

  it('write and exec are off by default (tool error), on with --allow-write / --allow-exec or config tools.allow', async () => {
    const a = await make()
    a.mock.push({kind: 'toolUse', calls: [{name: 'write', input: {path: 'out.txt', content: 'hi'}}, {name: 'exec', input: {command: 'echo run > ran.txt'}}]}, {kind: 'text', text: 'ok'})
    let r = await a.run(['agent', '--agent', 'main', '-m', 'write please'])
    expect(r.code, r.stderr).toBe(0)
    expect(a.mock.messageRequests()[0].body.tools.map((t: any) => t.name)).toEqual(['read', 'ls'])
    let results = toolResults(sessionFile(a.state, 'agent:main:main'))
    expect(results.map((m) => [m.isError, m.content[0].text])).toEqual([
      [true, 'Tool write is not available. It is disabled; enable it with --allow-write.'],
      [true, 'Tool exec is not available. It is disabled; enable it with --allow-exec.'],
    ])
    expect(fs.existsSync(path.join(a.ws, 'out.txt'))).toBe(false)
    expect(fs.existsSync(path.join(a.ws, 'ran.txt'))).toBe(false)

    a.mock.push({kind: 'toolUse', calls: [{name: 'write', input: {path: 'sub/out.txt', content: 'hi'}}, {name: 'exec', input: {command: 'echo hi from exec; exit 3'}}, {name: 'write', input: {path: '../escape.txt', content: 'x'}}]}, {kind: 'text', text: 'ok'})
    r = await a.run(['agent', '--agent', 'main', '-m', 'now allowed', '--allow-write', '--allow-exec'])
    expect(r.code, r.stderr).toBe(0)
    expect(a.mock.messageRequests()[2].body.tools.map((t: any) => t.name)).toEqual(['read', 'ls', 'write', 'exec'])
    expect(fs.readFileSync(path.join(a.ws, 'sub/out.txt'), 'utf8')).toBe('hi')
    expect(fs.existsSync(path.join(a.state, 'escape.txt'))).toBe(false)
    results = toolResults(sessionFile(a.state, 'agent:main:main')).slice(2)
    expect(results[1]).toMatchObject({toolName: 'exec', isError: true, details: {status: 'failed', exitCode: 3, cwd: a.ws}})
    expect(results[1].content[0].text).toContain('hi from exec')
    expect(results[2]).toMatchObject({isError: true})

    const b = await make({tools: {allow: ['exec']}})
    b.mock.push({kind: 'toolUse', calls: [{name: 'exec', input: {command: 'pwd'}}]}, {kind: 'text', text: 'ok'})
    r = await b.run(['agent', '--agent', 'main', '-m', 'config allows exec'])
    expect(r.code, r.stderr).toBe(0)
    expect(b.mock.messageRequests()[0].body.tools.map((t: any) => t.name)).toEqual(['read', 'ls', 'exec'])
    expect(toolResults(sessionFile(b.state, 'agent:main:main'))[0]).toMatchObject({isError: false, content: [{text: fs.realpathSync(b.ws)}]})
  })

  it('the tool loop is bounded: a model that never stops calling tools is cut off with every call paired', async () => {
    const b = await make()
    for (let i = 0; i < 30; i++) b.mock.push({kind: 'toolUse', calls: [{name: 'ls', input: {}}]})
    const r2 = await b.run(['agent', '--agent', 'main', '-m', 'loop forever', '--json'])
    expect(r2.code, r2.stderr).toBe(0)
    expect(json(r2).meta.stopReason).toBe('toolUse')
    expect(b.mock.messageRequests()).toHaveLength(24)
    const msgs = transcriptLines(sessionFile(b.state, 'agent:main:main')).filter((l) => l.type === 'message').map((l) => l.message.role)
    expect(msgs.filter((m) => m === 'assistant')).toHaveLength(24)
    expect(msgs.filter((m) => m === 'toolResult')).toHaveLength(24)
  })
})
