// Property-based hostile input through the real CLI: broken sessions.json, transcripts and openclaw.json must end in a
// correct result or one clear `Error:` line (exit 1/2), never a stack trace, and read commands must modify nothing.
// npm test runs a smoke count of cases; `npm run test:deep` (CI) the bounded run, 30 a property; `npm run test:fuzz` many
// more (CLAWKIT_FUZZ_RUNS, CLAWKIT_SEED). One seed: a smaller count runs the first cases of a larger one.
import fs from 'node:fs'
import path from 'node:path'

import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {FIXTURES, json, runCli, TWO_AGENTS} from '../support/cli.js'
import {addUsage, emptySums} from '../support/usage-sums.js'
import {type FakeChannels, startFakeChannels} from '../support/fake-channels.js'
import {type MockAnthropic, startMockAnthropic} from '../support/mock-anthropic.js'
import {configArb, deepJsonArb, type ProtoRow, protoRowsArb, sessionsJsonArb, specialFileArb, transcriptArb, withProtoRows} from './support/arbitraries.js'
import {writeResults} from './support/crash.js'
import {type HostileCommand, HOSTILE_COMMANDS, HOSTILE_READ_FILE, locksLeft, makeSandbox, plantDeep, plantSpecial, runHostile} from './support/hostile.js'
import {intFromEnv, seedFromEnv} from './support/prng.js'

/** CLI runs per property; five properties, so a run spawns about 5x this many processes (fewer for the last two). */
const RUNS = intFromEnv('CLAWKIT_FUZZ_RUNS', 12)
/** Special files and deep nesting: each case is cheap to judge but the product of positions and kinds is covered by test/reliability/special-files.test.ts for FIFOs; a small default keeps npm test fast. */
const SPECIAL_RUNS = intFromEnv('CLAWKIT_FUZZ_RUNS', 6)
const SEED = seedFromEnv(20_261_125)

const MAIN_INDEX = path.join(FIXTURES, TWO_AGENTS, 'agents', 'main', 'sessions', 'sessions.json')
const MAIN_ID = JSON.parse(fs.readFileSync(MAIN_INDEX, 'utf8'))['agent:main:main'].sessionId as string
const MAIN_TRANSCRIPT = path.join(FIXTURES, TWO_AGENTS, 'agents', 'main', 'sessions', `${MAIN_ID}.jsonl`)
const CONFIG = path.join(FIXTURES, TWO_AGENTS, 'openclaw.json')

const figures: Record<string, {cases: number; failures: number; exitCodes: Record<string, number>; kinds: Record<string, number>}> = {}
const failures: unknown[] = []

const commandArb = fc.constantFrom(...HOSTILE_COMMANDS)

// The agent and message rows reach these real servers on 127.0.0.1 (their URLs go to the CLI through the env).
let mock: MockAnthropic
let fake: FakeChannels
beforeAll(async () => {
  // Every agent turn first asks to read the workspace file, so that a special file planted there reaches the read tool.
  mock = await startMockAnthropic({
    fallback: (body: any) => {
      const last = body.messages.at(-1)
      const afterTool = Array.isArray(last?.content) && last.content.some((b: any) => b.type === 'tool_result')
      return afterTool ? {kind: 'text', text: 'done'} : {kind: 'toolUse', calls: [{name: 'read', input: {path: HOSTILE_READ_FILE}}]}
    },
  })
  fake = await startFakeChannels()
  process.env.CLAWKIT_HOSTILE_ANTHROPIC_URL = mock.url
  process.env.CLAWKIT_HOSTILE_WEBHOOK_URL = fake.webhookUrl
})
afterAll(async () => {
  await mock?.close()
  await fake?.close()
})

async function check(target: string, kind: string, write: (sb: ReturnType<typeof makeSandbox>) => string | void, cmd: (typeof HOSTILE_COMMANDS)[number], opts: {timeoutMs?: number} = {}): Promise<boolean> {
  const sb = makeSandbox()
  const planted = write(sb)
  const {result, problems} = await runHostile(cmd, sb, opts)
  // Whatever happened, the command's own locks are gone when it has ended (a planted lock-named file stays).
  const left = locksLeft(sb, planted || undefined)
  if (left.length > 0) problems.push(`locks left behind: ${left.join(', ')}`)
  const f = (figures[target] ??= {cases: 0, failures: 0, exitCodes: {}, kinds: {}})
  f.cases++
  f.exitCodes[String(result.code)] = (f.exitCodes[String(result.code)] ?? 0) + 1
  f.kinds[kind] = (f.kinds[kind] ?? 0) + 1
  if (problems.length > 0) {
    f.failures++
    failures.push({target, kind, command: cmd.name, problems, stderr: result.stderr.slice(0, 500), sandbox: sb.root})
    return false
  }
  fs.rmSync(sb.root, {recursive: true, force: true})
  return true
}

const params = (offset: number, numRuns = RUNS) => ({numRuns, seed: SEED + offset, endOnFailure: true})

describe('hostile and broken input through the CLI (fast-check)', () => {
  afterAll(() => {
    const file = writeResults(RUNS >= 200 ? 'fuzz-full' : 'fuzz', {seed: SEED, runsPerProperty: RUNS, figures, failures})
    process.stderr.write(`hostile input: ${JSON.stringify({seed: SEED, figures})}\n(details: ${file})\n`)
  })

  it('sessions.json: arbitrary bytes, near-valid JSON, hostile keys, wrongly typed and path-like fields', async () => {
    const fixture = fs.readFileSync(MAIN_INDEX, 'utf8')
    await fc.assert(
      fc.asyncProperty(sessionsJsonArb(fixture), commandArb, (input, cmd) =>
        check('sessions.json', input.kind, (sb) => fs.writeFileSync(path.join(sb.stateDir, 'agents', 'main', 'sessions', 'sessions.json'), input.bytes), cmd),
      ),
      params(0),
    )
    expect(failures.filter((f) => (f as {target: string}).target === 'sessions.json')).toEqual([])
  }, 30 * 60_000)

  it('transcripts: bad headers, wrong versions, huge lines, invalid UTF-8, missing fields, wrong types, CRLF, torn tails', async () => {
    await fc.assert(
      fc.asyncProperty(transcriptArb(MAIN_ID, fs.readFileSync(MAIN_TRANSCRIPT)), commandArb, (input, cmd) =>
        check('transcript', input.kind, (sb) => fs.writeFileSync(path.join(sb.stateDir, 'agents', 'main', 'sessions', `${MAIN_ID}.jsonl`), input.bytes), cmd),
      ),
      params(1),
    )
    expect(failures.filter((f) => (f as {target: string}).target === 'transcript')).toEqual([])
  }, 30 * 60_000)

  it('named edge cases: a toolCall without arguments, escape sequences in text, keys and ids (history and list render them inert)', async () => {
    const esc = 'hi \u001b]0;pwned\u0007 \u001b[31mred\u001b[0m'
    const lines = [
      {type: 'message', id: 'abcdabcd', parentId: null, timestamp: '2026-01-01T00:00:00.000Z', message: {role: 'assistant', content: [{type: 'toolCall', id: 't1', name: 'x\u001b[2J'}, {type: 'text', text: esc}]}},
      {type: 'message', id: 'bcdebcde', parentId: 'abcdabcd', timestamp: '2026-01-01T00:00:01.000Z', message: {role: 'toolResult', toolName: 'x\u0007', toolCallId: 't1', content: esc}},
    ]
    for (const name of ['sessions history', 'sessions list', 'sessions history --json']) {
      const cmd = HOSTILE_COMMANDS.find((c) => c.name === name)!
      const ok = await check('named', 'toolcall-no-arguments+escapes', (sb) => {
        const dir = path.join(sb.stateDir, 'agents', 'main', 'sessions')
        fs.appendFileSync(path.join(dir, `${MAIN_ID}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
        const index = JSON.parse(fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8'))
        index[`agent:main:evil\u001b[31m\u0007`] = {...index['agent:main:main'], model: 'm\u001b]0;x\u0007'}
        fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(index, null, 2))
      }, cmd)
      expect(ok, JSON.stringify(failures.at(-1))).toBe(true)
    }
  })

  it('named edge cases: bidi controls and zero-width characters in keys, models and text (every human command shows them as <U+XXXX>)', async () => {
    const hidden = 'pay \u202Eexe.txt \u2066alice\u2069\u200B\u200D\u2028\uFEFF'
    const lines = [
      {type: 'message', id: 'abcdabcd', parentId: null, timestamp: '2026-01-01T00:00:00.000Z', message: {role: 'user', content: [{type: 'text', text: hidden}]}},
      {type: 'message', id: 'bcdebcde', parentId: 'abcdabcd', timestamp: '2026-01-01T00:00:01.000Z', message: {role: 'toolResult', toolName: 'x\u202E', toolCallId: 't1', content: hidden}},
    ]
    for (const name of ['sessions history', 'sessions list', 'status', 'doctor']) {
      const cmd = HOSTILE_COMMANDS.find((c) => c.name === name)!
      const ok = await check('named', 'bidi+zero-width', (sb) => {
        const dir = path.join(sb.stateDir, 'agents', 'main', 'sessions')
        fs.appendFileSync(path.join(dir, `${MAIN_ID}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
        const index = JSON.parse(fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8'))
        index['agent:main:evil\u202Etxt.exe\u200B'] = {...index['agent:main:main'], model: 'm\u2066x\u2069', updatedAt: Date.now() + 1000}
        fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(index, null, 2))
      }, cmd)
      expect(ok, JSON.stringify(failures.at(-1))).toBe(true)
    }
  })

  // One test per config (each runs every command of the table): both in one test took 9.7 s of its 60 s on a busy machine.
  for (const broken of [false, true]) {
    it(`API keys and bot tokens in openclaw.json never reach stdout or stderr, with a ${broken ? 'broken' : 'valid'} config`, async () => {
      const key = 'sk-ant-api03-CANARYKEY-0123456789'
      const token = '123456789:CANARY-BOT-TOKEN'
      const good = JSON.stringify({models: {providers: {anthropic: {apiKey: key, api: 'anthropic-messages', models: [{id: 'claude-sonnet-4-5', name: 'S', contextWindow: 200000}]}}}, channels: {telegram: {botToken: token}}}, null, 2)
      // Broken right next to the secrets, where a parser quoting its context would leak them.
      const text = broken ? good.replace(`"${key}"`, `"${key}" x`).replace(`"${token}"`, `${token}`) : good
      for (const cmd of HOSTILE_COMMANDS) {
        const sb = makeSandbox()
        fs.writeFileSync(path.join(sb.stateDir, 'openclaw.json'), text)
        const {result, problems} = await runHostile(cmd, sb)
        expect(problems, cmd.name).toEqual([])
        expect(result.stdout + result.stderr, cmd.name).not.toMatch(/CANARYKEY|CANARY-BOT-TOKEN/)
      }
    })
  }

  it('prototype-named keys (__proto__, __Proto__, constructor, toString, ...) keep their rows through every writer', async () => {
    const fixture = fs.readFileSync(MAIN_INDEX, 'utf8')
    const agentEnv = () => ({ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url})
    // Every writer of the index: the hostile table's writers, doctor --fix, and reset/agent aimed at a prototype row.
    const writers = (rows: ProtoRow[], pick: number): HostileCommand[] => [
      ...HOSTILE_COMMANDS.filter((c) => !c.readOnly),
      {name: 'doctor --fix --yes --json', args: (sb) => ['doctor', '--fix', '--yes', '--json', '--state-dir', sb.stateDir], readOnly: false, json: true, successCodes: [0, 3, 4]},
      {name: 'sessions reset <prototype row>', args: (sb) => ['sessions', 'reset', rows[pick % rows.length].sessionId, '--json', '--state-dir', sb.stateDir], readOnly: false, json: true},
      {name: 'agent --session-id <prototype row>', args: (sb) => ['agent', '--session-id', rows[pick % rows.length].sessionId, '-m', 'proto', '--json', '--state-dir', sb.stateDir], readOnly: false, json: true, env: agentEnv},
    ]
    const cases = fc.tuple(protoRowsArb, fc.nat({max: 3}), fc.nat({max: 50}))
    await fc.assert(
      fc.asyncProperty(cases, async ([rows, pick, which]) => {
        const list = writers(rows, pick)
        const cmd = list[which % list.length]
        const sb = makeSandbox()
        const index = path.join(sb.stateDir, 'agents', 'main', 'sessions', 'sessions.json')
        fs.writeFileSync(index, withProtoRows(fixture, rows))
        const {result, problems} = await runHostile(cmd, sb)
        // JSON.parse makes every key an own property, so this sees each row; a writer may fold a spelling to lowercase.
        const after = JSON.parse(fs.readFileSync(index, 'utf8')) as Record<string, {label?: string}>
        for (const r of rows) {
          const kept = Object.keys(after).filter((k) => k.toLowerCase() === r.key.toLowerCase() && after[k]?.label === r.label)
          if (kept.length !== 1) problems.push(`row ${JSON.stringify(r.key)} (${r.label}) ${kept.length === 0 ? 'lost' : 'duplicated'} by ${cmd.name}`)
        }
        const f = (figures['prototype-keys'] ??= {cases: 0, failures: 0, exitCodes: {}, kinds: {}})
        f.cases++
        f.exitCodes[String(result.code)] = (f.exitCodes[String(result.code)] ?? 0) + 1
        f.kinds[cmd.name] = (f.kinds[cmd.name] ?? 0) + 1
        if (problems.length > 0) {
          f.failures++
          failures.push({target: 'prototype-keys', kind: cmd.name, command: cmd.name, rows, problems, stderr: result.stderr.slice(0, 500), sandbox: sb.root})
          return false
        }
        fs.rmSync(sb.root, {recursive: true, force: true})
        return true
      }),
      params(3),
    )
    expect(failures.filter((f) => (f as {target: string}).target === 'prototype-keys')).toEqual([])
  }, 30 * 60_000)

  it('special files (FIFO, directory, /dev/zero, /dev/null, symlinks to each) in every position a path can take: the command ends long before its timeout', async () => {
    await fc.assert(
      fc.asyncProperty(specialFileArb, commandArb, ({position, kind}, cmd) =>
        // 20 s: every command here ends in about a second; a hang is killed and counted.
        check('special file', `${kind} as ${position}`, (sb) => plantSpecial(sb, position, kind), cmd, {timeoutMs: 20_000}),
      ),
      params(5, SPECIAL_RUNS),
    )
    expect(failures.filter((f) => (f as {target: string}).target === 'special file')).toEqual([])
  }, 30 * 60_000)

  it('JSON nested thousands deep in a row, as the whole index, in a transcript line and in openclaw.json: a result or one clear error', async () => {
    await fc.assert(
      fc.asyncProperty(deepJsonArb, commandArb, ({position, depth, shape}, cmd) => check('deep json', `${shape} ${depth} deep in ${position}`, (sb) => plantDeep(sb, position, depth, shape), cmd)),
      params(6, SPECIAL_RUNS),
    )
    expect(failures.filter((f) => (f as {target: string}).target === 'deep json')).toEqual([])
  }, 30 * 60_000)

  it('openclaw.json: arbitrary bytes, near-valid JSON5, wrongly typed agents/session/models, hostile agent ids and store paths', async () => {
    const fixture = fs.readFileSync(CONFIG, 'utf8')
    await fc.assert(
      fc.asyncProperty(configArb(fixture), commandArb, (input, cmd) => check('openclaw.json', input.kind, (sb) => fs.writeFileSync(path.join(sb.stateDir, 'openclaw.json'), input.bytes), cmd)),
      params(2),
    )
    expect(failures.filter((f) => (f as {target: string}).target === 'openclaw.json')).toEqual([])
  }, 30 * 60_000)

  it('usage on hostile transcripts and hostile usage figures: every total a finite, non-negative number; badLines are the lines history finds unreadable; badValues the figures the documented rule rejects', async () => {
    // A figure as JSON text: plausible numbers, and what a corrupted or hand-edited line may hold.
    const figure = fc.constantFrom('0', '12', '1.5', '-5', '-0', '1e308', '1e999', '-1e999', '123456789012345678901234567890', '1000000000', '1000000001', '"12"', 'true', 'null', '[1]', '{}', '99999.5', '100001')
    // Its time: the entry's ISO string, or none and the message's number, which may be past Date's range.
    const time = fc.constantFrom('"timestamp":"2026-11-01T00:00:00.000Z",', '"timestamp":"not a date",', '', '').chain((entryTs) => fc.constantFrom('', '"timestamp":1e20,', '"timestamp":-1e20,', '"timestamp":8640000000000001,', '"timestamp":1764547200000,').map((msgTs) => ({entryTs, msgTs})))
    const call = fc.record({input: figure, output: figure, cacheRead: figure, cacheWrite: figure, totalTokens: figure, cost: figure, n: fc.nat(1000), time}).map((f) => `{"type":"message","id":"c${f.n}","parentId":null,${f.time.entryTs}"message":{${f.time.msgTs}"role":"assistant","content":[{"type":"text","text":"x"}],"provider":"mockant","model":"claude-mock","usage":{"input":${f.input},"output":${f.output},"cacheRead":${f.cacheRead},"cacheWrite":${f.cacheWrite},"totalTokens":${f.totalTokens},"cost":{"total":${f.cost}}}}}`)
    let compared = 0
    const garbage = fc.constantFrom('{not json', '[1,2]', '"text"', '42', 'null', '{"type":"message","message":{"role":"assis', '{"a":1,}', '\u0000\u0000\u0000', '{"usage":')
    await fc.assert(
      fc.asyncProperty(transcriptArb(MAIN_ID, fs.readFileSync(MAIN_TRANSCRIPT)), fc.array(fc.oneof(call, garbage), {maxLength: 6}), async (input, extra) => {
        const sb = makeSandbox()
        const file = path.join(sb.stateDir, 'agents', 'main', 'sessions', `${MAIN_ID}.jsonl`)
        const text = input.bytes.toString('utf8')
        fs.writeFileSync(file, Buffer.concat([input.bytes, Buffer.from(`${text.endsWith('\n') || text === '' ? '' : '\n'}${extra.join('\n')}\n`)]))
        const r = await runCli(['sessions', 'usage', '--json', '--state-dir', sb.stateDir], {env: sb.env, cwd: sb.cwd})
        const problems: string[] = []
        if (r.code !== 0 && r.code !== 1) problems.push(`exit ${r.code}: ${r.stderr.slice(0, 300)}`)
        if (r.code === 0) {
          const doc = json<any>(r)
          const t = doc.total
          for (const k of ['input', 'output', 'cacheRead', 'cacheWrite', 'totalTokens', 'costUsd']) if (typeof t[k] !== 'number' || !Number.isFinite(t[k]) || t[k] < 0) problems.push(`total.${k} is ${t[k]}`)
          // The oracle of test/support/usage-sums.ts, on the lines that parse (the others are badLines).
          const want = emptySums()
          addUsage(want, fs.readFileSync(file, 'utf8').split(/\r?\n/))
          if (doc.badValues !== want.badValues) problems.push(`badValues ${doc.badValues}, the rule gives ${want.badValues}`)
          if (doc.total.calls !== want.calls) problems.push(`calls ${doc.total.calls}, the lines hold ${want.calls}`)
          // One rule for every reader: the lines usage could not read are the ones history flags (missing-id aside: an
          // entry without an id is still read).
          const h = await runCli(['sessions', 'history', 'main', '--limit', '1000000', '--json', '--state-dir', sb.stateDir], {env: sb.env, cwd: sb.cwd})
          if (h.code === 0) {
            compared++
            const flagged = json<any>(h).badLines.filter((b: {reason: string}) => b.reason !== 'missing-id').length
            if (doc.badLines !== flagged) problems.push(`usage badLines ${doc.badLines}, history flags ${flagged}`)
          }
        }
        const f = (figures['usage figures'] ??= {cases: 0, failures: 0, exitCodes: {}, kinds: {}})
        f.cases++
        f.exitCodes[String(r.code)] = (f.exitCodes[String(r.code)] ?? 0) + 1
        f.kinds[input.kind] = (f.kinds[input.kind] ?? 0) + 1
        if (problems.length > 0) {
          f.failures++
          failures.push({target: 'usage figures', kind: input.kind, problems, sandbox: sb.root})
          return false
        }
        fs.rmSync(sb.root, {recursive: true, force: true})
        return true
      }),
      params(8),
    )
    // Most cases were compared with history (a transcript history refuses, such as one without a readable header, is not).
    expect(compared).toBeGreaterThan(RUNS / 2)
  }, 30 * 60_000)

  it('a call whose only time is a number past Date\'s range (1e20 ms): usage counts it and search finds it, without a time (exit 0)', async () => {
    const sb = makeSandbox()
    const file = path.join(sb.stateDir, 'agents', 'main', 'sessions', `${MAIN_ID}.jsonl`)
    const calls = [1e20, -1e20, 8_640_000_000_000_001].map((t, i) => `{"type":"message","id":"far${i}","parentId":null,"message":{"timestamp":${t},"role":"assistant","content":[{"type":"text","text":"x"}],"provider":"mockant","model":"claude-mock","usage":{"input":10,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":11,"cost":{"total":0.5}}}}`)
    const before = fs.readFileSync(file, 'utf8')
    fs.writeFileSync(file, `${before}${before.endsWith('\n') ? '' : '\n'}${calls.join('\n')}\n`)
    const want = emptySums()
    addUsage(want, fs.readFileSync(file, 'utf8').split(/\r?\n/))
    for (const args of [['sessions', 'usage', '--json'], ['sessions', 'usage', '--scan', '--json'], ['sessions', 'usage', '--by', 'day', '--json']]) {
      const r = await runCli([...args, '--state-dir', sb.stateDir], {env: sb.env, cwd: sb.cwd})
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      expect(json<any>(r).total.calls).toBe(want.calls)
    }
    // search reads the same time for its hits' order and dates: the three lines are hits without a time.
    for (const args of [['sessions', 'search', 'x', '--json'], ['sessions', 'search', 'x', '--scan', '--json']]) {
      const r = await runCli([...args, '--state-dir', sb.stateDir], {env: sb.env, cwd: sb.cwd})
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      expect(json<any>(r).hits.filter((h: {time: string | null}) => h.time === null).length).toBeGreaterThanOrEqual(3)
    }
    fs.rmSync(sb.root, {recursive: true, force: true})
  })

  it('hostile search patterns (nested quantifiers, long alternations, 60 000-character literals) on lines built to make a backtracking engine explode: a result or a usage error, within seconds', async () => {
    const atom = fc.constantFrom('a', '\\w', '\\s?', '.', '[a-z]', '(a|aa)', 'a?', '\\d*', '(?:ab|a)')
    const nested = fc.tuple(fc.array(atom, {minLength: 1, maxLength: 3}), fc.constantFrom('+', '*', '{1,9}'), fc.constantFrom('+', '*', '{2,}'), fc.constantFrom('$', '!', 'b$', '')).map(([xs, q1, q2, tail]) => `^?(${xs.join('')}${q1})${q2}${tail}`.replace('^?', ''))
    const pattern = fc.oneof(
      nested.map((p) => ({p, regex: true})),
      fc.constantFrom('(a+)+$', '^(\\w+\\s?)+$', '(a|a)*b', '(.*a){12}', '((a+)+)+!', '(\\w+\\s?)*x$').map((p) => ({p, regex: true})),
      fc.nat(60_000).map((n) => ({p: 'a'.repeat(n + 5000), regex: false})),
      fc.nat(60_000).map((n) => ({p: `${'a'.repeat(n + 5000)}+`, regex: true})),
    )
    await fc.assert(
      fc.asyncProperty(pattern, fc.boolean(), async ({p, regex}, upper) => {
        const sb = makeSandbox()
        const file = path.join(sb.stateDir, 'agents', 'main', 'sessions', `${MAIN_ID}.jsonl`)
        const words = 'the quick brown fox jumps over the lazy dog while the cat sleeps on a warm mat by the fire in the hall!'
        const bait = [`${'a'.repeat(40)}!`, words, `${'a'.repeat(200)}`, `${'ab'.repeat(30)}c`].map((t, i) => JSON.stringify({type: 'message', id: `bait${i}`, parentId: null, timestamp: '2026-11-01T00:00:00.000Z', message: {role: 'user', content: t}}))
        fs.appendFileSync(file, `${bait.join('\n')}\n`)
        const pat = upper ? p.toUpperCase().replaceAll('\\W', '\\w').replaceAll('\\S', '\\s').replaceAll('\\D', '\\d') : p
        const r = await runCli(['sessions', 'search', pat, ...(regex ? ['--regex'] : []), '--json', '--state-dir', sb.stateDir], {env: sb.env, cwd: sb.cwd, timeoutMs: 30_000})
        const problems: string[] = []
        if (r.signal) problems.push(`killed by ${r.signal} (still matching after 30 s)`)
        else if (r.code === 2) {
          if (json<any>(r).error?.code !== 'E_BAD_REGEX') problems.push(`exit 2 but ${r.stdout.slice(0, 200)}`)
        } else if (r.code !== 0) problems.push(`exit ${r.code}: ${r.stdout.slice(0, 300)}`)
        const f = (figures['search patterns'] ??= {cases: 0, failures: 0, exitCodes: {}, kinds: {}})
        f.cases++
        f.exitCodes[String(r.code)] = (f.exitCodes[String(r.code)] ?? 0) + 1
        const kind = regex ? (p.length > 4096 ? 'long regex' : 'regex') : 'long literal'
        f.kinds[kind] = (f.kinds[kind] ?? 0) + 1
        if (problems.length > 0) {
          f.failures++
          failures.push({target: 'search patterns', kind, pattern: pat.slice(0, 200), problems, sandbox: sb.root})
          return false
        }
        fs.rmSync(sb.root, {recursive: true, force: true})
        return true
      }),
      params(9),
    )
  }, 30 * 60_000)
})
