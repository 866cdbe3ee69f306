// `clawkit message send`: deliver a message straight to Telegram, Discord, Slack or a webhook and mirror it into the session.
import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {refusedStoreUrlFlag, refuseReplicaWrite} from '../../fleet/flags.js'
import {messageSend, type MessageSendResult} from '../../channels/send.js'
import {printable} from '../../render/safe.js'
import {createSpinner} from '../../render/spinner.js'
import {renderSend} from '../../render/message/send.js'

export type {MessageSendResult} from '../../channels/send.js'

export default class MessageSend extends BaseCommand<typeof MessageSend> {
  static override summary = 'Send a message to a chat and copy it into the matching session'
  static override description =
    'Talks to the platform API directly (Telegram Bot API, Discord REST, Slack Web API, or a JSON webhook). On success the sent text is appended to the session the target maps to, as OpenClaw\'s "delivery-mirror" message (a record in its history; like OpenClaw, agent turns do not send it back to the model). Tokens come from openclaw.json (channels.<channel>) or TELEGRAM_BOT_TOKEN / DISCORD_BOT_TOKEN / SLACK_BOT_TOKEN.'
  static override examples = [
    '<%= config.bin %> message send --channel telegram -t 123456789 -m "Build finished"',
    '<%= config.bin %> message send --channel discord -t channel:123456789012345678 -m "Deployed" --media ./report.pdf',
    '<%= config.bin %> message send --channel slack -t channel:C0123ABCD -m "Follow-up" --thread-id 1712345678.000100',
    '<%= config.bin %> message send --channel telegram -t -1001234567890:topic:42 -m "hi" --dry-run --json',
  ]
  static override flags = {
    'store-url': refusedStoreUrlFlag,
    channel: Flags.string({description: 'telegram | discord | slack | webhook (default: the only configured channel)', helpValue: '<name>'}),
    target: Flags.string({char: 't', required: true, description: 'destination: Telegram chat id or @username; Discord/Slack channel:<id> or user:<id>; webhook URL', helpValue: '<dest>'}),
    message: Flags.string({char: 'm', description: 'message text (required unless --media)', helpValue: '<text>'}),
    media: Flags.string({description: 'one local file or http(s) URL to attach', helpValue: '<path-or-url>'}),
    'reply-to': Flags.string({description: 'reply to this message id (Slack: thread ts)', helpValue: '<id>'}),
    'thread-id': Flags.string({description: 'Telegram forum topic id, Slack thread ts, Discord thread channel id', helpValue: '<id>'}),
    silent: Flags.boolean({description: 'send without a notification (Telegram, Discord)'}),
    account: Flags.string({description: 'channel account id (channels.<channel>.accounts.<id>)', helpValue: '<id>'}),
    agent: Flags.string({description: 'agent whose session gets the copy (default: the default agent)', helpValue: '<id>'}),
    'session-key': Flags.string({description: 'copy into this session instead of the one the target maps to', helpValue: '<key>'}),
    mirror: Flags.boolean({description: 'copy the sent message into the session transcript', default: true, allowNo: true}),
    'idempotency-key': Flags.string({description: 'a retried send with the same key is neither sent nor copied again', helpValue: '<key>'}),
    'dry-run': Flags.boolean({description: 'validate and print the exact requests (token redacted); send and write nothing'}),
  }

  async run(): Promise<MessageSendResult> {
    refuseReplicaWrite(this.flags, 'clawkit message send ...')
    const f = this.flags
    const spinner = this.jsonEnabled() || f['dry-run'] ? undefined : (await createSpinner('Sending...'))?.start()
    let result: MessageSendResult
    try {
      result = await messageSend(this.openState(), {
        channel: f.channel,
        target: f.target,
        message: f.message,
        media: f.media,
        replyTo: f['reply-to'],
        threadId: f['thread-id'],
        silent: f.silent,
        account: f.account,
        agent: f.agent,
        sessionKey: f['session-key'],
        mirror: f.mirror,
        dryRun: f['dry-run'],
        idempotencyKey: f['idempotency-key'],
      })
    } finally {
      spinner?.stop()
    }
    if (!this.jsonEnabled()) {
      this.out(renderSend(result))
      const me = result.payload.mirrorError
      if (me) process.stderr.write(`Warning: the message was sent, but its copy could not be written to ${printable(result.payload.session.sessionKey)}: ${printable(me.message)}\n`)
    }
    return result
  }
}
