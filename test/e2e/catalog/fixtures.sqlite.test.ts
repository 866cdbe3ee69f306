// Issue 28's acceptance asks the catalog's answers to equal `--scan` on every fixture: the property tests do so on
// generated JSON-era stores and on the three 2026.9.6 databases; this runs the real CLI on every fixture (the three
// OpenClaw 2026.4.27 JSON-era stores with their reset archives, compaction checkpoint and trajectories, and the 2026.9.6
// ones), before and after a turn is appended, and compares each search and usage document with --scan's.
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import {type SearchOptions, sessionsSearch} from '../../../src/sessions/search.js'
import {sessionsUsage} from '../../../src/sessions/usage.js'
import {baseEnv, copyFixture, json, runCli, tempDir, TWO_AGENTS, COMPACTION} from '../../support/cli.js'
import {inProcess} from '../../support/in-process.js'
import {describeSqlite, DELETED_96, IMPORTED_96, NATIVE_96} from '../../support/sqlite.js'

const RESET_TWICE = 'openclaw-2026.4.27-reset-twice'

/** Literals of three characters or more (the catalog's), both cases, a --word, a --regex with a literal, a role. */
const SEARCHES: [string[], SearchOptions][] = [
  [['bootstrap'], {}],
  [['BOOTSTRAP'], {}],
  [['echo', '--word'], {word: true}],
  [['read', '--role', 'user'], {role: 'user'}],
  [['tool'], {}],
  [['boot(strap|s)', '--regex'], {regex: true}],
  [['zz-no-such-text'], {}],
]
const USAGES: [string[], {by?: string}][] = [
  [[], {}],
  [['--by', 'model'], {by: 'model'}],
  [['--by', 'day'], {by: 'day'}],
  [['--by', 'key'], {by: 'key'}],
]

type Doc = Record<string, unknown> & {engine?: string; source?: string; count?: number}

/**
 * Each search and usage from the catalog (a real CLI run) against the oracle: the scan that `--scan` runs, made in this
 * process (the command passes its flags to sessionsSearch and sessionsUsage as they are; test/e2e/sessions covers --scan
 * through the CLI).
 */
async function compare(state: string, env: Record<string, string>, when: string): Promise<number> {
  let hits = 0
  for (const [q, opts] of SEARCHES) {
    const args = ['sessions', 'search', ...q, '--all-agents', '--include-archived', '--limit', 'all', '--json', '--state-dir', state]
    const got = await runCli(args, {env})
    expect(got.code, `${when}: ${q.join(' ')}: ${got.stderr}`).toBe(0)
    expect(got.stderr, `${when}: ${q.join(' ')}`).toBe('')
    const {engine, stores: _s, ...g} = json<Doc>(got)
    const {engine: scanEngine, stores: _t, ...w} = (await inProcess<unknown>(state, (s) => sessionsSearch(s, q[0], {...opts, allAgents: true, includeArchived: true, limit: 'all', scan: true}))) as Doc
    expect(engine, `${when}: ${q.join(' ')}`).toBe('catalog')
    expect(scanEngine).toBe('scan')
    expect(g, `${when}: search ${q.join(' ')}`).toEqual(w)
    hits += Number(g.count)
  }
  for (const [u, opts] of USAGES) {
    const args = ['sessions', 'usage', ...u, '--all-agents', '--json', '--state-dir', state]
    const got = await runCli(args, {env})
    expect(got.code, `${when}: usage ${u.join(' ')}: ${got.stderr}`).toBe(0)
    const {source, removed: _r, ...g} = json<Doc>(got)
    const {source: scanSource, removed: _q, ...w} = (await inProcess<unknown>(state, (s) => sessionsUsage(s, {...opts, allAgents: true, scan: true}))) as Doc
    expect(source, `${when}: usage ${u.join(' ')}`).toBe('catalog')
    expect(scanSource).toBe('scan')
    expect(g, `${when}: usage ${u.join(' ')}`).toEqual(w)
  }
  return hits
}

/** A user turn appended to the first live transcript of the store's main agent, as OpenClaw appends one. */
function appendTurn(state: string): boolean {
  const dir = path.join(state, 'agents', 'main', 'sessions')
  if (!fs.existsSync(path.join(dir, 'sessions.json'))) return false
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8')) as Record<string, {sessionId: string; sessionFile?: string}>
  // An entry's sessionFile names its transcript where set (reset-twice's differs from its sessionId after the resets).
  const live = Object.values(index)
    .map((e) => path.join(dir, e.sessionFile ? path.basename(e.sessionFile) : `${e.sessionId}.jsonl`))
    .find((f) => fs.existsSync(f))!
  fs.appendFileSync(live, `${JSON.stringify({type: 'message', id: 'appended1', parentId: null, timestamp: '2026-11-27T00:00:00.000Z', message: {role: 'user', content: 'a later bootstrap question about the tool', timestamp: 1795737600000}})}\n`)
  return true
}

describeSqlite('catalog answers equal --scan on every fixture (real CLI)', () => {
  for (const fixture of [TWO_AGENTS, COMPACTION, RESET_TWICE, NATIVE_96, IMPORTED_96, DELETED_96]) {
    it(`${fixture}: every search and usage from the catalog equals --scan, built and after an appended turn`, async () => {
      const env = baseEnv(tempDir())
      const state = copyFixture(fixture)
      const before = await compare(state, env, 'built')
      if (fixture.includes('2026.4.27')) {
        // The comparison must be able to fail: the fixture's text holds hits.
        expect(before).toBeGreaterThan(0)
        expect(appendTurn(state)).toBe(true)
        const after = await compare(state, env, 'after an appended turn')
        expect(after).toBeGreaterThan(before)
      }
    }, 120_000)
  }
})
