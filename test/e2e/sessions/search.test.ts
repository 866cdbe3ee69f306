// `sessions search` through the real CLI on a generated JSON-era state dir. The expected hits are computed here from
// the raw bytes of every transcript and archive (split on newlines, JSON.parse, the documented rules of what is
// searched), independently of clawkit's store and prefilter.
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import type {SessionsSearchResult} from '../../../src/commands/sessions/search.js'
import {baseEnv, BIN, json, jsonError, runCli, tempDir} from '../../support/cli.js'
import {holds, searchedTexts} from '../../support/search.js'
import {SQLITE_OK} from '../../support/sqlite.js'

const hasScript = spawnSync('script', ['--version']).status === 0

const A1 = 'aaaaaaaa-0000-4000-8000-000000000001'
const A2 = 'aaaaaaaa-0000-4000-8000-000000000002'
const B1 = 'bbbbbbbb-0000-4000-8000-000000000001'
const C1 = 'cccccccc-0000-4000-8000-000000000001'
const W1 = 'dddddddd-0000-4000-8000-000000000001'

let n = 0
const header = (id: string, ts: string) => ({type: 'session', version: 3, id, timestamp: ts, cwd: '/w'})
const msg = (ts: string, message: Record<string, unknown>) => ({type: 'message', id: `e${(++n).toString(16).padStart(7, '0')}`, parentId: null, timestamp: ts, message})
const user = (ts: string, content: unknown) => msg(ts, {role: 'user', content, timestamp: Date.parse(ts)})
const assistant = (ts: string, content: unknown[]) => msg(ts, {role: 'assistant', content, provider: 'p', model: 'm', usage: {input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2}})
const lines = (...xs: (object | Buffer | string)[]) => Buffer.concat(xs.map((x) => (Buffer.isBuffer(x) ? x : Buffer.from(typeof x === 'string' ? x : `${JSON.stringify(x)}\n`))))

/**
 * main: agent:main:main (live A2, and A1 archived by a reset, tied by OpenClaw's trajectory sidecar), a telegram key
 * (B1), a deleted archive no key claims (C1); work: agent:work:main (W1). Every "zebra" below is a hit or is placed
 * where search must not look (thinking, custom entries, JSON keys, ids).
 */
function corpus(): string {
  const state = path.join(tempDir(), 'state')
  const main = path.join(state, 'agents', 'main', 'sessions')
  const work = path.join(state, 'agents', 'work', 'sessions')
  fs.mkdirSync(main, {recursive: true})
  fs.mkdirSync(work, {recursive: true})
  const write = (dir: string, name: string, data: Buffer) => fs.writeFileSync(path.join(dir, name), data)
  fs.writeFileSync(
    path.join(main, 'sessions.json'),
    JSON.stringify({
      'agent:main:main': {sessionId: A2, updatedAt: Date.parse('2026-11-22T12:00:00Z'), sessionStartedAt: Date.parse('2026-11-22T09:00:00Z')},
      'agent:main:telegram:direct:42': {sessionId: B1, updatedAt: Date.parse('2026-11-21T12:00:00Z')},
    }),
  )
  fs.writeFileSync(path.join(work, 'sessions.json'), JSON.stringify({'agent:work:main': {sessionId: W1, updatedAt: Date.parse('2026-11-23T12:00:00Z')}}))
  write(
    main,
    `${A2}.jsonl`,
    lines(
      header(A2, '2026-11-22T09:00:00.000Z'),
      user('2026-11-22T10:00:00.000Z', 'Where is the Zebra crossing?'),
      assistant('2026-11-22T10:00:01.000Z', [
        {type: 'thinking', thinking: 'the user wants zebra info'},
        {type: 'text', text: 'The zebra crossing is on Main St.'},
        {type: 'toolCall', id: 'call1', name: 'exec', arguments: {command: 'grep -r zebra /srv', opts: {deep: ['ZEBRA-list'], n: 3}}},
      ]),
      msg('2026-11-22T10:00:02.000Z', {role: 'toolResult', toolCallId: 'call1', toolName: 'exec', content: [{type: 'text', text: 'found zebra.txt'}], isError: false}),
      {type: 'compaction', id: 'c0000001', parentId: null, timestamp: '2026-11-22T10:00:03.000Z', summary: 'Talked about zebras and lions', firstKeptEntryId: 'x', tokensBefore: 10},
      {type: 'branch_summary', id: 'b0000001', parentId: null, timestamp: '2026-11-22T10:00:04.000Z', fromId: 'x', summary: 'A branch about zebra stripes'},
      // Invalid UTF-8 bytes (0xff 0xfe) inside the text: the line still parses (as U+FFFD) and its hit is found.
      Buffer.concat([Buffer.from(`{"type":"message","id":"e1000001","parentId":null,"timestamp":"2026-11-22T10:00:05.000Z","message":{"role":"user","content":"bad `), Buffer.from([0xff, 0xfe]), Buffer.from(' bytes then zebra"}}\n')]),
      assistant('2026-11-22T10:00:06.000Z', [{type: 'text', text: 'say "zebra" now'}]),
      // Written by an ASCII-only JSON writer: the e-acute is an escape in the stored bytes.
      '{"type":"message","id":"e1000002","parentId":null,"timestamp":"2026-11-22T10:00:07.000Z","message":{"role":"user","content":"Caf\\u00e9 Zebra"}}\n',
      {type: 'custom', customType: 'note', id: 'k0000001', parentId: null, timestamp: '2026-11-22T10:00:08.000Z', data: {text: 'zebra in custom data is not searched'}},
      // A torn last line (no newline, cut in the middle of the JSON) that holds the pattern.
      '{"type":"message","id":"e1000003","parentId":null,"timestamp":"2026-11-22T10:00:09.000Z","message":{"role":"user","content":"torn zebra',
    ),
  )
  write(main, `${A1}.jsonl.reset.2026-11-22T08-59-59.000Z`, lines(header(A1, '2026-11-10T09:00:00.000Z'), user('2026-11-10T10:00:00.000Z', [{type: 'text', text: 'archived zebra talk'}]), assistant('2026-11-10T10:00:01.000Z', [{type: 'text', text: 'nothing here'}])))
  write(main, `${A1}.trajectory.jsonl`, lines({traceSchema: 'openclaw-trajectory', type: 'session.started', sessionId: A1, sessionKey: 'agent:main:main'}))
  write(main, `${B1}.jsonl`, lines(header(B1, '2026-11-21T09:00:00.000Z'), user('2026-11-21T10:00:00.000Z', 'no animals here, just a type of question'), assistant('2026-11-21T10:00:01.000Z', [{type: 'text', text: 'A ZEBRA answer'}])))
  write(main, `${C1}.jsonl.deleted.2026-11-06T00-00-00.000Z`, lines(header(C1, '2026-11-05T09:00:00.000Z'), assistant('2026-11-05T10:00:00.000Z', [{type: 'text', text: 'deleted zebra'}])))
  write(work, `${W1}.jsonl`, lines(header(W1, '2026-11-23T09:00:00.000Z'), user('2026-11-23T10:00:00.000Z', 'work zebra')))
  return state
}

interface Expected {
  file: string
  line: number
  role: string
  kind: string
}

/** Every hit of a (smart-case) literal, or of a regular expression, in the given transcripts, from their raw bytes. */
function expectedHits(files: string[], pattern: string | RegExp, opts: {role?: string} = {}): Expected[] {
  const out: Expected[] = []
  for (const file of files) {
    const raw = fs.readFileSync(file).toString('utf8').split('\n')
    raw.forEach((l, i) => {
      let e: any
      try {
        e = JSON.parse(l)
      } catch {
        return
      }
      for (const p of searchedTexts(e)) if ((typeof pattern === 'string' ? holds(p.text, pattern) : pattern.test(p.text)) && (!opts.role || p.role === opts.role)) out.push({file, line: i + 1, role: p.role, kind: p.kind})
    })
  }
  return out
}

const sortHits = (xs: Expected[]) => [...xs].sort((a, b) => `${a.file}:${a.line}:${a.kind}`.localeCompare(`${b.file}:${b.line}:${b.kind}`))
const asExpected = (r: SessionsSearchResult) => sortHits(r.hits.map((h) => ({file: h.transcript, line: h.line, role: h.role, kind: h.kind})))

function transcripts(state: string, agents = ['main', 'work']): string[] {
  return agents.flatMap((a) => {
    const dir = path.join(state, 'agents', a, 'sessions')
    return fs
      .readdirSync(dir)
      .filter((f) => /\.jsonl(\.(reset|deleted)\..*)?$/.test(f) && !f.includes('.trajectory.'))
      .map((f) => path.join(dir, f))
  })
}

async function search(state: string, ...args: string[]) {
  return runCli(['sessions', 'search', ...args], {env: baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state})})
}

async function searchJson(state: string, ...args: string[]): Promise<SessionsSearchResult> {
  const r = await search(state, ...args, '--json')
  expect(r.code, r.stderr).toBe(0)
  return json<SessionsSearchResult>(r)
}

describe('sessions search (JSON era)', () => {
  it('finds every hit and nothing else in live and archived transcripts of all agents: text, tool-call arguments, a tool result, compaction and branch summaries, a line with invalid UTF-8; thinking and custom entries are not searched', async () => {
    const state = corpus()
    const all = transcripts(state)
    const expected = sortHits(expectedHits(all, 'zebra'))
    expect(expected.map((h) => h.kind)).toEqual(expect.arrayContaining(['text', 'toolCall', 'toolResult', 'compaction', 'branchSummary']))
    const r = await searchJson(state, 'zebra', '--all-agents', '--include-archived', '--limit', 'all')
    expect(r.ignoreCase).toBe(true)
    // Where node:sqlite exists (Node 22.15+) the local catalog found them; on Node 20 a scan did. The same hits either way.
    expect(r.engine).toBe(SQLITE_OK ? 'catalog' : 'scan')
    expect(r.transcripts).toBe(5)
    expect(asExpected(r)).toEqual(expected)
    expect(r.count).toBe(expected.length)
    // The torn last line holds the pattern: it is counted, not searched.
    expect(r.badLines).toBe(1)
    // Newest first.
    const times = r.hits.map((h) => h.time!)
    expect(times).toEqual([...times].sort().reverse())
    // The deleted archive no key claims: key null; the reset archive: its key through the trajectory sidecar.
    expect(r.hits.find((h) => h.sessionId === C1)).toMatchObject({key: null, where: 'deleted-archive', agentId: 'main'})
    expect(r.hits.find((h) => h.sessionId === A1)).toMatchObject({key: 'agent:main:main', where: 'reset-archive'})
    const call = r.hits.find((h) => h.kind === 'toolCall')!
    expect(call).toMatchObject({role: 'tool', toolName: 'exec', entryId: expect.stringMatching(/^e/)})
    // The snippet marks each match; "grep -r zebra /srv" and "ZEBRA-list" are two matches in the arguments.
    expect(call.matchCount).toBe(2)
    for (const m of call.matches) expect(call.snippet.slice(m.start, m.end).toLowerCase()).toBe('zebra')
    const bad = r.hits.find((h) => h.snippet.includes('bytes then'))!
    expect(bad.snippet).toContain('\uFFFD')
    // The transcript location opens the line: it is the stored line of that entry.
    for (const h of r.hits) {
      const text = fs.readFileSync(h.transcript).toString('utf8').split('\n')[h.line - 1]
      if (h.entryId) expect(JSON.parse(text).id).toBe(h.entryId)
    }
  })

  it('without --include-archived only each key\'s current transcript is searched; --agent picks one agent', async () => {
    const state = corpus()
    const live = transcripts(state, ['main']).filter((f) => f.endsWith('.jsonl'))
    const r = await searchJson(state, 'zebra', '--limit', 'all')
    expect(r.includeArchived).toBe(false)
    expect(r.agents).toEqual(['main'])
    expect(asExpected(r)).toEqual(sortHits(expectedHits(live, 'zebra')))
    const w = await searchJson(state, 'zebra', '--agent', 'work')
    expect(w.hits.map((h) => h.snippet)).toEqual(['work zebra'])
  })

  it('smart case: a lower-case pattern ignores case, one with an upper-case letter does not', async () => {
    const state = corpus()
    const all = transcripts(state)
    const upper = await searchJson(state, 'ZEBRA', '--all-agents', '--include-archived', '--limit', 'all')
    expect(upper.ignoreCase).toBe(false)
    expect(asExpected(upper)).toEqual(sortHits(expectedHits(all, 'ZEBRA')))
    expect(upper.count).toBe(2)
    const lower = await searchJson(state, 'zebra', '--all-agents', '--include-archived', '--limit', 'all')
    expect(lower.count).toBeGreaterThan(upper.count)
  })

  it('"type" does not match the JSON keys every line has, only text that says it', async () => {
    const state = corpus()
    const all = transcripts(state)
    expect(all.every((f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).every((l) => l.includes('"type"')))).toBe(true)
    const r = await searchJson(state, 'type', '--all-agents', '--include-archived', '--limit', 'all')
    expect(asExpected(r)).toEqual(sortHits(expectedHits(all, 'type')))
    expect(r.hits.map((h) => h.snippet)).toEqual(['no animals here, just a type of question'])
  })

  it('patterns whose bytes differ in the stored line are still found: a quote stored as \\", a non-ASCII letter stored as \\u00e9', async () => {
    const state = corpus()
    const quoted = await searchJson(state, 'say "zebra"')
    expect(quoted.hits.map((h) => h.snippet)).toEqual(['say "zebra" now'])
    const escaped = await searchJson(state, 'Caf\u00e9 Z')
    expect(escaped.hits.map((h) => h.snippet)).toEqual(['Caf\u00e9 Zebra'])
    // Case-insensitive with a non-ASCII letter (its other case is other bytes): the ASCII run before it is the needle.
    const folded = await searchJson(state, 'caf\u00e9 zebra')
    expect(folded.ignoreCase).toBe(true)
    expect(folded.hits.map((h) => h.snippet)).toEqual(['Caf\u00e9 Zebra'])
  })

  it('--regex: a regular expression (RE2 syntax) with smart case; an invalid one is a usage error (exit 2, one line, JSON envelope)', async () => {
    const state = corpus()
    const r = await searchJson(state, 'zebra\\.txt|ZEBRA-\\w+', '--regex')
    expect(r.regex).toBe(true)
    expect(r.ignoreCase).toBe(false)
    expect(r.hits.map((h) => h.kind).sort()).toEqual(['toolCall', 'toolResult'])
    const bad = await search(state, 'zebra(', '--regex')
    expect(bad.code).toBe(2)
    expect(bad.stdout).toBe('')
    expect(bad.stderr).toMatch(/^Error: --regex "zebra\(" is not a valid regular expression \(RE2 syntax\): missing closing \): `zebra\(`\n {2}hint: /)
    expect(bad.stderr.trim().split('\n')).toHaveLength(2)
    const env = await search(state, 'zebra(', '--regex', '--json')
    expect(env.code).toBe(2)
    expect(jsonError(env).code).toBe('E_BAD_REGEX')
  })

  it('a literal of 60 000 characters is found, case-insensitive too, with the same case rules as a short one; a --regex over the length limit is a usage error', async () => {
    const long = Array.from({length: 14_000}, (_, i) => `w${i % 97}\u00e9x`).join(' ')
    const state = path.join(tempDir(), 'state')
    const dir = path.join(state, 'agents', 'main', 'sessions')
    fs.mkdirSync(dir, {recursive: true})
    fs.writeFileSync(path.join(dir, `${A1}.jsonl`), lines(header(A1, '2026-11-01T00:00:00.000Z'), user('2026-11-01T00:00:01.000Z', `Before ${long.toUpperCase()} After`)))
    fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify({'agent:main:main': {sessionId: A1, updatedAt: 1}}))
    const pattern = long.slice(0, 60_000)
    for (const [p, count] of [[pattern, 1], [pattern.toUpperCase(), 1], [`${pattern.slice(0, 59_990).toUpperCase()}w`, 0], [`${pattern.slice(0, 30_000)}!`, 0]] as const) {
      const r = await searchJson(state, p)
      expect(r.count, p.slice(-12)).toBe(count)
    }
    const re = await search(state, pattern.slice(0, 4097), '--regex', '--json')
    expect(re.code).toBe(2)
    expect(jsonError(re)).toMatchObject({code: 'E_BAD_REGEX'})
    expect(jsonError(re).message).toContain('4097 characters')
  })

  it('--regex matches in linear time (RE2): (a+)+$ on 34 a\'s and a "!", and ^(\\w+\\s?)+$ on a 23-word sentence ending in "!", answer at once instead of backtracking for hours', async () => {
    const state = path.join(tempDir(), 'state')
    const dir = path.join(state, 'agents', 'main', 'sessions')
    fs.mkdirSync(dir, {recursive: true})
    const sentence = 'the quick brown fox jumps over the lazy dog while the cat sleeps on a warm mat by the fire in the hall!'
    fs.writeFileSync(path.join(dir, `${A1}.jsonl`), lines(header(A1, '2026-11-01T00:00:00.000Z'), user('2026-11-01T00:00:01.000Z', `${'a'.repeat(34)}!`), user('2026-11-01T00:00:02.000Z', sentence), user('2026-11-01T00:00:03.000Z', 'aaa')))
    fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify({'agent:main:main': {sessionId: A1, updatedAt: 1}}))
    expect(sentence.split(' ')).toHaveLength(23)
    // A child that backtracks is killed after 20 s: the search must be done long before.
    for (const [pattern, count] of [['(a+)+$', 1], ['^(\\w+\\s?)+$', 1], ['^(\\w+\\s?)+!$', 2]] as const) {
      const r = await runCli(['sessions', 'search', pattern, '--regex', '--json', '--state-dir', state], {env: baseEnv(tempDir()), timeoutMs: 20_000})
      expect(r.code, `${pattern}: ${r.stderr}`).toBe(0)
      expect(json<SessionsSearchResult>(r).count, pattern).toBe(count)
    }
  })

  it('--regex takes RE2 syntax, as ripgrep: (?i), \\pL, [[:alpha:]], \\Q...\\E, \\x{..}; lookarounds and backreferences are refused as a usage error naming RE2', async () => {
    const state = corpus()
    const count = async (...args: string[]) => (await searchJson(state, ...args, '--all-agents', '--include-archived', '--limit', 'all')).count
    const zebra = await count('ZEBRA', '--regex')
    expect(zebra).toBeGreaterThan(0)
    expect(await count('(?i)zebra', '--regex')).toBe(await count('zebra'))
    expect(await count('Z\\pLBRA', '--regex')).toBe(zebra)
    expect(await count('Z[[:upper:]]BRA', '--regex')).toBe(zebra)
    expect(await count('\\QZEBRA\\E', '--regex')).toBe(zebra)
    expect(await count('\\x{5A}EBRA', '--regex')).toBe(zebra)
    for (const bad of ['zebra(?=x)', '(z)\\1', '(?<!a)zebra']) {
      const r = await search(state, bad, '--regex', '--json')
      expect(r.code, bad).toBe(2)
      expect(jsonError(r)).toMatchObject({code: 'E_BAD_REGEX'})
      expect(jsonError(r).message, bad).toMatch(/is not a valid regular expression \(RE2 syntax\)/)
    }
  })

  it('--regex with a literal every match holds (read from the raw bytes first, then parsed) finds exactly what a scan of every line finds', async () => {
    const state = corpus()
    const all = transcripts(state)
    for (const [pattern, re] of [
      ['ze?bra\\b', /ze?bra\b/iu],
      ['Zebra\\W', /Zebra\W/u],
      ['z[e]bra-\\w+', /z[e]bra-\w+/iu],
    ] as const) {
      const expected = sortHits(expectedHits(all, re))
      expect(expected.length, pattern).toBeGreaterThan(0)
      const r = await searchJson(state, pattern, '--regex', '--all-agents', '--include-archived', '--limit', 'all')
      expect(asExpected(r), pattern).toEqual(expected)
    }
  })

  it('--role, --key, --since/--until (a bare --until date is the whole day) and --limit narrow the hits', async () => {
    const state = corpus()
    const all = transcripts(state)
    const tool = await searchJson(state, 'zebra', '--role', 'tool', '--all-agents', '--include-archived', '--limit', 'all')
    expect(asExpected(tool)).toEqual(sortHits(expectedHits(all, 'zebra', {role: 'tool'})))
    expect(tool.hits).toHaveLength(2)
    const summary = await searchJson(state, 'zebra', '--role', 'summary')
    expect(summary.hits.map((h) => h.kind).sort()).toEqual(['branchSummary', 'compaction'])
    const key = await searchJson(state, 'zebra', '--key', 'agent:main:telegram:direct:42', '--include-archived')
    expect(key.hits.map((h) => h.snippet)).toEqual(['A ZEBRA answer'])
    const archived = await searchJson(state, 'zebra', '--key', 'AGENT:MAIN:MAIN', '--include-archived', '--limit', 'all')
    expect(new Set(archived.hits.map((h) => h.sessionId))).toEqual(new Set([A1, A2]))
    const day = await searchJson(state, 'zebra', '--since', '2026-11-10', '--until', '2026-11-10', '--include-archived')
    expect(day.hits.map((h) => h.snippet)).toEqual(['archived zebra talk'])
    expect(day.until).toBe('2026-11-10T23:59:59.999Z')
    const late = await searchJson(state, 'zebra', '--since', '2026-11-22T10:00:05Z', '--include-archived', '--limit', 'all')
    expect(late.hits.every((h) => h.time! >= '2026-11-22T10:00:05.000Z')).toBe(true)
    expect(late.hits).toHaveLength(3)
    const two = await searchJson(state, 'zebra', '--all-agents', '--include-archived', '--limit', '2')
    expect(two.hits).toHaveLength(2)
    expect(two.count).toBe(expectedHits(all, 'zebra').length)
    expect(two.hits[0].snippet).toBe('work zebra')
    const badLimit = await search(state, 'zebra', '--limit', '0')
    expect(badLimit.code).toBe(2)
    expect(badLimit.stderr).toMatch(/^Error: --limit "0" must be a positive whole number or "all"/)
  })

  it('no hit is exit 0 with an empty list (not ripgrep\'s exit 1); the human output says so', async () => {
    const state = corpus()
    const r = await searchJson(state, 'giraffe')
    expect(r.count).toBe(0)
    expect(r.hits).toEqual([])
    const text = await search(state, 'giraffe')
    expect(text.code).toBe(0)
    expect(text.stdout).toBe('No match for "giraffe" in 2 transcripts (main).\n')
  })

  it('human output: one head line and the snippet per hit, no colour when piped; the match highlighted on a terminal', async () => {
    const state = corpus()
    const r = await search(state, 'crossing')
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toContain('\u001B[')
    expect(r.stdout).toMatch(/ main\/agent:main:main {2}assistant {2}aaaaaaaa-0000-4000-8000-000000000002 {2}line 3\n {2}The zebra crossing is on Main St\.\n/)
    expect(r.stdout).toMatch(/2 hits in 2 transcripts \(main\)\.\n$/)
    if (!hasScript) return
    const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state, NO_COLOR: undefined})
    const tty = spawnSync('script', ['-qec', `"${process.execPath}" "${BIN}" sessions search crossing`, '/dev/null'], {env, encoding: 'utf8', timeout: 30_000})
    expect(tty.status, tty.stderr).toBe(0)
    expect(tty.stdout).toContain('The zebra \u001B[33mcrossing\u001B[39m is on Main St.')
  })

  it('snippets cut from a longer text start and end on a word and say so with "…"; --json keeps the window as it was', async () => {
    const state = path.join(tempDir(), 'state')
    const dir = path.join(state, 'agents', 'main', 'sessions')
    fs.mkdirSync(dir, {recursive: true})
    const id = 'eeeeeeee-0000-4000-8000-000000000001'
    fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify({'agent:main:main': {sessionId: id, updatedAt: Date.parse('2026-11-22T12:00:00Z')}}))
    // The window is 50 characters before the first match and 110 after it: both edges fall inside a word here.
    const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa quebec'
    const long = `${words} certificate ${words} ${words}`
    const url = `see https://example.com/${'x'.repeat(80)}/okapi/${'y'.repeat(120)}`
    fs.writeFileSync(
      path.join(dir, `${id}.jsonl`),
      lines(header(id, '2026-11-22T09:00:00.000Z'), user('2026-11-22T10:00:00.000Z', long), user('2026-11-22T10:01:00.000Z', 'a short certificate'), user('2026-11-22T10:02:00.000Z', url)),
    )
    const doc = await searchJson(state, 'certificate')
    const at = long.indexOf('certificate')
    // --json: the snippet is the window of the text, as before (mid-word at both ends, no marks).
    expect(doc.hits.find((h) => h.snippet !== 'a short certificate')!.snippet).toBe(long.slice(at - 50, at + 110))
    const r = await search(state, 'certificate')
    expect(r.code, r.stderr).toBe(0)
    const shown = r.stdout.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.slice(2))
    expect(shown).toContain('a short certificate')
    const cut = shown.find((l) => l !== 'a short certificate')!
    expect(cut).toMatch(/^….*certificate.*…$/)
    // Whole words of the text at both ends: the window's cut words are left out.
    const inner = cut.slice(1, -1)
    expect(long).toContain(inner)
    const before = long.slice(0, long.indexOf(inner))
    const after = long.slice(long.indexOf(inner) + inner.length)
    expect(before.endsWith(' '), cut).toBe(true)
    expect(after.startsWith(' '), cut).toBe(true)
    // A word longer than the slack (a URL) is cut where the window cuts it, and still marked.
    const u = await search(state, 'okapi')
    const urlLine = u.stdout.split('\n').find((l) => l.includes('okapi'))!.slice(2)
    expect(urlLine).toMatch(/^…x+\/okapi\/y+…$/)
  })
})
