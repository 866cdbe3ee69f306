// `clawkit agent` as a new user meets it: no selector at all, an unreachable API, a mistyped --model.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {json, jsonError, runCli, TWO_AGENTS} from '../support/cli.js'
import {agentEnvs, sessionFile, store, transcriptLines} from './agent/setup.js'
import {freePort} from '../support/net.js'
import {snapshot} from '../support/state-files.js'

const make = agentEnvs()

/** What a failed model call's error adds: the message stays in the session, as OpenClaw leaves it. */
const KEPT = 'Your message is kept in session agent:main:main, followed by this error (OpenClaw keeps a failed turn the same way).'

function writeSettings(home: string, settings: unknown): string {
  const dir = path.join(home, '.config', 'clawkit')
  fs.mkdirSync(dir, {recursive: true})
  const file = path.join(dir, 'config.json')
  fs.writeFileSync(file, JSON.stringify(settings))
  return file
}

describe('agent with no selector (the README\'s clawkit agent -m "...")', () => {
  it('no config and no settings: runs in the default agent\'s main session and says so on stderr', async () => {
    const a = await make()
    const r = await a.run(['agent', '-m', 'hello'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('Echo: hello\n')
    expect(r.stderr).toBe('Using session agent:main:main (the default agent); pass --agent, --session-key, --session-id or --to to choose another.\n')
    expect(store(a.state)['agent:main:main'].sessionId).toBeTruthy()
  })

  it('clawkit\'s "agent" setting picks that agent\'s main session; --json stdout stays the document, the note goes to stderr', async () => {
    const a = await make({fixture: TWO_AGENTS})
    const file = writeSettings(a.home, {agent: 'work'})
    const before = transcriptLines(sessionFile(a.state, 'agent:work:main', 'work')).length
    const r = await a.run(['agent', '-m', 'hello work', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).meta.agentMeta).toMatchObject({agentId: 'work', sessionKey: 'agent:work:main'})
    expect(r.stderr).toBe(`Using session agent:work:main (clawkit's "agent" setting in ${file}); pass --agent, --session-key, --session-id or --to to choose another.\n`)
    expect(transcriptLines(sessionFile(a.state, 'agent:work:main', 'work')).length).toBeGreaterThan(before)
  })

  it('the default agent of openclaw.json (agents.list default: true) when no setting names one', async () => {
    const a = await make({config: () => ({agents: {list: [{id: 'main'}, {id: 'ops', default: true}]}})})
    const r = await a.run(['agent', '-m', 'hi'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('Using session agent:ops:main (the default agent)')
    expect(store(a.state, 'ops')['agent:ops:main']).toBeTruthy()
  })

  it('an explicit selector prints no note; a setting naming an unknown agent is a usage error naming --session-key, with nothing written', async () => {
    const a = await make()
    const r = await a.run(['agent', '--agent', 'main', '-m', 'hi'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    const b = await make()
    writeSettings(b.home, {agent: 'ghost'})
    const bad = await b.run(['agent', '-m', 'hi'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^Error: clawkit's "agent" setting names an unknown agent "ghost"\. Pass --agent, --session-key, --session-id or --to/)
    expect(fs.existsSync(path.join(b.state, 'agents'))).toBe(false)
    expect(b.mock.messageRequests()).toHaveLength(0)
  })
})

describe('agent failures name their real cause', () => {
  it('--timeout 1 with the API unreachable (connection refused): the cause, not "timed out; the partial reply was kept"', async () => {
    const a = await make()
    const port = await freePort()
    const r = await runCli(['agent', '--agent', 'main', '-m', 'anyone there?', '--timeout', '1', '--state-dir', a.state], {env: {...a.env, ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`}})
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr.split('\n')[0]).toBe(`Error: Could not reach the model API at http://127.0.0.1:${port}: connection refused (ECONNREFUSED); --timeout ran out while retrying, and no reply was received. ${KEPT}`)
    // As pi records a failed call: the user message, then an assistant message with stopReason "error".
    const lines = transcriptLines(sessionFile(a.state, 'agent:main:main')).filter((l) => l.type === 'message')
    expect(lines.map((l) => l.message.role)).toEqual(['user', 'assistant'])
    expect(lines[1].message).toMatchObject({stopReason: 'error', content: [], errorMessage: expect.stringContaining('connection refused (ECONNREFUSED)')})
    expect(store(a.state)['agent:main:main'].abortedLastRun).toBe(false)
  })

  it('connection refused without --timeout: the errno cause after the retries, and --json carries it in the envelope', async () => {
    const a = await make()
    const port = await freePort()
    const r = await runCli(['agent', '--agent', 'main', '-m', 'x', '--json', '--state-dir', a.state], {env: {...a.env, ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`}})
    expect(r.code).toBe(1)
    expect(jsonError(r)).toMatchObject({code: 'E_API_CONNECTION', message: `Could not reach the model API at http://127.0.0.1:${port}: connection refused (ECONNREFUSED). ${KEPT}`})
  })

  it('a failed model call keeps the message in the session, as OpenClaw does: the error says so, and how to see or reset it', async () => {
    const a = await make()
    const port = await freePort()
    const r = await runCli(['agent', '--agent', 'main', '-m', 'is the message kept?', '--state-dir', a.state], {env: {...a.env, ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`}})
    expect(r.code).toBe(1)
    const [error, hint, ...rest] = r.stderr.trimEnd().split('\n')
    expect(rest).toEqual([])
    expect(error).toMatch(/^Error: Could not reach the model API at .*: connection refused \(ECONNREFUSED\)\. /)
    expect(error).toContain(KEPT)
    expect(hint).toMatch(/^ {2}hint: /)
    expect(hint).toContain('"clawkit sessions history agent:main:main')
    expect(hint).toContain('"clawkit sessions reset agent:main:main')
    expect(hint).toContain('Check the network and ANTHROPIC_BASE_URL')
    // What the error says is what the store holds: the message and the error entry after it.
    const msgs = transcriptLines(sessionFile(a.state, 'agent:main:main')).filter((l) => l.type === 'message').map((l) => l.message)
    expect(msgs.map((m) => [m.role, m.stopReason])).toEqual([['user', undefined], ['assistant', 'error']])
    expect(msgs[0].content[0].text).toBe('is the message kept?')
    const history = await runCli(['sessions', 'history', 'agent:main:main', '--state-dir', a.state], {env: a.env})
    expect(history.stdout).toContain('is the message kept?')
  })

  it('a failure before anything is written (no API key) does not claim the message was kept', async () => {
    const a = await make({envKey: false})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'x'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('No API key')
    expect(r.stderr).not.toContain('kept')
  })

  it('https to a server that speaks plain HTTP: the TLS failure is named, and a DNS failure says DNS', async () => {
    const a = await make()
    const url = a.mock.url.replace('http:', 'https:')
    const r = await runCli(['agent', '--agent', 'main', '-m', 'x', '--state-dir', a.state], {env: {...a.env, ANTHROPIC_BASE_URL: url}})
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(new RegExp(`^Error: Could not reach the model API at ${url.replaceAll('.', '\\.')}: TLS failed: [a-z ]+ \\((EPROTO|ERR_SSL_[A-Z_]+)\\)\\. Your message is kept`))
    const dns = await runCli(['agent', '--agent', 'main', '-m', 'x', '--state-dir', a.state], {env: {...a.env, ANTHROPIC_BASE_URL: 'http://no-such-host.invalid'}})
    expect(dns.code).toBe(1)
    expect(dns.stderr).toMatch(/^Error: Could not reach the model API at http:\/\/no-such-host\.invalid: (host not found: the DNS lookup failed \(ENOTFOUND\)|the DNS lookup timed out \(EAI_AGAIN\))\. Your message is kept/)
  })

  it('--timeout with a reachable API that sends no text in time: exit 124 and no claim of a kept partial reply', async () => {
    const a = await make()
    a.mock.push({kind: 'text', text: 'too late', delayMs: 8000})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'slow', '--timeout', '1'])
    expect(r.code).toBe(124)
    expect(r.stderr).toMatch(/^Error: agent turn timed out; no reply had arrived; your message was kept in \S+\.jsonl\.\n$/)
  })

  it('--model nope/nope (unknown provider) and a mistyped anthropic model are usage errors before any write or request', async () => {
    const a = await make({fixture: TWO_AGENTS})
    const before = snapshot(a.state)
    const r = await a.run(['agent', '--agent', 'main', '-m', 'x', '--model', 'nope/nope'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^Error: Unknown provider "nope" in --model \(nope\/nope\)\. Known providers: anthropic, mockant\.\n/)
    const typo = await a.run(['agent', '--agent', 'main', '-m', 'x', '--model', 'anthropic/claude-opsu-4-6', '--json'])
    expect(typo.code).toBe(2)
    expect(jsonError(typo)).toMatchObject({code: 'E_UNKNOWN_MODEL', message: 'Unknown model "anthropic/claude-opsu-4-6" in --model. Did you mean anthropic/claude-opus-4-6?', exitCode: 2})
    const unlisted = await a.run(['agent', '--agent', 'main', '-m', 'x', '--model', 'mockant/claude-other'])
    expect(unlisted.code).toBe(2)
    expect(unlisted.stderr).toContain('Unknown model "mockant/claude-other" in --model.')
    expect(snapshot(a.state)).toEqual(before)
    expect(a.mock.requests).toHaveLength(0)
    // Known ones still run: the built-in catalogue and the config's own models.
    const ok = await a.run(['agent', '--agent', 'main', '-m', 'x', '--model', 'anthropic/claude-sonnet-4-5'])
    expect(ok.code, ok.stderr).toBe(0)
  })

  it('a model the operator configured that clawkit\'s list does not know (a newer release) still runs; a configured unknown provider does not', async () => {
    const newer = await make({config: () => ({agents: {defaults: {model: {primary: 'anthropic/claude-opus-9-9'}}}})})
    const r = await newer.run(['agent', '-m', 'hi', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(newer.mock.messageRequests().at(-1)!.body.model).toBe('claude-opus-9-9')
    // The same id typed as --model is checked: there a typo is likelier than a release clawkit does not list.
    const typed = await newer.run(['agent', '-m', 'hi', '--model', 'anthropic/claude-opus-9-9'])
    expect(typed.code).toBe(2)
    const nowhere = await make({config: () => ({agents: {defaults: {model: {primary: 'nope/some-model'}}}})})
    const n = await nowhere.run(['agent', '-m', 'hi'])
    expect(n.code).toBe(2)
    expect(n.stderr).toContain('Unknown provider "nope" in the agent\'s configured model')
    expect(nowhere.mock.requests).toHaveLength(0)
  })
})
