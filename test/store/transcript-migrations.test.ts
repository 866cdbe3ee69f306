// pi's format versions as named steps behind CURRENT_TRANSCRIPT_VERSION, and the closed union of entry types.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {ENTRY_IDS_SINCE, headerVersion, migrateEntries, MIGRATIONS, v1ToV2, v2ToV3} from '../../src/store/transcript-migrations.js'
import {CURRENT_TRANSCRIPT_VERSION, ENTRY_TYPES, isKnownEntry} from '../../src/store/transcript-types.js'

const FIXTURES = path.resolve(__dirname, '..', 'fixtures')

describe('transcript migrations', () => {
  it('are one chain of named steps from v1 to CURRENT_TRANSCRIPT_VERSION', () => {
    expect(MIGRATIONS.map((m) => m.name)).toEqual(['v1-to-v2', 'v2-to-v3'])
    MIGRATIONS.forEach((m, i) => expect(m.from).toBe(i === 0 ? 1 : MIGRATIONS[i - 1].to))
    expect(MIGRATIONS.at(-1)!.to).toBe(CURRENT_TRANSCRIPT_VERSION)
    expect(ENTRY_IDS_SINCE).toBe(2)
  })

  it('v1-to-v2: 8-hex ids, a parent chain in file order, firstKeptEntryIndex (header at line 0) becomes firstKeptEntryId', () => {
    const v1 = [
      {type: 'message', timestamp: 't1', message: {role: 'user', content: 'a', timestamp: 1}},
      {type: 'message', timestamp: 't2', message: {role: 'assistant', content: [], timestamp: 2}},
      {type: 'compaction', timestamp: 't3', summary: 's', firstKeptEntryIndex: 2, tokensBefore: 9},
    ]
    const out = v1ToV2(v1)
    expect(out.map((e) => e.parentId)).toEqual([null, out[0].id, out[1].id])
    for (const e of out) expect(e.id).toMatch(/^[0-9a-f]{8}$/)
    expect(new Set(out.map((e) => e.id)).size).toBe(3)
    expect(out[2].firstKeptEntryId).toBe(out[1].id)
    expect(out[2]).not.toHaveProperty('firstKeptEntryIndex')
    expect(v1[2]).toHaveProperty('firstKeptEntryIndex') // the input is not changed in place
  })

  it('v1-to-v2: a firstKeptEntryIndex past the end is dropped without an id', () => {
    const out = v1ToV2([{type: 'compaction', timestamp: 't', summary: 's', firstKeptEntryIndex: 7, tokensBefore: 1}])
    expect(out[0]).not.toHaveProperty('firstKeptEntryId')
    expect(out[0]).not.toHaveProperty('firstKeptEntryIndex')
  })

  it('v2-to-v3: the hookMessage role becomes custom, and nothing else changes', () => {
    const hook = {type: 'message', id: 'a1', parentId: null, timestamp: 't', message: {role: 'hookMessage', content: 'x', timestamp: 1}}
    const user = {type: 'message', id: 'b2', parentId: 'a1', timestamp: 't', message: {role: 'user', content: 'y', timestamp: 2}}
    const out = v2ToV3([hook, user])
    expect(out[0]).toEqual({...hook, message: {...hook.message, role: 'custom'}})
    expect(out[1]).toBe(user)
    expect(hook.message.role).toBe('hookMessage')
  })

  it('migrateEntries runs only the steps a version needs: v3 and a newer v4 (SQLite era) pass unchanged', () => {
    const hook = [{type: 'message', id: 'a1', parentId: null, timestamp: 't', message: {role: 'hookMessage', content: 'x', timestamp: 1}}]
    expect(migrateEntries(3, hook)).toBe(hook)
    expect(migrateEntries(4, hook)).toBe(hook)
    expect((migrateEntries(2, hook)[0] as {message: {role: string}}).message.role).toBe('custom')
    const v1 = migrateEntries(1, [{type: 'message', timestamp: 't', message: {role: 'hookMessage', content: 'x', timestamp: 1}}])
    expect(v1[0]).toMatchObject({parentId: null, message: {role: 'custom'}})
  })

  it('headerVersion: a missing header or version is v1', () => {
    expect(headerVersion(undefined)).toBe(1)
    expect(headerVersion({})).toBe(1)
    expect(headerVersion({version: 3})).toBe(3)
  })
})

describe('transcript entry types', () => {
  it('the closed union names every type in the real OpenClaw fixtures and in the spec (store-format.md 6.4, store-sqlite.md)', () => {
    const seen = new Set<string>()
    const walk = (dir: string) => {
      for (const d of fs.readdirSync(dir, {withFileTypes: true})) {
        const p = path.join(dir, d.name)
        if (d.isDirectory()) walk(p)
        // Trajectory side files are run traces, not transcripts.
        else if (/\.jsonl(\.|$)/.test(d.name) && !d.name.includes('.trajectory.')) for (const line of fs.readFileSync(p, 'utf8').split('\n')) {
          try {
            const v = JSON.parse(line) as {type?: unknown}
            if (typeof v.type === 'string' && v.type !== 'session') seen.add(v.type)
          } catch {}
        }
      }
    }
    walk(FIXTURES)
    expect(seen.size).toBeGreaterThan(3)
    for (const t of seen) expect(ENTRY_TYPES as readonly string[], t).toContain(t)
    for (const t of ['message', 'model_change', 'thinking_level_change', 'compaction', 'branch_summary', 'custom', 'custom_message', 'label', 'session_info', 'reset']) expect(ENTRY_TYPES as readonly string[]).toContain(t)
  })

  it('isKnownEntry tells a type of the union from a newer one', () => {
    expect(isKnownEntry({type: 'label', id: 'a', parentId: null, timestamp: 't'})).toBe(true)
    expect(isKnownEntry({type: 'future_thing', id: 'a', parentId: null, timestamp: 't'})).toBe(false)
  })
})
