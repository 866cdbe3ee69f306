import fs from 'node:fs'
import path from 'node:path'

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {readTranscriptForContext} from '../../../src/store/file/context-read.js'
import {buildSessionContext, contextFromPath} from '../../../src/store/context.js'
import {readTranscript} from '../../../src/store/file/transcript.js'
import {COMPACTION, FIXTURES, tempDir} from '../../support/cli.js'
import {type ChainOp, chainOpArbs} from '../../support/context-ops.js'

/** What a turn sees: the context over a whole read, and over the lazy read (stubs allowed). */
async function both(file: string) {
  const full = await readTranscript(file)
  const lazy = await readTranscriptForContext(file, {minBytes: 0})
  return {full, lazy, fullCtx: buildSessionContext(full.entries), lazyCtx: buildSessionContext(lazy.entries)}
}

async function expectSameContext(file: string): Promise<number> {
  const {full, lazy, fullCtx, lazyCtx} = await both(file)
  expect(lazyCtx).toEqual(fullCtx)
  // The writer keeps the returned path and extends it on append instead of walking the entries again.
  expect(contextFromPath(lazy.path)).toEqual(fullCtx)
  expect(lazy.header).toEqual(full.header)
  expect(lazy.missingFinalNewline).toBe(full.missingFinalNewline)
  // The writer draws new ids around these: the lazy set may hold more (unreferenced torn lines), never fewer.
  const lazyIds = new Set(lazy.entries.map((e) => e.id))
  for (const e of full.entries) expect(lazyIds.has(e.id), e.id).toBe(true)
  return lazy.stubs
}

// A generated transcript: pi's field order, chained like a real writer (torn lines are never chained onto).
type Op = ChainOp | {op: 'torn'; cut: number} | {op: 'blank'} | {op: 'unicode'}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  ...chainOpArbs,
  fc.record({op: fc.constant('torn' as const), cut: fc.integer({min: 1, max: 200})}),
  fc.record({op: fc.constant('blank' as const)}),
  fc.record({op: fc.constant('unicode' as const)}),
)

function render(ops: Op[], tornTail: number, crlf: boolean): string {
  const eol = crlf ? '\r\n' : '\n'
  const lines = [JSON.stringify({type: 'session', version: 3, id: 'gen', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w'})]
  const entries: {id: string; parentId: string | null}[] = []
  let leaf: string | null = null
  let n = 0
  const ts = () => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString()
  const pathIds = () => {
    const byId = new Map(entries.map((e) => [e.id, e]))
    const out: string[] = []
    for (let cur = leaf ? byId.get(leaf) : undefined; cur; cur = cur.parentId ? byId.get(cur.parentId) : undefined) out.push(cur.id)
    return out.reverse()
  }
  const line = (fields: Record<string, unknown>, first?: Record<string, unknown>) => {
    const id = (++n).toString(16).padStart(8, '0')
    const head = first ? {...first, id, parentId: leaf, timestamp: ts()} : {id, parentId: leaf, timestamp: ts()}
    const text = JSON.stringify(first ? {...head, ...fields} : {type: fields.type, ...head, ...fields})
    return {id, text}
  }
  const add = (fields: Record<string, unknown>, first?: Record<string, unknown>) => {
    const {id, text} = line(fields, first)
    lines.push(text)
    entries.push({id, parentId: leaf})
    leaf = id
  }
  for (const o of ops) {
    switch (o.op) {
      case 'user':
      case 'toolResult':
        add({type: 'message', message: {role: o.op, content: [{type: 'text', text: `${o.op} ${n} ${'x'.repeat(o.size)}`}], timestamp: n}})
        break
      case 'assistant':
        add({type: 'message', message: {role: 'assistant', content: [{type: 'text', text: `reply ${n} ${'y'.repeat(o.size)}`}], ...(o.withModel ? {provider: 'anthropic', model: o.model} : {}), timestamp: n}})
        break
      case 'thinking':
        add({type: 'thinking_level_change', ...(o.valid ? {thinkingLevel: o.level} : {})})
        break
      case 'modelChange':
        add({type: 'model_change', ...(o.valid ? {provider: o.provider} : {}), modelId: 'm'})
        break
      case 'compaction': {
        const p = pathIds()
        const kept = o.keepOffPath ? 'ffffffff' : p[Math.max(0, p.length - 1 - o.keep)]
        add({type: 'compaction', summary: `summary at ${n}`, firstKeptEntryId: kept, tokensBefore: n})
        break
      }
      case 'custom':
        // pi's literal order for custom entries: no type/id/parentId prefix, so never a stub.
        add({customType: 'model-snapshot', data: {n}}, {type: 'custom'})
        break
      case 'branch': {
        const p = pathIds()
        leaf = p.length ? p[Math.max(0, p.length - 1 - o.back)] : null
        break
      }
      case 'torn': {
        // A crash mid-append, fenced by the next writer's newline; nobody chains onto it.
        const {text} = line({type: 'message', message: {role: 'user', content: [{type: 'text', text: 'torn '.repeat(20)}], timestamp: n}})
        lines.push(text.slice(0, Math.min(o.cut, text.length - 1)))
        break
      }
      case 'blank':
        lines.push('')
        break
      case 'unicode': {
        // A line only of Unicode spaces (blank to JS trim) and an entry whose id is not ASCII (its child's prefix is
        // not either): both must read as the whole read reads them.
        lines.push('\u00a0\ufeff')
        const id = `é${++n}`
        lines.push(JSON.stringify({type: 'message', id, parentId: leaf, timestamp: ts(), message: {role: 'user', content: [{type: 'text', text: `ünïcode ${n}`}], timestamp: n}}))
        entries.push({id, parentId: leaf})
        leaf = id
        break
      }
    }
  }
  let out = lines.join(eol) + eol
  if (tornTail > 0) {
    const {text} = line({type: 'message', message: {role: 'assistant', content: [{type: 'text', text: 'cut off'}], timestamp: n}})
    out += text.slice(0, Math.min(tornTail, text.length - 1))
  }
  return out
}

describe('readTranscriptForContext: the same context as a whole read, with most old entries left unparsed', () => {
  it('property: generated transcripts (branches, compactions, settings, custom entries, torn lines, CRLF) give the same context', async () => {
    const dir = tempDir()
    let withStubs = 0
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, {maxLength: 60}), fc.nat(80), fc.boolean(), async (ops, tornTail, crlf) => {
        const file = path.join(dir, 't.jsonl')
        fs.writeFileSync(file, render(ops, tornTail, crlf))
        if ((await expectSameContext(file)) > 0) withStubs++
      }),
      {numRuns: 300},
    )
    // The property is about the lazy path: make sure it was taken, not just the whole-read fallback.
    expect(withStubs).toBeGreaterThan(50)
  })

  it('a long compacted session with a torn tail: entries before the kept range stay stubs, the newest thinking level and model still count', async () => {
    const ops: Op[] = [{op: 'thinking', level: 'high', valid: true}, {op: 'modelChange', provider: 'anthropic', valid: true}]
    for (let i = 0; i < 200; i++) ops.push({op: 'user', size: 50}, {op: 'assistant', size: 50, withModel: i % 2 === 0, model: 'm-1'})
    ops.push({op: 'compaction', keep: 4, keepOffPath: false}, {op: 'user', size: 10}, {op: 'assistant', size: 10, withModel: false, model: 'm-1'})
    const file = path.join(tempDir(), 'long.jsonl')
    fs.writeFileSync(file, render(ops, 60, false))
    const stubs = await expectSameContext(file)
    expect(stubs).toBeGreaterThan(390)
    const {lazyCtx} = await both(file)
    expect(lazyCtx.thinkingLevel).toBe('high')
    expect(lazyCtx.model).toEqual({provider: 'anthropic', modelId: 'm-1'})
    expect(lazyCtx.messages[0]).toMatchObject({role: 'compactionSummary'})
  })

  it('a torn tail whose prefix is intact is dropped, so the leaf is the last whole entry (as a whole read)', async () => {
    const ops: Op[] = [{op: 'user', size: 5}, {op: 'assistant', size: 5, withModel: true, model: 'm-1'}]
    const file = path.join(tempDir(), 'torn.jsonl')
    fs.writeFileSync(file, render(ops, 60, false))
    expect(fs.readFileSync(file, 'utf8')).toMatch(/\{"type":"message","id":"00000003","parentId":"00000002",[^\n]*$/)
    await expectSameContext(file)
    expect((await both(file)).lazyCtx.leafId).toBe('00000002')
  })

  it('the real compaction fixture written by OpenClaw reads the same both ways', async () => {
    const dir = path.join(FIXTURES, COMPACTION, 'agents', 'main', 'sessions')
    for (const name of fs.readdirSync(dir).filter((f) => /^[0-9a-f-]+\.jsonl$/.test(f))) await expectSameContext(path.join(dir, name))
  })

  it('version 1 and 2 transcripts and small files take the whole read (no stubs)', async () => {
    const dir = tempDir()
    const v2 = path.join(dir, 'v2.jsonl')
    fs.writeFileSync(v2, `${JSON.stringify({type: 'session', version: 2, id: 's', timestamp: 't', cwd: '/'})}\n${JSON.stringify({type: 'message', id: 'a', parentId: null, timestamp: 't', message: {role: 'hookMessage', content: 'hi', timestamp: 1}})}\n`)
    const lazy = await readTranscriptForContext(v2, {minBytes: 0})
    expect(lazy.stubs).toBe(0)
    expect((lazy.entries[0] as {message: {role: string}}).message.role).toBe('custom')
    const small = path.join(dir, 'small.jsonl')
    fs.writeFileSync(small, render([{op: 'user', size: 1}, {op: 'user', size: 1}], 0, false))
    expect((await readTranscriptForContext(small)).stubs).toBe(0)
  })
})
