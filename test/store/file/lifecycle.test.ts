// The JSON layout's deleteMany (src/store/file/lifecycle.ts) on real files: its batch of renames.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {FileSessionStore} from '../../../src/store/file/store.js'
import {tempDir} from '../../support/cli.js'

describe('JSON layout: deleteMany', () => {
  it('archives a transcript that two removed keys name once, every other removed key its own, and keeps the rest', async () => {
    const dir = path.join(tempDir(), 'agents', 'main', 'sessions')
    fs.mkdirSync(dir, {recursive: true})
    const file = (id: string) => path.join(dir, `${id}.jsonl`)
    for (const id of ['a', 'b', 'm']) fs.writeFileSync(file(id), `${JSON.stringify({type: 'session', version: 3, id, timestamp: new Date(0).toISOString(), cwd: dir})}\n`)
    const index = {
      'agent:main:cron:x:run:1': {sessionId: 'a', updatedAt: 1, sessionFile: file('a')},
      'agent:main:main': {sessionId: 'm', updatedAt: 1, sessionFile: file('m')},
      'agent:main:cron:x:run:2': {sessionId: 'a', updatedAt: 1, sessionFile: file('a')},
      'AGENT:MAIN:EXPLICIT:B': {sessionId: 'b', updatedAt: 1, sessionFile: file('b')},
    }
    fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(index, null, 2))
    const store = new FileSessionStore({agentId: 'main', path: path.join(dir, 'sessions.json')})
    const out = await store.lifecycle.deleteMany!(
      [
        {key: 'agent:main:cron:x:run:1', sessionId: 'a'},
        {key: 'agent:main:cron:x:run:2', sessionId: 'a'},
        {key: 'agent:main:explicit:b', sessionId: 'b'},
      ],
      {now: new Date('2026-12-01T10:00:00.000Z')},
    )
    const stamp = '2026-12-01T10-00-00.000Z'
    expect(out).toEqual([
      {key: 'agent:main:cron:x:run:1', sessionId: 'a', archived: [`${file('a')}.deleted.${stamp}`]},
      {key: 'agent:main:cron:x:run:2', sessionId: 'a', archived: []},
      {key: 'agent:main:explicit:b', sessionId: 'b', archived: [`${file('b')}.deleted.${stamp}`]},
    ])
    expect(fs.readdirSync(dir).sort()).toEqual([`a.jsonl.deleted.${stamp}`, `b.jsonl.deleted.${stamp}`, 'm.jsonl', 'sessions.json'])
    // The other spelling of the third key went with it, as OpenClaw folds keys.
    expect(Object.keys(await store.read())).toEqual(['agent:main:main'])
  })
})
