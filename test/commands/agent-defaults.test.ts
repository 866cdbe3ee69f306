// `clawkit agent` as a new user meets it: no selector at all, an unreachable API, a mistyped --model.
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {json, runCli, TWO_AGENTS} from '../support/cli.js'
import {agentEnvs, sessionFile, store, transcriptLines} from '../agent/setup.js'

const make = agentEnvs()

function writeSettings(home: string, settings: unknown): string {
  const dir = path.join(home, '.config', 'clawkit')
  fs.mkdirSync(dir, {recursive: true})
  const file = path.join(dir, 'config.json')
  fs.writeFileSync(file, JSON.stringify(settings))
  return file
}

/** A 127.0.0.1 port with nothing listening on it (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = net.createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const {port} = srv.address() as net.AddressInfo
  await new Promise<void>((r) => srv.close(() => r()))
  return port
}

describe('agent with no selector (README: clawkit agent -m "hello")', () => {
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

export {closedPort, runCli}
