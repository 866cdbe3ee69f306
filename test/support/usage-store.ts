// Test support for usage reports: a generated multi-agent, multi-model JSON-era state dir whose calls span February to
// November 2026 (both DST changes of Europe and of the US, calls minutes either side of midnight and of the changes),
// under keys of every kind (main, channel DMs and groups, cron jobs and their runs, heartbeat, subagent), with reset
// archives; and the tests' own grouping of raw calls, by day, week and month through toLocaleString in the zone (not
// clawkit's code path), and by the channel, kind and cron job the generator itself gave each key.
import fs from 'node:fs'
import path from 'node:path'

import {seeded} from './fleet-store.js'

/** One model call as the test wrote it (and as an independent reader of the raw lines sums it). */
export interface RawCall {
  agent: string
  key: string
  t: number
  provider: string
  model: string
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  cost: number
}

/** What the generator knows of each key (the expected --by channel, kind and cron values). */
export interface KeyFacts {
  channel: string
  kind: string
  cron: string
}

const MODELS = [
  ['anthropic', 'claude-opus-4'],
  ['anthropic', 'claude-sonnet-4'],
  ['openai', 'gpt-5'],
  ['google', 'gemini-2.5-pro'],
  ['mockant', 'claude-mock'],
] as const

/** Key suffixes (after agent:<id>:) with what they are. */
const KEYS: readonly [string, KeyFacts][] = [
  ['main', {channel: '(none)', kind: 'main', cron: '(not cron)'}],
  ['discord:channel:1234567890', {channel: 'discord', kind: 'channel', cron: '(not cron)'}],
  ['telegram:direct:42', {channel: 'telegram', kind: 'direct', cron: '(not cron)'}],
  ['slack:group:c0123', {channel: 'slack', kind: 'group', cron: '(not cron)'}],
  ['cron:nightly-report', {channel: '(none)', kind: 'cron', cron: 'nightly-report'}],
  ['cron:nightly-report:run:r1', {channel: '(none)', kind: 'cron', cron: 'nightly-report'}],
  ['cron:inbox-sweep', {channel: '(none)', kind: 'cron', cron: 'inbox-sweep'}],
  ['main:heartbeat', {channel: '(none)', kind: 'heartbeat', cron: '(not cron)'}],
  ['subagent:helper', {channel: '(none)', kind: 'subagent', cron: '(not cron)'}],
]

/** Instants where a zone's calendar is easy to get wrong: DST changes and midnights of Berlin and New York, month ends. */
const EDGES = [
  '2026-03-08T06:59:30Z', '2026-03-08T07:00:30Z', '2026-03-08T04:59:59Z', '2026-03-08T05:00:01Z', // New York springs forward
  '2026-03-28T22:59:59Z', '2026-03-28T23:00:01Z', '2026-03-29T00:59:59Z', '2026-03-29T01:00:01Z', '2026-03-29T21:59:59Z', '2026-03-29T22:00:01Z', // Berlin
  '2026-03-31T21:59:59Z', '2026-03-31T22:00:01Z', '2026-03-31T23:59:59Z', '2026-04-01T00:00:01Z', '2026-04-01T03:59:59Z', '2026-04-01T04:00:01Z',
  '2026-10-24T21:59:59Z', '2026-10-24T22:00:01Z', '2026-10-25T00:30:00Z', '2026-10-25T01:30:00Z', '2026-10-25T22:59:59Z', '2026-10-25T23:00:01Z', // Berlin falls back
  '2026-10-31T23:59:59Z', '2026-11-01T03:59:59Z', '2026-11-01T04:00:01Z', '2026-11-01T05:30:00Z', '2026-11-01T06:30:00Z', '2026-11-02T04:59:59Z', '2026-11-02T05:00:01Z', // New York falls back
  '2026-11-15T23:30:00Z', '2026-11-16T00:30:00Z', // a Sunday/Monday: the week turns
].map((s) => Date.parse(s))

const FROM = Date.parse('2026-02-01T00:00:00Z')
const TO = Date.parse('2026-11-20T00:00:00Z')

const hex = (rnd: () => number, n: number) => Array.from({length: n}, () => Math.floor(rnd() * 16).toString(16)).join('')
export const uuid = (rnd: () => number) => `${hex(rnd, 8)}-${hex(rnd, 4)}-4${hex(rnd, 3)}-8${hex(rnd, 3)}-${hex(rnd, 12)}`

/**
 * One transcript's lines (a header, then a user message and an assistant call per time), its calls added to `calls`.
 * Three in ten calls fall on the next edge instant, the others anywhere from February to November 2026. `recordAll`:
 * every call records its cost (else mockant's record none and are priced from openclaw.json, estimated).
 */
export function transcriptCalls(rnd: () => number, o: {agent: string; key: string; id: string; per: number; calls: RawCall[]; edge: () => number; recordAll?: boolean}): {lines: object[]; times: number[]} {
  const {agent, key, id, per, calls} = o
  const lines: object[] = [{type: 'session', version: 3, id, timestamp: new Date(FROM).toISOString(), cwd: '/tmp/ws'}]
  let parent: string | null = null
  const times = Array.from({length: per}, () => (rnd() < 0.3 ? o.edge() : FROM + Math.floor(rnd() * (TO - FROM)))).sort((x, y) => x - y)
  for (const t of times) {
    const [provider, model] = MODELS[Math.floor(rnd() * MODELS.length)]
    const input = Math.floor(rnd() * 20_000)
    const output = Math.floor(rnd() * 2000)
    const cacheRead = rnd() < 0.5 ? Math.floor(rnd() * 50_000) : 0
    const cacheWrite = rnd() < 0.3 ? Math.floor(rnd() * 10_000) : 0
    // Recorded costs on a whole nanodollar, as OpenClaw's figures are; mockant's calls record none (estimated).
    const recorded = o.recordAll || provider !== 'mockant'
    const cost = recorded ? Math.round(rnd() * 2e8) / 1e9 : Math.round(((input * 3 + output * 15 + cacheRead * 0.3 + cacheWrite * 3.75) / 1e6) * 1e9) / 1e9
    const user: {id: string} & Record<string, unknown> = {type: 'message', id: hex(rnd, 8), parentId: parent, timestamp: new Date(t - 1000).toISOString(), message: {role: 'user', content: [{type: 'text', text: 'hi'}], timestamp: t - 1000}}
    const e: {id: string} & Record<string, unknown> = {
      type: 'message',
      id: hex(rnd, 8),
      parentId: user.id,
      timestamp: new Date(t).toISOString(),
      message: {role: 'assistant', content: [{type: 'text', text: 'ok'}], provider, model, usage: {input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, ...(recorded ? {cost: {total: cost}} : {})}, stopReason: 'stop', timestamp: t},
    }
    parent = e.id
    lines.push(user, e)
    calls.push({agent, key, t, provider, model, input, output, cacheRead, cacheWrite, cost})
  }
  return {lines, times}
}

/** Each key's suffix (after agent:<id>:) and what it is: the kinds of key a report tells apart. */
export const KEY_KINDS = KEYS

/** The instants of EDGES in turn, from the first. */
export function edgeInstants(): () => number {
  let i = 0
  return () => EDGES[i++ % EDGES.length]
}

export interface UsageStore {
  state: string
  agents: string[]
  calls: RawCall[]
  facts: Map<string, KeyFacts>
}

/**
 * Writes the store: per agent, every kind of key with a live transcript and, for some, one or two reset archives, each
 * transcript holding calls at random times and at the edge instants, every call with a recorded cost (as OpenClaw
 * writes it) and some without (priced from openclaw.json's `priced` model: estimated).
 */
export function generateUsageStore(state: string, seed: number, opts: {agents?: string[]; callsPerTranscript?: number} = {}): UsageStore {
  const rnd = seeded(seed)
  const agents = opts.agents ?? ['main', 'ops', 'work']
  const per = opts.callsPerTranscript ?? 12
  fs.mkdirSync(state, {recursive: true, mode: 0o700})
  fs.writeFileSync(
    path.join(state, 'openclaw.json'),
    JSON.stringify({
      agents: {list: agents.map((id, i) => ({id, ...(i === 0 ? {default: true} : {})}))},
      models: {providers: {mockant: {baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-x', api: 'anthropic-messages', models: [{id: 'claude-mock', cost: {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}}]}}},
    }),
  )
  const calls: RawCall[] = []
  const facts = new Map<string, KeyFacts>()
  let edge = 0
  for (const agent of agents) {
    const dir = path.join(state, 'agents', agent, 'sessions')
    fs.mkdirSync(dir, {recursive: true, mode: 0o700})
    const index: Record<string, unknown> = {}
    for (const [suffix, f] of KEYS) {
      const key = `agent:${agent}:${suffix}`
      facts.set(key, f)
      const archives = Math.floor(rnd() * 3)
      for (let a = 0; a <= archives; a++) {
        const id = uuid(rnd)
        const {lines, times} = transcriptCalls(rnd, {agent, key, id, per, calls, edge: () => EDGES[edge++ % EDGES.length]})
        const text = `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`
        if (a < archives) {
          // A reset archive, its time after its last call.
          const stamp = new Date(times.at(-1)! + 60_000).toISOString().replaceAll(':', '-')
          fs.writeFileSync(path.join(dir, `${id}.jsonl.reset.${stamp}`), text, {mode: 0o600})
          // OpenClaw's trajectory sidecar names the key an archive served (its first event's sessionKey).
          fs.writeFileSync(path.join(dir, `${id}.trajectory.jsonl`), `${JSON.stringify({traceSchema: 'openclaw-trajectory', schemaVersion: 1, type: 'session.started', sessionId: id, sessionKey: key})}\n`)
        } else {
          fs.writeFileSync(path.join(dir, `${id}.jsonl`), text, {mode: 0o600})
          index[key] = {sessionId: id, updatedAt: times.at(-1)!, sessionFile: path.join(dir, `${id}.jsonl`)}
        }
      }
    }
    fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(index, null, 2), {mode: 0o600})
  }
  return {state, agents, calls, facts}
}

export interface Sums {
  calls: number
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  cost: number
}

/**
 * A fixed-offset zone (Etc/GMT±N) whose wall clock reads about noon now: tests that write calls a few minutes back and
 * then ask the child for "today", "this week" or "this month" stay at least ten hours away from any period's turn, so
 * a run near local midnight cannot see a call fall into yesterday between writing and asking.
 */
export function middayZone(now = Date.now()): string {
  const offset = 12 - new Date(now).getUTCHours() // -11..12 hours east of UTC
  // Etc/GMT names are POSIX-signed: Etc/GMT-3 is three hours east of UTC. Offset 0 is named UTC, the name Intl reports
  // for TZ=Etc/GMT too (tests compare the zone a report names with this one).
  return offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`
}

/** The zone's wall date of an instant, through toLocaleString (sv-SE prints YYYY-MM-DD). */
export const wallDate = (t: number, tz: string) => new Date(t).toLocaleString('sv-SE', {timeZone: tz}).slice(0, 10)

/** The Monday of a YYYY-MM-DD date's week. */
function monday(date: string): string {
  const d = new Date(`${date}T12:00:00Z`)
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7))
  return d.toISOString().slice(0, 10)
}

/** A call's value of one --by dimension, worked out here. */
export function valueOf(c: RawCall, dim: string, tz: string, facts: Map<string, KeyFacts>): string {
  switch (dim) {
    case 'day':
      return wallDate(c.t, tz)
    case 'week':
      return monday(wallDate(c.t, tz))
    case 'month':
      return wallDate(c.t, tz).slice(0, 7)
    case 'model':
      return `${c.provider}/${c.model}`
    case 'provider':
      return c.provider
    case 'agent':
      return c.agent
    case 'key':
      return c.key
    case 'channel':
    case 'kind':
    case 'cron':
      return facts.get(c.key)![dim]
  }
  throw new Error(`no expected values for --by ${dim}`)
}

/** The calls grouped by the comma list `by` (values joined as the report joins a breakdown's), summed. */
export function expectedGroups(calls: readonly RawCall[], by: string, tz: string, facts: Map<string, KeyFacts>, window: {since?: number; until?: number} = {}): Map<string, Sums> {
  const out = new Map<string, Sums>()
  for (const c of calls) {
    if (window.since !== undefined && c.t < window.since) continue
    if (window.until !== undefined && c.t > window.until) continue
    const g = by.split(',').map((d) => valueOf(c, d, tz, facts)).join(' \u00B7 ')
    const s = out.get(g) ?? {calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0}
    s.calls++
    s.input += c.input
    s.output += c.output
    s.cacheRead += c.cacheRead
    s.cacheWrite += c.cacheWrite
    s.cost += c.cost
    out.set(g, s)
  }
  return out
}
