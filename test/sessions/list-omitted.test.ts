import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {buildRow, buildSqliteRow, LIST_OMITTED_FIELDS} from '../../src/sessions/list.js'
import {OpenClawState} from '../../src/store/state.js'
import type {SessionEntry} from '../../src/store/types.js'

// The store drops LIST_OMITTED_FIELDS before an entry is parsed, so a row must never read one: this entry records
// every field a row builder asks for. A field added to the list that some builder reads fails here.
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-omitted-'))
afterAll(() => fs.rmSync(home, {recursive: true, force: true}))

function recording(entry: Record<string, unknown>): {entry: SessionEntry; read: Set<string>} {
  const read = new Set<string>()
  const proxy = new Proxy(entry, {
    get(target, prop, receiver) {
      if (typeof prop === 'string') read.add(prop)
      return Reflect.get(target, prop, receiver)
    },
    has(target, prop) {
      if (typeof prop === 'string') read.add(prop)
      return Reflect.has(target, prop)
    },
    ownKeys(target) {
      read.add('*')
      return Reflect.ownKeys(target)
    },
  })
  return {entry: proxy as unknown as SessionEntry, read}
}

describe('the fields a listing leaves out (LIST_OMITTED_FIELDS)', () => {
  const state = OpenClawState.open({stateDir: path.join(home, 'state'), env: {HOME: home}, ignoreSettings: true})
  const shapes: Record<string, unknown>[] = [
    {sessionId: 's', updatedAt: 1},
    // Every optional path taken: spawned, forked, overrides, levels, a locked harness, ACP, chat type.
    {
      sessionId: 's',
      updatedAt: 2,
      spawnedBy: 'agent:main:main',
      forkSource: {sessionKey: 'agent:main:main'},
      thinkingLevel: 'high',
      providerOverride: 'openai',
      modelOverride: 'gpt-5',
      modelSelectionLocked: true,
      pluginOwnerId: '',
      agentHarnessId: 'codex',
      agentRuntimeOverride: 'pi',
      acp: {},
      chatType: 'group',
      totalTokens: 5,
      totalTokensFresh: true,
      totalTokensVersion: 1,
      contextTokens: 0,
    },
  ]

  it('are never read by the row builders of either era', () => {
    for (const shape of shapes) {
      for (const key of ['agent:main:main', 'agent:main:cron:nightly', 'global', 'agent:main:telegram:group:1']) {
        const a = recording({...shape})
        buildSqliteRow(state, key, a.entry, 'main', 10)
        const b = recording({...shape})
        buildRow(state, key, b.entry, 'main', 10, 'sqlite')
        for (const read of [a.read, b.read]) {
          // Enumerating the entry (a spread, Object.keys) would see whatever the store left in: not allowed either.
          expect(read.has('*')).toBe(false)
          for (const field of LIST_OMITTED_FIELDS) expect(read.has(field)).toBe(false)
        }
      }
    }
  })

  it('leave the row as it is with them present', () => {
    const big = {skillsSnapshot: {prompt: 'x'}, systemPromptReport: {chars: 1}, contextBudgetStatus: {state: 'ok'}}
    for (const shape of shapes) {
      expect(buildSqliteRow(state, 'agent:main:main', {...shape, ...big} as unknown as SessionEntry, 'main', 10)).toEqual(buildSqliteRow(state, 'agent:main:main', {...shape} as unknown as SessionEntry, 'main', 10))
    }
  })
})
