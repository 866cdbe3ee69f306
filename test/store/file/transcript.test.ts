import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {buildSessionContext, COMPACTION_SUMMARY_PREFIX, toLlmMessages} from '../../../src/store/context.js'
import {appendEntries, isTranscriptFileName, readTranscript, resolveTranscriptPath, tailTranscript} from '../../../src/store/file/transcript.js'
import {COMPACTION, copyFixture, readIndexFile, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {makeHeader} from '../../../src/store/entries.js'

function fixtureTranscript(fixture: string, id: string): string {
  const state = copyFixture(fixture)
  return path.join(state, 'agents', 'main', 'sessions', `${id}.jsonl`)
}

const MAIN_TWO = '0caed29d-8df6-4457-a9cd-00bb9d2b22e3'
const MAIN_COMPACT = 'f1ea83b9-e3d9-43c8-b4e4-5d101bf3ee2f'

describe('transcripts', () => {
  it('reads the fixture transcripts: header, every entry, no bad lines', async () => {
    const t = await readTranscript(fixtureTranscript(TWO_AGENTS, MAIN_TWO))
    expect(t.header?.id).toBe(MAIN_TWO)
    expect(t.version).toBe(3)
    expect(t.entries).toHaveLength(16)
    expect(t.badLines).toEqual([])
    expect(t.entries.map((e) => e.type)).toContain('model_change')
    const roles = t.entries.filter((e) => e.type === 'message').map((e: any) => e.message.role)
    expect(roles.filter((r) => r === 'toolResult')).toHaveLength(2)
  })

  it('torn last line is tolerated and reported, earlier entries intact', async () => {
    const file = fixtureTranscript(TWO_AGENTS, MAIN_TWO)
    fs.appendFileSync(file, '{"type":"message","id":"deadbeef","parentId":"327d8c1f","timest')
    const t = await readTranscript(file)
    expect(t.entries).toHaveLength(16)
    expect(t.badLines).toEqual([expect.objectContaining({reason: 'torn', line: 18})])
    expect(t.missingFinalNewline).toBe(true)
    const tail = await tailTranscript(file, {limit: 2})
    expect(tail.badLines.map((b) => b.reason)).toEqual(['torn'])
    expect(tail.entries.at(-1)?.id).toBe('327d8c1f')
  })

  it('tail read returns the same last entries as a whole read, without reading from the start', async () => {
    const file = path.join(tempDir(), 'big.jsonl')
    const lines = [JSON.stringify(makeHeader('big', '/w'))]
    let parent: string | null = null
    for (let i = 0; i < 5000; i++) {
      const id = i.toString(16).padStart(8, '0')
      lines.push(JSON.stringify({type: 'message', id, parentId: parent, timestamp: new Date(i).toISOString(), message: {role: i % 2 ? 'assistant' : 'user', content: [{type: 'text', text: `m${i} ${'x'.repeat(i % 300)}`}], timestamp: i}}))
      parent = id
    }
    fs.writeFileSync(file, lines.join('\n') + '\n')
    const whole = await readTranscript(file)
    const tail = await tailTranscript(file, {limit: 25})
    expect(tail.partial).toBe(true)
    expect(tail.entries.map((e) => e.id)).toEqual(whole.entries.slice(-25).map((e) => e.id))
    const all = await tailTranscript(file, {limit: 100_000})
    expect(all.partial).toBe(false)
    expect(all.entries).toHaveLength(5000)
  })

  it('migrates v1 files in memory (ids, parent chain, firstKeptEntryIndex) without rewriting them', async () => {
    const file = path.join(tempDir(), 'v1.jsonl')
    const text = [
      '{"type":"session","id":"d703a1a9-1b7b-4fb1-b512-c9738b1fe617","timestamp":"2025-11-20T23:33:50.805Z","cwd":"/p","provider":"anthropic","modelId":"claude-sonnet-4-5","thinkingLevel":"off"}',
      '{"type":"message","timestamp":"2025-11-20T23:34:00.000Z","message":{"role":"user","content":"hi","timestamp":1}}',
      '{"type":"message","timestamp":"2025-11-20T23:34:01.000Z","message":{"role":"hookMessage","content":"x","timestamp":2}}',
      '{"type":"compaction","timestamp":"2025-11-20T23:35:00.000Z","summary":"s","firstKeptEntryIndex":2,"tokensBefore":10}',
      '',
    ].join('\n')
    fs.writeFileSync(file, text)
    const t = await readTranscript(file)
    expect(t.version).toBe(1)
    expect(t.entries.map((e) => e.parentId)).toEqual([null, t.entries[0].id, t.entries[1].id])
    expect(t.entries[0].id).toMatch(/^[0-9a-f]{8}$/)
    expect((t.entries[1] as any).message.role).toBe('custom')
    expect((t.entries[2] as any).firstKeptEntryId).toBe(t.entries[1].id)
    expect(fs.readFileSync(file, 'utf8')).toBe(text)
    expect((await tailTranscript(file, {limit: 1})).entries).toHaveLength(3)
  })

  it('ignores a duplicated header and treats a file without a header as empty (pi rules)', async () => {
    const dir = tempDir()
    const dup = path.join(dir, 'dup.jsonl')
    const h = JSON.stringify(makeHeader('a', '/w'))
    fs.writeFileSync(dup, `${h}\n${h}\n{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"x","timestamp":1}}\n`)
    const t = await readTranscript(dup)
    expect(t.duplicateHeaders).toBe(1)
    expect(t.entries).toHaveLength(1)
    const noHeader = path.join(dir, 'nohdr.jsonl')
    fs.writeFileSync(noHeader, '{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"x","message":{}}\n')
    expect((await readTranscript(noHeader)).badHeader).toBe(true)
  })

  it('appends chain onto the leaf with 8-hex ids under the transcript lock; a new file gets the header first (0600)', async () => {
    const file = path.join(tempDir(), 's', 'new.jsonl')
    const first = await appendEntries(file, [{type: 'message', message: {role: 'user', content: 'a', timestamp: 1}}], {header: makeHeader('new', '/w')})
    expect(first.created).toBe(true)
    const second = await appendEntries(file, [{type: 'message', message: {role: 'user', content: 'b', timestamp: 2}}, {type: 'custom', customType: 'x', data: {}}])
    const t = await readTranscript(file)
    expect(t.header?.id).toBe('new')
    expect(t.entries.map((e) => e.parentId)).toEqual([null, first.entries[0].id, second.entries[0].id])
    expect(t.entries.every((e) => /^[0-9a-f]{8}$/.test(e.id))).toBe(true)
    expect(Object.keys(t.entries[2])).toEqual(['type', 'customType', 'data', 'id', 'parentId', 'timestamp'])
    expect(Object.keys(t.entries[0]).slice(0, 4)).toEqual(['type', 'id', 'parentId', 'timestamp'])
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.existsSync(`${file}.lock`)).toBe(false)
  })

  it('appending after a torn last line keeps the torn bytes and starts a fresh line', async () => {
    const file = fixtureTranscript(TWO_AGENTS, MAIN_TWO)
    const torn = '{"type":"message","id":"deadbeef","parentId":"327'
    fs.appendFileSync(file, torn)
    await appendEntries(file, [{type: 'message', message: {role: 'user', content: 'after', timestamp: 3}}])
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain(`\n${torn}\n`)
    const t = await readTranscript(file)
    expect(t.badLines.map((b) => b.reason)).toEqual(['invalid-json'])
    expect(t.entries.at(-1)?.parentId).toBe('327d8c1f')
  })

  it('resolves a moved state dir to the local transcript and never follows sessionFile outside the sessions dir', () => {
    const state = copyFixture(TWO_AGENTS)
    const dir = path.join(state, 'agents', 'main', 'sessions')
    const entry = readIndexFile(sessionsJsonPath(state))['agent:main:main']
    expect(entry.sessionFile).toMatch(/^\/home\/user\//)
    expect(resolveTranscriptPath(dir, entry)).toMatchObject({path: path.join(dir, `${MAIN_TWO}.jsonl`), location: 'relocated', exists: true})
    expect(resolveTranscriptPath(dir, {sessionId: MAIN_TWO, sessionFile: `${MAIN_TWO}.jsonl`})).toMatchObject({location: 'session-file', exists: true})
    const escape = resolveTranscriptPath(dir, {sessionId: 'abc', sessionFile: '../../../../etc/passwd'})
    expect(escape).toMatchObject({path: path.join(dir, 'abc.jsonl'), location: 'derived'})
    expect(() => resolveTranscriptPath(dir, {sessionId: '../x', sessionFile: undefined})).toThrow(/Invalid session ID/)
    expect(resolveTranscriptPath(dir, {sessionId: 'abc'}, 'agent:main:telegram:group:-1:topic:7').path).toBe(path.join(dir, 'abc.jsonl'))
  })

  it('tells transcripts from side files', () => {
    expect(isTranscriptFileName('0caed29d.jsonl')).toBe(true)
    expect(isTranscriptFileName('abc-topic-42.jsonl')).toBe(true)
    for (const side of ['a.trajectory.jsonl', 'a.checkpoint.8a6da970-9815-4ecd-888e-89555ca9dc84.jsonl', 'a.jsonl.reset.2026-04-12T08-15-02.123Z', 'a.jsonl.deleted.2026-04-12T08-15-02.123Z', 'a.jsonl.lock', 'a.trajectory-path.json']) {
      expect(isTranscriptFileName(side), side).toBe(false)
    }
  })
})

describe('context view', () => {
  it('compaction fixture: summary first, then from firstKeptEntryId, then everything after', async () => {
    const t = await readTranscript(fixtureTranscript(COMPACTION, MAIN_COMPACT))
    const ctx = buildSessionContext(t.entries)
    expect(ctx.compaction?.id).toBe('57531180')
    expect(ctx.messages[0]).toMatchObject({role: 'compactionSummary', tokensBefore: 24455})
    // firstKeptEntryId is the first entry, so every message before the compaction is kept, in order.
    const messageIds = t.entries.filter((e) => e.type === 'message').map((e) => e.id)
    expect(ctx.entryIds.slice(1)).toEqual(messageIds)
    const llm = toLlmMessages(ctx.messages)
    expect((llm[0] as any).content[0].text.startsWith(COMPACTION_SUMMARY_PREFIX)).toBe(true)
    expect(ctx.model).toEqual({provider: 'mockant', modelId: 'claude-small'})
    expect(ctx.thinkingLevel).toBe('off')
  })

  it('two-agents fixture: tool calls stay paired with their results in path order', async () => {
    const t = await readTranscript(fixtureTranscript(TWO_AGENTS, MAIN_TWO))
    const ctx = buildSessionContext(t.entries)
    const roles = ctx.messages.map((m) => m.role)
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'toolResult', 'assistant', 'user', 'assistant', 'toolResult', 'assistant'])
    const call = (ctx.messages[3] as any).content.find((b: any) => b.type === 'toolCall')
    expect((ctx.messages[4] as any).toolCallId).toBe(call.id)
  })

  it('drops entries before firstKeptEntryId when it is on the path', () => {
    const e = (id: string, parentId: string | null, extra: object) => ({id, parentId, timestamp: '2026-01-01T00:00:00.000Z', ...extra}) as any
    const entries = [
      e('00000001', null, {type: 'message', message: {role: 'user', content: 'old', timestamp: 1}}),
      e('00000002', '00000001', {type: 'message', message: {role: 'user', content: 'kept', timestamp: 2}}),
      e('00000003', '00000002', {type: 'compaction', summary: 'S', firstKeptEntryId: '00000002', tokensBefore: 5}),
      e('00000004', '00000003', {type: 'message', message: {role: 'user', content: 'new', timestamp: 3}}),
    ]
    const ctx = buildSessionContext(entries)
    expect(ctx.messages.map((m: any) => m.content ?? m.summary)).toEqual(['S', 'kept', 'new'])
  })
})

describe('appends only ever go into transcripts', () => {
  it('a sessionFile naming sessions.json (or any non-transcript) is not used; the derived transcript name is', () => {
    const state = copyFixture(TWO_AGENTS)
    const dir = path.join(state, 'agents', 'main', 'sessions')
    for (const bad of ['sessions.json', 'sessions.json.lock', `${MAIN_TWO}.trajectory.jsonl`, `${MAIN_TWO}.jsonl.bak.2026-01-01T00-00-00.000Z`]) {
      expect(resolveTranscriptPath(dir, {sessionId: MAIN_TWO, sessionFile: bad})).toMatchObject({path: path.join(dir, `${MAIN_TWO}.jsonl`), location: 'derived'})
    }
  })

  it('appending to a file whose first line is not a session header is refused and writes nothing', async () => {
    const file = path.join(tempDir(), 'x.jsonl')
    const text = '{"agent:main:main": {"sessionId": "a"}}'
    fs.writeFileSync(file, text)
    await expect(appendEntries(file, [{type: 'message', message: {role: 'user', content: 'x', timestamp: 1}}], {header: makeHeader('x', '/w')})).rejects.toThrow(/does not start with a session header/)
    expect(fs.readFileSync(file, 'utf8')).toBe(text)
  })
})

describe('tail reads are linear in the length of the last line', () => {
  /** A v3 transcript: header, one short message, then one message of `bytes` characters, then `after` short ones. */
  function longLineTranscript(bytes: number, after = 0): {file: string; longLine: number} {
    const file = path.join(tempDir(), 'long.jsonl')
    const header = JSON.stringify(makeHeader('long-line', '/tmp'))
    const msg = (id: string, parentId: string | null, text: string) => JSON.stringify({type: 'message', id, parentId, timestamp: '2026-01-01T00:00:00.000Z', message: {role: 'user', content: text, timestamp: 1}})
    const long = msg('bbbbbbbb', 'aaaaaaaa', 'x'.repeat(bytes))
    const rest = Array.from({length: after}, (_, i) => msg(`c000000${i}`, i === 0 ? 'bbbbbbbb' : `c000000${i - 1}`, 'short'))
    fs.writeFileSync(file, [header, msg('aaaaaaaa', null, 'first'), long, ...rest].join('\n') + '\n')
    return {file, longLine: Buffer.byteLength(long)}
  }

  for (const size of [1, 8, 32]) {
    it(`a ${size} MB last line: every byte is read once and copied at most once, in few reads`, async () => {
      const {file, longLine} = longLineTranscript(size * 1024 * 1024)
      const stats = {reads: 0, bytesRead: 0, bytesCopied: 0}
      const t = await tailTranscript(file, {limit: 1, stats})
      expect((t.entries.at(-1) as any).message.content).toHaveLength(size * 1024 * 1024)
      const fileSize = fs.statSync(file).size
      // Header line plus the tail up to the start of the long line (and the one 64 KiB read that finds its start).
      expect(stats.bytesRead).toBeLessThanOrEqual(fileSize + 64 * 1024)
      expect(stats.bytesRead).toBeGreaterThanOrEqual(longLine)
      // Joining a line's pieces copies it once; the old reader copied the carried tail on every 64 KiB read (n²/64 KiB).
      expect(stats.bytesCopied).toBeLessThanOrEqual(2 * longLine)
      // Reads grow while a line goes on: logarithmic up to 8 MiB, then one per 8 MiB.
      expect(stats.reads).toBeLessThanOrEqual(12 + Math.ceil(fileSize / (8 * 1024 * 1024)))
    })
  }

  it('a 20 MB tool result followed by one normal turn: --limit 2 reads it once, and returns both', async () => {
    const {file, longLine} = longLineTranscript(20 * 1024 * 1024, 1)
    const stats = {reads: 0, bytesRead: 0, bytesCopied: 0}
    const t = await tailTranscript(file, {limit: 2, stats})
    expect(t.entries.map((e) => e.id)).toEqual(['bbbbbbbb', 'c0000000'])
    expect(stats.bytesRead).toBeGreaterThanOrEqual(longLine)
    expect(stats.bytesCopied).toBeLessThanOrEqual(2 * longLine)
    expect(stats.bytesRead).toBeLessThanOrEqual(fs.statSync(file).size + 64 * 1024)
  })

  it('lines split across reads come back byte for byte, with their offsets (multi-byte characters at every boundary)', async () => {
    const file = path.join(tempDir(), 'mixed.jsonl')
    const lines = [JSON.stringify(makeHeader('mixed', '/tmp'))]
    let parent: string | null = null
    // Lengths around the read sizes (64 KiB doubling), with a 3-byte character that can land on any boundary.
    for (const [i, n] of [10, 65_530, 65_536, 131_070, 5, 262_150, 1, 70_000].entries()) {
      const id = `d000000${i}`
      lines.push(JSON.stringify({type: 'message', id, parentId: parent, timestamp: '2026-01-01T00:00:00.000Z', message: {role: 'user', content: '€'.repeat(Math.ceil(n / 3)), timestamp: 1}}))
      parent = id
    }
    fs.writeFileSync(file, lines.join('\n') + '\n')
    const whole = await readTranscript(file)
    const tail = await tailTranscript(file, {limit: 100})
    expect(tail.entries).toEqual(whole.entries)
    expect(tail.rawLines).toEqual(whole.rawLines)
  })
})
