// `clawkit agent --deliver` through the real CLI: a mock model, fake chat platforms, the same channel code as `message send`.
import fs from 'node:fs'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {type AgentEnv, setup as setupAgent, sessionFile, store, transcriptLines} from './agent/setup.js'
import {json, readIndexFile, sessionsJsonPath, TWO_AGENTS} from '../support/cli.js'
import {channelEnv, type FakeChannels, startFakeChannels, TELEGRAM_TOKEN} from '../support/fake-channels.js'

let fake: FakeChannels
let a: AgentEnv
beforeEach(async () => {
  fake = await startFakeChannels()
  a = await setupAgent({fixture: TWO_AGENTS})
  Object.assign(a.env, channelEnv(fake))
})
afterEach(async () => {
  await a.mock.close()
  await fake.close()
})

function patchEntry(key: string, patch: Record<string, unknown>) {
  const file = sessionsJsonPath(a.state)
  const data = readIndexFile(file)
  data[key] = {...data[key], ...patch}
  fs.writeFileSync(file, JSON.stringify(data, null, 2))
}

describe('agent --deliver', () => {
  it('delivers the final reply to an explicit channel and target after the turn is stored', async () => {
    const r = await a.run(['agent', '--agent', 'main', '-m', 'ship it', '--deliver', '--channel', 'telegram', '--reply-to', '12345', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    expect(doc.payloads[0].text).toBe('Echo: ship it')
    expect(doc.delivery).toMatchObject({channel: 'telegram', to: '12345', targetMode: 'explicit'})
    // A DM collapses into agent:main:main, the session the reply came from: no second copy of the reply.
    expect(doc.delivery!.mirrored).toBeNull()
    const sent = fake.of('telegram').filter((q) => q.path.endsWith('/sendMessage'))
    expect(sent).toHaveLength(1)
    expect(sent[0].body).toMatchObject({chat_id: 12345, text: 'Echo: ship it'})
    const lines = transcriptLines(sessionFile(a.state, 'agent:main:main'))
    expect(lines.at(-1).message).toMatchObject({role: 'assistant', content: [{type: 'text', text: 'Echo: ship it'}]})
    expect(r.stdout).not.toContain(TELEGRAM_TOKEN)
  })

  it('uses the session\'s last route and mirrors into the group session the target maps to', async () => {
    patchEntry('agent:main:main', {deliveryContext: {channel: 'telegram', to: 'telegram:-100777', accountId: 'default'}, lastChannel: 'telegram', lastTo: 'telegram:-100777', lastAccountId: 'default'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'status please', '--deliver'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('Echo: status please\n')
    expect(r.stderr).toMatch(/^Delivered via telegram to telegram:-100777\. Message ID: \d+/m)
    const sent = fake.of('telegram').filter((q) => q.path.endsWith('/sendMessage'))
    expect(sent.map((q) => q.body.chat_id)).toEqual([-100777])
    const groupKey = 'agent:main:telegram:group:-100777'
    expect(store(a.state)[groupKey]).toMatchObject({chatType: 'group', lastChannel: 'telegram'})
    const hist = json(await a.run(['sessions', 'history', groupKey, '--json']))
    expect(hist.entries.at(-1)).toMatchObject({role: 'assistant', provider: 'openclaw', model: 'delivery-mirror', text: 'Echo: status please'})
  })

  it('a delivered copy (message send into agent:main:main) stays in the transcript but the next turn does not send it to the model, as OpenClaw does', async () => {
    const sent = await a.run(['message', 'send', '--channel', 'telegram', '-t', '12345', '-m', 'sent by hand', '--json'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(transcriptLines(sessionFile(a.state, 'agent:main:main')).at(-1).message).toMatchObject({provider: 'openclaw', model: 'delivery-mirror'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'what did I send?', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const messages = JSON.stringify(a.mock.messageRequests().at(-1)!.body.messages)
    expect(messages).not.toContain('sent by hand')
    expect(messages).toContain('what did I send?')
  })

  it('without a channel or a previous route it fails with OpenClaw\'s message, exit 1, and keeps the turn', async () => {
    const r = await a.run(['agent', '--agent', 'main', '-m', 'hello', '--deliver'])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('Echo: hello\n')
    expect(r.stderr).toContain('Error: delivery channel is required: pass --channel/--reply-channel or use a main session with a previous channel')
    expect(transcriptLines(sessionFile(a.state, 'agent:main:main')).at(-1).message.content[0].text).toBe('Echo: hello')
    const j = await a.run(['agent', '--agent', 'main', '-m', 'again', '--deliver', '--json'])
    expect(j.code).toBe(1)
    expect(json(j).deliveryError!.code).toBe('E_DELIVERY_CHANNEL_REQUIRED')
    expect(fake.requests).toHaveLength(0)
  })

  it('a session whose sendPolicy is deny sends nothing: "send blocked by session policy"', async () => {
    patchEntry('agent:main:main', {sendPolicy: 'deny'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'hello', '--deliver', '--channel', 'telegram', '--reply-to', '42'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('send blocked by session policy')
    expect(fake.requests).toHaveLength(0)
  })
  it('the turn is stored but the index update failed (sessions.json torn mid-turn): nothing is sent, and the error and --json deliveryError say so', async () => {
    const TORN = '{\n  "agent:main:main": {\n    "sessionId": "0caed29d'
    let file = ''
    const b = await setupAgent({fixture: TWO_AGENTS, mock: {fallback: () => (fs.writeFileSync(file, TORN), {kind: 'text', text: 'not for the chat'})}})
    try {
      Object.assign(b.env, channelEnv(fake))
      file = sessionsJsonPath(b.state)
      const intact = fs.readFileSync(file)
      const r = await b.run(['agent', '--agent', 'main', '-m', 'ship it', '--deliver', '--channel', 'telegram', '--reply-to', '12345'])
      expect(r.code).toBe(1)
      expect(r.stdout).toBe('not for the chat\n')
      const lines = r.stderr.trimEnd().split('\n')
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(/^Error: The turn is stored in .*, but the session index could not be updated: .*The reply was not delivered\.$/)
      expect(lines[1]).toMatch(/^ {2}hint: .*do not send the message again.*not delivered because the session index is in an unknown state/)
      fs.writeFileSync(file, intact)
      const j = await b.run(['agent', '--agent', 'main', '-m', 'again', '--deliver', '--channel', 'telegram', '--reply-to', '12345', '--json'])
      expect(j.code).toBe(1)
      const doc = json(j)
      expect(doc.payloads).toEqual([{text: 'not for the chat', mediaUrl: null}])
      expect(doc.error!.exitCode).toBe(1)
      expect(doc.deliveryError).toMatchObject({code: 'E_NOT_DELIVERED', message: expect.stringMatching(/not delivered/)})
      expect(doc.delivery).toBeUndefined()
      expect(fake.requests).toHaveLength(0)
    } finally {
      await b.mock.close()
    }
  })
  it('a timed-out turn with --deliver: nothing is sent, stderr says the reply was not delivered, --json has deliveryError E_NOT_DELIVERED', async () => {
    a.mock.push({kind: 'stall', text: 'half an answer'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'slow', '--timeout', '1', '--deliver', '--channel', 'telegram', '--reply-to', '12345'])
    expect(r.code).toBe(124)
    expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^Error: agent turn timed out; the partial reply was kept in \S+\. The reply was not delivered\.$/)])
    a.mock.push({kind: 'stall', text: 'half an answer'})
    const j = await a.run(['agent', '--agent', 'main', '-m', 'slow', '--timeout', '1', '--deliver', '--channel', 'telegram', '--reply-to', '12345', '--json'])
    expect(j.code).toBe(124)
    expect(json(j).deliveryError).toEqual({code: 'E_NOT_DELIVERED', message: 'The reply was not delivered: the turn timed out, and only a completed turn is delivered.'})
    expect(fake.requests).toHaveLength(0)
  })
})
