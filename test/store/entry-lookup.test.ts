// EntryLookup answers as findEntryIn does (every spelling of a key, newest updatedAt, ties to the exact spelling, then
// index order), before and after keys are removed through it.
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {EntryLookup, findEntryIn} from '../../src/store/entry-lookup.js'
import type {SessionEntry, SessionStoreData} from '../../src/store/types.js'

// Few base keys, each in several spellings (case, surrounding blanks), and few times: folds and ties are the rule here.
const spelling = fc.tuple(fc.constantFrom('agent:main:main', 'agent:main:cron:a', 'agent:ops:x', '1', '__proto__'), fc.constantFrom('', 'upper', 'title', 'blank')).map(([k, how]) =>
  how === 'upper' ? k.toUpperCase() : how === 'title' ? k.charAt(0).toUpperCase() + k.slice(1) : how === 'blank' ? ` ${k} ` : k,
)
const entry = fc.record({sessionId: fc.constantFrom('a', 'b', 'c'), updatedAt: fc.option(fc.constantFrom(1, 2, 3), {nil: undefined})})

describe('EntryLookup', () => {
  it('finds what findEntryIn finds, for every spelling, and removeAll leaves what deleting every spelling leaves', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(spelling, entry), {maxLength: 14}), fc.array(spelling, {maxLength: 6}), fc.array(spelling, {maxLength: 8}), (rows, removals, lookups) => {
        const data: SessionStoreData = {}
        const twin: SessionStoreData = {}
        for (const [k, e] of rows) {
          Object.defineProperty(data, k, {value: {...e} as SessionEntry, enumerable: true, writable: true, configurable: true})
          Object.defineProperty(twin, k, {value: {...e} as SessionEntry, enumerable: true, writable: true, configurable: true})
        }
        const lookup = new EntryLookup(data)
        for (const k of [...lookups, ...rows.map(([k]) => k)]) expect(lookup.find(k)).toEqual(findEntryIn(twin, k))
        for (const r of removals) {
          lookup.removeAll(r)
          const fold = r.trim().toLowerCase()
          for (const k of Object.keys(twin)) if (k.trim().toLowerCase() === fold) delete twin[k]
          expect(Object.keys(data)).toEqual(Object.keys(twin))
          for (const k of [...lookups, ...rows.map(([k]) => k)]) expect(lookup.find(k)).toEqual(findEntryIn(twin, k))
        }
      }),
      {numRuns: 500, seed: 41},
    )
  })
})
