// message send must never write into a file that is not a transcript, and a delivered message is never reported as failed.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {json, runCli, sessionsJsonPath} from '../../support/cli.js'
import {writeLiveLock} from '../../support/locks.js'
import {useServers} from '../../support/servers.js'
import {setup, store} from './helpers.js'

const servers = useServers({channels: true})

describe('message send: mirror safety', () => {
  it('an entry whose sessionFile names sessions.json mirrors into the derived transcript; the index stays valid JSON', async () => {
    const {state, env} = setup(servers.fake)
    const file = sessionsJsonPath(state)
    const data = JSON.parse(fs.readFileSync(file, 'utf8'))
    data['agent:main:main'].sessionFile = 'sessions.json'
    fs.writeFileSync(file, JSON.stringify(data, null, 2))
    const r = await runCli(['message', 'send', '--channel', 'webhook', '-t', servers.fake.webhookUrl, '-m', 'hello', '--json', '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).payload.mirrored).not.toBeNull()
    expect(() => JSON.parse(fs.readFileSync(file, 'utf8'))).not.toThrow()
    const transcript = path.join(path.dirname(file), `${store(state)['agent:main:main'].sessionId}.jsonl`)
    expect(fs.readFileSync(transcript, 'utf8').trimEnd().split('\n').at(-1)).toContain('"model":"delivery-mirror"')
  })

  it('when the mirror cannot be written (transcript locked), the delivered send still reports success with mirrorError', async () => {
    servers.fake.requests.length = 0
    const {state, env} = setup(servers.fake)
    const transcript = path.join(path.dirname(sessionsJsonPath(state)), `${store(state)['agent:main:main'].sessionId}.jsonl`)
    // Our own test runner: a live pid that will not release the lock.
    writeLiveLock(`${transcript}.lock`)
    const r = await runCli(['message', 'send', '--channel', 'webhook', '-t', servers.fake.webhookUrl, '-m', 'deploy done', '--json', '--state-dir', state], {
      env: {...env, OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS: '300'},
    })
    expect(r.code, r.stdout).toBe(0)
    const doc = json(r)
    expect(doc.payload.result!.messageId).toBeTruthy()
    expect(doc.payload.mirrored).toBeNull()
    expect(doc.payload.mirrorError!.code).toBe('E_LOCK_TIMEOUT')
    expect(servers.fake.of('webhook')).toHaveLength(1)
  })
})
