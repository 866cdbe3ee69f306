import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {CorruptFileError} from '../../../src/errors.js'
import {FileSessionStore, serializeStore} from '../../../src/store/file/store.js'
import {readStoreEntry} from '../../../src/store/file/index-scan.js'
import {baseEnv, COMPACTION, copyFixture, json, jsonError, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'

describe('sessions.json file store', () => {
  it('round-trips every fixture store byte for byte (unknown fields and key order survive)', async () => {
    for (const fixture of [TWO_AGENTS, COMPACTION]) {
      const file = sessionsJsonPath(copyFixture(fixture))
      const before = fs.readFileSync(file, 'utf8')
      const store = new FileSessionStore({agentId: 'main', path: file})
      expect(serializeStore(await store.read())).toBe(before)
      // A real mutation touches only what it changes.
      await store.update((d) => {
        d['agent:main:main'].label = 'x'
      })
      await store.update((d) => {
        delete d['agent:main:main'].label
      })
      expect(fs.readFileSync(file, 'utf8')).toBe(before)
    }
  })

  it('writes 2-space JSON without a trailing newline, mode 0600, via an atomic temp file', async () => {
    const dir = tempDir()
    const file = path.join(dir, 'agents', 'main', 'sessions', 'sessions.json')
    const old = process.umask(0o022)
    try {
      await new FileSessionStore({agentId: 'main', path: file}).update((d) => {
        d['agent:main:main'] = {sessionId: 'a', updatedAt: 1}
      })
    } finally {
      process.umask(old)
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('{\n  "agent:main:main": {\n    "sessionId": "a",\n    "updatedAt": 1\n  }\n}')
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700)
    expect(fs.readdirSync(path.dirname(file))).toEqual(['sessions.json'])
  })

  it('an unchanged store is not rewritten', async () => {
    const file = sessionsJsonPath(copyFixture(TWO_AGENTS))
    const past = new Date(Date.now() - 3600_000)
    fs.utimesSync(file, past, past)
    await new FileSessionStore({agentId: 'main', path: file}).update(() => {})
    expect(Math.round(fs.statSync(file).mtimeMs)).toBe(past.getTime())
  })

  it('corrupt sessions.json: typed error naming file and position, file never overwritten', async () => {
    const dir = tempDir()
    const file = path.join(dir, 'sessions.json')
    const text = '{\n  "agent:main:main": {\n    "sessionId": "a",\n    "updatedAt": 1,,\n  }\n}'
    fs.writeFileSync(file, text)
    const store = new FileSessionStore({agentId: 'main', path: file})
    const err = await store.read().catch((error) => error)
    expect(err).toBeInstanceOf(CorruptFileError)
    expect(err.message).toContain(file)
    expect(err.position).toEqual({line: 4, column: 20})
    await expect(store.update(() => {})).rejects.toBeInstanceOf(CorruptFileError)
    expect(fs.readFileSync(file, 'utf8')).toBe(text)
  })

  it('a 0-byte sessions.json (crash mid-write) is reported, not read as an empty store', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    fs.writeFileSync(file, '')
    await expect(new FileSessionStore({agentId: 'main', path: file}).read()).rejects.toThrow(/is empty/)
  })

  it('CLI: corrupt index gives a one-line error, exit 1, no stack trace, and the file is untouched', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = sessionsJsonPath(state)
    fs.writeFileSync(file, '{"agent:main:main": {"sessionId": ')
    const before = fs.readFileSync(file)
    for (const args of [['sessions', 'list'], ['sessions', 'reset', 'agent:main:main'], ['sessions', 'history', 'main']]) {
      const r = await runCli([...args, '--state-dir', state], {env: baseEnv(tempDir())})
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/^Error: .*sessions\.json is not valid JSON at line 1, column \d+/)
      expect(r.stderr).not.toMatch(/\n\s+at /)
      const j = await runCli([...args, '--state-dir', state, '--json'], {env: baseEnv(tempDir())})
      expect(jsonError(j).code).toBe('E_CORRUPT_STORE')
      expect(j.code).toBe(1)
    }
    expect(fs.readFileSync(file).equals(before)).toBe(true)
  })
})

describe('single-entry lookup on large stores', () => {
  it('slices exactly the entry a whole parse gives, including braces, quotes and unicode inside strings', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const data: Record<string, any> = {}
    for (let i = 0; i < 6000; i++) data[`agent:main:telegram:direct:${i}`] = {sessionId: `s${i}`, updatedAt: i, origin: {label: `u{${i}}"[x]\\ é 🦞`}, list: [1, {a: '}'}], pad: 'x'.repeat(100)}
    data['agent:main:main'] = {sessionId: 'main', updatedAt: 1, systemPromptReport: {text: 'a "quoted" } brace'}}
    fs.writeFileSync(file, serializeStore(data))
    expect(fs.statSync(file).size).toBeGreaterThan(1024 * 1024) // large enough for the sliced path
    const store = new FileSessionStore({agentId: 'main', path: file})
    for (const key of ['agent:main:main', 'agent:main:telegram:direct:0', 'agent:main:telegram:direct:5999']) {
      expect(await store.findEntry(key)).toEqual({storedKey: key, entry: data[key]})
    }
    expect(await store.findEntry('agent:main:missing')).toBeUndefined()
    // A legacy mixed-case spelling is not sliced: the one whole parse finds it with OpenClaw's fold.
    fs.writeFileSync(file, serializeStore({...data, 'agent:main:Legacy': {sessionId: 'old', updatedAt: 1}, 'AGENT:MAIN:LEGACY': {sessionId: 'new', updatedAt: 2}}))
    expect(await store.findEntry('agent:main:legacy')).toEqual({storedKey: 'AGENT:MAIN:LEGACY', entry: {sessionId: 'new', updatedAt: 2}})
  })

  it('scans in chunks: a key or an entry straddling chunk boundaries is found whole, at any chunk size', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const data: Record<string, any> = {}
    for (let i = 0; i < 24; i++) data[`agent:main:k${i}`] = {sessionId: `s${i}`, updatedAt: i, note: `a "q" \\ } ] { [ é 🦞 ${'y'.repeat(i * 7)}`, nested: {deep: [i, {x: '}'}]}}
    fs.writeFileSync(file, serializeStore(data))
    const size = fs.statSync(file).size
    const fh = await fsp.open(file, 'r')
    try {
      for (const chunk of [11, 64, 1000, 1024 * 1024]) {
        for (const key of Object.keys(data)) expect(await readStoreEntry(fh, size, key, chunk), `${key} in chunks of ${chunk}`).toEqual(data[key])
        expect(await readStoreEntry(fh, size, 'agent:main:k1', chunk)).toEqual(data['agent:main:k1']) // not confused with k10..k19: the needle ends at the quote
        expect(await readStoreEntry(fh, size, 'agent:main:absent', chunk)).toBeUndefined()
      }
      // Searching the whole file for an absent key carries only a needle's length from chunk to chunk; keeping what it
      // searched past would copy at least half the file as the buffer doubled.
      const stats = {copiedBytes: 0}
      expect(await readStoreEntry(fh, size, 'agent:main:absent', 256, stats)).toBeUndefined()
      expect(stats.copiedBytes).toBeLessThan(size / 5)
    } finally {
      await fh.close()
    }
  })

  it('a key present twice (a hand-edited file) is left to the whole parse, which keeps the last value as OpenClaw does', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const pad = serializeStore(Object.fromEntries(Array.from({length: 9000}, (_, i) => [`agent:main:p${i}`, {sessionId: `p${i}`, updatedAt: i, pad: 'z'.repeat(100)}])))
    const text = pad.replace(/\n}$/, ',\n  "agent:main:main": {\n    "sessionId": "first"\n  },\n  "agent:main:main": {\n    "sessionId": "second"\n  }\n}')
    fs.writeFileSync(file, text)
    expect(text.length).toBeGreaterThan(1024 * 1024)
    const fh = await fsp.open(file, 'r')
    try {
      expect(await readStoreEntry(fh, text.length, 'agent:main:main', 4096)).toBeUndefined()
    } finally {
      await fh.close()
    }
    expect(await new FileSessionStore({agentId: 'main', path: file}).findEntry('agent:main:main')).toEqual({storedKey: 'agent:main:main', entry: {sessionId: 'second'}})
  })

  it('a torn large index is not sliced: the whole parse reports it, as for a small one', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const text = serializeStore(Object.fromEntries(Array.from({length: 9000}, (_, i) => [`agent:main:p${i}`, {sessionId: `p${i}`, updatedAt: i, pad: 'z'.repeat(100)}])))
    expect(text.length).toBeGreaterThan(1024 * 1024)
    const store = new FileSessionStore({agentId: 'main', path: file})
    for (const torn of [text.slice(0, -1), text.slice(0, -200), `${text}x`]) {
      fs.writeFileSync(file, torn)
      await expect(store.findEntry('agent:main:p1')).rejects.toBeInstanceOf(CorruptFileError)
    }
    fs.writeFileSync(file, `${text}\n \t`)
    expect(await store.findEntry('agent:main:p1')).toEqual({storedKey: 'agent:main:p1', entry: {sessionId: 'p1', updatedAt: 1, pad: 'z'.repeat(100)}})
  })

  it('readRows: an error thrown by the projection passes through, not as an unreadable store', async () => {
    const file = sessionsJsonPath(copyFixture(TWO_AGENTS))
    const boom = new TypeError('boom')
    await expect(
      new FileSessionStore({agentId: 'main', path: file}).readRows(() => {
        throw boom
      }),
    ).rejects.toBe(boom)
  })

  it('falls back to a whole parse for minified stores and still reports corruption', async () => {
    const minified = Buffer.from(JSON.stringify({'agent:main:main': {sessionId: 'a', updatedAt: 1}}))
    const file = path.join(tempDir(), 'sessions.json')
    fs.writeFileSync(file, minified)
    const fh = await fsp.open(file, 'r')
    try {
      expect(await readStoreEntry(fh, minified.length, 'agent:main:main', 7)).toBeUndefined()
    } finally {
      await fh.close()
    }
    expect(await new FileSessionStore({agentId: 'main', path: file}).findEntry('agent:main:main')).toEqual({storedKey: 'agent:main:main', entry: {sessionId: 'a', updatedAt: 1}})
    fs.writeFileSync(file, '{"agent:main:main": ')
    await expect(new FileSessionStore({agentId: 'main', path: file}).findEntry('agent:main:main')).rejects.toBeInstanceOf(CorruptFileError)
  })
})

describe('FileSessionStore.sessionsOf: archives are file content', () => {
  it('an archive whose header id could not name a file keeps the id in its name; an archive of a later time is not a predecessor', async () => {
    const dir = path.join(tempDir(), 'sessions')
    fs.mkdirSync(dir, {recursive: true})
    const t = Date.parse('2026-12-01T10:00:00.000Z')
    const iso = (ms: number) => new Date(ms).toISOString()
    const suffix = (ms: number) => iso(ms).replaceAll(':', '-')
    fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify({'agent:main:main': {sessionId: 'live-1', updatedAt: t, sessionStartedAt: t}}))
    fs.writeFileSync(path.join(dir, 'live-1.jsonl'), `${JSON.stringify({type: 'session', version: 3, id: 'live-1', timestamp: iso(t), cwd: '/w'})}\n`)
    fs.writeFileSync(path.join(dir, `old-1.jsonl.reset.${suffix(t)}`), `${JSON.stringify({type: 'session', version: 3, id: '../../escape', timestamp: iso(t - 60_000), cwd: '/w'})}\n`)
    // Ten minutes after the live session started: no reset of this key made it.
    fs.writeFileSync(path.join(dir, `stray-1.jsonl.reset.${suffix(t + 600_000)}`), `${JSON.stringify({type: 'session', version: 3, id: 'stray-1', timestamp: iso(t - 120_000), cwd: '/w'})}\n`)
    const store = new FileSessionStore({agentId: 'main', path: path.join(dir, 'sessions.json')})
    const got = await store.sessionsOf('agent:main:main')
    expect(got.map((s) => [s.sessionId, s.where, s.foundBy])).toEqual([
      ['old-1', 'reset-archive', 'reset-time'],
      ['live-1', 'live', 'index'],
    ])
  })

  it('an orphaned live-named transcript (a reset interrupted before its archive) is shown when its trajectory sidecar names the key', async () => {
    const dir = path.join(tempDir(), 'sessions')
    fs.mkdirSync(dir, {recursive: true})
    const t = Date.parse('2026-12-01T10:00:00.000Z')
    const header = (id: string, ms: number) => `${JSON.stringify({type: 'session', version: 3, id, timestamp: new Date(ms).toISOString(), cwd: '/w'})}\n`
    fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify({'agent:main:main': {sessionId: 'live-2', updatedAt: t, sessionStartedAt: t}, 'agent:main:other': {sessionId: 'other-1', updatedAt: t}}))
    fs.writeFileSync(path.join(dir, 'live-2.jsonl'), header('live-2', t))
    fs.writeFileSync(path.join(dir, 'other-1.jsonl'), header('other-1', t - 5))
    for (const [id, key] of [['old-1', 'agent:main:main'], ['theirs-1', 'agent:main:other'], ['nobody-1', undefined]] as const) {
      fs.writeFileSync(path.join(dir, `${id}.jsonl`), header(id, t - 60_000))
      if (key) fs.writeFileSync(path.join(dir, `${id}.trajectory.jsonl`), `${JSON.stringify({traceSchema: 'openclaw-trajectory', sessionId: id, sessionKey: key})}\n`)
    }
    const store = new FileSessionStore({agentId: 'main', path: path.join(dir, 'sessions.json')})
    expect((await store.sessionsOf('agent:main:main')).map((s) => [s.sessionId, s.where, s.ended, s.foundBy])).toEqual([
      ['old-1', 'orphan', 'orphaned', 'trajectory'],
      ['live-2', 'live', 'current', 'index'],
    ])
    expect((await store.sessionsOf('agent:main:other')).map((s) => s.sessionId)).toEqual(['theirs-1', 'other-1'])
  })
})
