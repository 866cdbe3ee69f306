import {describe, expect, it} from 'vitest'

import {classifySqliteKind} from '../../src/sessions/list.js'
import type {SessionEntry} from '../../src/store/types.js'

const entry = (extra: Record<string, unknown> = {}) => ({sessionId: 's', updatedAt: 1, ...extra}) as SessionEntry

describe('classifySqliteKind (2026.9.6 kinds)', () => {
  it('calls a cron key cron however it is cased or padded with empty parts (the cheap pre-test must not miss one)', () => {
    expect(classifySqliteKind('agent:main:cron:nightly', entry())).toBe('cron')
    expect(classifySqliteKind('agent:main:CRON:nightly:run:1', entry())).toBe('cron')
    expect(classifySqliteKind('agent:main::cron::x', entry())).toBe('cron')
    expect(classifySqliteKind(' Agent:Main:Cron:x', entry())).toBe('cron')
  })

  it('does not call a key cron when cron is not the start of its rest, or has no colon after it', () => {
    expect(classifySqliteKind('agent:main:telegram:direct:cron:1', entry())).toBe('direct')
    expect(classifySqliteKind('agent:main:cron', entry())).toBe('direct')
    expect(classifySqliteKind('cron:x', entry())).toBe('direct')
  })

  it('puts literal keys, then spawned children, then chat type and key shape, in that order', () => {
    expect(classifySqliteKind('global', entry({spawnedBy: 'agent:main:main'}))).toBe('global')
    expect(classifySqliteKind('agent:main:cron:x', entry({spawnedBy: 'agent:main:main'}))).toBe('cron')
    expect(classifySqliteKind('agent:main:subagent:1', entry({spawnedBy: 'agent:main:main'}))).toBe('spawn-child')
    expect(classifySqliteKind('agent:main:telegram:group:-100', entry())).toBe('group')
    expect(classifySqliteKind('agent:main:x', entry({chatType: 'channel'}))).toBe('group')
  })
})
