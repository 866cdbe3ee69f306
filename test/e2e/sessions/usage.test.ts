// `sessions usage` through the real CLI on copies of the JSON-era fixtures. Expected totals are computed here straight
// from the raw JSONL lines of every transcript and archive, independently of clawkit's store code.
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import type {SessionsListResult} from '../../../src/commands/sessions/list.js'
import type {SessionsUsageResult} from '../../../src/commands/sessions/usage.js'
import {groupDigits} from '../../../src/sessions/format.js'
import {baseEnv, BIN, copyFixture, json, jsonError, runCli, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {onTty, tableLines, visible} from '../../support/tty.js'
import {addUsage, emptySums, poisonUsage, type UsageSums} from '../../support/usage-sums.js'

const RESET_TWICE = 'openclaw-2026.4.27-reset-twice'
const hasScript = spawnSync('script', ['--version']).status === 0
const BYS = ['session', 'key', 'agent', 'model', 'day', 'month']

type Raw = UsageSums


/** Transcripts and their .reset./.deleted. archives (not trajectory or checkpoint side files). */
const isTranscript = (name: string) => /^[0-9a-f-]{36}\.jsonl(\.(reset|deleted)\..+)?$/.test(name)

/** Sums every assistant message's usage in the given agents' session dirs, line by line from the raw files. */
function rawTotals(state: string, agents: string[], opts: {files?: (name: string) => boolean; price?: (u: any) => number} = {}): Raw {
  const t = emptySums()
  for (const agent of agents) {
    const dir = path.join(state, 'agents', agent, 'sessions')
    for (const name of fs.readdirSync(dir).filter(isTranscript).filter(opts.files ?? (() => true))) {
      addUsage(t, fs.readFileSync(path.join(dir, name), 'utf8').split('\n'), opts.price)
    }
  }
  return t
}

async function usage(state: string, ...args: string[]) {
  return runCli(['sessions', 'usage', ...args], {env: baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state})})
}

async function usageJson(state: string, ...args: string[]): Promise<SessionsUsageResult> {
  const r = await usage(state, ...args, '--json')
  expect(r.code, r.stderr).toBe(0)
  return json<SessionsUsageResult>(r)
}

function expectTotal(r: SessionsUsageResult, raw: Raw): void {
  expect(raw.calls).toBeGreaterThan(0)
  expect(r.total.calls).toBe(raw.calls)
  expect(r.total.input).toBe(raw.input)
  expect(r.total.output).toBe(raw.output)
  expect(r.total.cacheRead).toBe(raw.cacheRead)
  expect(r.total.cacheWrite).toBe(raw.cacheWrite)
  expect(r.total.costUsd).toBeCloseTo(raw.cost, 9)
}

/** Every --by grouping's rows add up to the same grand total, which is the raw one. */
async function expectEveryGrouping(state: string, raw: Raw, ...args: string[]): Promise<void> {
  for (const by of BYS) {
    const r = await usageJson(state, '--by', by, ...args)
    expectTotal(r, raw)
    expect(r.rows.length, by).toBe(r.count)
    expect(r.rows.reduce((s, x) => s + x.calls, 0), by).toBe(raw.calls)
    expect(r.rows.reduce((s, x) => s + x.input + x.output + x.cacheRead + x.cacheWrite, 0), by).toBe(raw.input + raw.output + raw.cacheRead + raw.cacheWrite)
    expect(r.rows.reduce((s, x) => s + x.costUsd, 0), by).toBeCloseTo(raw.cost, 9)
  }
}

describe('sessions usage (JSON era)', () => {
  it('a key reset twice by OpenClaw keeps all three sessions\' cost (two .reset. archives and the live one); every --by sums to the raw total', async () => {
    const state = copyFixture(RESET_TWICE)
    const raw = rawTotals(state, ['main'])
    const r = await usageJson(state)
    expect(r.by).toBe('session')
    expect(r.includeArchived).toBe(true)
    expect(r.transcripts).toBe(3)
    expect(r.rows).toHaveLength(3)
    expect(r.rows.map((x) => x.where).sort()).toEqual(['live', 'reset-archive', 'reset-archive'])
    for (const x of r.rows) {
      expect(x.key).toBe('agent:main:main')
      expect(x.costUsd).toBeGreaterThan(0)
      expect(x.calls).toBe(1)
      expect(x.largestCall!.costUsd).toBe(x.costUsd)
      expect(x.firstCallAt).toBe(x.lastCallAt)
    }
    expectTotal(r, raw)
    await expectEveryGrouping(state, raw)
    const text = await usage(state, '--by', 'key')
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/^agent:main:main +3 /m)
    expect(text.stdout).toMatch(new RegExp(`^Total +${groupDigits(raw.calls)} +${groupDigits(raw.input)} +${groupDigits(raw.output)} `, 'm'))
  })

  it('--no-include-archived counts only the live transcript; --limit 1 keeps the top row by cost but the whole total', async () => {
    const state = copyFixture(RESET_TWICE)
    const live = rawTotals(state, ['main'], {files: (n) => n.endsWith('.jsonl')})
    const r = await usageJson(state, '--no-include-archived')
    expect(r.includeArchived).toBe(false)
    expect(r.rows.map((x) => x.where)).toEqual(['live'])
    expectTotal(r, live)
    const all = await usageJson(state)
    const top = await usageJson(state, '--limit', '1')
    expect(top.count).toBe(3)
    expect(top.rows).toEqual([all.rows[0]])
    expect(top.total).toEqual(all.total)
  })

  it('--since and --until (a time, a bare date meaning the whole day, a duration) keep only the calls inside the window', async () => {
    const state = copyFixture(RESET_TWICE)
    const times = rawTotals(state, ['main']).times.sort()
    expect(times).toHaveLength(3)
    const r = await usageJson(state, '--by', 'day', '--since', times[1])
    expect(r.total.calls).toBe(2)
    expect(r.total.firstCallAt).toBe(times[1])
    const u = await usageJson(state, '--until', times[1])
    expect(u.total.calls).toBe(2)
    expect(u.total.lastCallAt).toBe(times[1])
    // A bare date as --until takes in the whole day; the day before takes none.
    expect((await usageJson(state, '--until', times[0].slice(0, 10))).total.calls).toBe(3)
    const dayBefore = new Date(Date.parse(times[0].slice(0, 10)) - 86_400_000).toISOString().slice(0, 10)
    expect((await usageJson(state, '--until', dayBefore)).total.calls).toBe(0)
    // The fixture's calls are in the past: none within the last minute, all within the last 100000 days.
    expect((await usageJson(state, '--since', '1m')).total.calls).toBe(0)
    expect((await usageJson(state, '--since', '100000d')).total.calls).toBe(3)
    const bad = await usage(state, '--since', 'yesterday-ish', '--json')
    expect(bad.code).toBe(2)
    expect(jsonError(bad).code).toBe('E_BAD_FLAG')
  })

  it('--all-agents and --agent: each agent\'s own raw total, and --by agent splits them', async () => {
    const state = copyFixture(TWO_AGENTS)
    const both = rawTotals(state, ['main', 'work'])
    const r = await usageJson(state, '--all-agents', '--by', 'agent')
    expect(r.rows.map((x) => x.group).sort()).toEqual(['main', 'work'])
    expectTotal(r, both)
    await expectEveryGrouping(state, both, '--all-agents')
    expectTotal(await usageJson(state, '--agent', 'work'), rawTotals(state, ['work']))
    const conflict = await usage(state, '--agent', 'work', '--all-agents', '--json')
    expect(conflict.code).toBe(2)
  })

  it('messages without a recorded cost are priced from openclaw.json and marked estimated; a torn line is skipped and counted', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = path.join(state, 'agents', 'main', 'sessions', '0caed29d-8df6-4457-a9cd-00bb9d2b22e3.jsonl')
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)
    let stripped = 0
    const edited = lines.map((l) => {
      const e = JSON.parse(l)
      if (e.type === 'message' && e.message?.role === 'assistant' && e.message.usage?.cost) {
        delete e.message.usage.cost
        stripped++
      }
      return JSON.stringify(e)
    })
    expect(stripped).toBeGreaterThan(0)
    fs.writeFileSync(file, `${edited.join('\n')}\n{"type":"message","id":"torn","message":{"role":"assis`)
    // The fixture's config prices mockant models at 3 / 15 / 0.3 / 3.75 dollars per million tokens.
    const price = (u: any) => (u.input * 3 + u.output * 15 + u.cacheRead * 0.3 + u.cacheWrite * 3.75) / 1e6
    const raw = rawTotals(state, ['main'], {price})
    const r = await usageJson(state)
    expectTotal(r, raw)
    expect(r.total.estimated).toBe(true)
    expect(r.rows.every((x) => x.estimated)).toBe(true)
    expect(r.badLines).toBe(1)
    expect(r.unpricedCalls).toBe(0)
    const text = await usage(state)
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain('* estimated from the model prices in openclaw.json')
    expect(text.stdout).toContain('1 unreadable line(s) skipped')
  })

  it('an unreadable line is counted in badLines whatever it holds (one rule with the SQLite store and the replica): a whole assistant line replaced by "{not json" drops the call and says so', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = path.join(state, 'agents', 'main', 'sessions', '0caed29d-8df6-4457-a9cd-00bb9d2b22e3.jsonl')
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    const at = lines.findIndex((l) => l.includes('"role":"assistant"') && l.includes('"usage"'))
    // And a second kind: a line that is JSON but not an object, without "usage" either.
    const other = lines.findIndex((l, i) => i > at && l.includes('"role":"user"'))
    lines[at] = '{not json'
    lines[other] = '[1,2]'
    fs.writeFileSync(file, lines.join('\n'))
    const raw = rawTotals(state, ['main'])
    const r = await usageJson(state)
    expectTotal(r, raw)
    expect(r.badLines).toBe(2)
    const text = await usage(state)
    expect(text.stdout).toContain('! 2 unreadable line(s) skipped')
    // Under --json the document says it, and so does one line on stderr.
    const j = await usage(state, '--json')
    // (On a Node without node:sqlite a data dir's first usage also says once that it scans: docs/catalog.md.)
    expect(j.stderr.replace(/^clawkit: the local catalog needs node:sqlite.*\n/, '')).toBe('Warning: 2 unreadable line(s) skipped in the transcripts read (any of them may have been a model call); run "clawkit doctor".\n')
  })

  it('figures that are not plausible numbers (a negative or 1e308 cost, negative or absurd tokens, a string) are skipped and counted in badValues; every total stays a finite number, list --usage too', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = path.join(state, 'agents', 'main', 'sessions', '0caed29d-8df6-4457-a9cd-00bb9d2b22e3.jsonl')
    fs.writeFileSync(file, poisonUsage(fs.readFileSync(file, 'utf8')))
    const raw = rawTotals(state, ['main'])
    expect(raw.badValues).toBe(6)
    for (const by of BYS) {
      const r = await usageJson(state, '--by', by)
      expectTotal(r, raw)
      expect(r.badValues).toBe(6)
      expect(Number.isFinite(r.total.costUsd) && r.total.costUsd >= 0).toBe(true)
      for (const x of r.rows) expect(Number.isFinite(x.costUsd) && x.costUsd >= 0 && x.input >= 0 && x.output >= 0, by).toBe(true)
    }
    const text = await usage(state)
    expect(text.stdout).toContain('! 6 token or cost figure(s) were not plausible numbers (negative, not finite, not a number, or over 1e9 tokens or $100000 for one call): counted as 0.')
    expect(text.stdout).not.toMatch(/Infinity|NaN|\$-/)
    const list = await runCli(['sessions', 'list', '--usage', '--json'], {env: baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state})})
    expect(list.code, list.stderr).toBe(0)
    const row = json<SessionsListResult>(list).sessions.find((x) => x.key === 'agent:main:main')!
    expect(row.usage!.costUsd).toBeCloseTo(raw.cost, 9)
    expect(row.usage!.calls).toBe(raw.calls)
  })

  it.runIf(hasScript)('--by day prints text bars on a terminal (util-linux script), and none when piped', async () => {
    const state = copyFixture(RESET_TWICE)
    const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state})
    const tty = spawnSync('script', ['-qec', `"${process.execPath}" "${BIN}" sessions usage --by day`, '/dev/null'], {env, encoding: 'utf8', timeout: 30_000})
    expect(tty.status, tty.stderr).toBe(0)
    const day = rawTotals(state, ['main']).times[0].slice(0, 10)
    expect(tty.stdout).toMatch(new RegExp(`^${day} #{40} +\\$\\d`, 'm'))
    const piped = await usage(state, '--by', 'day')
    expect(piped.code, piped.stderr).toBe(0)
    expect(piped.stdout).not.toContain('#')
    expect(piped.stdout).toMatch(new RegExp(`^${day} +3 `, 'm'))
  })

  it('an orphan: the live transcript renamed away (no entry names it) is still counted, under its own sessionId, where "orphan"', async () => {
    const state = copyFixture(RESET_TWICE)
    const dir = path.join(state, 'agents', 'main', 'sessions')
    const live = fs.readdirSync(dir).find((n) => n.endsWith('.jsonl'))!
    const raw = rawTotals(state, ['main'])
    const liveId = JSON.parse(fs.readFileSync(path.join(dir, live), 'utf8').split('\n')[0]).id
    fs.renameSync(path.join(dir, live), path.join(dir, 'moved-aside.jsonl'))
    const r = await usageJson(state)
    expectTotal(r, raw)
    expect(r.rows.find((x) => x.sessionId === liveId)?.where).toBe('orphan')
  })

  it('a deleted key (entry gone, live transcript archived as .deleted.) keeps all its sessions\' cost, under "(unknown)" when nothing names the key', async () => {
    const state = copyFixture(RESET_TWICE)
    const dir = path.join(state, 'agents', 'main', 'sessions')
    const live = fs.readdirSync(dir).find((n) => n.endsWith('.jsonl'))!
    const raw = rawTotals(state, ['main'])
    // What OpenClaw's sessions delete does: the entry leaves the index and the transcript is archived as `.deleted.`.
    fs.renameSync(path.join(dir, live), path.join(dir, `${live}.deleted.2026-11-26T15-00-00.000Z`))
    fs.writeFileSync(path.join(dir, 'sessions.json'), '{}\n')
    const r = await usageJson(state)
    expect(r.transcripts).toBe(3)
    expectTotal(r, raw)
    expect(r.rows.map((x) => x.where).sort()).toEqual(['deleted-archive', 'reset-archive', 'reset-archive'])
    const byKey = await usageJson(state, '--by', 'key')
    expect(byKey.rows.map((x) => x.group)).toEqual(['(unknown)'])
    expectTotal(byKey, raw)
  })

  it('sessions list --usage: each row\'s cost so far is its current session\'s (the archives are not in it); without --usage no row has one', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state})
    const r = await runCli(['sessions', 'list', '--all-agents', '--usage', '--json'], {env})
    expect(r.code, r.stderr).toBe(0)
    const l = json<SessionsListResult>(r)
    expect(l.sessions).toHaveLength(2)
    for (const row of l.sessions) {
      const raw = rawTotals(state, [row.agentId!])
      expect(row.usage?.calls).toBe(raw.calls)
      expect(row.usage?.costUsd).toBeCloseTo(raw.cost, 9)
    }
    const reset = copyFixture(RESET_TWICE)
    const live = rawTotals(reset, ['main'], {files: (n) => n.endsWith('.jsonl')})
    const one = json<SessionsListResult>(await runCli(['sessions', 'list', '--usage', '--json'], {env: baseEnv(tempDir(), {OPENCLAW_STATE_DIR: reset})}))
    expect(one.sessions[0].usage?.costUsd).toBeCloseTo(live.cost, 9)
    expect(live.cost).toBeLessThan(rawTotals(reset, ['main']).cost)
    const plain = json<SessionsListResult>(await runCli(['sessions', 'list', '--all-agents', '--json'], {env}))
    expect(plain.sessions.some((x) => 'usage' in x)).toBe(false)
    const text = await runCli(['sessions', 'list', '--usage'], {env: baseEnv(tempDir(), {OPENCLAW_STATE_DIR: reset})})
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/ Cost +Flags/)
    expect(text.stdout).toContain(`$${live.cost.toFixed(4)}`)
  })

  it('a call with no recorded cost whose model has no price in openclaw.json counts as $0 and in unpricedCalls, not as estimated', async () => {
    const state = copyFixture(TWO_AGENTS)
    const file = path.join(state, 'agents', 'work', 'sessions', '704f285c-af26-493e-ab33-9383ab17a8c0.jsonl')
    const raw = rawTotals(state, ['work'])
    const edited = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => {
      const e = JSON.parse(l)
      if (e.type === 'message' && e.message?.role === 'assistant' && e.message.usage) {
        delete e.message.usage.cost
        e.message.model = 'no-such-model'
      }
      return JSON.stringify(e)
    })
    fs.writeFileSync(file, `${edited.join('\n')}\n`)
    const r = await usageJson(state, '--agent', 'work')
    expect(r.total.calls).toBe(raw.calls)
    expect(r.total.input).toBe(raw.input)
    expect(r.total.costUsd).toBe(0)
    expect(r.total.estimated).toBe(false)
    expect(r.unpricedCalls).toBe(raw.calls)
    const text = await usage(state, '--agent', 'work')
    expect(text.stdout).toContain(`${raw.calls} call(s) recorded no cost and their model has no price in openclaw.json`)
  })
})

describe.runIf(hasScript)('sessions usage on a terminal', () => {
  const COLUMNS = ['Key', 'Session', 'Calls', 'Input', 'Output', 'Cache read', 'Cache write', 'Cost', 'First call', 'Last call', 'Largest call']

  it('fits 50, 60, 80, 120 and 200 columns: Key, Input, Output and Cost always, the columns left out named, numbers grouped and right-aligned', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state})
    const doc = await usageJson(state, '--all-agents')
    expect(doc.total.input).toBeGreaterThan(9999)
    for (const cols of [50, 60, 80, 120, 200]) {
      const r = await onTty(cols, ['sessions', 'usage', '--all-agents'], env)
      expect(r.code, r.out).toBe(0)
      const lines = r.out.trimEnd().split('\n')
      for (const l of lines) expect(visible(l), `${cols}: ${l}`).toBeLessThanOrEqual(cols)
      const table = tableLines(r.out, 'Key')
      expect(table, `${cols}`).toHaveLength(2 + doc.rows.length)
      const shown = COLUMNS.filter((h) => table[0].includes(h))
      expect(shown, `${cols}`).toEqual(expect.arrayContaining(['Key', 'Input', 'Output', 'Cost']))
      const hidden = COLUMNS.filter((h) => !shown.includes(h))
      const note = lines.findIndex((l) => l.startsWith('Not shown: '))
      if (hidden.length > 0) expect(lines.slice(note).join(' '), `${cols}`).toContain(`Not shown: ${hidden.join(', ')} (--wide shows them).`)
      else expect(note, `${cols}`).toBe(-1)
      // The total's numbers end where their headers end, thousands grouped (63,712, never 63712).
      const total = table.at(-1)!
      for (const [header, value] of [['Input', doc.total.input], ['Output', doc.total.output], ['Cost', `$${doc.total.costUsd.toFixed(4)}`]] as const) {
        const end = table[0].indexOf(header) + header.length
        const text = typeof value === 'number' ? groupDigits(value) : value
        expect(total.slice(end - text.length, end), `${cols} ${header}: ${total}`).toBe(text)
      }
      if (cols === 200) expect(hidden).toEqual([])
      if (cols <= 60) expect(hidden).toEqual(expect.arrayContaining(['Cache read', 'Cache write', 'First call', 'Largest call']))
    }
    // The day bars take what the terminal leaves beside the date and the cost.
    const days = await onTty(50, ['sessions', 'usage', '--all-agents', '--by', 'day'], env)
    for (const l of days.out.trimEnd().split('\n')) expect(visible(l), l).toBeLessThanOrEqual(50)
    expect(days.out).toMatch(/^\d{4}-\d{2}-\d{2} #{10,} +\$\d/m)
    const wide = await onTty(60, ['sessions', 'usage', '--all-agents', '--wide'], env)
    for (const h of COLUMNS) expect(wide.out).toContain(h)
    expect(wide.out).not.toContain('Not shown')
  })

  it('rows of one key tell apart when the session id is shortened: the id\'s start and where it was found (reset)', async () => {
    const state = copyFixture(RESET_TWICE)
    const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state})
    const doc = await usageJson(state)
    const r = await onTty(60, ['sessions', 'usage'], env)
    expect(r.code, r.out).toBe(0)
    const rows = tableLines(r.out, 'Key').slice(1, -1)
    expect(rows).toHaveLength(3)
    for (const x of doc.rows) {
      const row = rows.find((l) => l.includes(`${x.sessionId!.slice(0, 8)}`))
      expect(row, `${x.sessionId}`).toBeDefined()
      if (x.where === 'reset-archive') expect(row).toMatch(/… \(reset\)/)
      else expect(row).not.toContain('(')
    }
  })
})
