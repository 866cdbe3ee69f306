// Pure-function checks of the cut-point rules and the request conversion (no I/O involved).
import {describe, expect, it} from 'vitest'

import {planCompaction} from '../../src/agent/compaction.js'
import {MISSING_TOOL_RESULT_TEXT, toApiMessages} from '../../src/agent/convert.js'
import {buildSessionContext} from '../../src/store/context.js'

let n = 0
const id = () => (n++).toString(16).padStart(8, '0')
function chain(messages: any[]): any[] {
  let parent: string | null = null
  return messages.map((message) => {
    const e = {type: 'message', id: id(), parentId: parent, timestamp: new Date(0).toISOString(), message}
    parent = e.id
    return e
  })
}
const user = (text: string) => ({role: 'user', content: [{type: 'text', text}], timestamp: 0})
const asst = (text: string, calls: string[] = []) => ({role: 'assistant', content: [{type: 'text', text}, ...calls.map((c) => ({type: 'toolCall', id: c, name: 'read', arguments: {path: `${c}.md`}}))], api: 'anthropic-messages', provider: 'p', model: 'm', usage: {}, stopReason: calls.length > 0 ? 'toolUse' : 'stop', timestamp: 0})
const result = (callId: string, text: string) => ({role: 'toolResult', toolCallId: callId, toolName: 'read', content: [{type: 'text', text}], isError: false, timestamp: 0})

describe('planCompaction', () => {
  it('never cuts at a toolResult: when the budget boundary falls on a result, the cut moves to the next user/assistant message', () => {
    const entries = chain([user('a'.repeat(4000)), asst('b'.repeat(4000), ['t1']), result('t1', 'r'.repeat(8000)), asst('done'), user('now')])
    const ctx = buildSessionContext(entries)
    // Keeping ~2000 tokens reaches back to the big tool result; the cut must not land on it.
    const plan = planCompaction(ctx, 1500, 9999)!
    const cutEntry = entries.find((e) => e.id === plan.firstKeptEntryId)
    expect(cutEntry.message.role).not.toBe('toolResult')
    const keptFrom = entries.findIndex((e) => e.id === plan.firstKeptEntryId)
    // Whatever is kept, a kept toolResult always has its call kept too.
    const kept = entries.slice(keptFrom).map((e) => e.message)
    for (const m of kept) if (m.role === 'toolResult') expect(kept.some((k) => k.role === 'assistant' && k.content.some((b: any) => b.id === m.toolCallId))).toBe(true)
    expect(plan.toSummarize.length).toBe(keptFrom)
    expect(plan.readFiles).toEqual(keptFrom > 1 ? ['t1.md'] : [])
    expect(plan.tokensBefore).toBe(9999)
  })

  it('keeps the newest message and returns nothing when there is nothing older to fold', () => {
    expect(planCompaction(buildSessionContext(chain([user('only')])), 10, 1)).toBeUndefined()
    const entries = chain([user('x'.repeat(400)), asst('y'.repeat(400)), user('z'.repeat(400))])
    const plan = planCompaction(buildSessionContext(entries), 50, 1)!
    expect(plan.firstKeptEntryId).toBe(entries[2].id)
    expect(plan.toSummarize).toHaveLength(2)
  })

  it('after an earlier compaction: only messages after the summary are folded and the old summary is carried over', () => {
    const msgs = chain([user('old'), asst('old reply'), user('mid'.repeat(300)), asst('mid reply'.repeat(100)), user('new')])
    const compaction = {type: 'compaction', id: 'cccccccc', parentId: msgs.at(-1).id, timestamp: new Date(0).toISOString(), summary: 'PREVIOUS', firstKeptEntryId: msgs[2].id, tokensBefore: 5}
    const after = chain([user('latest')])
    after[0].parentId = compaction.id
    const ctx = buildSessionContext([...msgs, compaction, ...after])
    const plan = planCompaction(ctx, 5, 1)!
    expect(plan.previousSummary).toBe('PREVIOUS')
    expect(plan.toSummarize.map((m: any) => m.role)).not.toContain('compactionSummary')
  })
})

describe('toApiMessages', () => {
  it('toolCall -> tool_use, toolResult -> tool_result blocks in one user turn, in call order', () => {
    const out = toApiMessages([user('q'), asst('', ['a', 'b']), result('b', 'B'), result('a', 'A'), asst('fin')] as any)
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(out[1].content.map((b) => b.type)).toEqual(['tool_use', 'tool_use'])
    expect(out[2].content.map((b: any) => [b.type, b.tool_use_id, b.content[0].text])).toEqual([
      ['tool_result', 'a', 'A'],
      ['tool_result', 'b', 'B'],
    ])
  })

  it('repairs history: missing results get a synthetic error, orphans and duplicates are dropped, failed replies skipped', () => {
    const out = toApiMessages([user('q'), result('ghost', 'orphan'), asst('', ['x']), asst('', ['y']), result('y', 'Y'), result('y', 'dup'), {...asst('broken'), stopReason: 'error'}, user('next')] as any)
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user'])
    expect(out[2].content[0]).toMatchObject({tool_use_id: 'x', is_error: true, content: [{text: MISSING_TOOL_RESULT_TEXT}]})
    expect(out[4].content.map((b: any) => b.type)).toEqual(['tool_result', 'text'])
    expect(out[4].content[0]).toMatchObject({tool_use_id: 'y', content: [{text: 'Y'}]})
    expect(JSON.stringify(out)).not.toContain('orphan')
    expect(JSON.stringify(out)).not.toContain('broken')
  })
})
