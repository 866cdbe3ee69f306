// The store library itself refuses every JSON-era write for a SQLite-era agent, not only the CLI paths that happen to
// update the index first: a transcript append beside OpenClaw's database would be a fork it later imports.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {OpenClawState} from '../../../src/store/state.js'
import {copyFixture, TWO_AGENTS} from '../../support/cli.js'
import {appendTo} from '../../../src/store/append.js'

/** The two-agents fixture with agent main migrated: its database exists beside the legacy sessions dir. */
function migratedState(): string {
  const state = copyFixture(TWO_AGENTS)
  const db = path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite')
  fs.mkdirSync(path.dirname(db), {recursive: true})
  fs.copyFileSync(path.join(copyFixture('openclaw-2026.9.6-native'), 'agents', 'main', 'agent', 'openclaw-agent.sqlite'), db)
  return state
}

const listing = (dir: string) => fs.readdirSync(dir).sort()

describe('FileSessionStore of a SQLite-era agent', () => {
  it('append, withTranscript (append and write) and reset refuse with E_SQLITE_STORE and leave no transcript or lock file', async () => {
    const state = migratedState()
    // The JSON-era store of the agent (store('main') is now its database): its own writes refuse too.
    const st = OpenClawState.open({stateDir: state, ignoreSettings: true})
    const s = st.storeFor(st.storeRef('main'))
    const sessions = path.join(state, 'agents', 'main', 'sessions')
    const before = listing(sessions)
    const t = s.transcriptOf({sessionId: 'abc12345-0000-4000-8000-000000000001'}, 'agent:main:explicit:abc')
    const msg = {type: 'message', message: {role: 'user', content: 'hi'}}
    await expect(appendTo(s, t, [msg])).rejects.toMatchObject({code: 'E_SQLITE_STORE'})
    await expect(s.withTranscript(t, (tx) => tx.append([msg]))).rejects.toMatchObject({code: 'E_SQLITE_STORE'})
    await expect(s.withTranscript(t, (tx) => tx.write([msg]))).rejects.toMatchObject({code: 'E_SQLITE_STORE'})
    await expect(s.reset('agent:main:main', {now: new Date(), cwd: state})).rejects.toMatchObject({code: 'E_SQLITE_STORE'})
    expect(listing(sessions)).toEqual(before)
  })

  it('the agent beside it, still in the JSON era, is written as before', async () => {
    const state = migratedState()
    const s = OpenClawState.open({stateDir: state, ignoreSettings: true}).store('work')
    const hit = await s.findEntry('agent:work:main')
    const t = s.transcriptOf(hit!.entry, 'agent:work:main')
    await appendTo(s, t, [{type: 'message', message: {role: 'user', content: 'hi'}}])
    expect(fs.readFileSync(t.locator, 'utf8')).toContain('"content":"hi"')
  })
})
