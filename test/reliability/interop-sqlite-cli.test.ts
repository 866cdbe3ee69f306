// Issue 16's acceptance proof for SQLite-era writes, through the CLI: what `clawkit agent -m`, `sessions reset` and
// `message send`'s mirror write into a SQLite store, real OpenClaw 2026.9.6 lists and continues with `agent --local`,
// and clawkit continues what OpenClaw wrote, both directions, with the model sent the whole history each time (every
// request recorded by the mock Anthropic server, both tools pointed at it).
// Skipped unless CLAWKIT_INTEROP_OPENCLAW96 (2026.9.6's openclaw.mjs) and CLAWKIT_INTEROP_NODE (Node 24) are set, as
// scripts/interop.sh does; see RELIABILITY.md. OpenClaw runs take seconds each: run one test at a time with -t.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, cliWith, json, jsonError, runCli, type RunResult, tempDir} from '../support/cli.js'
import {useServers} from '../support/servers.js'
import {IMPORTED_96, NATIVE_96} from '../support/sqlite.js'
import {both, cleanSent, enabled96 as enabled, events, expectSame, NODE, OPENCLAW, openclaw, openclawEnv, run, sentLines, shareCachedPluginRuntime, stateCopy} from './support/openclaw96.js'

let replies = 0
// Every model reply is a distinct "reply N", so the next request shows whether each earlier answer was sent back.
const servers = useServers({mock: {fallback: () => ({kind: 'text', text: `reply ${++replies}`})}, channels: true})

interface World {
  state: string
  home: string
}

/** A fixture copy (workspaces inside it) whose provider, the one its entries name, is the mock server. */
function world(fixture: string): World {
  const state = stateCopy(fixture)
  const cfgPath = path.join(state, 'openclaw.json')
  const cfg = JSON.parse(fs.readFileSync(cfgPath, 'utf8'))
  cfg.models.providers.mockant.baseUrl = servers.mock.url
  fs.writeFileSync(cfgPath, JSON.stringify(cfg, null, 2))
  shareCachedPluginRuntime(state)
  return {state, home: tempDir()}
}

const dbOf = (w: World, agent: string) => path.join(w.state, 'agents', agent, 'agent', 'openclaw-agent.sqlite')
const agentOf = (key: string) => key.split(':')[1]

function clawkit<const A extends readonly string[]>(w: World, args: A, timeoutMs = 120_000) {
  return cliWith(['--state-dir', w.state], {env: baseEnv(w.home, {ANTHROPIC_API_KEY: 'test-key'}), timeoutMs})(args)
}

/** One turn by either tool on `key`; returns the body of the one model request it made. */
async function turn(w: World, who: 'clawkit' | 'openclaw', key: string, text: string): Promise<any> {
  const before = servers.mock.messageRequests().length
  const r = who === 'clawkit'
    ? await clawkit(w, ['agent', '-m', text, '--session-key', key, '--json'])
    : await openclaw(['agent', '--local', '--session-key', key, '-m', text, '--json'], w.state, w.home, 600_000)
  expect(r.code, `${who} agent: ${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0)
  const sent = servers.mock.messageRequests().slice(before)
  expect(sent.length, `${who} made one model request`).toBe(1)
  return sent[0].body
}

const users = (body: any) => sentLines(body).filter((l) => l.startsWith('user: ') && l !== 'user: ').map((l) => l.slice(6))
const assistants = (body: any) => sentLines(body).filter((l) => l.startsWith('assistant: ')).map((l) => l.slice(11))

/** The user texts stored in a session, as the model is sent them (OpenClaw's own stored notices cut, as sentLines does). */
async function storedUsers(w: World, agent: string, sessionId: string): Promise<string[]> {
  const evs = await events(dbOf(w, agent), sessionId)
  return evs
    .filter((e) => e.event.type === 'message' && e.event.message.role === 'user')
    .map((e) => cleanSent(typeof e.event.message.content === 'string' ? e.event.message.content : e.event.message.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join(' ')))
    .filter((t) => t !== '')
}

/** The first line of each tool result stored in a session (imported agent:main:main keeps one zstd-compressed). */
async function storedToolResults(w: World, agent: string, sessionId: string): Promise<string[]> {
  const evs = await events(dbOf(w, agent), sessionId)
  return evs
    .filter((e) => e.event.type === 'message' && e.event.message.role === 'toolResult')
    .map((e) => (e.event.message.content ?? []).filter((b: any) => b.type === 'text').map((b: any) => b.text).join('\n').split('\n')[0])
}

/** The text of every tool_result block a request carried. */
const toolResultsSent = (body: any): string[] => body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []).filter((b: any) => b.type === 'tool_result').map((b: any) => (typeof b.content === 'string' ? b.content : (b.content ?? []).map((c: any) => c.text ?? '').join('\n'))))

/** Both listings of every agent agree (clawkit's comparison with OpenClaw's rows); returns OpenClaw's row for `key`. */
async function listedRow(w: World, key: string): Promise<any> {
  const {oc, ck} = await both(w.state, ['--all-agents'])
  expectSame(oc, ck)
  return oc.sessions.find((s: any) => s.key === key)
}

/**
 * clawkit, then OpenClaw, then clawkit on one key, on the same sessionId: each request holds every earlier user
 * message and every earlier reply, and after each turn both tools list the same rows.
 */
async function roundTrip(fixture: string, key: string): Promise<void> {
  const w = world(fixture)
  const agent = agentOf(key)
  const first = await listedRow(w, key)
  const expectedUsers = first ? await storedUsers(w, agent, first.sessionId) : []
  const toolResults = first ? await storedToolResults(w, agent, first.sessionId) : []
  const earlierReplies: string[] = []
  let sessionId: string | undefined = first?.sessionId
  for (const [i, who] of (['clawkit', 'openclaw', 'clawkit'] as const).entries()) {
    const text = `turn ${i + 1} by ${who} on ${key}`
    const body = await turn(w, who, key, text)
    expectedUsers.push(text)
    expect(users(body), `${who}'s request`).toEqual(expectedUsers)
    for (const reply of earlierReplies) expect(assistants(body), `${who}'s request`).toContain(reply)
    const sentResults = toolResultsSent(body)
    for (const first of toolResults) expect(sentResults.some((t) => t.startsWith(first)), `${who} sent the tool result "${first}"`).toBe(true)
    earlierReplies.push(`reply ${replies}`)
    const row = await listedRow(w, key)
    expect(row, key).toBeDefined()
    if (sessionId) expect(row.sessionId, `${who} continued the same session`).toBe(sessionId)
    sessionId = row.sessionId
    expect(row.totalTokens, `${who}'s turn counted`).toBeGreaterThan(0)
  }
  process.stderr.write(`interop-sqlite-cli: ${key} on ${fixture}: ${expectedUsers.length} user messages, ${toolResults.length} tool results, session ${sessionId}\n`)
}

describe.skipIf(!enabled)('interop through the CLI: clawkit and real OpenClaw 2026.9.6 take turns on one SQLite store', () => {
  it('an OpenClaw session (native agent:main:main): clawkit agent -m, openclaw agent --local, clawkit again; each request has the whole history and both list the same rows', async () => {
    await roundTrip(NATIVE_96, 'agent:main:main')
  }, 1_200_000)

  it('an imported session of a second agent (agent:work:main): clawkit, OpenClaw, clawkit with the whole history', async () => {
    await roundTrip(IMPORTED_96, 'agent:work:main')
  }, 1_200_000)

  it('an imported session with a zstd-compressed event and tool calls (imported agent:main:main): clawkit, OpenClaw, clawkit with the whole history', async () => {
    await roundTrip(IMPORTED_96, 'agent:main:main')
  }, 1_200_000)

  it('a session clawkit creates (--session-key agent:main:clawkit:x): OpenClaw continues it, then clawkit, with the whole history', async () => {
    await roundTrip(NATIVE_96, 'agent:main:clawkit:x')
  }, 1_200_000)

  it('after clawkit sessions reset, openclaw agent --local continues the NEW sessionId without the old history, lists it, and clawkit history shows its turn', async () => {
    const w = world(NATIVE_96)
    const key = 'agent:main:main'
    const reset = json(await clawkit(w, ['sessions', 'reset', key, '--json']))
    expect(reset.sessionId).not.toBe(reset.previousSessionId)
    const body = await turn(w, 'openclaw', key, 'first words after the reset')
    expect(users(body)).toEqual(['first words after the reset'])
    expect(assistants(body)).toEqual([])
    const reply = `reply ${replies}`
    const row = await listedRow(w, key)
    expect(row).toMatchObject({sessionId: reset.sessionId})
    const history = json(await clawkit(w, ['sessions', 'history', key, '--json']))
    expect(history.sessionId).toBe(reset.sessionId)
    const said = history.entries.filter((e: any) => e.type === 'message').map((e: any) => `${e.role}: ${cleanSent(e.text ?? '')}`)
    expect(said).toEqual(['user: first words after the reset', `assistant: ${reply}`])
    // The old window's events are untouched and OpenClaw did not write there.
    expect((await events(dbOf(w, 'main'), reset.previousSessionId)).length).toBe(19)
  }, 1_200_000)

  it('clawkit message send (webhook, --session-key) mirrors into an OpenClaw session: OpenClaw chains its next turn onto the copy but, like clawkit, does not send it to the model', async () => {
    // OpenClaw (2026.4.27 and 2026.9.6) never replays a delivery-mirror to the provider: it is a transcript record of
    // text the model already wrote or did not write. The proof is that its turn continues after the copy.
    const w = world(NATIVE_96)
    const key = 'agent:main:explicit:c0ffee00-0000-4000-8000-000000000096'
    const sent = await clawkit(w, ['message', 'send', '--channel', 'webhook', '-t', servers.fake.webhookUrl, '-m', 'mirrored status update', '--session-key', key, '--json'])
    expect(sent.code, sent.stdout + sent.stderr).toBe(0)
    const mirrored = json(sent).payload.mirrored
    expect(mirrored).toMatchObject({sessionKey: key, duplicate: false})
    const before = await listedRow(w, key)
    expect(before.sessionId).toBe(mirrored!.sessionId)
    const oc = await turn(w, 'openclaw', key, 'did the update go out?')
    expect(JSON.stringify(oc.messages)).not.toContain('mirrored status update')
    expect(users(oc)).toEqual(['explicit session hello', 'did the update go out?'])
    const evs = await events(dbOf(w, 'main'), before.sessionId)
    const at = evs.findIndex((e) => e.event.id === mirrored!.entryId)
    expect(at, 'the copy is in the session').toBeGreaterThan(0)
    expect(evs[at + 1].event.parentId, 'OpenClaw chained onto the copy').toBe(mirrored!.entryId)
    const ck = await turn(w, 'clawkit', key, 'and what now?')
    expect(JSON.stringify(ck.messages)).not.toContain('mirrored status update')
    expect(users(ck)).toEqual(['explicit session hello', 'did the update go out?', 'and what now?'])
    expect(assistants(ck)).toContain(`reply ${replies - 1}`)
    expect((await listedRow(w, key)).sessionId).toBe(before.sessionId)
  }, 1_200_000)

  it('while openclaw agent --local runs on the state dir, clawkit agent -m refuses with E_GATEWAY_OWNS_STATE and makes no model call; after it, clawkit continues its turn', async () => {
    const w = world(NATIVE_96)
    const key = 'agent:main:explicit:c0ffee00-0000-4000-8000-000000000096'
    const before = servers.mock.messageRequests().length
    servers.mock.push({kind: 'text', text: 'a slow answer', delayMs: 20_000})
    const running = run(NODE!, [OPENCLAW!, 'agent', '--local', '--session-key', key, '-m', 'take your time', '--json'], openclawEnv(w.home, w.state), w.home, 600_000)
    let done = false
    void running.then(() => (done = true))
    // OpenClaw holds the state dir for its whole run; once its model request is in flight it is certainly running.
    while (!done && servers.mock.messageRequests().length === before) await new Promise((r) => setTimeout(r, 100))
    expect(done, 'openclaw ended before its model call').toBe(false)
    const refused = await clawkit(w, ['agent', '-m', 'me too', '--session-key', key, '--json'])
    const stillRunning = !done
    const result = await running
    expect(result.code, result.stderr.slice(-3000)).toBe(0)
    expect(stillRunning, 'the refusal came while OpenClaw was still running').toBe(true)
    expect(refused.code).toBe(1)
    expect(jsonError(refused)).toMatchObject({code: 'E_GATEWAY_OWNS_STATE'})
    expect(jsonError(refused).message).toMatch(/^an "openclaw agent --local" run \(pid \d+/)
    expect(servers.mock.messageRequests().length - before, 'only OpenClaw called the model').toBe(1)
    // Its turn done, the state dir is free again, and clawkit's turn carries OpenClaw's.
    const body = await turn(w, 'clawkit', key, 'now me')
    expect(sentLines(body).slice(-3)).toEqual(['user: take your time', 'assistant: a slow answer', 'user: now me'])
  }, 1_200_000)
})
