import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, COMPACTION, json, readIndexFile, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {COMPACT_MAIN_ID, doctor, expectNoLineLost, EXPLICIT_ID, EXPLICIT_KEY, healthy, ids, MAIN_ID, sessionsDir, transcriptLineHashes, transcriptOf, WORK_ID} from './helpers.js'


describe('doctor: transcripts of index entries', () => {
  it('a healthy localized fixture has no finding and exits 0', async () => {
    for (const fixture of [TWO_AGENTS, COMPACTION]) {
      const {r, doc} = await doctor(healthy(fixture))
      expect(r.code, JSON.stringify(doc.findings)).toBe(0)
      expect(doc.findings).toEqual([])
      expect(doc.ok).toBe(true)
    }
  })

  it('main transcript missing is main-transcript-missing (error, exit 4); another session\'s is transcript-missing', async () => {
    const state = healthy(COMPACTION)
    fs.rmSync(transcriptOf(state, 'main', COMPACT_MAIN_ID))
    fs.rmSync(transcriptOf(state, 'main', EXPLICIT_ID))
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(4)
    expect(ids(doc)).toEqual(['main-transcript-missing', 'transcript-missing'])
    expect(doc.findings.find((f) => f.id === 'transcript-missing')).toMatchObject({key: EXPLICIT_KEY, severity: 'error', fixable: false, agentId: 'main'})
    // not fixable: --fix changes nothing and the exit code stays
    const fixed = await doctor(state, ['--fix'])
    expect(fixed.r.code).toBe(4)
    expect(fixed.doc.fixed).toBe(0)
  })

  it('sessions just reset by "clawkit sessions reset" (header-only transcript, no turns yet) are healthy, main included', async () => {
    const state = healthy(COMPACTION)
    const env = baseEnv(tempDir())
    for (const key of [EXPLICIT_KEY, 'agent:main:main']) {
      const reset = await runCli(['sessions', 'reset', key, '--state-dir', state], {env})
      expect(reset.code, reset.stderr).toBe(0)
    }
    const {r, doc} = await doctor(state, [], env)
    expect(ids(doc)).toEqual([])
    expect(r.code).toBe(0)
  })

  it('an entry without turns whose transcript is missing is only transcript-not-started (info)', async () => {
    const state = healthy(COMPACTION)
    const env = baseEnv(tempDir())
    const reset = await runCli(['sessions', 'reset', EXPLICIT_KEY, '--json', '--state-dir', state], {env})
    fs.rmSync(json(reset).sessionFile)
    const {r, doc} = await doctor(state, [], env)
    expect(r.code).toBe(0)
    expect(ids(doc)).toEqual(['transcript-not-started'])
    expect(doc.findings[0]).toMatchObject({severity: 'info', key: EXPLICIT_KEY, fixable: false})
  })

  it('main transcript with only its header line is main-transcript-header-only', async () => {
    const state = healthy(TWO_AGENTS)
    const file = transcriptOf(state, 'work', WORK_ID)
    fs.writeFileSync(file, `${fs.readFileSync(file, 'utf8').split('\n')[0]}\n`)
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(3)
    expect(ids(doc)).toEqual(['main-transcript-header-only'])
    expect(doc.findings[0]).toMatchObject({agentId: 'work', key: 'agent:work:main', fixable: false})
  })

  it('torn last line: --fix moves exactly the torn bytes to <file>.bak.<ts>, the transcript gets its original bytes back', async () => {
    const state = healthy(TWO_AGENTS)
    const file = transcriptOf(state, 'main', MAIN_ID)
    const original = fs.readFileSync(file)
    const torn = '{"type":"message","id":"deadbeef","parentId":"x","timestamp":"2026-11-25T21:40:00.000Z","message":{"role":"user","content":"half a li'
    fs.appendFileSync(file, torn)
    const before = transcriptLineHashes(state)
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(3)
    expect(ids(doc)).toEqual(['transcript-torn-line'])
    const fixed = await doctor(state, ['--fix'])
    expect(fixed.r.code).toBe(0)
    expect(fixed.doc.fixed).toBe(1)
    const baks = fs.readdirSync(sessionsDir(state)).filter((n) => n.startsWith(`${MAIN_ID}.jsonl.bak.`))
    expect(baks).toHaveLength(1)
    expect(baks[0]).toMatch(/\.jsonl\.bak\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z$/)
    expect(fs.readFileSync(path.join(sessionsDir(state), baks[0]), 'utf8')).toBe(torn)
    expect(fs.readFileSync(file).equals(original)).toBe(true)
    expect(fixed.doc.findings[0].backup).toBe(path.join(sessionsDir(state), baks[0]))
    expect(expectNoLineLost(before, state)).toEqual([])
    expect((await doctor(state)).doc.findings).toEqual([])
  })

  it('a valid last line without a final newline: transcript-no-final-newline, --fix appends "\\n" only', async () => {
    const state = healthy(TWO_AGENTS)
    const file = transcriptOf(state, 'work', WORK_ID)
    const text = fs.readFileSync(file, 'utf8')
    fs.writeFileSync(file, text.slice(0, -1))
    const {doc} = await doctor(state)
    expect(ids(doc)).toEqual(['transcript-no-final-newline'])
    await doctor(state, ['--fix'])
    expect(fs.readFileSync(file, 'utf8')).toBe(text)
  })

  it('unparseable lines in the middle: --fix backs up the whole file and keeps every parseable line verbatim', async () => {
    const state = healthy(TWO_AGENTS)
    const file = transcriptOf(state, 'main', MAIN_ID)
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    const damaged = [...lines.slice(0, 5), 'this is not json', '{"broken":', ...lines.slice(5)].join('\n')
    fs.writeFileSync(file, damaged)
    const before = transcriptLineHashes(state)
    const {doc} = await doctor(state)
    expect(ids(doc)).toEqual(['transcript-bad-lines'])
    expect(doc.findings[0]!.details!.lines).toEqual([6, 7])
    const fixed = await doctor(state, ['--fix'])
    expect(fixed.r.code).toBe(0)
    expect(fs.readFileSync(file, 'utf8')).toBe(lines.join('\n'))
    const bak = fs.readdirSync(sessionsDir(state)).find((n) => n.startsWith(`${MAIN_ID}.jsonl.bak.`))!
    expect(fs.readFileSync(path.join(sessionsDir(state), bak), 'utf8')).toBe(damaged)
    expect(expectNoLineLost(before, state)).toEqual([])
  })

  it('a missing header: transcript-bad-header (error), --fix writes a header with the entry\'s sessionId above the kept lines', async () => {
    const state = healthy(TWO_AGENTS)
    const file = transcriptOf(state, 'work', WORK_ID)
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    fs.writeFileSync(file, lines.slice(1).join('\n'))
    const before = transcriptLineHashes(state)
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(4)
    expect(ids(doc)).toEqual(['transcript-bad-header'])
    await doctor(state, ['--fix'])
    const after = fs.readFileSync(file, 'utf8').split('\n')
    const header = JSON.parse(after[0])
    expect(header).toMatchObject({type: 'session', version: 3, id: WORK_ID})
    expect(after.slice(1).join('\n')).toBe(lines.slice(1).join('\n'))
    expect(expectNoLineLost(before, state)).toEqual([])
    expect((await doctor(state)).doc.findings).toEqual([])
  })

  it('a header id that differs from the entry is transcript-header-mismatch (not fixable)', async () => {
    const state = healthy(TWO_AGENTS)
    const file = transcriptOf(state, 'work', WORK_ID)
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(WORK_ID, '11111111-2222-4333-8444-555555555555'))
    const {doc} = await doctor(state)
    expect(ids(doc)).toEqual(['transcript-header-mismatch'])
    expect(doc.findings[0]).toMatchObject({fixable: false, details: {headerId: '11111111-2222-4333-8444-555555555555', sessionId: WORK_ID}})
  })
})

describe('doctor: big transcripts and foreign paths', () => {
  it('a transcript over 2 MiB gets a header + tail read: a torn tail is found; a bad middle line only with --deep', async () => {
    const state = healthy(TWO_AGENTS)
    const file = transcriptOf(state, 'work', WORK_ID)
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n')
    const filler = JSON.stringify({type: 'custom', customType: 'filler', data: 'x'.repeat(1000), id: 'ffffffff', parentId: null, timestamp: '2026-11-25T21:33:24.300Z'})
    const big = [lines[0], ...lines.slice(1, 4), 'garbage in the middle', ...Array.from({length: 2500}, () => filler), ...lines.slice(4)].join('\n') + '\n'
    expect(Buffer.byteLength(big)).toBeGreaterThan(2 * 1024 * 1024)
    fs.writeFileSync(file, `${big}{"type":"mess`)
    const quick = await doctor(state)
    expect(ids(quick.doc)).toEqual(['transcript-torn-line'])
    const deep = await doctor(state, ['--deep'])
    expect(ids(deep.doc)).toEqual(['transcript-bad-lines', 'transcript-torn-line'])
    const before = transcriptLineHashes(state)
    await doctor(state, ['--deep', '--fix'])
    expect((await doctor(state, ['--deep'])).doc.findings).toEqual([])
    expect(expectNoLineLost(before, state)).toEqual([])
  })

  it('a sessionFile into another directory where the file exists, with no local copy, is session-file-foreign (error)', async () => {
    const state = healthy(TWO_AGENTS)
    const elsewhere = path.join(tempDir(), 'agents', 'work', 'sessions')
    fs.mkdirSync(elsewhere, {recursive: true})
    const foreign = path.join(elsewhere, `${WORK_ID}.jsonl`)
    fs.renameSync(transcriptOf(state, 'work', WORK_ID), foreign)
    const store = readIndexFile(sessionsJsonPath(state, 'work'))
    store['agent:work:main'].sessionFile = foreign
    fs.writeFileSync(sessionsJsonPath(state, 'work'), JSON.stringify(store, null, 2))
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(4)
    expect(ids(doc)).toEqual(['session-file-foreign'])
    expect(doc.findings[0]).toMatchObject({path: foreign, key: 'agent:work:main', fixable: false, details: {expected: transcriptOf(state, 'work', WORK_ID)}})
    // the advice works: copy it here, then --fix rewrites the path
    fs.copyFileSync(foreign, transcriptOf(state, 'work', WORK_ID))
    fs.chmodSync(transcriptOf(state, 'work', WORK_ID), 0o600)
    expect(ids((await doctor(state)).doc)).toEqual(['session-file-relocated'])
    await doctor(state, ['--fix'])
    expect((await doctor(state)).doc.findings).toEqual([])
  })
})

describe('doctor: orphans (never archive a transcript that holds messages)', () => {
  it('an unreferenced transcript with messages is re-indexed as agent:<id>:explicit:<sessionId> with figures from the file', async () => {
    const state = healthy(COMPACTION)
    const store = readIndexFile(sessionsJsonPath(state))
    const dropped = store[EXPLICIT_KEY]
    delete store[EXPLICIT_KEY]
    fs.writeFileSync(sessionsJsonPath(state), JSON.stringify(store, null, 2))
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(3)
    expect(ids(doc)).toEqual(['orphan-transcript'])
    // side files (trajectory, checkpoint) are never orphans
    expect(doc.findings[0].path).toBe(transcriptOf(state, 'main', EXPLICIT_ID))
    const fixed = await doctor(state, ['--fix'])
    expect(fixed.r.code).toBe(0)
    const entry = readIndexFile(sessionsJsonPath(state))[EXPLICIT_KEY]
    expect(entry).toMatchObject({
      sessionId: EXPLICIT_ID,
      sessionFile: transcriptOf(state, 'main', EXPLICIT_ID),
      model: dropped.model,
      modelProvider: dropped.modelProvider,
      inputTokens: dropped.inputTokens,
      outputTokens: dropped.outputTokens,
      totalTokens: dropped.totalTokens,
      totalTokensFresh: true,
      contextTokens: 48_000,
    })
    const lastLine = fs.readFileSync(transcriptOf(state, 'main', EXPLICIT_ID), 'utf8').trim().split('\n').at(-1)!
    expect(entry.updatedAt).toBe(Date.parse(JSON.parse(lastLine).timestamp))
    expect(fs.readdirSync(sessionsDir(state)).filter((n) => /^sessions\.json\.bak\.\d+$/.test(n))).toHaveLength(1)
    const list = json(await runCli(['sessions', 'list', '--json', '--state-dir', state], {env: baseEnv(tempDir())}))
    expect(list.sessions.map((s) => s.key)).toContain(EXPLICIT_KEY)
    expect((await doctor(state)).doc.findings).toEqual([])
  })

  it('a missing transcript whose file exists under another name (same header id) is re-attached, not duplicated', async () => {
    const state = healthy(COMPACTION)
    const renamed = path.join(sessionsDir(state), 'renamed-by-hand.jsonl')
    fs.renameSync(transcriptOf(state, 'main', EXPLICIT_ID), renamed)
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(4)
    expect(ids(doc)).toEqual(['transcript-missing'])
    expect(doc.findings[0]).toMatchObject({key: EXPLICIT_KEY, fixable: true, action: `set sessionFile to ${renamed}`})
    const fixed = await doctor(state, ['--fix'])
    expect(fixed.r.code).toBe(0)
    const store = readIndexFile(sessionsJsonPath(state))
    expect(store[EXPLICIT_KEY].sessionFile).toBe(renamed)
    expect(Object.keys(store)).toHaveLength(2)
    expect((await doctor(state)).doc.findings).toEqual([])
  })

  it('an orphan whose header id another entry already carries is not re-attached (no second row with that session id)', async () => {
    const state = healthy(COMPACTION)
    // A copy of an indexed transcript under another name: its header id belongs to the explicit entry, whose own file
    // is still in place.
    const copy = path.join(sessionsDir(state), 'copied-by-hand.jsonl')
    fs.copyFileSync(transcriptOf(state, 'main', EXPLICIT_ID), copy)
    const before = readIndexFile(sessionsJsonPath(state))
    const fixed = await doctor(state, ['--fix', '--yes'])
    const orphan = fixed.doc.findings.find((f) => f.id === 'orphan-transcript')
    expect(orphan).toMatchObject({path: copy, fixable: false, fixed: false})
    expect(orphan!.message).toContain(`belongs to entry "${EXPLICIT_KEY}"`)
    expect(readIndexFile(sessionsJsonPath(state))).toEqual(before)
    expect(ids(fixed.doc)).not.toContain('duplicate-session-id')
  })

  it('empty and header-only orphans are archived as *.deleted.<ts>, not deleted', async () => {
    const state = healthy(TWO_AGENTS)
    const dir = sessionsDir(state)
    const header = '{"type":"session","version":3,"id":"aaaaaaaa-0000-4000-8000-000000000001","timestamp":"2026-11-25T21:00:00.000Z","cwd":"/tmp"}\n'
    fs.writeFileSync(path.join(dir, 'aaaaaaaa-0000-4000-8000-000000000001.jsonl'), header, {mode: 0o600})
    fs.writeFileSync(path.join(dir, 'bbbbbbbb-0000-4000-8000-000000000002.jsonl'), '', {mode: 0o600})
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(0) // info only
    expect(ids(doc)).toEqual(['orphan-transcript-empty', 'orphan-transcript-empty'])
    expect(doc.findings.every((f: any) => f.severity === 'info' && f.fixable)).toBe(true)
    await doctor(state, ['--fix'])
    const names = fs.readdirSync(dir)
    expect(names.filter((n) => n.endsWith('.jsonl') && !n.includes('trajectory'))).toEqual([`${MAIN_ID}.jsonl`])
    const archived = names.find((n) => n.startsWith('aaaaaaaa-0000-4000-8000-000000000001.jsonl.deleted.'))!
    expect(fs.readFileSync(path.join(dir, archived), 'utf8')).toBe(header)
    expect(names.some((n) => n.startsWith('bbbbbbbb-0000-4000-8000-000000000002.jsonl.deleted.'))).toBe(true)
    expect((await doctor(state)).doc.findings).toEqual([])
  })

  it('a missing sessions.json with transcripts on disk (index rebuilt empty, #66522) re-indexes them all', async () => {
    const state = healthy(TWO_AGENTS)
    fs.writeFileSync(sessionsJsonPath(state, 'work'), '{}')
    fs.rmSync(sessionsJsonPath(state, 'main'))
    const before = transcriptLineHashes(state)
    const {doc} = await doctor(state)
    expect(ids(doc)).toEqual(['orphan-transcript', 'orphan-transcript'])
    const fixed = await doctor(state, ['--fix'])
    expect(fixed.r.code).toBe(0)
    expect(Object.keys(readIndexFile(sessionsJsonPath(state, 'main')))).toEqual([`agent:main:explicit:${MAIN_ID}`])
    expect(Object.keys(readIndexFile(sessionsJsonPath(state, 'work')))).toEqual([`agent:work:explicit:${WORK_ID}`])
    expect(fs.statSync(sessionsJsonPath(state, 'main')).mode & 0o777).toBe(0o600)
    expect(expectNoLineLost(before, state)).toEqual([])
  })
})
