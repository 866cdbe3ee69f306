// Tables on a real terminal (util-linux `script` gives the CLI a pseudo-terminal of a set width): rows fit the width,
// columns stay aligned, cut keys still name their session; piped output keeps OpenClaw's layout; --wide cuts nothing.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, json, jsonError, runCli, sessionsJsonPath, tempDir} from '../support/cli.js'
import {columnStart, expectResolves, hasScript, keyCells, onTty, tableLines, visible} from '../support/tty.js'

const LONG_MODEL = 'claude-sonnet-4-5-20250929-experimental'
const KEYS = [
  'agent:main:main',
  'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001',
  'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000002',
  'agent:main:telegram:group:-1001234567890:topic:42',
]

/** One store with long keys that share long prefixes, a model name far over 14 characters, and transcripts at 0644. */
function wideState(): string {
  const state = tempDir()
  const dir = path.dirname(sessionsJsonPath(state))
  fs.mkdirSync(dir, {recursive: true})
  const now = Date.now()
  const store: Record<string, unknown> = {}
  KEYS.forEach((key, i) => {
    const sessionId = `${String(i).repeat(8)}-1111-4111-8111-111111111111`
    store[key] = {sessionId, updatedAt: now - i * 60_000, model: i === 1 ? LONG_MODEL : 'claude-small', modelProvider: 'anthropic', totalTokens: 25_000, contextTokens: 48_000, thinkingLevel: 'high', cacheRead: 100, inputTokens: 10}
    fs.writeFileSync(path.join(dir, `${sessionId}.jsonl`), `${JSON.stringify({type: 'session', version: 3, id: sessionId, timestamp: new Date(now).toISOString(), cwd: '/w'})}\n`, {mode: 0o644})
  })
  fs.writeFileSync(sessionsJsonPath(state), JSON.stringify(store, null, 2), {mode: 0o644})
  return state
}


describe.skipIf(!hasScript)('tables on a terminal', () => {
  it('sessions list at 50, 60, 80, 120 and 200 columns: no row wider than the terminal, Key, Age and Tokens always there and aligned, cut keys resolve, Flags whole items, hidden columns named', async () => {
    const state = wideState()
    const env = baseEnv(tempDir())
    const headers = ['Kind', 'Key', 'Age', 'Model', 'Tokens (ctx %)', 'Flags']
    const resolved = new Set<string>()
    for (const cols of [50, 60, 80, 120, 200]) {
      const r = await onTty(cols, ['sessions', 'list', '--state-dir', state], env)
      expect(r.code, r.out).toBe(0)
      const lines = r.out.trimEnd().split('\n')
      // The store's path cannot wrap at a space; every other line fits.
      for (const l of lines.filter((x) => !x.includes(state))) expect(visible(l), `${cols}: ${l}`).toBeLessThanOrEqual(cols)
      const table = tableLines(r.out, 'Key')
      expect(table, `${cols}`).toHaveLength(1 + KEYS.length)
      const shown = headers.filter((h) => table[0].includes(h))
      expect(shown, `${cols}`).toEqual(expect.arrayContaining(['Key', 'Age', 'Tokens (ctx %)']))
      // A column left out is named under the table (nobody takes it for absent data); none is left out when all fit.
      const hidden = headers.filter((h) => !shown.includes(h))
      const note = lines.find((l) => l.startsWith('Not shown: '))
      if (hidden.length > 0) expect(lines.slice(lines.indexOf(note!)).join(' '), `${cols}`).toContain(`Not shown: ${hidden.join(', ')} (--wide shows them).`)
      else expect(note, `${cols}`).toBeUndefined()
      // Every row's tokens cell starts where the header says, whatever the model name.
      const tokensAt = columnStart(table, 'Tokens (ctx %)')
      for (const row of table.slice(1)) expect([...row].slice(tokensAt).join(''), `${cols}: ${row}`).toMatch(/^25k\/48k \(52%\)/)
      // Flags are whole items of the row's flags (never "thin…" or part of an id), the ids left out first.
      if (shown.includes('Flags')) {
        const flagsAt = columnStart(table, 'Flags')
        for (const [i, row] of table.slice(1).entries()) {
          const items = [...row].slice(flagsAt).join('').trim().split(' ').filter(Boolean)
          const full = ['think:high', `id:${String(i).repeat(8)}-1111-4111-8111-111111111111`]
          for (const item of items) expect([...full, '…'], `${cols}: ${row}`).toContain(item)
        }
      }
      // Each key is whole, or cut to "head…tail" (a bare prefix when that is unique) that names exactly its session.
      for (const shownKey of keyCells(r.out, 'Key')) {
        if (KEYS.includes(shownKey) || resolved.has(shownKey)) continue
        resolved.add(shownKey)
        const [head, tail] = shownKey.split('…')
        expect(tail, shownKey).toBeDefined()
        const matching = KEYS.filter((k) => k.startsWith(head) && k.endsWith(tail))
        expect(matching, shownKey).toHaveLength(1)
        await expectResolves(shownKey, matching[0], state, env)
      }
      if (cols === 200) {
        expect(hidden).toEqual([])
        expect(r.out).not.toContain('…')
      }
      if (cols === 50) expect(shown).toEqual(['Key', 'Age', 'Tokens (ctx %)'])
    }
  })

  it('status at 80 and 160 columns: the Sessions table and the Doctor line never exceed the width nor cut a word', async () => {
    const state = wideState()
    const env = baseEnv(tempDir())
    for (const cols of [80, 160]) {
      const r = await onTty(cols, ['status', '--state-dir', state], env)
      expect(r.code, r.out).toBe(0)
      const lines = r.out.trimEnd().split('\n')
      // Paths cannot wrap at a space; every other line fits.
      for (const l of lines.filter((x) => !x.includes(state))) expect(visible(l), `${cols}: ${l}`).toBeLessThanOrEqual(cols)
      const doctorAt = lines.findIndex((l) => l.startsWith('Doctor'))
      const doctor = [lines[doctorAt], ...lines.slice(doctorAt + 1).filter((l, i, all) => all.slice(0, i + 1).every((x) => x.startsWith(' '.repeat(14))))]
      const joined = doctor.map((l, i) => (i === 0 ? l.slice(14) : l.trim())).join(' ')
      expect(joined, `${cols}`).toContain('transcript-permissions')
      expect(joined).toContain('store-permissions')
      const table = lines.slice(lines.indexOf('Sessions') + 1)
      const tokensAt = columnStart(table, 'Tokens')
      for (const row of table.slice(1)) expect([...row].slice(tokensAt).join(''), row).toMatch(/^25k\/48k \(52%\) · \d+% cached$/)
    }
  })

  it('piped output keeps OpenClaw\'s layout; --wide prints every key, model and flag in full, on a terminal and piped', async () => {
    const state = wideState()
    const env = baseEnv(tempDir())
    const piped = await runCli(['sessions', 'list', '--state-dir', state], {env})
    expect(piped.stdout).toContain('agent:main:expli...000001')
    expect(piped.stdout).toMatch(/^direct agent:main:main {12}(just now|\S+ ago) +claude-small {3}25k\/48k \(52%\) {8}think:high id:/m)
    // A model name over 14 characters pushes the rest of its row, exactly as OpenClaw prints it.
    expect(piped.stdout).toContain(`${LONG_MODEL} 25k/48k (52%)`)
    const wide = [(await runCli(['sessions', 'list', '--wide', '--state-dir', state], {env})).stdout, (await onTty(80, ['sessions', 'list', '--wide', '--state-dir', state], env)).out]
    for (const out of wide) {
      for (const key of KEYS) expect(out).toContain(key)
      expect(out).toContain(LONG_MODEL)
      expect(out).toContain('think:high id:11111111-1111-4111-8111-111111111111')
    }
    const status = await runCli(['status', '--wide', '--state-dir', state], {env})
    for (const key of KEYS) expect(status.stdout).toContain(key)
  })

  it('history takes a unique key prefix (with or without the "…"); an ambiguous one exits 2 naming the candidates; reset never guesses', async () => {
    const state = wideState()
    const env = baseEnv(tempDir())
    // Bare prefixes, relative ones, clawkit's terminal cut and OpenClaw's piped cut (first 16 + "..." + last 6).
    const cases: [string, string][] = [
      ['agent:main:telegram', KEYS[3]],
      ['telegram:gr', KEYS[3]],
      ['agent:main:tel...', KEYS[3]],
      ['agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000002…', KEYS[2]],
      ['agent:main:expl…000002', KEYS[2]],
      ['agent:main:expli...000001', KEYS[1]],
    ]
    for (const [prefix, key] of cases) {
      const r = await runCli(['sessions', 'history', prefix, '--json', '--state-dir', state], {env})
      expect(r.code, `${prefix}: ${r.stdout}`).toBe(0)
      expect(json(r).key, prefix).toBe(key)
    }
    const amb = await runCli(['sessions', 'history', 'agent:main:explicit:0a1b', '--state-dir', state], {env})
    expect(amb.code).toBe(2)
    expect(amb.stderr).toContain(`Error: Session key "agent:main:explicit:0a1b" matches 2 sessions: ${KEYS[1]}, ${KEYS[2]}`)
    const ambJson = await runCli(['sessions', 'history', 'agent:main:explicit:0a1b', '--json', '--state-dir', state], {env})
    expect(jsonError(ambJson)).toMatchObject({code: 'E_AMBIGUOUS_SESSION', exitCode: 2})
    const reset = await runCli(['sessions', 'reset', 'agent:main:telegram', '--state-dir', state], {env})
    expect(reset.code).toBe(1)
    expect(reset.stderr).toContain('Session not found')
  })
})

/** A store whose rows are `keys`, newest first (row i is i hours old unless `ageHours` says otherwise). */
function stateWith(keys: string[], ageHours: (i: number) => number = (i) => i): string {
  const state = tempDir()
  const dir = path.dirname(sessionsJsonPath(state))
  fs.mkdirSync(dir, {recursive: true})
  const now = Date.now()
  const store: Record<string, unknown> = {}
  keys.forEach((key, i) => {
    store[key] = {sessionId: `s${i}-1111-4111-8111-111111111111`, updatedAt: now - ageHours(i) * 3_600_000, model: 'claude-small', modelProvider: 'anthropic', totalTokens: 25_000, contextTokens: 48_000}
  })
  fs.writeFileSync(sessionsJsonPath(state), JSON.stringify(store, null, 2), {mode: 0o600})
  return state
}

// Two keys that share their first 54 characters; the older one is never among the rows shown.
const TWIN_A = 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001'
const TWIN_B = 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000002'

describe.skipIf(!hasScript)('cut keys are unique in the whole store, not just among the rows shown', () => {
  it('sessions list --limit 1 and --active on a narrow terminal: the one row shown is cut so that history still finds it, not its hidden twin', async () => {
    const state = stateWith([TWIN_A, 'agent:main:main', TWIN_B], (i) => (i === 2 ? 48 : i))
    const env = baseEnv(tempDir())
    for (const filter of [['--limit', '1'], ['--active', '120']]) {
      const r = await onTty(60, ['sessions', 'list', ...filter, '--state-dir', state], env)
      expect(r.code, r.out).toBe(0)
      const cells = keyCells(r.out, 'Key')
      expect(cells.length, r.out).toBeGreaterThan(0)
      expect(cells[0], r.out).toContain('…')
      await expectResolves(cells[0], TWIN_A, state, env)
    }
  })

  it('sessions list --agent with a single long key on a very narrow terminal: the cut keeps "agent:<id>:", so history does not meet the other agents\' keys', async () => {
    const state = stateWith([TWIN_A])
    // work's store: keys that start like main's and end like it, which history would search if the cut lost the agent id.
    const work = sessionsJsonPath(state, 'work')
    fs.mkdirSync(path.dirname(work), {recursive: true})
    fs.writeFileSync(work, JSON.stringify({'agent:work:explicit:0a1b2c3d-0000-4000-8000-000000000001': {sessionId: 'w1', updatedAt: Date.now()}, 'agent:work:main': {sessionId: 'w2', updatedAt: Date.now()}}, null, 2))
    const env = baseEnv(tempDir())
    const r = await onTty(40, ['sessions', 'list', '--agent', 'main', '--state-dir', state], env)
    expect(r.code, r.out).toBe(0)
    const cells = keyCells(r.out, 'Key')
    expect(cells[0], r.out).toMatch(/^agent:main:.*…/)
    await expectResolves(cells[0], TWIN_A, state, env)
  })

  it('status on a narrow terminal: a recent key is cut so that history finds it even when its twin is older than the 10 rows shown', async () => {
    const fillers = Array.from({length: 9}, (_, i) => `agent:main:cron:job-${i}`)
    const state = stateWith([TWIN_A, ...fillers, TWIN_B])
    const env = baseEnv(tempDir())
    const r = await onTty(60, ['status', '--state-dir', state], env)
    expect(r.code, r.out).toBe(0)
    const out = r.out.slice(r.out.indexOf('\nSessions\n') + '\nSessions\n'.length)
    const cells = keyCells(out, 'Key')
    expect(cells).toHaveLength(10)
    expect(cells[0], out).toContain('…')
    await expectResolves(cells[0], TWIN_A, state, env)
  })

  it('status piped: a key over 32 characters is cut to 32 that still name it (both twins shown, or one of them hidden)', async () => {
    const env = baseEnv(tempDir())
    const fillers = Array.from({length: 9}, (_, i) => `agent:main:cron:job-${i}`)
    for (const keys of [[TWIN_A, TWIN_B, 'agent:main:main'], [TWIN_A, ...fillers, TWIN_B]]) {
      const state = stateWith(keys)
      const r = await runCli(['status', '--state-dir', state], {env})
      expect(r.code, r.stderr).toBe(0)
      const out = r.stdout.slice(r.stdout.indexOf('\nSessions\n') + '\nSessions\n'.length)
      const cells = keyCells(out, 'Key')
      expect(cells.length).toBe(Math.min(10, keys.length))
      for (const [i, cell] of cells.entries()) {
        expect([...cell].length, cell).toBeLessThanOrEqual(32)
        await expectResolves(cell, keys[i], state, env)
      }
    }
  })
})
