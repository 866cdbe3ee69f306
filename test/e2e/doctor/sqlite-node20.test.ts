// doctor on a SQLite-era agent where the running Node has no node:sqlite (Node 20): the file checks still run, the
// rows are reported unchecked (never "healthy"), and nothing fails with a stack trace. Runs in the Node 20 pass only;
// the checks themselves are in sqlite.sqlite.test.ts (Node 24).
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {copyFixture} from '../../support/cli.js'
import {IMPORTED_96, SQLITE_OK} from '../../support/sqlite.js'
import {doctor, ids} from './helpers.js'

describe.skipIf(SQLITE_OK)('doctor without node:sqlite', () => {
  it('a SQLite-era agent on Node 20 is sqlite-unchecked (warn), not healthy; file checks (a read-only database: exit 4) and the import records still run', async () => {
    const state = copyFixture(IMPORTED_96)
    const db = path.join(state, 'agents', 'work', 'agent', 'openclaw-agent.sqlite')
    fs.chmodSync(db, 0o400)
    const {r, doc} = await doctor(state)
    expect(r.stderr).not.toMatch(/\n\s+at /)
    expect(ids(doc)).toEqual(['sqlite-import-protected', 'sqlite-import-protected', 'sqlite-read-only', 'sqlite-store', 'sqlite-store', 'sqlite-unchecked', 'sqlite-unchecked'])
    expect(doc.findings.find((f) => f.id === 'sqlite-unchecked')!.message).toMatch(/needs Node 22\.15 or later/)
    expect(r.code).toBe(4)
    expect(doc.agents.map((a) => a.era)).toEqual(['sqlite', 'sqlite'])
  })
})
