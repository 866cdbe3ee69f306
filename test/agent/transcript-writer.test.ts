import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {TranscriptWriter} from '../../src/agent/transcript-writer.js'
import {buildSessionContext} from '../../src/store/context.js'
import {FileSessionStore} from '../../src/store/file/store.js'
import {MemorySessionStore} from '../../src/store/file/memory-store.js'
import type {LockedTranscript, SessionStore} from '../../src/store/types.js'
import {COMPACTION, copyFixture, tempDir} from '../support/cli.js'

/** Run `fn` with the writer's transcript locked, as an agent turn does, in a store over the file's directory. */
function inFileStore<T>(file: string, fn: (tx: LockedTranscript) => Promise<T>): Promise<T> {
  const store = new FileSessionStore({agentId: 'main', path: path.join(path.dirname(file), 'sessions.json')})
  return store.withTranscript(store.transcriptOf({sessionId: 'unused', sessionFile: file}), fn)
}

const NO_ID_LINES = [
  {type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w'},
  {type: 'message', id: 'a', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: {role: 'user', content: [{type: 'text', text: 'old'}], timestamp: 1}},
  {type: 'message', id: '', parentId: 'a', timestamp: '2026-01-01T00:00:02.000Z', message: {role: 'user', content: [{type: 'text', text: 'no id'}], timestamp: 2}},
]

/** The same transcript in each backend: the writer must not depend on which one holds it. */
const BACKENDS: [string, () => {store: SessionStore; sessionFile: string}][] = [
  [
    'file',
    () => {
      const file = path.join(tempDir(), 't.jsonl')
      fs.writeFileSync(file, NO_ID_LINES.map((l) => `${JSON.stringify(l)}\n`).join(''))
      return {store: new FileSessionStore({agentId: 'main', path: path.join(path.dirname(file), 'sessions.json')}), sessionFile: file}
    },
  ],
  [
    'memory',
    () => {
      const store = new MemorySessionStore('main')
      const sessionFile = store.locatorOf('t.jsonl')
      return {store: new MemorySessionStore('main', {transcripts: {[sessionFile]: NO_ID_LINES}}), sessionFile}
    },
  ],
]

describe('TranscriptWriter.context()', () => {
  it('equals buildSessionContext over its entries after opening a real compacted transcript and after each append', async () => {
    const dir = path.join(copyFixture(COMPACTION), 'agents', 'main', 'sessions')
    const name = fs.readdirSync(dir).find((f) => /^[0-9a-f-]+\.jsonl$/.test(f) && fs.readFileSync(path.join(dir, f), 'utf8').includes('"type":"compaction"'))!
    await inFileStore(path.join(dir, name), async (tx) => {
      const writer = await TranscriptWriter.open(tx, 'unused', '/w')
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
  it.each(BACKENDS)('a last entry without an id (%s store): appends start a new root, and context() says so like a fresh build', async (_name, make) => {
    const {store, sessionFile} = make()
    await store.withTranscript(store.transcriptOf({sessionId: 's', sessionFile}), async (tx) => {
      const writer = await TranscriptWriter.open(tx, 's', '/w')
      await writer.append([{type: 'message', message: {role: 'user', content: [{type: 'text', text: 'new'}], timestamp: 3}}])
      expect(writer.context()).toEqual(buildSessionContext(writer.entries))
      expect(writer.context().messages).toHaveLength(1)
    })
  })
})

describe('TranscriptWriter after a failed write', () => {
  it.each(BACKENDS)('(%s store) the leaf stays on the last stored entry, the failed lines are kept, and no later append is written after the gap', async (_name, make) => {
    const {store, sessionFile} = make()
    const user = (text: string) => ({type: 'message' as const, message: {role: 'user' as const, content: [{type: 'text' as const, text}], timestamp: 1}})
    await store.withTranscript(store.transcriptOf({sessionId: 's', sessionFile}), async (real) => {
      // The real transcript, whose second write fails once (a locked database, a full disk) and would then work again.
      let writes = 0
      const tx: LockedTranscript = {
        ...real,
        write: async (lines, o) => {
          if (++writes === 2) throw Object.assign(new Error('disk full'), {code: 'ENOSPC'})
          return real.write(lines, o)
        },
      }
      const writer = await TranscriptWriter.open(tx, 's', '/w')
      const [stored] = await writer.append([user('stored')])
      await expect(writer.append([user('refused')])).rejects.toThrow('disk full')
      expect(writer.leaf).toBe(stored.id)
      expect(writer.storedThisTurn.map((e) => e.id)).toEqual([stored.id])
      expect(writer.failure?.parentId).toBe(stored.id)
      expect(writer.failure?.unstored.map((e) => (e as {parentId?: string}).parentId)).toEqual([stored.id])
      expect(writer.entries.at(-1)?.id).toBe(stored.id)
      await expect(writer.append([user('after the gap')])).rejects.toThrow('disk full')
      expect(writes).toBe(2)
    })
    const raw: string[] = []
    for await (const l of store.readLines(store.transcriptOf({sessionId: 's', sessionFile}))) raw.push(l.raw)
    expect(raw.filter((t) => t.includes('"text":"stored"'))).toHaveLength(1)
    expect(raw.filter((t) => t.includes('refused') || t.includes('after the gap'))).toEqual([])
  })
})
