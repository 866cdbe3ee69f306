import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {json, jsonError, runCli} from '../../support/cli.js'
import {DISCORD_TOKEN, MISSING_DISCORD_CHANNEL, MISSING_TELEGRAM_CHAT, SLACK_TOKEN, TELEGRAM_TOKEN} from '../../support/fake-channels.js'
import {useServers} from '../../support/servers.js'
import {allFilesText, assertNoSecrets, mirrors, setup, snapshot, store, tempDir, transcriptLines} from './helpers.js'

const servers = useServers({channels: true, clearRequests: true})

const send = (args: string[], env: Record<string, string>) => runCli(['message', 'send', ...args], {env})

describe('message send: telegram', () => {
  it('sends text to a DM, prints OpenClaw\'s line, and mirrors into agent:main:main (DMs collapse under dmScope main)', async () => {
    const {state, env} = setup(servers.fake)
    const before = transcriptLines(state, 'agent:main:main')
    const r = await send(['--channel', 'telegram', '-t', '123456789', '-m', 'Build finished', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    const reqs = servers.fake.of('telegram')
    expect(reqs).toHaveLength(1)
    expect(reqs[0].path).toBe(`/tg/bot${TELEGRAM_TOKEN}/sendMessage`)
    expect(reqs[0].body).toEqual({chat_id: 123_456_789, text: 'Build finished'})
    expect(r.stdout).toMatch(/^✅ Sent via Telegram\. Message ID: \d+ \(chat 123456789\)\n/)

    const lines = transcriptLines(state, 'agent:main:main')
    expect(lines).toHaveLength(before.length + 1)
    const m = lines.at(-1)
    expect(m.parentId).toBe(before.at(-1).id)
    expect(m.message).toMatchObject({
      role: 'assistant',
      content: [{type: 'text', text: 'Build finished'}],
      api: 'openai-responses',
      provider: 'openclaw',
      model: 'delivery-mirror',
      usage: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0}},
      stopReason: 'stop',
    })
    expect(m.message.idempotencyKey).toMatch(/^clawkit-send-/)
    // The existing main entry keeps its identity; a one-off send fills the route only when none was recorded.
    const entry = store(state)['agent:main:main']
    expect(entry.sessionId).toBe('0caed29d-8df6-4457-a9cd-00bb9d2b22e3')
    expect(entry.lastChannel).toBe('telegram')
    expect(entry.deliveryContext).toEqual({channel: 'telegram', to: 'telegram:123456789', accountId: 'default'})

    const h = await runCli(['sessions', 'history', 'agent:main:main', '--json', '--state-dir', state], {env})
    expect(h.code, h.stderr).toBe(0)
    const last = json(h).entries.at(-1)
    expect(last).toMatchObject({role: 'assistant', text: 'Build finished', provider: 'openclaw', model: 'delivery-mirror'})
    assertNoSecrets([r.stdout, r.stderr, h.stdout, ...allFilesText(state)])
  })

  it('sends a local photo to a forum topic with reply and silent, creating the topic session with OpenClaw\'s route fields', async () => {
    const {state, env} = setup(servers.fake)
    const photo = path.join(tempDir(), 'chart.png')
    fs.writeFileSync(photo, 'PNGDATA')
    const r = await send(['--channel', 'telegram', '-t', '-1001234567890:topic:42', '-m', 'Weekly chart', '--media', photo, '--reply-to', '77', '--silent', '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    const [req] = servers.fake.of('telegram')
    expect(req.path).toBe(`/tg/bot${TELEGRAM_TOKEN}/sendPhoto`)
    expect(req.contentType).toMatch(/^multipart\/form-data/)
    expect(req.body).toMatchObject({chat_id: '-1001234567890', message_thread_id: '42', caption: 'Weekly chart', disable_notification: 'true', photo: {fileName: 'chart.png', text: 'PNGDATA'}})
    expect(JSON.parse(req.body.reply_parameters)).toEqual({message_id: 77, allow_sending_without_reply: true})

    const doc = json(r)
    const key = 'agent:main:telegram:group:-1001234567890:topic:42'
    expect(doc).toMatchObject({action: 'send', channel: 'telegram', dryRun: false, handledBy: 'core', payload: {channel: 'telegram', to: '-1001234567890:topic:42', via: 'direct', mediaUrl: photo, result: {chatId: '-1001234567890', parts: 1}, mirrored: {sessionKey: key, created: true, duplicate: false}}})
    const entry = store(state)[key]
    expect(entry).toMatchObject({
      sessionId: doc.payload.mirrored!.sessionId,
      chatType: 'group',
      channel: 'telegram',
      groupId: '-1001234567890:topic:42',
      deliveryContext: {channel: 'telegram', to: 'telegram:-1001234567890', accountId: 'default', threadId: 42},
      lastChannel: 'telegram',
      lastTo: 'telegram:-1001234567890',
      lastAccountId: 'default',
      lastThreadId: 42,
      origin: {provider: 'telegram', surface: 'telegram', chatType: 'group', from: 'telegram:group:-1001234567890:topic:42', to: 'telegram:-1001234567890', accountId: 'default', threadId: 42},
    })
    expect(path.basename(String(entry.sessionFile))).toBe(`${entry.sessionId}-topic-42.jsonl`)
    const lines = transcriptLines(state, key)
    expect(lines[0]).toMatchObject({type: 'session', version: 3, id: entry.sessionId, cwd: path.join(state, 'workspace')})
    expect(lines[1].parentId).toBeNull()
    expect(lines[1].message.content[0].text).toBe('Weekly chart\nchart.png')
    expect(lines[1].message.openclawMessageMeta).toMatchObject({channel: 'telegram', chatType: 'group', threadId: 42, providerMessageId: doc.payload.result!.messageId})
    const file = path.join(state, 'agents/main/sessions', path.basename(String(entry.sessionFile)))
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
  })

  it('sends a document by URL as JSON and splits text over the caption limit into a follow-up message', async () => {
    const {state, env} = setup(servers.fake)
    const long = 'x'.repeat(1500)
    const r = await send(['--channel', 'telegram', '-t', '@alice_bot_user', '-m', long, '--media', 'https://files.example.com/a/report.pdf?sig=1', '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    const reqs = servers.fake.of('telegram')
    expect(reqs.map((q) => q.path.split('/').at(-1))).toEqual(['sendDocument', 'sendMessage'])
    expect(reqs[0].body).toEqual({chat_id: '@alice_bot_user', document: 'https://files.example.com/a/report.pdf?sig=1'})
    expect(reqs[1].body).toEqual({chat_id: '@alice_bot_user', text: long})
    expect(json(r).payload.result!.parts).toBe(2)
  })

  it('429 with retry_after: waits and retries, then mirrors exactly once', async () => {
    const {state, env} = setup(servers.fake)
    servers.fake.script('telegram', {status: 429, body: {ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: {retry_after: 1}}})
    const r = await send(['--channel', 'telegram', '-t', '555', '-m', 'after limit', '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    expect(servers.fake.of('telegram')).toHaveLength(2)
    expect(mirrors(transcriptLines(state, 'agent:main:main')).map((l) => l.message.content[0].text)).toEqual(['after limit'])
  })

  it('429 with a retry-after beyond the bound fails at once with a clear message and writes nothing', async () => {
    const {state, env} = setup(servers.fake)
    const snap = snapshot(state)
    servers.fake.script('telegram', {status: 429, body: {ok: false, error_code: 429, description: 'Too Many Requests: retry after 3600', parameters: {retry_after: 3600}}})
    const r = await send(['--channel', 'telegram', '-t', '555', '-m', 'x', '--state-dir', state], env)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Error: Telegram rate limit: asked to retry after 3600s')
    expect(servers.fake.of('telegram')).toHaveLength(1)
    expect(snapshot(state)).toEqual(snap)
  })

  it('bad token (401) and unknown chat (400 chat not found) become clear errors; nothing is written, the token never shows', async () => {
    const {state, env} = setup(servers.fake, {env: {TELEGRAM_BOT_TOKEN: '999:wrong-secret-token'}})
    const snap = snapshot(state)
    const r = await send(['--channel', 'telegram', '-t', '555', '-m', 'x', '--json', '--state-dir', state], env)
    expect(r.code).toBe(1)
    expect(jsonError(r)).toMatchObject({code: 'E_CHANNEL_AUTH', exitCode: 1})
    expect(jsonError(r).message).toContain('Telegram rejected the bot token (401 Unauthorized)')
    expect(r.stdout + r.stderr).not.toContain('wrong-secret-token')

    const ok = setup(servers.fake)
    const r2 = await send(['--channel', 'telegram', '-t', MISSING_TELEGRAM_CHAT, '-m', 'x', '--state-dir', ok.state], ok.env)
    expect(r2.code).toBe(1)
    expect(r2.stderr).toContain(`Error: Telegram chat not found: ${MISSING_TELEGRAM_CHAT}`)
    expect(snapshot(state)).toEqual(snap)
    assertNoSecrets([r2.stdout, r2.stderr])

    // Unreachable API: a network error that names the origin only (the token lives in the path).
    const down = await send(['--channel', 'telegram', '-t', '555', '-m', 'x', '--json', '--state-dir', ok.state], {...ok.env, TELEGRAM_API_BASE: 'http://127.0.0.1:9'})
    expect(down.code).toBe(1)
    expect(jsonError(down).code).toBe('E_CHANNEL_NETWORK')
    expect(jsonError(down).message).toMatch(/^Telegram request failed: .+ at http:\/\/127\.0\.0\.1:9$/)
    assertNoSecrets([down.stdout, down.stderr])
  })
})

describe('message send: discord', () => {
  it('sends to channel:<id> with reply and silent flag, into the channel\'s own session', async () => {
    const {state, env} = setup(servers.fake)
    const r = await send(['--channel', 'discord', '-t', 'channel:123456789012345678', '-m', 'Deployed', '--reply-to', '111111111111111111', '--silent', '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    const [req] = servers.fake.of('discord')
    expect(req.path).toBe('/discord/channels/123456789012345678/messages')
    expect(req.headers.authorization).toBe(`Bot ${DISCORD_TOKEN}`)
    expect(req.body).toEqual({content: 'Deployed', message_reference: {message_id: '111111111111111111', fail_if_not_exists: false}, flags: 4096})
    const doc = json(r)
    expect(doc.payload.result!.channelId).toBe('123456789012345678')
    const key = 'agent:main:discord:channel:123456789012345678'
    expect(doc.payload.mirrored!.sessionKey).toBe(key)
    expect(store(state)[key]).toMatchObject({chatType: 'channel', lastTo: 'channel:123456789012345678', origin: {from: 'discord:channel:123456789012345678'}})
    expect(mirrors(transcriptLines(state, key))).toHaveLength(1)
  })

  it('user:<id> opens a DM channel and uploads a local file as multipart files[0]; with dmScope per-channel-peer the DM gets its own key', async () => {
    const {state, env} = setup(servers.fake, {config: {session: {dmScope: 'per-channel-peer'}}})
    const file = path.join(tempDir(), 'notes.txt')
    fs.writeFileSync(file, 'hello file')
    const r = await send(['--channel', 'discord', '-t', 'user:222222222222222222', '-m', 'see attached', '--media', file, '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    const [open, msg] = servers.fake.of('discord')
    expect(open.path).toBe('/discord/users/@me/channels')
    expect(open.body).toEqual({recipient_id: '222222222222222222'})
    expect(msg.path).toBe('/discord/channels/222222222222222223/messages')
    expect(JSON.parse(msg.body.payload_json)).toEqual({content: 'see attached', attachments: [{id: 0, filename: 'notes.txt'}]})
    expect(msg.body['files[0]']).toMatchObject({fileName: 'notes.txt', text: 'hello file'})
    expect(json(r).payload.mirrored!.sessionKey).toBe('agent:main:discord:direct:222222222222222222')
    expect(store(state)['agent:main:discord:direct:222222222222222222']).toMatchObject({chatType: 'direct', lastTo: 'user:222222222222222222'})
  })

  it('session.identityLinks with dmScope per-peer: DMs of one person on Telegram and Discord mirror into one session under the canonical name', async () => {
    const identityLinks = {Alice: ['telegram:123456789', 'DISCORD:222222222222222222']}
    const {state, env} = setup(servers.fake, {config: {session: {dmScope: 'per-peer', identityLinks}}})
    const tg = await send(['--channel', 'telegram', '-t', '123456789', '-m', 'from telegram', '--json', '--state-dir', state], env)
    expect(tg.code, tg.stderr).toBe(0)
    expect(json(tg).payload.mirrored!.sessionKey).toBe('agent:main:direct:alice')
    const dc = await send(['--channel', 'discord', '-t', 'user:222222222222222222', '-m', 'from discord', '--json', '--state-dir', state], env)
    expect(dc.code, dc.stderr).toBe(0)
    expect(json(dc).payload.mirrored!.sessionKey).toBe('agent:main:direct:alice')
    expect(mirrors(transcriptLines(state, 'agent:main:direct:alice')).map((l) => l.message.content[0].text)).toEqual(['from telegram', 'from discord'])
    // An unlinked person keeps their own key.
    const other = await send(['--channel', 'telegram', '-t', '555', '-m', 'hi', '--json', '--state-dir', state], env)
    expect(json(other).payload.mirrored!.sessionKey).toBe('agent:main:direct:555')
  })

  it('text over 2000 characters is split into several messages and mirrored once, whole', async () => {
    const {state, env} = setup(servers.fake)
    const text = `${'a'.repeat(1500)}\n\n${'b'.repeat(1500)}\n\n${'c'.repeat(1500)}`
    const r = await send(['--channel', 'discord', '-t', '123456789012345678', '-m', text, '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    const bodies = servers.fake.of('discord').map((q) => q.body.content)
    expect(bodies).toEqual(['a'.repeat(1500), 'b'.repeat(1500), 'c'.repeat(1500)])
    expect(json(r).payload.result!.messageIds).toHaveLength(3)
    const m = mirrors(transcriptLines(state, 'agent:main:discord:channel:123456789012345678'))
    expect(m.map((l) => l.message.content[0].text)).toEqual([text])
  })

  it('a failure after the first part of a split message says how much arrived, exits 1 and mirrors nothing', async () => {
    const {state, env} = setup(servers.fake)
    const snap = snapshot(state)
    servers.fake.script('discord', {status: 500, body: {message: 'Internal Server Error', code: 0}}, {after: 1})
    const r = await send(['--channel', 'discord', '-t', '123456789012345678', '-m', `${'a'.repeat(1900)}\n\n${'b'.repeat(1900)}`, '--state-dir', state], env)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Error: Discord API error 500: Internal Server Error (1 earlier part(s) of this message were delivered; nothing was mirrored)')
    expect(servers.fake.of('discord')).toHaveLength(2)
    expect(snapshot(state)).toEqual(snap)
  })

  it('unknown channel (404) fails with a clear message and writes nothing; 429 with a fractional retry_after is retried', async () => {
    const {state, env} = setup(servers.fake)
    const snap = snapshot(state)
    const r = await send(['--channel', 'discord', '-t', `channel:${MISSING_DISCORD_CHANNEL}`, '-m', 'x', '--state-dir', state], env)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`Error: Discord channel ${MISSING_DISCORD_CHANNEL} not found (Unknown Channel)`)
    expect(snapshot(state)).toEqual(snap)

    servers.fake.script('discord', {status: 429, body: {message: 'You are being rate limited.', retry_after: 0.05, global: false}, headers: {'retry-after': '1'}})
    const r2 = await send(['--channel', 'discord', '-t', 'channel:123456789012345678', '-m', 'ok', '--json', '--state-dir', state], env)
    expect(r2.code, r2.stderr).toBe(0)
    expect(servers.fake.of('discord').filter((q) => q.body?.content === 'ok')).toHaveLength(2)
  })
})

describe('message send: slack', () => {
  it('posts into a thread with thread_ts and mirrors into the thread session', async () => {
    const {state, env} = setup(servers.fake)
    const r = await send(['--channel', 'slack', '-t', 'channel:C0123ABCD', '-m', 'Follow-up', '--thread-id', '1712345678.000100', '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    const [req] = servers.fake.of('slack')
    expect(req.path).toBe('/slack/chat.postMessage')
    expect(req.headers.authorization).toBe(`Bearer ${SLACK_TOKEN}`)
    expect(req.body).toEqual({channel: 'C0123ABCD', text: 'Follow-up', thread_ts: '1712345678.000100'})
    const doc = json(r)
    expect(doc.payload.result).toMatchObject({channelId: 'C0123ABCD', messageId: expect.stringMatching(/^1700000000\.\d+$/)})
    const key = 'agent:main:slack:channel:c0123abcd:thread:1712345678.000100'
    expect(doc.payload.mirrored!.sessionKey).toBe(key)
    expect(store(state)[key]).toMatchObject({chatType: 'channel', deliveryContext: {channel: 'slack', to: 'channel:C0123ABCD', threadId: '1712345678.000100'}})
  })

  it('--reply-to wins over --thread-id for the thread and its session, and only a ts-shaped value is a thread (as OpenClaw)', async () => {
    const {state, env} = setup(servers.fake)
    const r = await send(['--channel', 'slack', '-t', 'C0123ABCD', '-m', 'both', '--reply-to', '1712345678.000200', '--thread-id', '1712345678.000100', '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    expect(servers.fake.of('slack')[0].body).toEqual({channel: 'C0123ABCD', text: 'both', thread_ts: '1712345678.000200'})
    expect(json(r).payload.mirrored!.sessionKey).toBe('agent:main:slack:channel:c0123abcd:thread:1712345678.000200')
    servers.fake.requests.length = 0
    const top = await send(['--channel', 'slack', '-t', 'C0123ABCD', '-m', 'not a ts', '--thread-id', 'general', '--json', '--state-dir', state], env)
    expect(top.code, top.stderr).toBe(0)
    expect(servers.fake.of('slack')[0].body).toEqual({channel: 'C0123ABCD', text: 'not a ts'})
  })

  it('uploads a local file with getUploadURLExternal (form), the upload URL, then completeUploadExternal to a user DM', async () => {
    const {state, env} = setup(servers.fake)
    const file = path.join(tempDir(), 'log.txt')
    fs.writeFileSync(file, 'line1\nline2\n')
    const r = await send(['--channel', 'slack', '-t', 'user:U0AAA1111', '-m', 'the log', '--media', file, '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    const reqs = servers.fake.of('slack')
    expect(reqs.map((q) => q.path.replace(/F\d+$/, 'F*'))).toEqual(['/slack/conversations.open', '/slack/files.getUploadURLExternal', '/slack/upload/F*', '/slack/files.completeUploadExternal'])
    expect(reqs[1].contentType).toBe('application/x-www-form-urlencoded')
    expect(reqs[1].body).toEqual({filename: 'log.txt', length: '12'})
    expect(reqs[2].raw.toString()).toBe('line1\nline2\n')
    expect(reqs[3].body).toEqual({files: [{id: expect.stringMatching(/^F\d+$/), title: 'log.txt'}], channel_id: 'DU0AAA1111', initial_comment: 'the log'})
    expect(json(r).payload.mirrored!.sessionKey).toBe('agent:main:main')
  })

  it('a G… id: conversations.info decides group DM (slack:group key) or private channel, as OpenClaw; C… ids are never looked up', async () => {
    const {state, env} = setup(servers.fake)
    const mpim = await send(['--channel', 'slack', '-t', 'channel:GMPIM0001', '-m', 'to the group DM', '--json', '--state-dir', state], env)
    expect(mpim.code, mpim.stderr).toBe(0)
    expect(servers.fake.of('slack').map((q) => q.path)).toEqual(['/slack/conversations.info', '/slack/chat.postMessage'])
    expect(servers.fake.of('slack')[0].body).toEqual({channel: 'GMPIM0001'})
    expect(json(mpim).payload.mirrored!.sessionKey).toBe('agent:main:slack:group:gmpim0001')
    // OpenClaw's route: the key and `from` say group, chatType stays channel.
    expect(store(state)['agent:main:slack:group:gmpim0001']).toMatchObject({chatType: 'channel', origin: {from: 'slack:group:GMPIM0001'}, deliveryContext: {to: 'channel:GMPIM0001'}})

    // A dry run calls nothing, not even the lookup (as OpenClaw's dry run resolves no mirror route).
    servers.fake.requests.length = 0
    const dry = await send(['--channel', 'slack', '-t', 'GMPIM0002', '-m', 'dry', '--dry-run', '--json', '--state-dir', state], env)
    expect(dry.code, dry.stderr).toBe(0)
    expect(servers.fake.of('slack')).toEqual([])
    expect(json(dry).payload.session.sessionKey).toBe('agent:main:slack:channel:gmpim0002')

    servers.fake.requests.length = 0
    const priv = await send(['--channel', 'slack', '-t', 'GPRIV0001', '-m', 'to the private channel', '--json', '--state-dir', state], env)
    expect(json(priv).payload.mirrored!.sessionKey).toBe('agent:main:slack:channel:gpriv0001')
    expect(servers.fake.of('slack').map((q) => q.path)).toEqual(['/slack/conversations.info', '/slack/chat.postMessage'])

    servers.fake.requests.length = 0
    const pub = await send(['--channel', 'slack', '-t', 'C0PUB0001', '-m', 'public', '--json', '--state-dir', state], env)
    expect(json(pub).payload.mirrored!.sessionKey).toBe('agent:main:slack:channel:c0pub0001')
    expect(servers.fake.of('slack').map((q) => q.path)).toEqual(['/slack/chat.postMessage'])
  })

  it('a G… id named in openclaw.json needs no lookup: dm.groupChannels (mpim:<id>) is a group, a channels key is a channel; a failed lookup stays a channel', async () => {
    const {state, env} = setup(servers.fake, {config: {channels: {slack: {dm: {groupChannels: ['mpim:gcfg0001']}, channels: {'#GCHAN0001': {}}}}}})
    const group = await send(['--channel', 'slack', '-t', 'GCFG0001', '-m', 'configured group', '--json', '--state-dir', state], env)
    expect(group.code, group.stderr).toBe(0)
    expect(json(group).payload.mirrored!.sessionKey).toBe('agent:main:slack:group:gcfg0001')
    const chan = await send(['--channel', 'slack', '-t', 'GCHAN0001', '-m', 'configured channel', '--json', '--state-dir', state], env)
    expect(json(chan).payload.mirrored!.sessionKey).toBe('agent:main:slack:channel:gchan0001')
    expect(servers.fake.of('slack').map((q) => q.path)).toEqual(['/slack/chat.postMessage', '/slack/chat.postMessage'])

    // A 5xx is retried, as OpenClaw's Slack client does, so a passing outage does not change the key.
    servers.fake.requests.length = 0
    servers.fake.script('slack', {status: 503, body: {ok: false, error: 'service_unavailable'}}, {pathEnds: 'conversations.info'})
    const retried = await send(['--channel', 'slack', '-t', 'GMPIM0003', '-m', 'after a 503', '--json', '--state-dir', state], env)
    expect(retried.code, retried.stderr).toBe(0)
    expect(servers.fake.of('slack').map((q) => q.path)).toEqual(['/slack/conversations.info', '/slack/conversations.info', '/slack/chat.postMessage'])
    expect(json(retried).payload.mirrored!.sessionKey).toBe('agent:main:slack:group:gmpim0003')

    servers.fake.requests.length = 0
    const unknown = await send(['--channel', 'slack', '-t', 'GMPIMMISSING', '-m', 'lookup fails', '--json', '--state-dir', state], env)
    expect(unknown.code, unknown.stderr).toBe(0)
    expect(servers.fake.of('slack').map((q) => q.path)).toEqual(['/slack/conversations.info', '/slack/chat.postMessage'])
    expect(json(unknown).payload.mirrored!.sessionKey).toBe('agent:main:slack:channel:gmpimmissing')
  })

  it('invalid_auth and a scripted 500 are failures that mirror nothing', async () => {
    const {state, env} = setup(servers.fake, {env: {SLACK_BOT_TOKEN: 'xoxb-not-valid'}})
    const snap = snapshot(state)
    const r = await send(['--channel', 'slack', '-t', 'C0123ABCD', '-m', 'x', '--state-dir', state], env)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Error: Slack rejected the bot token (invalid_auth)')
    const ok = setup(servers.fake)
    servers.fake.script('slack', {status: 500, body: {ok: false, error: 'internal_error'}})
    const r2 = await send(['--channel', 'slack', '-t', 'C0123ABCD', '-m', 'x', '--state-dir', state], ok.env)
    expect(r2.code).toBe(1)
    expect(r2.stderr).toContain('Error: Slack API error: internal_error')
    expect(snapshot(state)).toEqual(snap)
  })
})

describe('message send: webhook, policy, dry-run, idempotency, selection', () => {
  it('webhook posts one JSON document and mirrors into the main session', async () => {
    const {state, env} = setup(servers.fake, {config: {channels: {webhook: {headers: {'x-team': 'ops'}}}}})
    const r = await send(['--channel', 'webhook', '-t', servers.fake.webhookUrl, '-m', 'ping', '--media', 'https://cdn.example.com/x.png', '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    const [req] = servers.fake.of('webhook')
    expect(req.headers['x-team']).toBe('ops')
    expect(req.body).toMatchObject({channel: 'webhook', to: servers.fake.webhookUrl, text: 'ping', mediaUrl: 'https://cdn.example.com/x.png', replyTo: null, silent: false})
    expect(json(r).payload.result!.messageId).toMatch(/^wh-/)
    expect(mirrors(transcriptLines(state, 'agent:main:main')).at(-1).message.content[0].text).toBe('ping\nx.png')

    // A secret in the webhook URL (query string) is redacted like a token in --dry-run and in "to".
    const dry = await send(['--channel', 'webhook', '-t', `${servers.fake.webhookUrl}?key=hook-secret-123`, '-m', 'x', '--dry-run', '--json', '--state-dir', state], env)
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).not.toContain('hook-secret-123')
    expect(json(dry).payload.to).toBe(`${servers.fake.webhookUrl}?<redacted>`)
    expect(json(dry).payload.requests![0].url).toBe(`${servers.fake.webhookUrl}?<redacted>`)
  })

  it('session.sendPolicy rules deny: "send blocked by session policy", nothing sent, nothing written', async () => {
    const config = {session: {sendPolicy: {rules: [{action: 'allow', match: {channel: 'telegram'}}, {action: 'deny', match: {channel: 'discord', chatType: 'channel'}}], default: 'allow'}}}
    const {state, env} = setup(servers.fake, {config})
    const snap = snapshot(state)
    const r = await send(['--channel', 'discord', '-t', 'channel:123456789012345678', '-m', 'x', '--state-dir', state], env)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Error: send blocked by session policy')
    expect(servers.fake.requests).toHaveLength(0)
    expect(snapshot(state)).toEqual(snap)
    // The same config allows Telegram (first rule) and Discord DMs (no deny match, default allow).
    const ok = await send(['--channel', 'discord', '-t', 'user:222222222222222222', '-m', 'x', '--state-dir', state], env)
    expect(ok.code, ok.stderr).toBe(0)
  })

  it('an entry\'s sendPolicy "deny" wins over config; default "deny" blocks when no rule matches', async () => {
    const {state, env} = setup(servers.fake, {config: {session: {sendPolicy: {rules: [{action: 'allow', match: {keyPrefix: 'agent:main:slack:'}}], default: 'deny'}}}})
    const r = await send(['--channel', 'telegram', '-t', '42', '-m', 'x', '--json', '--state-dir', state], env)
    expect(r.code).toBe(1)
    expect(jsonError(r)).toMatchObject({code: 'E_SEND_BLOCKED', message: 'send blocked by session policy'})
    const ok = await send(['--channel', 'slack', '-t', 'C0123ABCD', '-m', 'allowed by prefix', '--state-dir', state], env)
    expect(ok.code, ok.stderr).toBe(0)

    const s2 = setup(servers.fake)
    const file = path.join(s2.state, 'agents/main/sessions/sessions.json')
    const data = JSON.parse(fs.readFileSync(file, 'utf8'))
    data['agent:main:main'].sendPolicy = 'deny'
    fs.writeFileSync(file, JSON.stringify(data, null, 2))
    servers.fake.requests.length = 0
    const r2 = await send(['--channel', 'telegram', '-t', '42', '-m', 'x', '--state-dir', s2.state], s2.env)
    expect(r2.code).toBe(1)
    expect(r2.stderr).toContain('send blocked by session policy')
    expect(servers.fake.requests).toHaveLength(0)
  })

  it('--dry-run prints the exact requests with tokens redacted and sends and writes nothing', async () => {
    const {state, env} = setup(servers.fake)
    const snap = snapshot(state)
    const r = await send(['--channel', 'discord', '-t', 'user:222222222222222222', '-m', 'hi', '--reply-to', '5555555555', '--dry-run', '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    const doc = json(r)
    expect(doc).toMatchObject({dryRun: true, payload: {dryRun: true, result: null, mirrored: null, session: {sessionKey: 'agent:main:main', exists: true}}})
    expect(doc.payload.requests).toEqual([
      {method: 'POST', url: `${servers.fake.discordBase}/users/@me/channels`, headers: {authorization: 'Bot <redacted>', 'content-type': 'application/json'}, body: {recipient_id: '222222222222222222'}, bodyType: 'json', note: 'open the DM channel with the user'},
      {method: 'POST', url: `${servers.fake.discordBase}/channels/<dm channel of user 222222222222222222>/messages`, headers: {authorization: 'Bot <redacted>', 'content-type': 'application/json'}, body: {content: 'hi', message_reference: {message_id: '5555555555', fail_if_not_exists: false}}, bodyType: 'json'},
    ])
    const t = await send(['--channel', 'telegram', '-t', '42', '-m', 'hi', '--dry-run', '--state-dir', state], env)
    expect(t.code, t.stderr).toBe(0)
    expect(t.stdout).toContain(`POST ${servers.fake.telegramBase}/bot<redacted>/sendMessage`)
    expect(servers.fake.requests).toHaveLength(0)
    expect(snapshot(state)).toEqual(snap)
    assertNoSecrets([r.stdout, t.stdout, r.stderr, t.stderr])
  })

  it('a retried send with the same --idempotency-key is neither sent nor mirrored twice', async () => {
    const {state, env} = setup(servers.fake)
    const args = ['--channel', 'telegram', '-t', '-100777', '-m', 'nightly report', '--idempotency-key', 'cron-2026-11-25', '--json', '--state-dir', state]
    const first = await send(args, env)
    expect(first.code, first.stderr).toBe(0)
    const second = await send(args, env)
    expect(second.code, second.stderr).toBe(0)
    expect(servers.fake.of('telegram')).toHaveLength(1)
    const a = json(first).payload
    const b = json(second).payload
    expect(b).toMatchObject({duplicate: true, result: {messageId: a.result!.messageId, chatId: '-100777'}, mirrored: {entryId: a.mirrored!.entryId, duplicate: true}})
    const lines = mirrors(transcriptLines(state, 'agent:main:telegram:group:-100777'))
    expect(lines).toHaveLength(1)
    expect(lines[0].message.idempotencyKey).toBe('cron-2026-11-25')
  })

  it('--no-mirror sends and writes nothing; --session-key sends the copy to another agent\'s session', async () => {
    const {state, env} = setup(servers.fake)
    const snap = snapshot(state)
    const r = await send(['--channel', 'telegram', '-t', '42', '-m', 'quiet', '--no-mirror', '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).payload.mirrored).toBeNull()
    expect(snapshot(state)).toEqual(snap)

    const w = await send(['--channel', 'telegram', '-t', '42', '-m', 'for work', '--session-key', 'agent:work:main', '--json', '--state-dir', state], env)
    expect(w.code, w.stderr).toBe(0)
    expect(json(w).payload.mirrored).toMatchObject({agentId: 'work', sessionKey: 'agent:work:main', created: false})
    expect(mirrors(transcriptLines(state, 'agent:work:main', 'work')).at(-1).message.content[0].text).toBe('for work')
  })

  it('channel selection and input errors as OpenClaw: Unknown channel, several configured, empty message, bad target', async () => {
    const {state, env} = setup(servers.fake)
    const unknown = await send(['--channel', 'pigeon', '-t', '1', '-m', 'x', '--state-dir', state], env)
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Error: Unknown channel: pigeon')
    const several = await send(['-t', '1', '-m', 'x', '--state-dir', state], env)
    expect(several.code).toBe(2)
    expect(several.stderr).toContain('Error: Channel is required when multiple channels are configured: telegram, discord, slack')
    const empty = await send(['--channel', 'telegram', '-t', '1', '-m', '  ', '--state-dir', state], env)
    expect(empty.stderr).toContain('Error: send requires text or media')
    const badTarget = await send(['--channel', 'discord', '-t', 'channel:general', '-m', 'x', '--state-dir', state], env)
    expect(badTarget.code).toBe(2)
    expect(badTarget.stderr).toContain('Invalid Discord target "channel:general"')
    const badReply = await send(['--channel', 'discord', '-t', '123456789012345678', '-m', 'x', '--reply-to', 'abc', '--state-dir', state], env)
    expect(badReply.code).toBe(2)
    expect(badReply.stderr).toContain('Discord --reply-to must be a numeric message id')
    const gateway = await send(['--channel', 'whatsapp', '-t', '+15550001', '-m', 'x', '--state-dir', state], env)
    expect(gateway.code).toBe(2)
    expect(gateway.stderr).toContain('Error: Channel is unavailable: whatsapp')
    const noToken = await send(['--channel', 'telegram', '-t', '1', '-m', 'x', '--state-dir', state], {...env, TELEGRAM_BOT_TOKEN: ''})
    expect(noToken.stderr).toContain('Telegram token missing')
    expect(servers.fake.requests).toHaveLength(0)
  })

  it('fresh state dir (no config, no agents yet): creates the private sessions dir, a 0600 index and a transcript with the workspace cwd', async () => {
    const {env, home} = setup(servers.fake)
    // An empty state dir (a named one that does not exist at all is refused: test/e2e/named-paths.test.ts).
    const state = path.join(tempDir(), 'fresh')
    fs.mkdirSync(state, {mode: 0o700})
    const r = await send(['--channel', 'slack', '-t', 'C0123ABCD', '-m', 'first words', '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    const dir = path.join(state, 'agents/main/sessions')
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    expect(fs.statSync(path.join(dir, 'sessions.json')).mode & 0o777).toBe(0o600)
    const key = 'agent:main:slack:channel:c0123abcd'
    expect(Object.keys(store(state))).toEqual([key])
    const lines = transcriptLines(state, key)
    // OpenClaw's default workspace: ~/.openclaw/workspace whatever the state dir.
    expect(lines[0]).toMatchObject({type: 'session', cwd: path.join(home, '.openclaw', 'workspace')})
    expect(lines[1].message.content[0].text).toBe('first words')
  })

  it('reads the token and base URL from openclaw.json (channels.telegram.botToken, apiBaseUrl) when the env has none', async () => {
    const {state, env} = setup(servers.fake, {config: {channels: {telegram: {botToken: TELEGRAM_TOKEN, apiBaseUrl: servers.fake.telegramBase}}}, env: {TELEGRAM_BOT_TOKEN: undefined, TELEGRAM_API_BASE: undefined, DISCORD_BOT_TOKEN: undefined, SLACK_BOT_TOKEN: undefined}})
    const r = await send(['-t', '42', '-m', 'from config', '--json', '--state-dir', state], env)
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).channel).toBe('telegram')
    expect(servers.fake.of('telegram')).toHaveLength(1)
  })
})
