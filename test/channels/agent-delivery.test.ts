import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {deliverAgentReply, DELIVERY_CHANNEL_REQUIRED} from '../../src/channels/agent-delivery.js'
import {OpenClawState} from '../../src/store/state.js'
import {copyFixture, readIndexFile, sessionsJsonPath, TWO_AGENTS} from '../support/cli.js'
import {channelEnv, MISSING_TELEGRAM_CHAT, TELEGRAM_TOKEN} from '../support/fake-channels.js'
import {useServers} from '../support/servers.js'
import {keyTranscriptLines} from '../support/state-files.js'

const servers = useServers({channels: true, clearRequests: true})

function setup(route: Record<string, unknown> = {}, config?: Record<string, unknown>) {
  const stateDir = copyFixture(TWO_AGENTS)
  const file = sessionsJsonPath(stateDir)
  const data = readIndexFile(file)
  Object.assign(data['agent:main:main'], route)
  fs.writeFileSync(file, JSON.stringify(data, null, 2))
  if (config) fs.writeFileSync(path.join(stateDir, 'openclaw.json'), JSON.stringify(config))
  const env = {HOME: path.dirname(stateDir), ...channelEnv(servers.fake)}
  const state = OpenClawState.open({stateDir, env, ignoreSettings: true})
  return {state, stateDir, env}
}

const transcript = (stateDir: string, key: string): any[] => keyTranscriptLines(stateDir, key)

const lastRoute = {lastChannel: 'telegram', lastTo: 'telegram:123456789', lastAccountId: 'default', deliveryContext: {channel: 'telegram', to: 'telegram:123456789', accountId: 'default'}}

describe('deliverAgentReply', () => {
  it('implicit route: the session\'s last channel and target; no second copy in the session the reply came from', async () => {
    const {state, stateDir} = setup(lastRoute)
    const before = fs.readFileSync(sessionsJsonPath(stateDir), 'utf8')
    const r = await deliverAgentReply({state, agentId: 'main', sessionKey: 'agent:main:main', text: 'Here is the summary.'})
    expect(r).toMatchObject({channel: 'telegram', to: 'telegram:123456789', targetMode: 'implicit', accountId: 'default', mirrored: null, result: {chatId: '123456789'}})
    const [req] = servers.fake.of('telegram')
    expect(req.path).toBe(`/tg/bot${TELEGRAM_TOKEN}/sendMessage`)
    expect(req.body).toEqual({chat_id: 123_456_789, text: 'Here is the summary.'})
    expect(fs.readFileSync(sessionsJsonPath(stateDir), 'utf8')).toBe(before)
  })

  it('explicit channel and target: sends there and records a delivery mirror in the target\'s session', async () => {
    const {state, stateDir} = setup(lastRoute)
    const r = await deliverAgentReply({state, agentId: 'main', sessionKey: 'agent:main:main', text: 'Posted to the channel', channel: 'discord', replyTo: 'channel:123456789012345678'})
    expect(r).toMatchObject({channel: 'discord', targetMode: 'explicit', mirrored: {sessionKey: 'agent:main:discord:channel:123456789012345678', created: true, duplicate: false}})
    expect(servers.fake.of('discord')[0].body).toEqual({content: 'Posted to the channel'})
    const lines = transcript(stateDir, 'agent:main:discord:channel:123456789012345678')
    expect(lines[1].message).toMatchObject({provider: 'openclaw', model: 'delivery-mirror', content: [{type: 'text', text: 'Posted to the channel'}], idempotencyKey: r.idempotencyKey})
  })

  it('Slack thread comes from the session (lastThreadId) in implicit mode', async () => {
    const {state} = setup({lastChannel: 'slack', lastTo: 'channel:C0123ABCD', lastThreadId: '1712345678.000100', deliveryContext: {channel: 'slack', to: 'channel:C0123ABCD', accountId: 'default', threadId: '1712345678.000100'}})
    const r = await deliverAgentReply({state, agentId: 'main', sessionKey: 'agent:main:main', text: 'threaded'})
    expect(servers.fake.of('slack')[0].body).toEqual({channel: 'C0123ABCD', text: 'threaded', thread_ts: '1712345678.000100'})
    expect(r.threadId).toBe('1712345678.000100')
  })

  it('Telegram topic from a numeric lastThreadId reaches message_thread_id', async () => {
    const {state} = setup({lastChannel: 'telegram', lastTo: 'telegram:-1001234567890', lastThreadId: 42, deliveryContext: {channel: 'telegram', to: 'telegram:-1001234567890', accountId: 'default', threadId: 42}})
    const r = await deliverAgentReply({state, agentId: 'main', sessionKey: 'agent:main:main', text: 'topic reply'})
    expect(servers.fake.of('telegram')[0].body).toEqual({chat_id: -1_001_234_567_890, message_thread_id: 42, text: 'topic reply'})
    expect(r.mirrored?.sessionKey).toBe('agent:main:telegram:group:-1001234567890:topic:42')
  })

  it('errors as OpenClaw: no channel anywhere, a channel without a target, an unknown channel', async () => {
    const {state} = setup()
    await expect(deliverAgentReply({state, agentId: 'main', sessionKey: 'agent:main:main', text: 'x'})).rejects.toThrow(DELIVERY_CHANNEL_REQUIRED)
    const s2 = setup(lastRoute).state
    await expect(deliverAgentReply({state: s2, agentId: 'main', sessionKey: 'agent:main:main', text: 'x', channel: 'slack'})).rejects.toThrow('delivery target is required for slack: pass --to/--reply-to or configure a default target')
    await expect(deliverAgentReply({state: s2, agentId: 'main', sessionKey: 'agent:main:main', text: 'x', channel: 'pigeon', replyTo: '1'})).rejects.toThrow('Unknown channel: pigeon')
    expect(servers.fake.requests).toHaveLength(0)
  })

  it('send policy deny blocks before anything is sent', async () => {
    const {state} = setup(lastRoute, {session: {sendPolicy: {rules: [{action: 'deny', match: {keyPrefix: 'agent:main:main'}}]}}})
    await expect(deliverAgentReply({state, agentId: 'main', sessionKey: 'agent:main:main', text: 'x'})).rejects.toThrow('send blocked by session policy')
    expect(servers.fake.requests).toHaveLength(0)
  })

  it('a failed send names channel and target, writes nothing, and never shows the token', async () => {
    const {state, stateDir} = setup(lastRoute)
    const before = fs.readFileSync(sessionsJsonPath(stateDir), 'utf8')
    const err = await deliverAgentReply({state, agentId: 'main', sessionKey: 'agent:main:main', text: 'x', channel: 'telegram', replyTo: `-${MISSING_TELEGRAM_CHAT}`.slice(1)}).catch((error: Error) => error)
    expect(String(err)).toContain(`Delivery failed (telegram to ${MISSING_TELEGRAM_CHAT}): Telegram chat not found: ${MISSING_TELEGRAM_CHAT}`)
    expect(String(err)).not.toContain(TELEGRAM_TOKEN)
    expect(fs.readFileSync(sessionsJsonPath(stateDir), 'utf8')).toBe(before)
  })
})
