import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {TranscriptWriter} from '../../src/agent/transcript-writer.js'
import {buildSessionContext} from '../../src/store/context.js'
import {COMPACTION, copyFixture} from '../support/cli.js'

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
})
