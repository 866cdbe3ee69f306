// Each kind of model API failure through the real CLI: its error code, wording and hint, and the turn recorded as failed.
import {describe, expect, it} from 'vitest'

import {json, jsonError} from '../../support/cli.js'
import {agentEnvs, sessionFile, store, transcriptLines} from './setup.js'

const make = agentEnvs()
// No wait between the SDK's two retries, so that a retried status fails in milliseconds.
const NOW = {'retry-after-ms': '0'}
const KEPT = 'Your message is kept in session agent:main:main, followed by this error (OpenClaw keeps a failed turn the same way).'
const SEE = '"clawkit sessions history agent:main:main" shows it; "clawkit sessions reset agent:main:main" starts the session afresh'

const CASES = [
  {name: '401 (a wrong key)', status: 401, type: 'authentication_error', times: 1, code: 'E_API_AUTH', message: 'The model API rejected the key (401 authentication_error): invalid x-api-key', hint: 'Check ANTHROPIC_API_KEY or models.providers.anthropic.apiKey.'},
  {name: '403 (a key without access)', status: 403, type: 'permission_error', times: 1, code: 'E_API_AUTH', message: 'The model API rejected the key (403 permission_error): invalid x-api-key', hint: 'Check ANTHROPIC_API_KEY or models.providers.anthropic.apiKey.'},
  {name: '429 on every retry', status: 429, type: 'rate_limit_error', times: 3, code: 'E_API_RATE_LIMIT', message: 'The model API is rate limiting this key (429 rate_limit_error) and retries did not help: invalid x-api-key', hint: 'Wait a little and run the command again.'},
  {name: '529 overloaded on every retry', status: 529, type: 'overloaded_error', times: 3, code: 'E_API_UNAVAILABLE', message: 'The model API failed (529 overloaded_error) and retries did not help: invalid x-api-key', hint: 'Try again later.'},
  {name: 'a 400 that is not an overflow', status: 400, type: 'invalid_request_error', times: 1, code: 'E_API', message: 'The model API returned an error (400 invalid_request_error): invalid x-api-key', hint: undefined},
]

describe('model API errors', () => {
  for (const c of CASES) {
    it(`${c.name}: ${c.code}, exit 1, after ${c.times} request(s); the failed call is in the transcript and the index`, async () => {
      const a = await make()
      for (let i = 0; i < c.times; i++) a.mock.push({kind: 'error', status: c.status, type: c.type, message: 'invalid x-api-key', headers: NOW})
      const r = await a.run(['agent', '--agent', 'main', '-m', 'hello', '--json'])
      expect(r.code, r.stderr).toBe(1)
      const error = jsonError(r)
      // The turn had begun: the message stays in the session with the error after it, and the error says so.
      expect(error).toMatchObject({code: c.code, message: `${c.message}. ${KEPT}`, exitCode: 1})
      // Each command the hint names carries the run's --state-dir (hint-context.ts).
      expect(error.suggestions).toEqual([SEE.replaceAll('agent:main:main"', `agent:main:main --state-dir ${a.state}"`), ...(c.hint === undefined ? [] : [c.hint])])
      expect(a.mock.messageRequests()).toHaveLength(c.times)

      const last = transcriptLines(sessionFile(a.state, 'agent:main:main')).at(-1)
      expect(last.message).toMatchObject({role: 'assistant', content: [], stopReason: 'error', errorMessage: c.message})
      const entry = store(a.state)['agent:main:main']
      expect(entry).toMatchObject({abortedLastRun: false, modelProvider: 'anthropic'})
      expect('inputTokens' in entry).toBe(false)
    })
  }

  it('the plain-text error is one line plus the hint, no stack trace', async () => {
    const a = await make()
    a.mock.push({kind: 'error', status: 401, type: 'authentication_error', message: 'invalid x-api-key'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'hello'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('The model API rejected the key (401 authentication_error): invalid x-api-key')
    expect(r.stderr).toContain('Check ANTHROPIC_API_KEY')
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })
})
