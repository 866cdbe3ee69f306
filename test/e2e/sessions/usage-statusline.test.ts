// `sessions usage --statusline` and `--watch` through the real CLI: the line's today and this month equal the test's own
// sums over the raw transcript lines (in the child's TZ), and it names the most expensive session active in the last
// hour; --watch redraws a report in place on a terminal (util-linux `script`) and leaves with it on Ctrl-C (130).
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, jsonError, runCli, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {ESC, hasScript, watchOnTty} from '../../support/tty.js'
import {middayZone, wallDate} from '../../support/usage-store.js'


/** Appends assistant calls to a key's transcript (its index entry's sessionId) and moves its updatedAt on. */
function addCalls(state: string, agent: string, calls: {t: number; cost: number}[]): void {
  const dir = path.join(state, 'agents', agent, 'sessions')
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8'))
  const entry = index[`agent:${agent}:main`]
  const lines = calls.map(({t, cost}, i) => JSON.stringify({type: 'message', id: `s${t.toString(36)}${i}`, parentId: null, timestamp: new Date(t).toISOString(), message: {role: 'assistant', content: [], provider: 'openai', model: 'gpt-5', usage: {input: 10, output: 1, totalTokens: 11, cost: {total: cost}}, timestamp: t}}))
  fs.appendFileSync(path.join(dir, `${entry.sessionId}.jsonl`), `${lines.join('\n')}\n`)
  entry.updatedAt = Date.now()
  fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(index, null, 2))
}

/** Every call's time and recorded cost in the state dir's transcripts, read from the raw lines. */
function rawCalls(state: string): {t: number; cost: number}[] {
  const out: {t: number; cost: number}[] = []
  for (const agent of fs.readdirSync(path.join(state, 'agents'))) {
    const dir = path.join(state, 'agents', agent, 'sessions')
    for (const name of fs.readdirSync(dir).filter((n) => /\.jsonl(\.(reset|deleted)\..*)?$/.test(n) && !n.includes('trajectory'))) {
      for (const l of fs.readFileSync(path.join(dir, name), 'utf8').split('\n')) {
        if (!l.includes('"usage"')) continue
        const e = JSON.parse(l)
        if (e.type === 'message' && e.message?.role === 'assistant' && e.message.usage) out.push({t: Date.parse(e.timestamp), cost: e.message.usage.cost?.total ?? 0})
      }
    }
  }
  return out
}

describe('sessions usage --statusline and --watch', () => {
  it('--statusline: today\'s and this month\'s spend of every agent, and the most expensive session active in the last hour', async () => {
    const state = copyFixture(TWO_AGENTS)
    const tz = middayZone()
    const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state, TZ: tz})
    const now = Date.now()
    addCalls(state, 'main', [{t: now - 60_000, cost: 0.75}, {t: now - 30_000, cost: 0.5}])
    addCalls(state, 'work', [{t: now - 20_000, cost: 0.25}])
    const r = await runCli(['sessions', 'usage', '--statusline'], {env})
    expect(r.code, r.stderr).toBe(0)
    const calls = rawCalls(state)
    const today = wallDate(Date.now(), tz)
    const sum = (keep: (t: number) => boolean) => calls.filter((c) => keep(c.t)).reduce((s, c) => s + c.cost, 0)
    const todayUsd = sum((t) => wallDate(t, tz) === today)
    const monthUsd = sum((t) => wallDate(t, tz).slice(0, 7) === today.slice(0, 7))
    expect(r.stdout).toBe(`$${todayUsd.toFixed(2)} today \u00B7 $${monthUsd.toFixed(2)} this month \u00B7 agent:main:main $1.25\n`)
    // Nothing active: no third part.
    const quiet = copyFixture(TWO_AGENTS)
    const q = await runCli(['sessions', 'usage', '--statusline', '--agent', 'work'], {env: baseEnv(tempDir(), {OPENCLAW_STATE_DIR: quiet, TZ: tz})})
    expect(q.stdout).toMatch(/^\$\d+\.\d\d today \u00B7 \$\d+\.\d\d this month\n$/)
    expect(jsonError(await runCli(['sessions', 'usage', '--statusline', '--json'], {env})).code).toBe('E_FLAG_CONFLICT')
  })

  it('--watch is refused off a terminal and with --json', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state})
    const piped = await runCli(['sessions', 'usage', '--watch'], {env})
    expect(piped.code).toBe(2)
    expect(piped.stderr).toContain('--watch redraws the screen of a terminal, and stdout is not one')
    expect(jsonError(await runCli(['sessions', 'usage', '--watch', '--json'], {env})).code).toBe('E_FLAG_CONFLICT')
  })

  it.skipIf(!hasScript)('--watch on a terminal: the report redrawn in place with the new spend; Ctrl-C leaves it printed and exits 130', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state})
    const {out, frames, interrupt, stop} = watchOnTty(['sessions', 'usage', '--all-agents', '--by', 'agent', '--watch'], env, {cols: 100, rows: 40})
    try {
      await expect.poll(() => frames().length, {timeout: 20_000}).toBeGreaterThanOrEqual(1)
      expect(out().startsWith(`${ESC}?1049h${ESC}?25l`)).toBe(true)
      expect(frames()[0]).toMatch(/work +1 +7,030 +12 +0 +0 +\$0\.0213/)
      addCalls(state, 'work', [{t: Date.now(), cost: 9}])
      await expect.poll(() => frames().at(-1) ?? '', {timeout: 20_000}).toMatch(/work +2 +7,040 +13 +0 +0 +\$9\.0213/)
      expect(await interrupt()).toBe(130)
    } finally {
      stop()
    }
    expect(out()).toContain(`${ESC}?25h${ESC}?1049l`)
    expect(out().slice(out().lastIndexOf(`${ESC}?1049l`))).toMatch(/work +2 +7,040/)
  }, 60_000)
})
