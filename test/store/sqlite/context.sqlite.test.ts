// A turn's read of a SQLite-era session (src/store/sqlite/context.ts): from identity rows, decoding only the events the
// model's context uses, it must give the context a whole read gives. Sessions are OpenClaw 2026.9.6's own (the
// imported fixture, whose main session holds a zstd event) continued by clawkit's writer with generated entries.
import path from 'node:path'

import fc from 'fast-check'
import {afterEach, expect, it} from 'vitest'

import {buildSessionContext, contextFromPath} from '../../../src/store/context.js'
import {readSessionForContext} from '../../../src/store/sqlite/context.js'
import {openAgentDb, type OpenedDb} from '../../../src/store/sqlite/driver.js'
import * as w from '../../../src/store/sqlite/write.js'
import {copyFixture} from '../../support/cli.js'
import {type ChainOp, chainOpArbs} from '../../support/context-ops.js'
import {describeSqlite, IMPORTED_96} from '../../support/sqlite.js'

const opened: OpenedDb[] = []
afterEach(() => {
  for (const h of opened.splice(0)) if (h.db.isOpen) h.db.close()
})

/** A copy of the imported fixture and its session that holds a zstd-compressed event (written so by OpenClaw). */
function mainSession(): {h: OpenedDb; sessionId: string} {
  const state = copyFixture(IMPORTED_96)
  const h = openAgentDb(path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite'), {write: true, agentId: 'main'})
  opened.push(h)
  const row = h.db.prepare('SELECT w.session_id AS s FROM session_windows w JOIN session_nodes n ON n.current_session_id = w.session_id WHERE EXISTS (SELECT 1 FROM transcript_events e WHERE e.session_id = w.session_id AND e.event_zstd IS NOT NULL)').get() as {s: string} | undefined
  expect(row, 'the fixture has a current session with a zstd event').toBeDefined()
  return {h, sessionId: String(row!.s)}
}

type Op = ChainOp
const opArb: fc.Arbitrary<Op> = fc.oneof(...chainOpArbs)

/** Entries as a writer chains them onto `leaf` (a branch moves the leaf back along the path, as pi's tree allows). */
function entriesOf(ops: Op[], leaf: string, pathIds: string[]): object[] {
  const out: object[] = []
  const parent = new Map<string, string | null>()
  let cur: string | null = leaf
  let n = 0
  const ts = () => new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString()
  const walk = () => {
    const ids: string[] = []
    for (let id = cur; id !== null; id = parent.has(id) ? parent.get(id)! : null) ids.push(id)
    return [...pathIds.slice(0, -1), ...ids.reverse()]
  }
  const add = (fields: Record<string, unknown>) => {
    const id = `gen-${(++n).toString(16).padStart(6, '0')}`
    out.push({type: fields.type, id, parentId: cur, timestamp: ts(), ...fields})
    parent.set(id, cur)
    cur = id
  }
  for (const o of ops) {
    if (o.op === 'user' || o.op === 'toolResult') add({type: 'message', message: {role: o.op, content: `${o.op} ${n} ${'x'.repeat(o.size)}`, timestamp: n}})
    else if (o.op === 'assistant') add({type: 'message', message: {role: 'assistant', content: [{type: 'text', text: `reply ${n} ${'y'.repeat(o.size)}`}], ...(o.withModel ? {provider: 'anthropic', model: o.model} : {}), timestamp: n}})
    else if (o.op === 'thinking') add({type: 'thinking_level_change', ...(o.valid ? {thinkingLevel: o.level} : {})})
    else if (o.op === 'modelChange') add({type: 'model_change', ...(o.valid ? {provider: o.provider} : {}), modelId: 'm'})
    else if (o.op === 'compaction') {
      const p = walk()
      add({type: 'compaction', summary: `summary at ${n}`, firstKeptEntryId: o.keepOffPath ? 'not-on-the-path' : p[Math.max(0, p.length - 1 - o.keep)], tokensBefore: n})
    } else if (o.op === 'custom') add({type: 'custom', customType: 'model-snapshot', data: {n}})
    else if (o.op === 'branch') {
      const p = walk()
      // Only back along entries written here (the fixture's own path stays as it is).
      const mine = p.filter((id) => parent.has(id))
      if (mine.length > 0) cur = mine[Math.max(0, mine.length - 1 - o.back)]
    }
  }
  return out
}

/** The fixture session continued with the generated entries; returns the ids on its path before them. */
function continueWith(h: OpenedDb, sessionId: string, ops: Op[]): void {
  const whole = readSessionForContext(h.db, sessionId, 'main', Number.POSITIVE_INFINITY)!
  const pathIds = whole.path.map((e) => e.id)
  const events = entriesOf(ops, pathIds.at(-1)!, pathIds)
  if (events.length > 0) w.appendEvents(h, sessionId, events)
}

function expectSameContext(h: OpenedDb, sessionId: string): number {
  const whole = readSessionForContext(h.db, sessionId, 'main', Number.POSITIVE_INFINITY)!
  const lazy = readSessionForContext(h.db, sessionId, 'main', 0)!
  expect(whole.stubs).toBe(0)
  const ctx = buildSessionContext(whole.entries)
  expect(buildSessionContext(lazy.entries)).toEqual(ctx)
  // The writer keeps the returned path and extends it on append.
  expect(contextFromPath(lazy.path)).toEqual(ctx)
  expect(lazy.header).toEqual(whole.header)
  const ids = new Set(lazy.entries.map((e) => e.id))
  for (const e of whole.entries) expect(ids.has(e.id), e.id).toBe(true)
  return lazy.stubs
}

describeSqlite('readSessionForContext: the context of a whole read, with the events before the kept range left undecoded', () => {
  it('property: OpenClaw\'s session continued with generated entries (branches, compactions, settings, custom entries) gives the same context', () => {
    let withStubs = 0
    fc.assert(
      fc.property(fc.array(opArb, {maxLength: 50}), (ops) => {
        const {h, sessionId} = mainSession()
        continueWith(h, sessionId, ops)
        if (expectSameContext(h, sessionId) > 0) withStubs++
        h.db.close()
      }),
      {numRuns: 40, seed: 16},
    )
    // The property is about the lazy path: it must have been taken, not only the whole-read fallback.
    expect(withStubs).toBeGreaterThan(10)
  })

  it('a long compacted session: the fixture\'s events (its zstd event too) and the old turns stay stubs, the newest thinking level and model still count', () => {
    const {h, sessionId} = mainSession()
    const ops: Op[] = [{op: 'thinking', level: 'high', valid: true}, {op: 'modelChange', provider: 'anthropic', valid: true}]
    for (let i = 0; i < 200; i++) ops.push({op: 'user', size: 50}, {op: 'assistant', size: 50, withModel: i % 2 === 0, model: 'm-1'})
    ops.push({op: 'compaction', keep: 4, keepOffPath: false}, {op: 'user', size: 10}, {op: 'assistant', size: 10, withModel: false, model: 'm-1'})
    continueWith(h, sessionId, ops)
    const zstd = h.db.prepare('SELECT count(*) AS n FROM transcript_events WHERE session_id = ? AND event_zstd IS NOT NULL').get(sessionId) as {n: number}
    expect(zstd.n).toBeGreaterThan(0)
    expect(expectSameContext(h, sessionId)).toBeGreaterThan(390)
    const ctx = buildSessionContext(readSessionForContext(h.db, sessionId, 'main', 0)!.entries)
    expect(ctx.thinkingLevel).toBe('high')
    expect(ctx.model).toEqual({provider: 'anthropic', modelId: 'm-1'})
    expect(ctx.messages[0]).toMatchObject({role: 'compactionSummary'})
  })

  it('identity rows that cannot be trusted fall back to the whole read: an event without one, or one whose parent disagrees with its event', () => {
    const ops: Op[] = []
    for (let i = 0; i < 30; i++) ops.push({op: 'user', size: 5}, {op: 'assistant', size: 5, withModel: true, model: 'm-1'})
    ops.push({op: 'compaction', keep: 2, keepOffPath: false}, {op: 'user', size: 5})

    const missing = mainSession()
    continueWith(missing.h, missing.sessionId, ops)
    missing.h.db.prepare("DELETE FROM transcript_event_identities WHERE session_id = ? AND event_id = 'gen-000005'").run(missing.sessionId)
    expect(expectSameContext(missing.h, missing.sessionId)).toBe(0)

    const wrong = mainSession()
    continueWith(wrong.h, wrong.sessionId, ops)
    // The compaction (gen-00003d, just before the leaf) is read in full, so the lie about its parent is caught there.
    wrong.h.db.prepare("UPDATE transcript_event_identities SET parent_id = 'gen-000001' WHERE session_id = ? AND event_id = 'gen-00003d'").run(wrong.sessionId)
    expect(expectSameContext(wrong.h, wrong.sessionId)).toBe(0)
  })

  it('a short session is read whole by default (the saving is for long ones)', () => {
    const {h, sessionId} = mainSession()
    expect(readSessionForContext(h.db, sessionId, 'main')!.stubs).toBe(0)
  })
})
