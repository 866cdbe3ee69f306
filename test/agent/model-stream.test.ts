// Pure checks of how one call's event stream becomes the assistant message (no I/O: the events are a generator).
import {describe, expect, it} from 'vitest'

import {assistantMessage, type CallResult, emptyCall, readModelStream} from '../../src/agent/model-stream.js'
import type {ResolvedModel} from '../../src/agent/model.js'

type Ev = Record<string, unknown>

async function* events(list: Ev[], fail?: Error): AsyncGenerator<Ev> {
  for (const e of list) yield e
  if (fail) throw fail
}

const open = (list: Ev[], fail?: Error) => async () => events(list, fail)
const live = () => new AbortController().signal

const START: Ev = {type: 'message_start', message: {id: 'msg_01', usage: {input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 5, cache_creation_input_tokens: 2}}}
const text = (index: number, ...parts: string[]): Ev[] => [
  {type: 'content_block_start', index, content_block: {type: 'text', text: ''}},
  ...parts.map((p) => ({type: 'content_block_delta', index, delta: {type: 'text_delta', text: p}})),
  {type: 'content_block_stop', index},
]
const toolUse = (index: number, id: string, ...json: string[]): Ev[] => [
  {type: 'content_block_start', index, content_block: {type: 'tool_use', id, name: 'read', input: {}}},
  ...json.map((j) => ({type: 'content_block_delta', index, delta: {type: 'input_json_delta', partial_json: j}})),
  {type: 'content_block_stop', index},
]

async function rejection(p: Promise<unknown>): Promise<Error & {partial?: CallResult}> {
  try {
    await p
  } catch (error) {
    return error as Error & {partial?: CallResult}
  }
  throw new Error('expected a rejection')
}

describe('readModelStream', () => {
  it('a complete stream: blocks in index order, deltas streamed, final usage and stop reason from message_delta', async () => {
    const streamed: string[] = []
    let starts = 0
    const call = await readModelStream(
      open([
        START,
        {type: 'content_block_start', index: 0, content_block: {type: 'thinking', thinking: ''}},
        {type: 'content_block_delta', index: 0, delta: {type: 'thinking_delta', thinking: 'let me '}},
        {type: 'content_block_delta', index: 0, delta: {type: 'thinking_delta', thinking: 'see'}},
        {type: 'content_block_delta', index: 0, delta: {type: 'signature_delta', signature: 'sig'}},
        {type: 'content_block_stop', index: 0},
        ...text(1, 'Hel', 'lo'),
        ...toolUse(2, 'toolu_1', '{"pa', 'th": "a.md"}'),
        {type: 'message_delta', delta: {stop_reason: 'tool_use'}, usage: {output_tokens: 42}},
        {type: 'message_stop'},
      ]),
      live(),
      {onText: (d) => streamed.push(d), onBlockStart: () => starts++},
    )
    expect(streamed).toEqual(['Hel', 'lo'])
    expect(starts).toBe(3)
    expect(call).toEqual({
      content: [
        {type: 'thinking', thinking: 'let me see', thinkingSignature: 'sig'},
        {type: 'text', text: 'Hello'},
        {type: 'toolCall', id: 'toolu_1', name: 'read', arguments: {path: 'a.md'}},
      ],
      stopReason: 'tool_use',
      responseId: 'msg_01',
      usage: {input: 10, output: 42, cacheRead: 5, cacheWrite: 2},
      complete: true,
    })
  })

  it('tool arguments that are not JSON become an empty object instead of failing the call', async () => {
    const call = await readModelStream(open([START, ...toolUse(0, 'toolu_2', '{"path": "a.m'), {type: 'message_stop'}]), live())
    expect(call.content).toEqual([{type: 'toolCall', id: 'toolu_2', name: 'read', arguments: {}}])
  })

  it('a stream that ends before message_stop (connection dropped) rejects, carrying the text received so far', async () => {
    const e = await rejection(readModelStream(open([START, ...text(0, 'half a rep')]), live()))
    expect(e.message).toBe('The model stream ended before message_stop (connection dropped).')
    expect(e.partial?.content).toEqual([{type: 'text', text: 'half a rep'}])
    expect(e.partial?.usage).toEqual({input: 10, output: 1, cacheRead: 5, cacheWrite: 2})
    expect(e.partial?.complete).toBe(false)
  })

  it('a stream cut short by our own abort is an abort, not a dropped connection', async () => {
    const c = new AbortController()
    c.abort()
    const e = await rejection(readModelStream(open([START, ...text(0, 'par')]), c.signal))
    expect(e.message).toBe('Request was aborted.')
    expect(e.partial?.content).toEqual([{type: 'text', text: 'par'}])
  })

  it('an error mid-stream is rethrown as it is, with the blocks so far attached', async () => {
    const boom = Object.assign(new Error('overloaded'), {status: 529})
    const e = await rejection(readModelStream(open([START, {type: 'content_block_start', index: 0, content_block: {type: 'text', text: ''}}, {type: 'content_block_delta', index: 0, delta: {type: 'text_delta', text: 'ab'}}], boom), live()))
    expect(e).toBe(boom)
    expect(e.partial?.content).toEqual([{type: 'text', text: 'ab'}])
  })

  it('a request that fails before any event (an HTTP error) carries an empty partial', async () => {
    const http = Object.assign(new Error('401 authentication_error'), {status: 401})
    const e = await rejection(
      readModelStream(async () => {
        throw http
      }, live()),
    )
    expect(e).toBe(http)
    expect(e.partial).toEqual(emptyCall())
  })

  it('deltas for a block that never started are ignored', async () => {
    const call = await readModelStream(open([START, {type: 'content_block_delta', index: 3, delta: {type: 'text_delta', text: 'x'}}, ...text(0, 'ok'), {type: 'message_stop'}]), live())
    expect(call.content).toEqual([{type: 'text', text: 'ok'}])
  })
})

describe('assistantMessage', () => {
  const model = {provider: 'anthropic', model: 'claude-opus-4-6', api: 'anthropic-messages', cost: {input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75}} as ResolvedModel

  it('prices the call and adds up its tokens (output included), keeping the response id', () => {
    const call: CallResult = {content: [{type: 'text', text: 'hi'}], stopReason: 'end_turn', responseId: 'msg_9', usage: {input: 1_000_000, output: 1000, cacheRead: 0, cacheWrite: 0}, complete: true}
    const m = assistantMessage(model, call, 123, {stopReason: 'stop'})
    expect(m).toEqual({
      role: 'assistant',
      content: [{type: 'text', text: 'hi'}],
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude-opus-4-6',
      usage: {input: 1_000_000, output: 1000, cacheRead: 0, cacheWrite: 0, totalTokens: 1_001_000, cost: {input: 15, output: 0.075, cacheRead: 0, cacheWrite: 0, total: 15.075}},
      stopReason: 'stop',
      timestamp: 123,
      responseId: 'msg_9',
    })
  })

  it('an error message only when given, and no response id for a call that never started', () => {
    const m = assistantMessage(model, emptyCall(), 5, {stopReason: 'error', errorMessage: 'The model API failed'})
    expect(m.errorMessage).toBe('The model API failed')
    expect('responseId' in m).toBe(false)
    expect('errorMessage' in assistantMessage(model, emptyCall(), 5, {stopReason: 'aborted'})).toBe(false)
  })
})
