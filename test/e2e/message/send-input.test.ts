// message send as a new user meets it: previews before a channel is set up, consistent exit codes for bad input,
// and platform errors that say what the platform said.
import {describe, expect, it} from 'vitest'

import {json, jsonError, runCli} from '../../support/cli.js'
import {useServers} from '../../support/servers.js'
import {setup, snapshot} from './helpers.js'

const servers = useServers({channels: true, clearRequests: true})

const send = (args: string[], env: Record<string, string>) => runCli(['message', 'send', ...args], {env})

describe('message send --dry-run without a token', () => {
  it('previews with a placeholder token, says the token is missing, exits 0 and sends and writes nothing', async () => {
    const {state, env} = setup(servers.fake, {env: {TELEGRAM_BOT_TOKEN: undefined}})
    const snap = snapshot(state)
    const r = await send(['--channel', 'telegram', '-t', '42', '-m', 'hi', '--dry-run', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`POST ${servers.fake.telegramBase}/bot<token missing>/sendMessage`)
    expect(r.stdout).toContain('Warning: Telegram token missing for account "default": the preview uses a placeholder; set channels.telegram.botToken in openclaw.json or TELEGRAM_BOT_TOKEN in the environment before sending')
    const j = await send(['--channel', 'slack', '-t', 'C0123ABCD', '-m', 'hi', '--dry-run', '--json', '--state-dir', state], {...env, SLACK_BOT_TOKEN: ''})
    expect(j.code, j.stderr).toBe(0)
    expect(json(j).payload).toMatchObject({dryRun: true, warnings: [expect.stringMatching(/^Slack token missing for account "default"/)]})
    expect(json(j).payload.requests![0]).toMatchObject({url: `${servers.fake.slackBase}/chat.postMessage`, headers: {authorization: 'Bearer <redacted>'}})
    // Without --dry-run the missing token is still an error (nothing could be sent).
    const real = await send(['--channel', 'telegram', '-t', '42', '-m', 'hi', '--state-dir', state], env)
    expect(real.code).toBe(1)
    expect(real.stderr).toContain('Error: Telegram token missing for account "default"')
    expect(servers.fake.requests).toHaveLength(0)
    expect(snapshot(state)).toEqual(snap)
  })
})

describe('message send: bad input exits 2, whichever check finds it', () => {
  it('an OpenClaw channel clawkit does not send to (--channel whatsapp) exits 2 like an unknown channel, also under --json', async () => {
    const {state, env} = setup(servers.fake)
    const cases: Array<[string[], string]> = [
      [['--channel', 'whatsapp', '-t', '+15550001', '-m', 'x'], 'E_CHANNEL_UNAVAILABLE'],
      [['--channel', 'pigeon', '-t', '1', '-m', 'x'], 'E_UNKNOWN_CHANNEL'],
      [['--channel', 'telegram', '-t', '1', '-m', ' '], 'E_EMPTY_MESSAGE'],
      [['--channel', 'telegram', '-t', 'not a chat', '-m', 'x'], 'E_BAD_TARGET'],
      [['--channel', 'telegram', '-t', '1', '-m', 'x', '--account', 'ghost'], 'E_UNKNOWN_ACCOUNT'],
      [['--channel', 'telegram', '-t', '1', '-m', 'x', '--reply-to', 'abc'], 'E_BAD_REPLY_TO'],
      [['--channel', 'discord', '-t', '123', '-m', 'x'], 'E_BAD_TARGET'],
    ]
    for (const [args, code] of cases) {
      const r = await send([...args, '--json', '--state-dir', state], env)
      expect(r.code, `${args.join(' ')}: ${r.stdout}`).toBe(2)
      expect(jsonError(r)).toMatchObject({code, exitCode: 2})
    }
    expect(servers.fake.requests).toHaveLength(0)
  })

  it('Discord -t 123: the message states the id rule the check applies (not "a numeric channel id" for a number it rejects)', async () => {
    const {state, env} = setup(servers.fake)
    const r = await send(['--channel', 'discord', '-t', '123', '-m', 'x', '--state-dir', state], env)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Invalid Discord target "123": Discord ids are numbers of 17 to 20 digits (e.g. 123456789012345678). Use channel:<id>, user:<id>, <@id> or a bare channel id.')
    const ok = await send(['--channel', 'discord', '-t', '12345678901234567', '-m', 'x', '--dry-run', '--state-dir', state], env)
    expect(ok.code, ok.stderr).toBe(0)
  })
})

describe('message send: platform errors in words', () => {
  it('Slack: an error field that is an object is formatted, never "[object Object]"', async () => {
    const {state, env} = setup(servers.fake)
    servers.fake.script('slack', {status: 400, body: {ok: false, error: {code: 'invalid_blocks', message: 'blocks[0] must be an object'}}})
    const r = await send(['--channel', 'slack', '-t', 'C0123ABCD', '-m', 'x', '--state-dir', state], env)
    expect(r.code).toBe(1)
    expect(r.stderr).not.toContain('[object Object]')
    expect(r.stderr).toContain('Error: Slack API error: invalid_blocks: blocks[0] must be an object')
  })

  it('Telegram and Discord: a non-string description or message is formatted too', async () => {
    const {state, env} = setup(servers.fake)
    servers.fake.script('telegram', {status: 400, body: {ok: false, error_code: 400, description: {text: 'Bad Request: odd'}}})
    const t = await send(['--channel', 'telegram', '-t', '42', '-m', 'x', '--state-dir', state], env)
    expect(t.code).toBe(1)
    expect(t.stderr).not.toContain('[object Object]')
    expect(t.stderr).toContain('Telegram API error 400: {"text":"Bad Request: odd"}')
    servers.fake.script('discord', {status: 400, body: {message: ['Invalid', 'Form'], code: 50035}})
    const d = await send(['--channel', 'discord', '-t', '123456789012345678', '-m', 'x', '--state-dir', state], env)
    expect(d.code).toBe(1)
    expect(d.stderr).toContain('Discord API error 400: ["Invalid","Form"] (code 50035)')
  })
})
