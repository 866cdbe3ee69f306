import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {normalizeAgentId} from '../../src/config/agent-id.js'
import {
  buildPeerSessionKey,
  canonicalizeLegacyKey,
  classifySessionKind,
  parseAgentSessionKey,
  parseSessionKey,
  resolveAgentIdFromKey,
  toAgentStoreSessionKey,
  transcriptTopicId,
} from '../../src/store/session-key.js'

describe('session keys', () => {
  it.each([
    ['agent:main:main', {shape: 'main', agentId: 'main'}],
    ['agent:main:direct:+15551234567', {shape: 'direct', peerId: '+15551234567'}],
    ['agent:main:dm:+15551234567', {shape: 'direct', legacyDm: true}],
    ['agent:main:telegram:direct:42', {shape: 'direct', channel: 'telegram', peerId: '42'}],
    ['agent:main:telegram:acct1:direct:42', {shape: 'direct', channel: 'telegram', accountId: 'acct1'}],
    ['agent:main:telegram:group:-100123', {shape: 'group', channel: 'telegram', peerId: '-100123'}],
    ['agent:main:telegram:group:-100123:topic:42', {shape: 'group', peerId: '-100123:topic:42', topicId: '42'}],
    ['agent:main:discord:channel:987', {shape: 'channel', channel: 'discord'}],
    ['agent:main:slack:channel:c1:thread:1700000000.1', {shape: 'channel', threadId: '1700000000.1'}],
    ['agent:ops:subagent:2f1c', {shape: 'subagent', agentId: 'ops'}],
    ['agent:main:cron:daily', {shape: 'cron'}],
    ['agent:main:cron:daily:run:abc', {shape: 'cron-run'}],
    ['agent:main:hook:gmail:1', {shape: 'hook'}],
    ['agent:main:explicit:0a1b', {shape: 'explicit'}],
    ['agent:main:acp:9f', {shape: 'acp'}],
    ['agent:main:main:heartbeat', {shape: 'heartbeat'}],
    ['global', {shape: 'global'}],
    ['unknown', {shape: 'unknown'}],
    ['main', {shape: 'legacy'}],
    ['+15551234567', {shape: 'legacy'}],
    ['Agent:Main:MAIN', {shape: 'main', key: 'agent:main:main'}],
  ])('parses %s', (key, want) => {
    expect(parseSessionKey(key)).toMatchObject(want)
  })

  it('kind matches OpenClaw 2026.4.27: literal global/unknown, group by chatType or key, else direct', () => {
    expect(classifySessionKind('global')).toBe('global')
    expect(classifySessionKind('unknown')).toBe('unknown')
    expect(classifySessionKind('agent:main:telegram:group:-1')).toBe('group')
    expect(classifySessionKind('agent:main:discord:channel:1')).toBe('group')
    expect(classifySessionKind('agent:main:main', {chatType: 'group'})).toBe('group')
    expect(classifySessionKind('agent:main:main', {chatType: 'channel'})).toBe('group')
    expect(classifySessionKind('agent:main:subagent:x')).toBe('direct')
    expect(classifySessionKind('agent:main:cron:x')).toBe('direct')
    expect(classifySessionKind('+15551234567')).toBe('direct')
  })

  it('builds DM keys per dmScope and never collapses groups', () => {
    const base = {agentId: 'Main', channel: 'Telegram', peerKind: 'direct' as const, peerId: 'Alice'}
    expect(buildPeerSessionKey(base)).toBe('agent:main:main')
    expect(buildPeerSessionKey({...base, dmScope: 'per-peer'})).toBe('agent:main:direct:alice')
    expect(buildPeerSessionKey({...base, dmScope: 'per-channel-peer'})).toBe('agent:main:telegram:direct:alice')
    expect(buildPeerSessionKey({...base, dmScope: 'per-account-channel-peer'})).toBe('agent:main:telegram:default:direct:alice')
    expect(buildPeerSessionKey({...base, peerKind: 'group', peerId: '-100', topicId: 42})).toBe('agent:main:telegram:group:-100:topic:42')
    expect(buildPeerSessionKey({...base, peerKind: 'channel', peerId: 'C1', threadId: '17.5'})).toBe('agent:main:telegram:channel:c1:thread:17.5')
  })

  it('maps request keys like toAgentStoreSessionKey', () => {
    expect(toAgentStoreSessionKey('work', '')).toBe('agent:work:main')
    expect(toAgentStoreSessionKey('work', 'main')).toBe('agent:work:main')
    expect(toAgentStoreSessionKey('work', 'Agent:Ops:Main')).toBe('agent:ops:main')
    expect(toAgentStoreSessionKey('main', 'hook:abc')).toBe('agent:main:hook:abc')
  })

  it('canonicalizes pre-multi-agent keys', () => {
    expect(canonicalizeLegacyKey('main', 'main')).toBe('agent:main:main')
    expect(canonicalizeLegacyKey('main', 'group:123@g.us')).toBe('agent:main:whatsapp:group:123@g.us')
    expect(canonicalizeLegacyKey('main', 'group:abc')).toBe('agent:main:unknown:group:abc')
    expect(canonicalizeLegacyKey('main', '+1555')).toBe('agent:main:+1555')
    expect(canonicalizeLegacyKey('main', 'global')).toBe('global')
  })

  it('finds the topic id used in -topic- transcript names', () => {
    expect(transcriptTopicId('agent:main:telegram:group:-100:topic:42')).toBe('42')
    expect(transcriptTopicId('agent:main:slack:channel:c1:thread:171.2')).toBe('171.2')
    expect(transcriptTopicId('agent:main:main')).toBeUndefined()
  })

  it('finds the topic id of an upper-case or padded key, and agrees with the full parse on keys without one (the fast path)', () => {
    expect(transcriptTopicId(' Agent:Main:Slack:Channel:C1:THREAD:171.2 ')).toBe('171.2')
    expect(transcriptTopicId('agent:main:telegram:group:-100:TOPIC:42')).toBe('42')
    for (const key of ['agent:main:main', 'agent:main:telegram:group:-100', 'agent:main:topic', 'agent:main:x:thread', 'global', 'thread:1', 'agent:main:slack:channel:c1:thread:', 'agent:main:direct:topic:x']) {
      const full = parseSessionKey(key)
      expect(transcriptTopicId(key), key).toBe(full.threadId ?? full.topicId)
    }
  })

  it('normalizes agent ids as OpenClaw', () => {
    expect(normalizeAgentId('')).toBe('main')
    expect(normalizeAgentId('Work')).toBe('work')
    expect(normalizeAgentId(' My Agent! ')).toBe('my-agent')
    expect(normalizeAgentId('../../etc')).toBe('etc')
    expect(normalizeAgentId('x'.repeat(80))).toHaveLength(64)
    expect(normalizeAgentId('!!!')).toBe('main')
  })
})

describe('resolveAgentIdFromKey fast path', () => {
  // The general rule, spelled out: the second non-empty segment of the trimmed, lowercased key, normalized.
  const general = (key: string, fallback: string) => {
    const parsed = parseAgentSessionKey(key)
    return parsed ? normalizeAgentId(parsed.agentId) : fallback
  }

  it('agrees with the general parse on keys built from awkward pieces (case, spaces, empty segments, long ids)', () => {
    const piece = fc.constantFrom('agent', 'Agent', 'main', 'Work', 'a'.repeat(64), 'b'.repeat(65), 'x_y-z', ' ', '\t', '', 'telegram', 'group', '-100', 'é', 'thread')
    fc.assert(
      fc.property(fc.array(piece, {maxLength: 6}), fc.constantFrom(':', '::'), (pieces, sep) => {
        const key = pieces.join(sep)
        expect(resolveAgentIdFromKey(key, 'fallback')).toBe(general(key, 'fallback'))
      }),
      {numRuns: 2000},
    )
  })

  it('an empty fallback is never taken for a canonical id, whatever came before (agent::x:y is agent x)', () => {
    for (const before of ['', 'main', '']) {
      resolveAgentIdFromKey(`agent:${before}:main`, before)
      expect(resolveAgentIdFromKey('agent::x:y', '')).toBe(general('agent::x:y', ''))
      expect(resolveAgentIdFromKey('agent::x:y', '')).toBe('x')
    }
  })

  it('agrees with the general parse when the fallback is the key\'s own agent (the store\'s agent: no regex at all)', () => {
    const id = fc.constantFrom('main', 'work', 'Work', 'a'.repeat(64), 'b'.repeat(65), 'x_y-z', '-x', 'é', ' ', '')
    const rest = fc.constantFrom('main', 'telegram', 'group', '-100', ' ', '\t', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u200b', '', 'X', ':')
    fc.assert(
      fc.property(id, fc.array(rest, {maxLength: 4}), fc.constantFrom(':', '::'), (agent, pieces, sep) => {
        const key = ['agent', agent, ...pieces].join(sep)
        expect(resolveAgentIdFromKey(key, agent)).toBe(general(key, agent))
        // and with another fallback, right after the fast path answered
        expect(resolveAgentIdFromKey(key, 'fallback')).toBe(general(key, 'fallback'))
      }),
      {numRuns: 3000},
    )
  })

  it.each([
    ['agent:main:main', 'main'],
    ['agent:work:telegram:group:-100', 'work'],
    ['Agent:Work:main', 'work'],
    ['  agent:ops:main  ', 'ops'],
    ['agent::main:x', 'main'],
    ['agent:main:', 'fallback'],
    ['agent:main: ', 'fallback'],
    ['global', 'fallback'],
  ])('%j -> %s', (key, id) => {
    expect(resolveAgentIdFromKey(key, 'fallback')).toBe(id)
  })
})

describe('buildPeerSessionKey: identityLinks and empty DM peers (OpenClaw buildAgentPeerSessionKey)', () => {
  const links = {Alice: ['telegram:123', '  +15551234567 '], bob: ['discord:9'], '  ': ['telegram:777'], broken: 'telegram:888'}
  it.each([
    ['per-peer', 'telegram', '123', 'agent:main:direct:alice'],
    ['per-channel-peer', 'telegram', '123', 'agent:main:telegram:direct:alice'],
    ['per-account-channel-peer', 'telegram', '123', 'agent:main:telegram:default:direct:alice'],
    ['per-peer', 'whatsapp', '+15551234567', 'agent:main:direct:alice'], // a bare id matches on any channel
    ['per-peer', 'Discord', '9', 'agent:main:direct:bob'],
    ['per-peer', 'telegram', '9', 'agent:main:direct:9'], // discord:9 is not telegram:9
    ['per-peer', 'telegram', '777', 'agent:main:direct:777'], // a blank canonical name is skipped
    ['per-peer', 'telegram', '888', 'agent:main:direct:888'], // a non-list entry is skipped
    ['main', 'telegram', '123', 'agent:main:main'], // links never apply under the main scope
    ['per-peer', 'telegram', '  ', 'agent:main:main'], // a DM without a peer id falls back to main
  ] as const)('%s %s:%j -> %s', (dmScope, channel, peerId, key) => {
    expect(buildPeerSessionKey({agentId: 'main', channel, peerKind: 'direct', peerId, dmScope, identityLinks: links})).toBe(key)
  })

  it('groups and channels ignore identityLinks', () => {
    expect(buildPeerSessionKey({agentId: 'main', channel: 'telegram', peerKind: 'group', peerId: '123', dmScope: 'per-peer', identityLinks: links})).toBe('agent:main:telegram:group:123')
  })
})
