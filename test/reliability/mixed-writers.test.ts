// Issue 6 "Concurrency": N real CLI processes doing mixed writes on one store at once (agent turns on the same and on
// different sessions against the mock model, resets of different keys, message send mirrors). Afterwards every update
// is present, sessions.json parses, every transcript's parentId chain is intact, and no two entries share a sessionId.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import type {SessionsResetResult} from '../../src/commands/sessions/reset.js'
import {baseEnv, cliWith, copyFixture, json, readIndexFile, sessionsJsonPath, tempDir, TWO_AGENTS} from '../support/cli.js'
import {transcriptLines as lines} from '../support/state-files.js'
import {channelEnv} from '../support/fake-channels.js'
import {useServers} from '../support/servers.js'

const servers = useServers({mock: {delayMs: 50}, channels: true})


/** Each entry's parentId is the previous entry's id: appends from every writer chained onto the leaf. */
function brokenChain(file: string): string | undefined {
  const entries = lines(file).filter((l) => l.type !== 'session')
  for (let i = 1; i < entries.length; i++) if (entries[i].parentId !== entries[i - 1].id) return `${path.basename(file)} entry ${i}`
  return undefined
}

describe('mixed concurrent writers on one store', () => {
  it('12 processes: 4 agent turns on one session, 2 on new sessions, 4 resets, 2 message mirrors: no lost update', async () => {
    const state = copyFixture(TWO_AGENTS)
    const storeFile = sessionsJsonPath(state)
    const seeded = readIndexFile(storeFile)
    for (let i = 0; i < 4; i++) seeded[`agent:main:reset-${i}`] = {sessionId: `seed-${i}`, updatedAt: Date.now(), label: `L${i}`}
    fs.writeFileSync(storeFile, JSON.stringify(seeded, null, 2))
    const env = baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: servers.mock.url, ...channelEnv(servers.fake)})
    const run = cliWith(['--json', '--state-dir', state], {env, timeoutMs: 120_000})

    const started = Date.now()
    const jobs = [
      ...Array.from({length: 4}, (_, i) => run(['agent', '--agent', 'main', '-m', `same-session turn ${i}`])),
      ...Array.from({length: 2}, (_, i) => run(['agent', '--session-key', `agent:main:hook:mixed-${i}`, '-m', `own-session turn ${i}`])),
      ...Array.from({length: 4}, (_, i) => run(['sessions', 'reset', `agent:main:reset-${i}`])),
      ...Array.from({length: 2}, (_, i) => run(['message', 'send', '--channel', 'telegram', '-t', '-100555', '-m', `mirror ${i}`])),
    ]
    const results = await Promise.all(jobs)
    const wallMs = Date.now() - started
    for (const r of results) expect(r.code, r.stdout + r.stderr).toBe(0)
    for (const r of results) json(r) // each printed one JSON document

    const store = readIndexFile(storeFile)
    const sessionsDir = path.dirname(storeFile)
    const transcriptOf = (key: string) => path.join(sessionsDir, `${store[key].sessionId}.jsonl`)
    let lost = 0
    // 4 turns on agent:main:main: every prompt and its reply are in the one transcript.
    const mainText = fs.readFileSync(transcriptOf('agent:main:main'), 'utf8')
    for (let i = 0; i < 4; i++) if (!mainText.includes(`"same-session turn ${i}"`) || !mainText.includes(`Echo: same-session turn ${i}`)) lost++
    // 2 turns on their own new sessions.
    for (let i = 0; i < 2; i++) {
      const key = `agent:main:hook:mixed-${i}`
      if (!store[key] || !fs.readFileSync(transcriptOf(key), 'utf8').includes(`Echo: own-session turn ${i}`)) lost++
    }
    // 4 resets: the index holds exactly the id each reset reported, and the labels survived.
    for (let i = 0; i < 4; i++) {
      const doc = json<SessionsResetResult>(results[6 + i]!)
      if (store[`agent:main:reset-${i}`]?.sessionId !== doc.sessionId || store[`agent:main:reset-${i}`]?.label !== `L${i}`) lost++
    }
    // 2 mirrors into the group session.
    const groupKey = 'agent:main:telegram:group:-100555'
    const groupText = store[groupKey] ? fs.readFileSync(transcriptOf(groupKey), 'utf8') : ''
    for (let i = 0; i < 2; i++) if (!groupText.includes(`mirror ${i}`)) lost++

    const ids = Object.values(store).map((e: any) => e.sessionId)
    const transcripts = fs.readdirSync(sessionsDir).filter((n) => n.endsWith('.jsonl') && !n.includes('trajectory'))
    const broken = transcripts.map((n) => brokenChain(path.join(sessionsDir, n))).filter(Boolean)
    console.log(`mixed writers: 12 processes, 12 operations, lost updates ${lost}, broken chains ${broken.length}, wall ${wallMs} ms`)
    expect(lost).toBe(0)
    expect(broken).toEqual([])
    expect(new Set(ids).size).toBe(ids.length)
    expect(fs.readdirSync(sessionsDir).filter((n) => n.endsWith('.lock') || n.endsWith('.tmp'))).toEqual([])
    // The store was rewritten by many writers and still holds the fixture's unknown fields untouched.
    expect(store['agent:main:main'].skillsSnapshot).toEqual(seeded['agent:main:main'].skillsSnapshot)
  })
})
