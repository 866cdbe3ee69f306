// Index keys spelled like Object.prototype members (`__proto__`, `__Proto__`, `constructor`, ...) are user data: every
// writer must keep their rows. On a plain object `data["__proto__"] = row` sets the prototype and the row is lost.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {openSessionStore} from '../../../src/store/state.js'
import {baseEnv, copyFixture, json, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {useServers} from '../../support/servers.js'

const servers = useServers({mock: true, channels: true})

/** The index as own keys (JSON.parse makes `__proto__` an own property, so this sees every row). */
function rows(file: string): Record<string, any> {
  return JSON.parse(fs.readFileSync(file, 'utf8'))
}

/** Rows as [key, entry] pairs: in an object literal `__proto__: {...}` would set the prototype, not a key. */
function addRows(state: string, add: [string, unknown][]): string {
  const file = sessionsJsonPath(state)
  // Spliced into the text: building the object in JS would hit the very prototype problem under test.
  const text = fs.readFileSync(file, 'utf8').replace(/\n}$/, `,\n${add.map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(',\n')}\n}`)
  fs.writeFileSync(file, text)
  return file
}

describe('prototype-named index keys survive every writer', () => {
  it('sessions reset of a row stored as "__Proto__" keeps it (folded to "__proto__") with its label', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = addRows(state, [['__Proto__', {sessionId: 'protomixed1', updatedAt: 1, label: 'keep me'}]])
    const before = rows(file)
    const r = await runCli(['sessions', 'reset', 'protomixed1', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    expect(doc.key).toBe('__proto__')
    const after = rows(file)
    expect(Object.hasOwn(after, '__proto__')).toBe(true)
    expect(after.__proto__).toMatchObject({label: 'keep me', sessionId: doc.sessionId})
    expect(Object.hasOwn(after, '__Proto__')).toBe(false)
    for (const k of Object.keys(before)) if (k !== '__Proto__') expect(after[k], k).toEqual(before[k])
  })

  it('sessions reset of rows named __proto__, constructor, prototype, hasOwnProperty and toString keeps every one', async () => {
    const names = ['__proto__', 'Constructor', 'prototype', 'hasOwnProperty', 'toString']
    const state = copyFixture(TWO_AGENTS)
    const file = addRows(state, names.map((n, i) => [n, {sessionId: `proto-${i}`, updatedAt: 1, label: `row ${n}`}]))
    const env = baseEnv(tempDir())
    for (let i = 0; i < names.length; i++) {
      const r = await runCli(['sessions', 'reset', `proto-${i}`, '--json', '--state-dir', state], {env})
      expect(r.code, r.stderr).toBe(0)
    }
    const after = rows(file)
    for (const n of names) {
      expect(Object.hasOwn(after, n.toLowerCase()), n).toBe(true)
      expect(after[n.toLowerCase()].label).toBe(`row ${n}`)
    }
  })

  it('agent -m on a session stored as "__Proto__" (selected by --session-id) keeps the row and records the turn', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = addRows(state, [['__Proto__', {sessionId: 'protomixed1', updatedAt: 1, label: 'keep me'}]])
    const env = baseEnv(tempDir(), {ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: servers.mock.url})
    const r = await runCli(['agent', '--session-id', 'protomixed1', '-m', 'hello proto', '--json', '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    const after = rows(file)
    const row = Object.hasOwn(after, '__Proto__') ? after.__Proto__ : after.__proto__
    expect(Object.hasOwn(after, '__Proto__') || Object.hasOwn(after, '__proto__')).toBe(true)
    expect(row).toMatchObject({label: 'keep me', sessionId: 'protomixed1'})
    expect(row.totalTokens).toBeGreaterThan(0)
  })

  it('message send mirroring into a store with prototype-named rows keeps them', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = addRows(state, [['__proto__', {sessionId: 'p1', updatedAt: 1, label: 'a'}], ['constructor', {sessionId: 'p2', updatedAt: 1, label: 'b'}]])
    const before = rows(file)
    const r = await runCli(['message', 'send', '--channel', 'webhook', '-t', servers.fake.webhookUrl, '-m', 'hi', '--session-key', 'agent:main:proto-mirror', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).payload.mirrored).toMatchObject({sessionKey: 'agent:main:proto-mirror', created: true})
    const after = rows(file)
    expect(after.__proto__).toEqual(before.__proto__)
    expect(after.constructor).toEqual(before.constructor)
  })

  it('doctor --fix repairs a row named "__proto__" (missing updatedAt) in place instead of losing it', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = addRows(state, [['__proto__', {sessionId: 'p1', label: 'a'}], ['toString', {sessionId: 'p2', label: 'b'}]])
    const r = await runCli(['doctor', '--fix', '--yes', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    expect([0, 3, 4], r.stderr).toContain(r.code)
    const after = rows(file)
    expect(after.__proto__).toMatchObject({sessionId: 'p1', label: 'a', updatedAt: expect.any(Number)})
    expect(after.toString).toMatchObject({sessionId: 'p2', label: 'b', updatedAt: expect.any(Number)})
  })

  it('the store library: update() assigning data["__proto__"] writes a row, and reads see no inherited members', async () => {
    const dir = tempDir()
    const storePath = path.join(dir, 'sessions.json')
    fs.writeFileSync(storePath, '{}')
    const store = openSessionStore({agentId: 'main', path: storePath})
    await store.update((data) => {
      expect(data.constructor).toBeUndefined()
      expect('toString' in data).toBe(false)
      data.__proto__ = {sessionId: 'lib-1', updatedAt: 5}
    })
    expect(rows(storePath)).toEqual(JSON.parse('{"__proto__": {"sessionId": "lib-1", "updatedAt": 5}}'))
    expect((await store.findEntry('__PROTO__'))?.entry.sessionId).toBe('lib-1')
    expect(Object.hasOwn(await store.read(), '__proto__')).toBe(true)
  })
})
