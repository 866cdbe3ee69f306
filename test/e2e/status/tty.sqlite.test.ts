// status on a SQLite-era store, on a real terminal: its Sessions table cuts keys to be unique among every key of the
// database (not only the 10 recent rows), so a cut key still names one session in `sessions history`.
import {expect, it} from 'vitest'

import {OpenClawState} from '../../../src/store/state.js'
import {baseEnv, copyFixture, tempDir} from '../../support/cli.js'
import {describeSqlite, NATIVE_96} from '../../support/sqlite.js'
import {expectResolves, hasScript, keyCells, onTty} from '../../support/tty.js'

// Two keys that share their first 54 characters; the older one is never among the rows shown.
const TWIN_A = 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001'
const TWIN_B = 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000002'

describeSqlite('status on a SQLite-era store, on a terminal', () => {
  it.skipIf(!hasScript)('a recent key is cut so that history finds it even when its twin in the database is older than the 10 rows shown', async () => {
    const state = copyFixture(NATIVE_96)
    const now = Date.now()
    const keys = [TWIN_A, ...Array.from({length: 11}, (_, i) => `agent:main:cron:job-${i}`), TWIN_B]
    // Written by clawkit's own SQLite writer (the store's update), newest first: TWIN_B the oldest, past the 10 recent.
    const s = OpenClawState.open({stateDir: state, ignoreSettings: true})
    await s.store('main').update((d) => {
      keys.forEach((key, i) => (d[key] = {sessionId: `${String(i % 10).repeat(8)}-1111-4111-8111-${String(i).padStart(12, '0')}`, updatedAt: now - i * 60_000}))
    })
    s.close()
    const env = baseEnv(tempDir())
    const r = await onTty(60, ['status', '--state-dir', state], env)
    expect(r.code === 0 || r.code === 3, r.out).toBe(true)
    const out = r.out.slice(r.out.indexOf('\nSessions\n') + '\nSessions\n'.length)
    const cells = keyCells(out, 'Key')
    expect(cells).toHaveLength(10)
    expect(cells[0], out).toContain('…')
    await expectResolves(cells[0], TWIN_A, state, env)
  })
})
