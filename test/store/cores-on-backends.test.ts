// The sessions and channel cores (test/support/cores-contract.ts) on the OpenClaw file layout (a copy of a real
// 2026.4.27 state dir) and on the in-memory twin handed to OpenClawState as its store; SQLite's run is
// test/store/sqlite/cores.sqlite.test.ts. The context the model gets holds the compaction fixture's summary.
import fs from 'node:fs'
import path from 'node:path'

import {MemorySessionStore} from '../../src/store/file/memory-store.js'
import {OpenClawState} from '../../src/store/state.js'
import {isTranscriptFileName} from '../../src/store/file/transcript.js'
import type {SessionStore} from '../../src/store/types.js'
import {COMPACTION, copyFixture, FIXTURES} from '../support/cli.js'
import {transcriptLines} from '../support/state-files.js'
import {describeCores, renamedArchive} from '../support/cores-contract.js'
import {useServers} from '../support/servers.js'

const servers = useServers({mock: true})

const MAIN = 'agent:main:main'
const FIXTURE_DIR = path.join(FIXTURES, COMPACTION, 'agents', 'main', 'sessions')

const lines = (file: string): object[] => transcriptLines(file)

interface Backend {
  state: OpenClawState
  store: SessionStore
}

/** A fixture copy whose model provider is the mock server (copyFixture keeps its workspace inside it). */
function stateDirCopy(): string {
  const stateDir = copyFixture(COMPACTION)
  const cfg = path.join(stateDir, 'openclaw.json')
  fs.mkdirSync(path.join(stateDir, 'workspace'))
  fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace('http://127.0.0.1:18089', servers.mock.url))
  return stateDir
}

const ENV = {HOME: '/nonexistent', ANTHROPIC_API_KEY: 'test-key'}

const BACKENDS: [string, () => Backend][] = [
  [
    'file (OpenClaw JSON layout)',
    () => {
      const state = OpenClawState.open({stateDir: stateDirCopy(), env: ENV, ignoreSettings: true})
      return {state, store: state.store('main')}
    },
  ],
  [
    'memory',
    () => {
      // The config still comes from a real state dir; every session read and write goes to the twin.
      const stateDir = stateDirCopy()
      const seed = new MemorySessionStore('main')
      const transcripts: Record<string, object[]> = {}
      for (const name of fs.readdirSync(FIXTURE_DIR)) if (isTranscriptFileName(name)) transcripts[seed.locatorOf(name)] = lines(path.join(FIXTURE_DIR, name))
      const twin = new MemorySessionStore('main', {index: JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'sessions.json'), 'utf8')), transcripts})
      const state = OpenClawState.open({stateDir, env: ENV, ignoreSettings: true, storeFactory: () => twin})
      // Nothing may reach the files: they are removed, so a core that bypassed the store would find nothing.
      fs.rmSync(path.join(stateDir, 'agents', 'main', 'sessions'), {recursive: true, force: true})
      return {state, store: twin}
    },
  ],
]

for (const [name, make] of BACKENDS) {
  describeCores(
    name,
    () => ({...make(), main: {key: MAIN, sessionId: 'f1ea83b9-e3d9-43c8-b4e4-5d101bf3ee2f'}, other: {key: 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001', sessionId: '0a1b2c3d-0000-4000-8000-000000000001'}, context: /summary/i, archiveOf: renamedArchive, env: ENV}),
    () => servers.mock,
  )
}
