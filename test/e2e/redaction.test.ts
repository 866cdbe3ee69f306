// Secrets echoed by a server never leave clawkit: a Telegram stand-in that quotes the request path (with the bot token)
// in its 400, and an Anthropic stand-in that quotes the request headers (with the API key) in its error.
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {type AgentEnv, setup as setupAgent, providerConfig, sessionFile, transcriptLines} from './agent/setup.js'
import {baseEnv, copyFixture, json, jsonError, runCli, tempDir, TWO_AGENTS} from '../support/cli.js'
import {channelEnv, type FakeChannels, startFakeChannels, TELEGRAM_TOKEN} from '../support/fake-channels.js'

let fake: FakeChannels
const agents: AgentEnv[] = []
beforeEach(async () => {
  fake = await startFakeChannels()
})
afterEach(async () => {
  await fake.close()
  await Promise.all(agents.splice(0).map((a) => a.mock.close()))
})

const echoPath = {status: 400, body: (p: string) => ({ok: false, error_code: 400, description: `Bad Request: no route for ${p}`})}

function everything(r: {stdout: string; stderr: string}, dir?: string): string {
  let text = r.stdout + r.stderr
  if (dir) {
    const walk = (d: string) => {
      for (const name of fs.readdirSync(d)) {
        const p = path.join(d, name)
        if (fs.statSync(p).isDirectory()) walk(p)
        else text += fs.readFileSync(p, 'latin1')
      }
    }
    walk(dir)
  }
  return text
}

describe('redaction of secrets echoed by servers', () => {
  it('message send: a Telegram 400 that quotes the request path prints <redacted> for the token (stderr and --json)', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir(), channelEnv(fake))
    fake.script('telegram', echoPath, {times: 2})
    const r = await runCli(['message', 'send', '--channel', 'telegram', '-t', '42', '-m', 'x', '--state-dir', state], {env})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Error: Telegram API error 400: Bad Request: no route for /tg/bot<redacted>/sendMessage')
    const j = await runCli(['message', 'send', '--channel', 'telegram', '-t', '42', '-m', 'x', '--json', '--state-dir', state], {env})
    expect(jsonError(j).message).toContain('/tg/bot<redacted>/sendMessage')
    for (const out of [r, j]) expect(everything(out)).not.toContain(TELEGRAM_TOKEN)
    expect(everything(r)).not.toContain('TEST-telegram-secret')
  })

  it('message send: a token from channels.telegram.tokenFile (in no config value) is redacted too', async () => {
    const state = copyFixture(TWO_AGENTS)
    const tokenFile = path.join(tempDir(), 'tg-token')
    const token = '987654321:file-only-secret-token-abcdefghijk'
    fs.writeFileSync(tokenFile, `${token}\n`)
    const cfg = path.join(state, 'openclaw.json')
    fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace(/^\{/, `{ channels: { telegram: { tokenFile: ${JSON.stringify(tokenFile)} } },`))
    fake.script('telegram', echoPath)
    const env = baseEnv(tempDir(), {TELEGRAM_API_BASE: fake.telegramBase})
    const r = await runCli(['message', 'send', '--channel', 'telegram', '-t', '42', '-m', 'x', '--json', '--state-dir', state], {env})
    expect(r.code).toBe(1)
    expect(fake.of('telegram')[0].path).toContain(token)
    expect(jsonError(r).message).toContain('/bot<redacted>/sendMessage')
    expect(everything(r)).not.toContain('file-only-secret-token')
  })

  it('message send: a webhook that echoes its URL leaves out the key in the query string', async () => {
    const state = copyFixture(TWO_AGENTS)
    fake.script('webhook', {status: 400, body: (p: string) => ({error: `cannot route ${p}`})})
    const r = await runCli(['message', 'send', '--channel', 'webhook', '-t', `${fake.webhookUrl}?key=hook-secret-123456`, '-m', 'x', '--json', '--state-dir', state], {env: baseEnv(tempDir(), channelEnv(fake))})
    expect(r.code).toBe(1)
    expect(jsonError(r).message).toContain('cannot route /hook?<redacted>')
    expect(everything(r)).not.toContain('hook-secret-123456')
  })

  it('agent --deliver: the delivery error quotes the token-bearing path; stderr, --json and the session files stay clean', async () => {
    const a = await setupAgent({fixture: TWO_AGENTS})
    agents.push(a)
    Object.assign(a.env, channelEnv(fake))
    fake.script('telegram', echoPath, {times: 2})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'ship it', '--deliver', '--channel', 'telegram', '--reply-to', '12345'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('/bot<redacted>/sendMessage')
    const j = await a.run(['agent', '--agent', 'main', '-m', 'again', '--deliver', '--channel', 'telegram', '--reply-to', '12345', '--json'])
    expect(j.code).toBe(1)
    expect(json(j).deliveryError!.message).toContain('/bot<redacted>/sendMessage')
    for (const out of [r, j]) expect(everything(out, a.state)).not.toContain(TELEGRAM_TOKEN)
  })

  it('agent: an API error that echoes the request headers shows no key: env key (Bearer) and config key, stderr, --json and the transcript', async () => {
    const envKey = 'sk-ant-api03-ENVSECRET-abcdefghijklmnop'
    const a = await setupAgent()
    agents.push(a)
    a.env.ANTHROPIC_API_KEY = envKey
    a.mock.push({kind: 'echoHeaders'})
    const r = await a.run(['agent', '--agent', 'main', '-m', 'x'])
    expect(r.code).toBe(1)
    expect(a.mock.messageRequests()[0].headers.authorization).toBe(`Bearer ${envKey}`)
    expect(r.stderr).toContain('"authorization":"Bearer <redacted>"')
    expect(everything(r, a.state)).not.toContain('ENVSECRET')
    const errorMessage = transcriptLines(sessionFile(a.state, 'agent:main:main')).at(-1).message.errorMessage
    expect(errorMessage).toContain('<redacted>')

    // The key from models.providers.<name>.apiKey, with no env key at all.
    const b = await setupAgent({envKey: false, config: (url) => providerConfig(url)})
    agents.push(b)
    const cfg = path.join(b.state, 'openclaw.json')
    fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace('"sk-config"', '"sk-config-CONFIGSECRET-0123456789"'))
    b.mock.push({kind: 'echoHeaders'})
    const j = await b.run(['agent', '--agent', 'main', '-m', 'x', '--json'])
    expect(j.code).toBe(1)
    expect(jsonError(j).message).toContain('<redacted>')
    expect(j.stdout + j.stderr).not.toContain('CONFIGSECRET')
    expect(transcriptLines(sessionFile(b.state, 'agent:main:main')).at(-1).message.errorMessage).not.toContain('CONFIGSECRET')
  })
})
