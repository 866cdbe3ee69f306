import {describe, expect, it} from 'vitest'

import {splitText} from '../../src/channels/http.js'
import {resolveSendPolicy} from '../../src/channels/policy.js'
import {parseTarget, resolveOutboundRoute} from '../../src/channels/targets.js'

describe('resolveSendPolicy (OpenClaw order)', () => {
  const config = (rules: unknown[], def?: string) => ({session: {sendPolicy: {rules, default: def}}}) as any
  it('entry override beats every rule; no policy allows', () => {
    expect(resolveSendPolicy({config: config([{action: 'allow'}]), entry: {sessionId: 'a', updatedAt: 1, sendPolicy: 'deny'}}).decision).toBe('deny')
    expect(resolveSendPolicy({config: {}, sessionKey: 'agent:main:main'})).toEqual({decision: 'allow', source: 'none'})
  })
  it('a later matching deny wins over an earlier allow (edge: not first-match)', () => {
    const c = config([{action: 'allow', match: {channel: 'discord'}}, {action: 'deny', match: {chatType: 'channel'}}])
    expect(resolveSendPolicy({config: c, sessionKey: 'agent:main:discord:channel:1', channel: 'discord', chatType: 'channel'})).toEqual({decision: 'deny', source: 'rule', rule: 1})
  })
  it('keyPrefix, chatType "dm" alias, then default', () => {
    const c = config([{action: 'allow', match: {keyPrefix: 'AGENT:MAIN:SLACK:', chatType: 'dm'}}], 'deny')
    expect(resolveSendPolicy({config: c, sessionKey: 'agent:main:slack:direct:u1', chatType: 'direct'}).decision).toBe('allow')
    expect(resolveSendPolicy({config: c, sessionKey: 'agent:main:slack:channel:c1', chatType: 'channel'})).toEqual({decision: 'deny', source: 'default'})
  })
})

describe('targets and routes', () => {
  it('Telegram @username is a DM (collapses to main); negative ids are groups with topics in the peer id', () => {
    expect(resolveOutboundRoute({agentId: 'main', target: parseTarget('telegram', '@someone_here')}).sessionKey).toBe('agent:main:main')
    expect(resolveOutboundRoute({agentId: 'work', target: parseTarget('telegram', 'telegram:-100123'), threadId: '7'}).sessionKey).toBe('agent:work:telegram:group:-100123:topic:7')
  })
  it('dmScope per-account-channel-peer keys DMs by account; Discord <@id> mention is a user', () => {
    const target = parseTarget('discord', '<@!123456789012345678>')
    expect(target.kind).toBe('user')
    expect(resolveOutboundRoute({agentId: 'main', target, dmScope: 'per-account-channel-peer', accountId: 'ops'}).sessionKey).toBe('agent:main:discord:ops:direct:123456789012345678')
  })
  it('Slack G… ids follow the looked-up type (group DM, DM, channel); the type is ignored for C… ids and users', () => {
    const route = (raw: string, slackType?: 'channel' | 'group' | 'dm' | 'unknown', threadId?: string) => resolveOutboundRoute({agentId: 'main', target: parseTarget('slack', raw), slackType, threadId})
    expect(route('GABC123', 'group', '1.2')).toMatchObject({sessionKey: 'agent:main:slack:group:gabc123:thread:1.2', chatType: 'channel', from: 'slack:group:GABC123', to: 'channel:GABC123'})
    expect(route('GABC123', 'dm')).toMatchObject({sessionKey: 'agent:main:main', chatType: 'direct', from: 'slack:GABC123', to: 'user:GABC123'})
    for (const t of ['channel', 'unknown', undefined] as const) expect(route('GABC123', t)).toMatchObject({sessionKey: 'agent:main:slack:channel:gabc123', from: 'slack:channel:GABC123'})
    expect(route('CABC123', 'group').sessionKey).toBe('agent:main:slack:channel:cabc123')
    expect(route('user:UABC123', 'group').sessionKey).toBe('agent:main:main')
  })
})

describe('splitText', () => {
  it('splits at paragraph, line or word boundaries and never exceeds the limit (edge: no spaces at all)', () => {
    expect(splitText('aaaa bbbb cccc', 9)).toEqual(['aaaa bbbb', 'cccc'])
    expect(splitText('😀😀😀', 3)).toEqual(['😀', '😀', '😀'])
    expect(splitText('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)])
    for (const part of splitText('word '.repeat(1000), 2000)) expect(part.length).toBeLessThanOrEqual(2000)
  })
})
