// The sessions and channel cores (test/support/cores-contract.ts) on OpenClaw's SQLite database: a copy of the state
// dir OpenClaw 2026.9.6 wrote itself, its model provider pointed at the mock server. The context the model gets holds
// the main session's earlier messages (no compaction there); a reset keeps the old session's window in the database.
import {afterEach} from 'vitest'

import {OpenClawState} from '../../../src/store/state.js'
import {baseEnv, tempDir} from '../../support/cli.js'
import {describeCores, keptArchive} from '../../support/cores-contract.js'
import {useServers} from '../../support/servers.js'
import {describeSqlite, mockedStateCopy, NATIVE_96} from '../../support/sqlite.js'

const servers = useServers({mock: true})
const states: OpenClawState[] = []
afterEach(() => {
  for (const s of states.splice(0)) s.close()
})

describeSqlite('the cores on SQLite (OpenClaw 2026.9.6)', () => {
  describeCores(
    'SQLite (OpenClaw 2026.9.6 database)',
    () => {
      // clawkit's own dirs (its per-session write locks) under a home of the test's, never the developer's.
      const env = baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key'})
      const state = OpenClawState.open({stateDir: mockedStateCopy(NATIVE_96, servers.mock.url), env, ignoreSettings: true})
      states.push(state)
      return {
        state,
        store: state.store('main'),
        main: {key: 'agent:main:main', sessionId: '43eeabd1-7609-4067-b31f-fda50759fe26'},
        other: {key: 'agent:main:explicit:c0ffee00-0000-4000-8000-000000000096', sessionId: 'c0ffee00-0000-4000-8000-000000000096'},
        context: /first message after reset/,
        archiveOf: keptArchive,
        env,
      }
    },
    () => servers.mock,
  )
})
