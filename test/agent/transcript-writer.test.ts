import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {TranscriptWriter} from '../../src/agent/transcript-writer.js'
import {buildSessionContext} from '../../src/store/context.js'
import {COMPACTION, copyFixture, tempDir} from '../support/cli.js'

describe('TranscriptWriter.context()', () => {
  it('equals buildSessionContext over its entries after opening a real compacted transcript and after each append', async () => {
    const dir = path.join(copyFixture(COMPACTION), 'agents', 'main', 'sessions')
    const name = fs.readdirSync(dir).find((f) => /^[0-9a-f-]+\.jsonl$/.test(f) && fs.readFileSync(path.join(dir, f), 'utf8').includes('"type":"compaction"'))!
    const writer = await TranscriptWriter.open(path.join(dir, name), 'unused', '/w')
    expect(writer.context().compaction).toBeDefined()
    expect(writer.context()).toEqual(buildSessionContext(writer.entries))
    await writer.append([{type: 'message', message: {role: 'user', content: [{type: 'text', text: 'one'}], timestamp: 1}}])
    expect(writer.context()).toEqual(buildSessionContext(writer.entries))
    await writer.append([
      {type: 'thinking_level_change', thinkingLevel: 'high'},
      {type: 'message', message: {role: 'assistant', content: [{type: 'text', text: 'two'}], provider: 'p', model: 'm', timestamp: 2}},
    ])
    const ctx = writer.context()
    expect(ctx).toEqual(buildSessionContext(writer.entries))
    expect(ctx).toMatchObject({thinkingLevel: 'high', model: {provider: 'p', modelId: 'm'}})
    expect(ctx.messages.at(-1)).toMatchObject({role: 'assistant'})
  })
  it('a last entry without an id: appends start a new root, and context() says so like a fresh build', async () => {
    const file = path.join(tempDir(), 't.jsonl')
    const lines = [
      {type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w'},
      {type: 'message', id: 'a', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: {role: 'user', content: [{type: 'text', text: 'old'}], timestamp: 1}},
      {type: 'message', id: '', parentId: 'a', timestamp: '2026-01-01T00:00:02.000Z', message: {role: 'user', content: [{type: 'text', text: 'no id'}], timestamp: 2}},
    ]
    fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
    const writer = await TranscriptWriter.open(file, 's', '/w')
    await writer.append([{type: 'message', message: {role: 'user', content: [{type: 'text', text: 'new'}], timestamp: 3}}])
    expect(writer.context()).toEqual(buildSessionContext(writer.entries))
    expect(writer.context().messages).toHaveLength(1)
  })
})
