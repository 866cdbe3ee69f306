// `sessions lineage`, `history --include-archived` and `export` through the real CLI on a key that real OpenClaw
// 2026.4.27 reset twice (test/fixtures/openclaw-2026.4.27-reset-twice, gateway `/new`; provenance in its README).
// What this data has that clawkit's own resets (test/support/reset-twice.ts) do not: OpenClaw keeps `sessionFile` on
// the first session's file name across resets, so BOTH archives and the live transcript are named after the FIRST
// sessionId, and only each file's header says whose it is. No trajectory sidecar: the archives tie to the key by
// the reset time alone.
import fs from 'node:fs'
import path from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import type {SessionsExportResult} from '../../../src/commands/sessions/export.js'
import type {SessionsHistoryResult} from '../../../src/commands/sessions/history.js'
import type {SessionsLineageResult} from '../../../src/commands/sessions/lineage.js'
import {baseEnv, copyFixture, json, runCli, type RunResult, tempDir} from '../../support/cli.js'
import {transcriptLines} from '../../support/state-files.js'
import {escapeHtml} from '../../../src/sessions/export-formats.js'

const FIXTURE = 'openclaw-2026.4.27-reset-twice'
const KEY = 'agent:main:main'
const NAME = 'd8caeddb-04f7-465b-9b9e-21127366c273.jsonl'
/** The three transcripts in the order OpenClaw wrote them, and the sessionId each header names. */
const FILES = [`${NAME}.reset.2026-11-26T14-51-58.002Z`, `${NAME}.reset.2026-11-26T14-52-11.005Z`, NAME]
const IDS = ['d8caeddb-04f7-465b-9b9e-21127366c273', '28bfe1c6-3dfd-46a2-8644-c20256d72837', 'e16c9fc9-7377-4811-b767-157cbcf7a1a9']
const QUESTIONS = ['the capital of France?', 'the capital of Italy?', 'the capital of Spain?']

let state: string
let sessionsDir: string
let home: string

const run = (args: string[]): Promise<RunResult> => runCli([...args, '--state-dir', state], {env: baseEnv(home)})

const lines = (file: string): any[] => transcriptLines(path.join(sessionsDir, file))

/** Every message's text in a fixture file, read straight from its lines (no clawkit code). */
function texts(file: string): string[] {
  return lines(file)
    .filter((l) => l.type === 'message')
    .map((l) => (typeof l.message.content === 'string' ? l.message.content : l.message.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('\n')))
}

describe('sessions lineage, history --include-archived, export on a key real OpenClaw 2026.4.27 reset twice', () => {
  beforeAll(() => {
    state = copyFixture(FIXTURE)
    sessionsDir = path.join(state, 'agents', 'main', 'sessions')
    home = tempDir()
  })

  it('the fixture is what the tests below assume: three headers with three ids, one live file and two archives under the first id\'s name', () => {
    expect(fs.readdirSync(sessionsDir).filter((n) => n.includes('.jsonl')).sort()).toEqual([...FILES].sort())
    expect(FILES.map((f) => lines(f)[0])).toEqual(IDS.map((id) => expect.objectContaining({type: 'session', id})))
    const entry = JSON.parse(fs.readFileSync(path.join(sessionsDir, 'sessions.json'), 'utf8'))[KEY]
    expect(entry.sessionId).toBe(IDS[2])
    expect(path.basename(entry.sessionFile)).toBe(NAME)
    for (const [i, f] of FILES.entries()) expect(texts(f).join('\n')).toContain(QUESTIONS[i])
  })

  it('lineage: three sessions oldest first, ids from the headers (not the shared file name), two .reset. archives then live, ended reset/reset/current', async () => {
    const r = await run(['sessions', 'lineage', 'main', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const l = json<SessionsLineageResult>(r)
    expect(l.key).toBe(KEY)
    expect(l.sessions.map((s) => [s.sessionId, s.where, path.basename(s.transcript), s.ended])).toEqual([
      [IDS[0], 'reset-archive', FILES[0], 'reset'],
      [IDS[1], 'reset-archive', FILES[1], 'reset'],
      [IDS[2], 'live', FILES[2], 'current'],
    ])
    // Each archive ended at the moment its name carries; each session holds the one user message and one reply.
    expect(l.sessions.map((s) => s.endedAt)).toEqual(['2026-11-26T14:51:58.002Z', '2026-11-26T14:52:11.005Z', null])
    expect(l.sessions.map((s) => s.messages)).toEqual(FILES.map((f) => lines(f).filter((e) => e.type === 'message').length))
    expect(l.sessions.map((s) => s.messages)).toEqual([2, 2, 2])
    // Token totals are the sums of the assistant messages' usage in each file.
    expect(l.sessions.map((s) => s.usage.input)).toEqual(FILES.map((f) => lines(f).reduce((n, e) => n + (e.message?.usage?.input ?? 0), 0)))
    expect(l.sessions.every((s) => s.badLines === 0 && s.transcriptExists)).toBe(true)
    const text = await run(['sessions', 'lineage', KEY])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain(`Lineage of ${KEY}: 3 sessions, oldest first`)
    expect(text.stdout.match(/\.reset\. archive/g)).toHaveLength(2)
    // Asked by the current sessionId, the same three.
    expect(json<SessionsLineageResult>(await run(['sessions', 'lineage', IDS[2], '--json'])).sessions.map((s) => s.sessionId)).toEqual(IDS)
  })

  it('the first sessionId, which names the live file, never resolves to the live file: history and export of it read its archive (by header)', async () => {
    // Only headers say whose a file is; a lookup by file name would show the third session's turn as the first's.
    const h = json<SessionsHistoryResult>(await run(['sessions', 'history', IDS[0], '--json']))
    expect(h).toMatchObject({sessionId: IDS[0], sessionFile: path.join(sessionsDir, FILES[0]), archived: {sessionId: IDS[0], where: 'reset-archive'}})
    expect(h.entries.filter((e) => e.type === 'message').map((e) => e.text)).toEqual(texts(FILES[0]))
    const out = path.join(tempDir(), 'x.jsonl')
    const r = await run(['sessions', 'export', IDS[0], '--format', 'jsonl', '--out', out, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(fs.readFileSync(out, 'utf8')).toBe(fs.readFileSync(path.join(sessionsDir, FILES[0]), 'utf8'))
  })

  it('history --include-archived: every message of the three files in order, with a boundary at each of the two resets', async () => {
    const r = await run(['sessions', 'history', 'main', '--include-archived', '--limit', '1000', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const h = json<SessionsHistoryResult>(r)
    expect(h.truncated).toBe(false)
    expect(h.sessions!.map((s) => [s.sessionId, path.basename(s.sessionFile), s.where])).toEqual([
      [IDS[0], FILES[0], 'reset-archive'],
      [IDS[1], FILES[1], 'reset-archive'],
      [IDS[2], FILES[2], 'live'],
    ])
    expect(h.entries.filter((e) => e.type === 'message').map((e) => e.text)).toEqual(FILES.flatMap((f) => texts(f)))
    // Each session's first entry is where its boundary goes.
    const firstMessage = h.sessions!.map((s) => h.entries.slice(s.start).find((e) => e.type === 'message')!.text)
    expect(firstMessage).toEqual(FILES.map((f) => texts(f)[0]))
    const text = await run(['sessions', 'history', 'main', '--include-archived', '--limit', '1000'])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout.match(/^\u2550{4} reset .*: session .* \u2550{4}$/gm)).toEqual([
      expect.stringContaining(`reset 2026-11-26 14:51:58 +00:00: session ${IDS[1]} (.reset. archive)`),
      expect.stringContaining(`reset 2026-11-26 14:52:11 +00:00: session ${IDS[2]} (live transcript)`),
    ])
    for (const q of QUESTIONS) expect(text.stdout).toContain(q)
  })

  it('export md --include-archived: a section per session, every message of the three files', async () => {
    const r = await run(['sessions', 'export', 'main', '--include-archived'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.match(/^## Session `[^`]+`/gm)).toEqual(IDS.map((id) => `## Session \`${id}\``))
    for (const f of FILES) for (const t of texts(f)) expect(r.stdout).toContain(t)
  })

  it('export html --include-archived: every message of the three files, escaped, line by line', async () => {
    const out = path.join(tempDir(), 'chat.html')
    const r = await run(['sessions', 'export', 'main', '--include-archived', '--format', 'html', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    const html = fs.readFileSync(out, 'utf8')
    for (const id of IDS) expect(html).toContain(id)
    for (const f of FILES) for (const t of texts(f)) for (const line of t.split('\n')) expect(html).toContain(escapeHtml(line))
  })

  it('export jsonl --include-archived --out DIR: one <sessionId>.jsonl per session, each byte for byte the file OpenClaw wrote', async () => {
    const dir = tempDir()
    const r = await run(['sessions', 'export', 'main', '--format', 'jsonl', '--include-archived', '--out', dir, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json<SessionsExportResult>(r).sessions.map((s) => s.sessionId)).toEqual(IDS)
    expect(fs.readdirSync(dir).sort()).toEqual(IDS.map((id) => `${id}.jsonl`).sort())
    for (const [i, id] of IDS.entries()) expect(fs.readFileSync(path.join(dir, `${id}.jsonl`), 'utf8')).toBe(fs.readFileSync(path.join(sessionsDir, FILES[i]), 'utf8'))
    // To stdout, the three files one after another.
    const all = await run(['sessions', 'export', 'main', '--format', 'jsonl', '--include-archived'])
    expect(all.code, all.stderr).toBe(0)
    expect(all.stdout).toBe(FILES.map((f) => fs.readFileSync(path.join(sessionsDir, f), 'utf8')).join(''))
  })

  it('a third reset by clawkit on top of OpenClaw\'s two: it archives the live file under its shared name, and lineage shows four sessions in order', async () => {
    const copy = copyFixture(FIXTURE)
    const r = json(await runCli(['sessions', 'reset', 'main', '--json', '--state-dir', copy], {env: baseEnv(home)}))
    expect(r.previousSessionId).toBe(IDS[2])
    expect(path.basename(r.archivedTranscript!)).toMatch(new RegExp(`^${NAME.replaceAll('.', '\\.')}\\.reset\\.`))
    const l = json<SessionsLineageResult>(await runCli(['sessions', 'lineage', 'main', '--json', '--state-dir', copy], {env: baseEnv(home)}))
    expect(l.sessions.map((s) => [s.sessionId, s.where, s.ended])).toEqual([
      [IDS[0], 'reset-archive', 'reset'],
      [IDS[1], 'reset-archive', 'reset'],
      [IDS[2], 'reset-archive', 'reset'],
      [r.sessionId, 'live', 'current'],
    ])
    expect(path.basename(l.sessions[2].transcript)).toBe(path.basename(r.archivedTranscript!))
  })

  it('the live transcript renamed away (what doctor re-attaches by its header id): lineage shows it as the current session, where "orphan", found by "header"', async () => {
    const copy = copyFixture(FIXTURE)
    const dir = path.join(copy, 'agents', 'main', 'sessions')
    fs.renameSync(path.join(dir, NAME), path.join(dir, 'moved-aside.jsonl'))
    const l = json<SessionsLineageResult>(await runCli(['sessions', 'lineage', 'main', '--json', '--state-dir', copy], {env: baseEnv(home)}))
    expect(l.sessions.map((s) => [s.sessionId, s.where, s.ended, s.foundBy])).toEqual([
      [IDS[0], 'reset-archive', 'reset', expect.any(String)],
      [IDS[1], 'reset-archive', 'reset', expect.any(String)],
      [IDS[2], 'orphan', 'current', 'header'],
    ])
    expect(path.basename(l.sessions[2].transcript)).toBe('moved-aside.jsonl')
    // doctor names the same file for its re-attach repair.
    const d = json(await runCli(['doctor', '--json', '--state-dir', copy], {env: baseEnv(home)}))
    expect(JSON.stringify(d.findings)).toContain('moved-aside.jsonl')
  })
})
