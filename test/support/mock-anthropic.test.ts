// The mock itself must speak the wire format the spec describes, or every agent test proves less than it claims.
import {afterEach, describe, expect, it} from 'vitest'

import {type MockAnthropic, startMockAnthropic} from './mock-anthropic.js'

let mock: MockAnthropic | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

function parseSse(text: string): Array<{event: string; data: any}> {
  return text
    .split('\n\n')
    .filter((f) => f.trim())
    .map((frame) => {
      const event = /^event: (.+)$/m.exec(frame)![1]
      const data = JSON.parse(/^data: (.+)$/m.exec(frame)![1])
      return {event, data}
    })
}

const body = {model: 'm', max_tokens: 10, stream: true, messages: [{role: 'user', content: [{type: 'text', text: 'hi'}]}]}

describe('mock Anthropic server', () => {
  it('accepts x-api-key (SDK 0.x) as well as Authorization: Bearer, and answers 401 without either', async () => {
    mock = await startMockAnthropic()
    const post = (headers: Record<string, string>) => fetch(`${mock!.url}/v1/messages`, {method: 'POST', headers: {'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers}, body: JSON.stringify(body)})
    expect((await post({'x-api-key': 'k'})).status).toBe(200)
    expect((await post({authorization: 'Bearer k'})).status).toBe(200)
    const denied = await post({})
    expect(denied.status).toBe(401)
    expect(await denied.json()).toMatchObject({type: 'error', error: {type: 'authentication_error'}})
  })

  it('streams event-named SSE frames with pings, tool input split into fragments, and usage in message_delta', async () => {
    mock = await startMockAnthropic()
    mock.push({kind: 'toolUse', calls: [{name: 'read', input: {path: 'a.txt'}, id: 'toolu_1'}]})
    const res = await fetch(`${mock.url}/v1/messages`, {method: 'POST', headers: {'content-type': 'application/json', 'x-api-key': 'k'}, body: JSON.stringify(body)})
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const events = parseSse(await res.text())
    for (const e of events) expect(e.data.type).toBe(e.event)
    expect(events[0].event).toBe('message_start')
    expect(events[0].data.message.usage.input_tokens).toBe(mock.requests[0].inputTokens)
    expect(events.some((e) => e.event === 'ping')).toBe(true)
    const fragments = events.filter((e) => e.data.delta?.type === 'input_json_delta').map((e) => e.data.delta.partial_json)
    expect(fragments.length).toBeGreaterThan(1)
    expect(JSON.parse(fragments.join(''))).toEqual({path: 'a.txt'})
    const delta = events.find((e) => e.event === 'message_delta')!
    expect(delta.data.delta.stop_reason).toBe('tool_use')
    expect(delta.data.usage.output_tokens).toBeGreaterThan(0)
    expect(events.at(-1)!.event).toBe('message_stop')
  })

  it('enforces tool pairing and the configured window like the real API', async () => {
    mock = await startMockAnthropic({contextWindow: 5})
    const unpaired = {...body, messages: [...body.messages, {role: 'assistant', content: [{type: 'tool_use', id: 't1', name: 'read', input: {}}]}, {role: 'user', content: [{type: 'text', text: 'no result'}]}]}
    let res = await fetch(`${mock.url}/v1/messages`, {method: 'POST', headers: {'x-api-key': 'k'}, body: JSON.stringify(unpaired)})
    expect(res.status).toBe(400)
    expect(((await res.json()) as any).error.message).toMatch(/tool_use ids were found without tool_result blocks immediately after: t1/)
    res = await fetch(`${mock.url}/v1/messages`, {method: 'POST', headers: {'x-api-key': 'k'}, body: JSON.stringify(body)})
    expect(res.status).toBe(400)
    expect(((await res.json()) as any).error).toMatchObject({type: 'invalid_request_error', message: expect.stringMatching(/^prompt is too long: \d+ tokens > 5 maximum$/)})
  })
})
