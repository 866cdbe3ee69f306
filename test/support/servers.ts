// Test support: the stand-in servers a test file needs (mock Anthropic API, fake chat platforms), started once per file.
import {afterAll, beforeAll, beforeEach} from 'vitest'

import {type FakeChannels, startFakeChannels} from './fake-channels.js'
import {type MockAnthropic, type MockOptions, startMockAnthropic} from './mock-anthropic.js'

export interface Servers {
  /** The mock Anthropic API (only when asked for with `mock`). */
  readonly mock: MockAnthropic
  /** The fake Telegram/Discord/Slack/webhook servers (only when asked for with `channels`). */
  readonly fake: FakeChannels
}

/**
 * Start the servers before the file's tests and close them after. With `clearRequests`, the fake channels forget what
 * they recorded before each test, so a test sees only its own requests.
 */
export function useServers(opts: {mock?: MockOptions | true; channels?: boolean; clearRequests?: boolean}): Servers {
  let mock: MockAnthropic | undefined
  let fake: FakeChannels | undefined
  beforeAll(async () => {
    if (opts.mock) mock = await startMockAnthropic(opts.mock === true ? {} : opts.mock)
    if (opts.channels) fake = await startFakeChannels()
  })
  afterAll(async () => {
    await mock?.close()
    await fake?.close()
  })
  if (opts.clearRequests) beforeEach(() => void (fake && (fake.requests.length = 0)))
  return {
    get mock() {
      if (!mock) throw new Error('useServers: no mock Anthropic server (pass {mock: true})')
      return mock
    },
    get fake() {
      if (!fake) throw new Error('useServers: no fake channels (pass {channels: true})')
      return fake
    },
  }
}
