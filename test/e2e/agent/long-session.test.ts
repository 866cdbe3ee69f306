import fs from 'node:fs'

import {describe, expect, it} from 'vitest'

import {agentEnvs, expectLinearChain, sessionFile, transcriptLines} from './setup.js'

const make = agentEnvs()

describe('agent -m on a long compacted session (the lazy transcript read)', () => {
  it('sends the summary, the kept entries and the new prompt; writes no settings entry the old ones already cover', async () => {
    const a = await make()
    const first = await a.run(['agent', '--agent', 'main', '-m', 'first turn', '--thinking', 'low'])
    expect(first.code, first.stderr).toBe(0)
    const file = sessionFile(a.state, 'agent:main:main')
    const start = transcriptLines(file)
    // The first turn wrote the settings a later turn must find before the compaction: model and thinking level low.
    expect(start.filter((l) => l.type === 'thinking_level_change').map((l) => l.thinkingLevel)).toEqual(['low'])
    const {provider, modelId} = start.find((l) => l.type === 'model_change')

    // ~6 MB of older history (past the lazy-read threshold), then a compaction that keeps the last two messages.
    let leaf = start.at(-1).id
    let n = 0
    const lines: string[] = []
    const add = (fields: Record<string, unknown>) => {
      const id = `e${(n++).toString(16).padStart(7, '0')}`
      lines.push(JSON.stringify({type: fields.type, id, parentId: leaf, timestamp: new Date(1_800_000_000_000 + n).toISOString(), ...fields}))
      leaf = id
      return id
    }
    const filler = 'old history '.repeat(120)
    const ids: string[] = []
    for (let i = 0; i < 2500; i++) {
      add({type: 'message', message: {role: 'user', content: [{type: 'text', text: `OLD-${i} ${filler}`}], timestamp: i}})
      ids.push(add({type: 'message', message: {role: 'assistant', content: [{type: 'text', text: `old reply ${i}`}], api: 'anthropic-messages', provider, model: modelId, usage: {input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0}}, stopReason: 'stop', timestamp: i}}))
    }
    const kept = ids.at(-1)!
    add({type: 'compaction', summary: 'LONG-SUMMARY of 2500 turns', firstKeptEntryId: kept, tokensBefore: 900_000, details: {readFiles: [], modifiedFiles: []}, fromHook: false})
    fs.appendFileSync(file, `${lines.join('\n')}\n`)
    expect(fs.statSync(file).size).toBeGreaterThan(4 * 1024 * 1024)
    const before = transcriptLines(file).length

    const r = await a.run(['agent', '--agent', 'main', '-m', 'next turn', '--thinking', 'low'])
    expect(r.code, r.stderr).toBe(0)
    const sent = a.mock.messageRequests().at(-1)!.body.messages as {role: string; content: {type: string; text?: string}[]}[]
    const texts = sent.map((m) => m.content.map((b) => b.text ?? '').join(''))
    expect(texts[0]).toContain('LONG-SUMMARY of 2500 turns')
    expect(texts.slice(1)).toEqual(['old reply 2499', 'next turn'])
    expect(texts.join('\n')).not.toContain('OLD-0 ')

    const after = transcriptLines(file)
    const added = after.slice(before)
    // Same model and thinking level as the entries before the compaction: nothing but the prompt and the reply.
    expect(added.map((l) => l.type)).toEqual(['message', 'message'])
    expect(added[0].parentId).toBe(leaf)
    expectLinearChain(after)
  })
})
