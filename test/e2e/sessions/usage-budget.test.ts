// Budgets through the real CLI: `sessions usage --max-cost [--per]` and the settings' budgets (`--check`) exit 7 when a
// limit is passed and 0 within; `--notify` sends one alert through message send's path to a fake Discord on
// 127.0.0.1, and none the second time in the same period (remembered in clawkit's data dir); the runaway detector
// names a session spending far above its own usual rate, in the check and in `status`. The calls are written at the
// test's own clock (a period is today's, this week's or this month's), in a zone where it is about noon (middayZone).
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, json, runCli, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {channelEnv, MISSING_DISCORD_CHANNEL} from '../../support/fake-channels.js'
import {useServers} from '../../support/servers.js'
import {middayZone} from '../../support/usage-store.js'

const servers = useServers({channels: true, clearRequests: true})
const CHANNEL = '123456789012345678'
const ZONE = middayZone()
const ZONE_RE = ZONE.replace(/[/+]/g, (c) => `\\${c}`)

/** Appends assistant calls (time, cost) to an agent's main session and moves its index entry's updatedAt to the last. */
function addCalls(state: string, agent: string, calls: {t: number; cost: number}[], opts: {only?: boolean} = {}): void {
  const dir = path.join(state, 'agents', agent, 'sessions')
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8'))
  const entry = index[`agent:${agent}:main`]
  const file = path.join(dir, `${entry.sessionId}.jsonl`)
  // `only`: the fixture's own calls (of a fixed day, inside or outside a week back from now) leave first.
  if (opts.only) fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split('\n').filter((l) => !l.includes('"usage"')).join('\n'))
  const lines = calls.map(({t, cost}, i) =>
    JSON.stringify({type: 'message', id: `b${t.toString(36)}${i}`, parentId: null, timestamp: new Date(t).toISOString(), message: {role: 'assistant', content: [{type: 'text', text: 'ok'}], provider: 'anthropic', model: 'claude-opus-4', usage: {input: 1000, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 1100, cost: {total: cost}}, timestamp: t}}),
  )
  fs.appendFileSync(file, `${lines.join('\n')}\n`)
  entry.updatedAt = Math.max(entry.updatedAt, ...calls.map((c) => c.t))
  fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(index, null, 2))
}

function setup() {
  const state = copyFixture(TWO_AGENTS)
  const home = tempDir()
  const env = baseEnv(home, {...channelEnv(servers.fake), OPENCLAW_STATE_DIR: state, TZ: ZONE})
  return {state, env, home}
}

const usage = (env: Record<string, string>, ...args: string[]) => runCli(['sessions', 'usage', '--all-agents', ...args], {env})

describe('sessions usage budgets', () => {
  it('--max-cost: exit 7 when this month\'s spend passes it, 0 within; --notify sends one alert to Discord, none the second time in the period', async () => {
    const {state, env} = setup()
    addCalls(state, 'main', [{t: Date.now() - 1000, cost: 3}])
    const within = await usage(env, '--max-cost', '100', '--per', 'month', '--notify', `discord:channel:${CHANNEL}`, '--json')
    expect(within.code, within.stderr).toBe(0)
    expect(json(within).budget?.budgets[0]).toMatchObject({maxCostUsd: 100, per: 'month', source: 'flag', over: false})
    expect(servers.fake.requests).toHaveLength(0)

    const over = await usage(env, '--max-cost', '2', '--per', 'month', '--notify', `discord:channel:${CHANNEL}`, '--json')
    expect(over.code, over.stderr).toBe(7)
    const doc = json(over)
    const b = doc.budget!
    expect(b.timezone).toBe(ZONE)
    expect(b.over).toBe(1)
    expect(b.budgets[0].spentUsd).toBeGreaterThanOrEqual(3)
    expect(b.budgets[0].period).toBe(new Date().toLocaleString('sv-SE', {timeZone: ZONE}).slice(0, 7))
    expect(b.alerts).toEqual([{about: '$2 per month (total)', channel: 'discord', target: `channel:${CHANNEL}`, status: 'sent'}])
    const sent = servers.fake.of('discord')
    expect(sent).toHaveLength(1)
    expect(sent[0].path).toContain(`/channels/${CHANNEL}/messages`)
    expect(sent[0].body.content).toMatch(new RegExp(String.raw`^clawkit: spend \$3\.\d\d passed the budget of \$2 per month \(total\) for \d{4}-\d\d \(${ZONE_RE}\)`))
    // Not mirrored into a session: an alert is not part of any conversation.
    expect(fs.readFileSync(path.join(state, 'agents', 'main', 'sessions', 'sessions.json'), 'utf8')).not.toContain(CHANNEL)

    const again = await usage(env, '--max-cost', '2', '--per', 'month', '--notify', `discord:channel:${CHANNEL}`)
    expect(again.code, again.stderr).toBe(7)
    expect(again.stdout).toMatch(new RegExp(String.raw`! Budget \$2 per month \(total, --max-cost\): \$3\.\d{4} spent in \d{4}-\d\d \(${ZONE_RE}\), OVER`))
    expect(again.stdout).toContain('already sent in this period')
    expect(servers.fake.of('discord')).toHaveLength(1)
    // Another limit is another alert.
    const other = await usage(env, '--max-cost', '1', '--per', 'month', '--notify', `discord:channel:${CHANNEL}`)
    expect(other.code).toBe(7)
    expect(servers.fake.of('discord')).toHaveLength(2)
  }, 60_000)

  it('a failed alert is said on stderr and not remembered: the next check sends it (here to a channel that exists)', async () => {
    const {state, env} = setup()
    addCalls(state, 'main', [{t: Date.now() - 1000, cost: 3}])
    // A channel Discord does not know (the fake answers 404): the send fails.
    const failed = await usage(env, '--max-cost', '2', '--per', 'week', '--notify', `discord:channel:${MISSING_DISCORD_CHANNEL}`, '--json')
    expect(failed.code).toBe(7)
    expect(json(failed).budget?.alerts[0].status).toBe('failed')
    expect(failed.stderr).toMatch(/^Warning: the alert about \$2 per week \(total\) could not be sent to discord:channel:\d+: .*the next check tries again\./m)
    servers.fake.requests.length = 0
    const retried = await usage(env, '--max-cost', '2', '--per', 'week', '--notify', `discord:channel:${CHANNEL}`, '--json')
    expect(json(retried).budget?.alerts[0].status).toBe('sent')
    expect(servers.fake.of('discord')).toHaveLength(1)
  }, 60_000)

  it('settings budgets per agent and model (--check, over every agent); a wrong one is an error naming it', async () => {
    const {state, env, home} = setup()
    const cfg = path.join(home, '.config', 'clawkit')
    fs.mkdirSync(cfg, {recursive: true})
    fs.writeFileSync(path.join(cfg, 'config.json'), JSON.stringify({budgets: [{maxCostUsd: 1, per: 'day', agent: 'work'}, {maxCostUsd: 1, per: 'day', model: 'gpt-5'}, {maxCostUsd: 1000, per: 'day'}]}))
    addCalls(state, 'work', [{t: Date.now() - 1000, cost: 1.5}])
    // The default agent alone is reported; the settings' limits cover every agent all the same.
    const r = await runCli(['sessions', 'usage', '--check', '--json'], {env})
    expect(r.code, r.stderr).toBe(7)
    const b = json(r).budget!
    expect(b.budgets.map((x) => [x.agent ?? x.model ?? 'total', x.over])).toEqual([['work', true], ['gpt-5', false], ['total', false]])
    expect(b.budgets[0].spentUsd).toBeCloseTo(1.5, 9)
    fs.writeFileSync(path.join(cfg, 'config.json'), JSON.stringify({budgets: [{maxCostUsd: -1, per: 'day'}]}))
    const bad = await runCli(['sessions', 'usage', '--check'], {env})
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('budgets[0].maxCostUsd must be a positive number of dollars')
    const noMax = await usage(env, '--per', 'day')
    expect(noMax.code).toBe(2)
    const noCheck = await usage(env, '--notify', 'discord:channel:1')
    expect(noCheck.code).toBe(2)
  }, 60_000)

  it('runaway: a session spending 5x its usual rate in the last hour is named in the check (exit 7) and in status; a steady one is not', async () => {
    const {state, env} = setup()
    const now = Date.now()
    const h = 3_600_000
    // main: $0.10 in each of five hours two days ago, then $6 in the last hour (60x).
    addCalls(state, 'main', [...[0, 1, 2, 3, 4].map((i) => ({t: now - 48 * h + i * h, cost: 0.1})), ...[1, 2, 3].map((i) => ({t: now - i * 60_000, cost: 2}))], {only: true})
    // work: $2 in each of five hours yesterday, then $2.50 in the last hour: its usual pace.
    addCalls(state, 'work', [...[0, 1, 2, 3, 4].map((i) => ({t: now - 24 * h + i * h, cost: 2})), {t: now - 120_000, cost: 2.5}], {only: true})
    const r = await usage(env, '--max-cost', '10000', '--json')
    expect(r.code, r.stderr).toBe(7)
    const b = json(r).budget!
    expect(b.over).toBe(0)
    expect(b.runaways).toEqual([{agentId: 'main', key: 'agent:main:main', sessionId: expect.any(String), lastHourUsd: 6, usualHourUsd: 0.1, lastHourCalls: 3}])
    const st = await runCli(['status', '--json'], {env})
    expect(st.code, st.stderr).toBe(0)
    expect(json(st).runaways).toEqual(b.runaways)
    // A runaway is alerted once per session and hour, as a limit once per period.
    const hourBefore = Math.floor(Date.now() / 3_600_000)
    const alerted = await usage(env, '--max-cost', '10000', '--notify', `discord:channel:${CHANNEL}`, '--json')
    expect(json(alerted).budget?.alerts).toEqual([{about: 'agent:main:main', channel: 'discord', target: `channel:${CHANNEL}`, status: 'sent'}])
    expect(servers.fake.of('discord')[0].body.content).toMatch(/^clawkit: runaway session agent:main:main \(agent main\) spent \$6\.00 in the last hour, 60x its usual \$0\.10 per active hour/)
    const quiet = await usage(env, '--max-cost', '10000', '--notify', `discord:channel:${CHANNEL}`, '--json')
    expect(quiet.code).toBe(7)
    // The same clock hour (the zone's hours are UTC's, shifted by whole hours): not sent again. Across an hour's turn it is.
    const sameHour = Math.floor(Date.now() / 3_600_000) === hourBefore
    expect(json(quiet).budget?.alerts[0].status).toBe(sameHour ? 'already' : 'sent')
    expect(servers.fake.of('discord')).toHaveLength(sameHour ? 1 : 2)
    const text = await runCli(['status'], {env})
    expect(text.stdout).toMatch(/^Runaway:? +agent:main:main \(agent main\) spent \$6\.00 in the last hour \(3 call\(s\)\); usually \$0\.10 per active hour$/m)
  }, 60_000)
})
