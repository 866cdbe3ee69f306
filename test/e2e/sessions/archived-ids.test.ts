// `sessions history|export|lineage <sessionId>` where the id is an ARCHIVED session's (what `sessions search` reports
// for a hit in a `.reset.` archive), through the real CLI on copies of test/fixtures/openclaw-2026.4.27-reset-twice:
// agent:main:main reset twice by real OpenClaw, so two `.reset.` archives, both named after the FIRST sessionId, and
// only each file's header says whose it is. Expected values are read from the fixture files here, not from clawkit.
// Order: key, current sessionId (output unchanged), then an archived sessionId; writers never resolve an archive.
import fs from 'node:fs'
import path from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import type {SessionsExportResult} from '../../../src/commands/sessions/export.js'
import type {SessionsHistoryResult} from '../../../src/commands/sessions/history.js'
import type {SessionsLineageResult} from '../../../src/commands/sessions/lineage.js'
import {baseEnv, copyFixture, json, jsonError, runCli, type RunResult, tempDir} from '../../support/cli.js'
import {expectDoc} from '../../support/schema-check.js'
import {agentEnvs} from '../agent/setup.js'
import {diffSnapshots, isEmptyDiff, snapshot, transcriptLines} from '../../support/state-files.js'

const FIXTURE = 'openclaw-2026.4.27-reset-twice'
const KEY = 'agent:main:main'
const NAME = 'd8caeddb-04f7-465b-9b9e-21127366c273.jsonl'
/** Oldest first: two archives, then the live transcript; the sessionId each header names. */
const FILES = [`${NAME}.reset.2026-11-26T14-51-58.002Z`, `${NAME}.reset.2026-11-26T14-52-11.005Z`, NAME]
const IDS = ['d8caeddb-04f7-465b-9b9e-21127366c273', '28bfe1c6-3dfd-46a2-8644-c20256d72837', 'e16c9fc9-7377-4811-b767-157cbcf7a1a9']
const ENDED = ['2026-11-26T14:51:58.002Z', '2026-11-26T14:52:11.005Z']

const sessionsDir = (state: string) => path.join(state, 'agents', 'main', 'sessions')
const run = (state: string, args: string[]): Promise<RunResult> => runCli([...args, '--state-dir', state], {env: baseEnv(tempDir())})

/** Every message text of a transcript file, read straight from its lines. */
function texts(file: string): string[] {
  return transcriptLines(file)
    .filter((l) => l.type === 'message')
    .map((l) => (typeof l.message.content === 'string' ? l.message.content : l.message.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('\n')))
}

describe('history, export and lineage accept an archived sessionId (JSON era, real OpenClaw reset twice)', () => {
  let state: string
  beforeAll(() => {
    state = copyFixture(FIXTURE)
  })

  it('history <first archived id>: that archive\'s entries, read-only, with archived {where, ended, endedAt}; --raw gives its lines as stored', async () => {
    for (const i of [0, 1]) {
      const file = path.join(sessionsDir(state), FILES[i])
      const h = expectDoc<SessionsHistoryResult>(await run(state, ['sessions', 'history', IDS[i], '--limit', '100', '--json']), 'sessions-history')
      expect(h).toMatchObject({key: KEY, agentId: 'main', sessionId: IDS[i], sessionFile: file, transcriptExists: true, truncated: false})
      expect(h.archived).toEqual({sessionId: IDS[i], where: 'reset-archive', ended: 'reset', endedAt: ENDED[i]})
      const lines = transcriptLines(file)
      // As for a live transcript: from the first message (--limit counts messages) to the end, ids as stored.
      expect(h.entries.map((e) => e.id)).toEqual(lines.slice(lines.findIndex((l) => l.type === 'message')).map((l) => l.id))
      expect(h.entries.filter((e) => e.type === 'message').map((e) => e.text)).toEqual(texts(file))
      const raw = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', IDS[i], '--limit', '100', '--raw', '--json']))
      expect(raw.raw).toEqual(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(lines.findIndex((l) => l.type === 'message')))
    }
    // The same entries (same --json shape) as --include-archived shows for that session of the key.
    const all = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', 'main', '--include-archived', '--limit', '100', '--json']))
    const one = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', IDS[1], '--limit', '100', '--json']))
    expect(one.entries).toEqual(all.entries.slice(all.sessions![1].start, all.sessions![2].start))
    // --limit reads from the end of the archive, as for a live transcript.
    const last = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', IDS[0], '--limit', '1', '--json']))
    expect(last.truncated).toBe(true)
    expect(last.entries.filter((e) => e.type === 'message').map((e) => e.text)).toEqual(texts(path.join(sessionsDir(state), FILES[0])).slice(-1))
    const text = await run(state, ['sessions', 'history', IDS[0]])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain(`Archived session ${IDS[0]} (.reset. archive, reset `)
    expect(text.stdout).toContain('capital of France?')
    expect(text.stdout).not.toContain('capital of Spain?')
  })

  it('the current sessionId and the key still resolve as before: no archived field, the live transcript', async () => {
    const byId = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', IDS[2], '--json']))
    const byKey = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', 'main', '--json']))
    expect(byId).toEqual(byKey)
    expect(byId).not.toHaveProperty('archived')
    expect(byId.sessionFile).toBe(path.join(sessionsDir(state), NAME))
  })

  it('export <archived id>: md holds that archive\'s messages only; jsonl is the archive byte for byte; --json --out says archived', async () => {
    const md = await run(state, ['sessions', 'export', IDS[1]])
    expect(md.code, md.stderr).toBe(0)
    for (const t of texts(path.join(sessionsDir(state), FILES[1]))) expect(md.stdout).toContain(t.split('\n').at(-1))
    expect(md.stdout).not.toContain('capital of France?')
    expect(md.stdout).not.toContain('capital of Spain?')
    expect(md.stdout).toContain('- Archived: .reset. archive, reset ')
    const jsonl = await run(state, ['sessions', 'export', IDS[0], '--format', 'jsonl'])
    expect(jsonl.code, jsonl.stderr).toBe(0)
    expect(jsonl.stdout).toBe(fs.readFileSync(path.join(sessionsDir(state), FILES[0]), 'utf8'))
    const out = path.join(tempDir(), 'archive.html')
    const doc = expectDoc<SessionsExportResult>(await run(state, ['sessions', 'export', IDS[0], '--format', 'html', '--out', out, '--json']), 'sessions-export')
    expect(doc).toMatchObject({key: KEY, agentId: 'main', messages: 2, sessions: [{sessionId: IDS[0], where: 'reset-archive', transcript: path.join(sessionsDir(state), FILES[0]), messages: 2}]})
    expect(doc.archived).toEqual({sessionId: IDS[0], where: 'reset-archive', ended: 'reset', endedAt: ENDED[0]})
    expect(fs.readFileSync(out, 'utf8')).toContain('capital of France?')
    // --include-archived on an archived id: its key's whole lineage, as for the key.
    const whole = await run(state, ['sessions', 'export', IDS[0], '--include-archived'])
    for (const q of ['France', 'Italy', 'Spain']) expect(whole.stdout).toContain(`capital of ${q}?`)
  })

  it('lineage <archived id>: the lineage of the key it served, as by the key, plus which archived session was asked', async () => {
    const byKey = json<SessionsLineageResult>(await run(state, ['sessions', 'lineage', 'main', '--json']))
    for (const i of [0, 1]) {
      const l = expectDoc<SessionsLineageResult>(await run(state, ['sessions', 'lineage', IDS[i], '--json']), 'sessions-lineage')
      expect(l).toEqual({...byKey, archived: {sessionId: IDS[i], where: 'reset-archive', ended: 'reset', endedAt: ENDED[i]}})
    }
    expect(byKey.sessions.map((s) => s.sessionId)).toEqual(IDS)
    const text = await run(state, ['sessions', 'lineage', IDS[0]])
    expect(text.stdout).toContain(`Lineage of ${KEY}: 3 sessions, oldest first`)
    expect(text.stdout).toContain(`(asked by ${IDS[0]}, an archived session of this key)`)
  })

  it('an id neither current nor archived is still not found (exit 1); an id that could name a path is refused before any lookup (exit 2)', async () => {
    for (const cmd of ['history', 'export', 'lineage']) {
      // export --json writes its document only beside an --out file.
      const out = cmd === 'export' ? ['--out', path.join(tempDir(), 'x.md')] : []
      const r = await run(state, ['sessions', cmd, '00000000-0000-4000-8000-00000000dead', ...out, '--json'])
      expect(r.code).toBe(1)
      expect(jsonError(r).code).toBe('E_SESSION_NOT_FOUND')
      for (const bad of [`../sessions/${IDS[0]}`, `${IDS[0]}/x`, '.']) {
        const b = await run(state, ['sessions', cmd, bad, ...out, '--json'])
        expect(b.code, `${cmd} ${bad}`).toBe(2)
        expect(jsonError(b).code).toBe('E_BAD_SESSION')
      }
    }
  })
})

describe('ambiguous archived ids (synthetic copies of the reset-twice fixture)', () => {
  it('the same id current under one key and archived under another resolves to the current one', async () => {
    const state = copyFixture(FIXTURE)
    const dir = sessionsDir(state)
    // A second key whose current session carries the first archive's id, in a transcript of its own.
    const own = path.join(dir, 'other.jsonl')
    const header = transcriptLines(path.join(dir, FILES[0]))[0]
    fs.writeFileSync(own, `${JSON.stringify(header)}\n${JSON.stringify({type: 'message', id: 'aa000001', parentId: null, timestamp: '2026-11-27T10:00:00.000Z', message: {role: 'user', content: 'the current copy', timestamp: 1}})}\n`)
    const index = JSON.parse(fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8'))
    index['agent:main:other'] = {sessionId: IDS[0], updatedAt: Date.parse('2026-11-27T10:00:00.000Z'), sessionFile: own}
    fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(index, null, 2))
    const h = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', IDS[0], '--json']))
    expect(h).toMatchObject({key: 'agent:main:other', sessionId: IDS[0], sessionFile: own})
    expect(h).not.toHaveProperty('archived')
    expect(h.entries.map((e) => e.text)).toEqual(['the current copy'])
  })

  it('two archives with one id resolve to the newest (by the time it was archived)', async () => {
    const state = copyFixture(FIXTURE)
    const dir = sessionsDir(state)
    // A later archive of the same session (same header id), its one message changed so it can be told apart.
    const lines = fs.readFileSync(path.join(dir, FILES[0]), 'utf8').split('\n').filter(Boolean)
    const newer = `${NAME}.reset.2026-11-27T09-00-00.000Z`
    const changed = lines.map((l) => l.replace('capital of France?', 'capital of Norway?'))
    fs.writeFileSync(path.join(dir, newer), `${changed.join('\n')}\n`)
    const h = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', IDS[0], '--json']))
    expect(h.sessionFile).toBe(path.join(dir, newer))
    expect(h.archived).toMatchObject({sessionId: IDS[0], endedAt: '2026-11-27T09:00:00.000Z'})
    expect(h.entries.some((e) => e.text?.includes('capital of Norway?'))).toBe(true)
    const md = await run(state, ['sessions', 'export', IDS[0]])
    expect(md.stdout).toContain('capital of Norway?')
    expect(md.stdout).not.toContain('capital of France?')
  })

  it('an archive nothing ties to a key any more (a deleted key, no trajectory): key null, lineage of itself alone', async () => {
    const state = copyFixture(FIXTURE)
    const dir = sessionsDir(state)
    // The index emptied (the key deleted) and the oldest archive renamed as OpenClaw names a deleted session's archive.
    fs.writeFileSync(path.join(dir, 'sessions.json'), '{}')
    const deleted = `${IDS[0]}.jsonl.deleted.2026-11-26T15-00-00.000Z`
    fs.renameSync(path.join(dir, FILES[0]), path.join(dir, deleted))
    const h = json<SessionsHistoryResult>(await run(state, ['sessions', 'history', IDS[0], '--json']))
    expect(h).toMatchObject({key: null, agentId: 'main', sessionId: IDS[0], sessionFile: path.join(dir, deleted)})
    expect(h.archived).toEqual({sessionId: IDS[0], where: 'deleted-archive', ended: 'deleted', endedAt: '2026-11-26T15:00:00.000Z'})
    expect(h.entries.filter((e) => e.type === 'message').map((e) => e.text)).toEqual(texts(path.join(dir, deleted)))
    const l = json<SessionsLineageResult>(await run(state, ['sessions', 'lineage', IDS[0], '--json']))
    expect(l.key).toBeNull()
    expect(l.sessions.map((s) => [s.sessionId, s.where, s.foundBy])).toEqual([[IDS[0], 'deleted-archive', 'none']])
    const text = await run(state, ['sessions', 'lineage', IDS[0]])
    expect(text.stdout).toContain(`Lineage of archived session ${IDS[0]} (no key): 1 session`)
    const md = await run(state, ['sessions', 'export', IDS[0]])
    expect(md.stdout).toContain(`# Session ${IDS[0]}`)
    expect(md.stdout).toContain('- Key: none (')
  })
})

describe('writers never resolve an archived id', () => {
  const make = agentEnvs()
  it('sessions reset <archived id> (and --dry-run) says the session is archived and names its key (not "Session not found"), exit 1, and nothing in the state dir changes', async () => {
    const state = copyFixture(FIXTURE)
    const before = snapshot(state)
    for (const extra of [[], ['--dry-run']]) {
      const r = await run(state, ['sessions', 'reset', IDS[0], ...extra, '--json'])
      expect(r.code).toBe(1)
      const error = jsonError(r)
      expect(error.code).toBe('E_SESSION_ARCHIVED')
      expect(error.message).toBe(`Session ${IDS[0]} is archived: it was ${KEY}'s session until its reset at ${ENDED[0]} (.reset. archive), and an archived session cannot be reset.`)
      expect(error.suggestions![0]).toContain(`"clawkit sessions reset ${KEY}`)
      expect(error.suggestions![0]).toContain(`"clawkit sessions history ${IDS[0]}`)
    }
    const human = await run(state, ['sessions', 'reset', IDS[1]])
    expect(human.stderr).toMatch(new RegExp(`^Error: Session ${IDS[1]} is archived: it was ${KEY}'s session until its reset at `))
    expect(human.stderr).not.toContain('not found')
    expect(isEmptyDiff(diffSnapshots(before, snapshot(state)))).toBe(true)
  })

  it('agent --session-id <archived id> whose file name is another key\'s live transcript (OpenClaw names files after a key\'s FIRST id) is refused; nothing is written or sent', async () => {
    const a = await make({fixture: FIXTURE})
    // The fixture's provider points at the port it was recorded with; the turn would go to this test's mock.
    const cfg = JSON.parse(fs.readFileSync(path.join(a.state, 'openclaw.json'), 'utf8'))
    cfg.models.providers.mockant.baseUrl = a.mock.url
    fs.writeFileSync(path.join(a.state, 'openclaw.json'), JSON.stringify(cfg, null, 2))
    const before = snapshot(a.state)
    for (const args of [['--session-id', IDS[0]], ['--session-key', 'agent:main:other', '--session-id', IDS[0]]]) {
      const r = await a.run(['agent', ...args, '-m', 'into whose transcript?', '--json'])
      expect(r.code, r.stdout).toBe(1)
      const e = jsonError(r)
      expect(e.code).toBe('E_TRANSCRIPT_OWNER')
      expect(e.message).toContain(`${NAME} is the transcript of ${KEY} (session ${IDS[2]})`)
    }
    expect(a.mock.messageRequests()).toHaveLength(0)
    const d = diffSnapshots(before, snapshot(a.state))
    expect(isEmptyDiff(d), JSON.stringify(d)).toBe(true)
    // The key itself, and its current id, still run turns into that file.
    const ok = await a.run(['agent', '--session-id', IDS[2], '-m', 'continue main', '--json'])
    expect(ok.code, ok.stderr).toBe(0)
    expect(texts(path.join(sessionsDir(a.state), NAME)).at(-2)).toBe('continue main')
  })
})
